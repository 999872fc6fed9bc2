// The outage process (see outages.hpp).
#include "powerzoo/envs/outages.hpp"

#include <algorithm>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"
#include "powerzoo/data/csv.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/grid/case/energized.hpp"

namespace pz::envs {
namespace {

using data::OutageElement;

void set_out(std::vector<uint8_t>& on, std::vector<int>& left, int i, int steps) {
  on[i] = 0;
  left[i] = steps;
}

// Step (1) of the process for one kind: one draw per element that can fail.
void random_step(const std::vector<int>& rows, double rate, int duration, std::vector<uint8_t>& on,
                 std::vector<int>& left, core::Rng& rng) {
  for (int i : rows) {
    const double u = rng.uniform();
    if (on[i]) {
      if (u < rate) set_out(on, left, i, duration);
    } else if (left[i] > 0 && --left[i] == 0) {
      on[i] = 1;
    }
  }
}

}  // namespace

OutageProcess::OutageProcess(OutageParams p, const grid::Case& c, int horizon)
    : p_(std::move(p)), horizon_(horizon) {
  data::check_outage_schedule(p_.schedule, c.n_branch(), c.n_gen(), horizon);
  for (int l = 0; l < c.n_branch(); ++l) branch_case_on_.push_back(c.branch[l].status > 0);
  for (int g = 0; g < c.n_gen(); ++g) gen_case_on_.push_back(c.gen[g].status > 0);
  for (const auto& e : p_.schedule.events) {
    const bool br = e.element == OutageElement::kBranch;
    if (!(br ? branch_case_on_ : gen_case_on_)[e.index - 1])
      throw core::ConfigError(data::csv_where(p_.schedule.path, e.line) + "expected a " +
                              data::outage_element_name(e.element) +
                              " in service in the case, found " +
                              data::outage_element_name(e.element) + " " + std::to_string(e.index) +
                              " out of service (or on a dead island)");
    (br ? track_branch_ : track_gen_) = true;
  }
  if (p_.rate > 0) {
    if (p_.random_branch)
      for (int l = 0; l < c.n_branch(); ++l)
        if (branch_case_on_[l]) fail_branch_.push_back(l);
    if (p_.random_gen)
      for (int g = 0; g < c.n_gen(); ++g)
        if (gen_case_on_[g]) fail_gen_.push_back(g);
  }
  if (p_.n1 != OutageParams::N1::kNone) {
    const bool br = p_.n1 == OutageParams::N1::kBranch;
    const auto& case_on = br ? branch_case_on_ : gen_case_on_;
    for (size_t i = 0; i < case_on.size(); ++i)
      if (case_on[i]) n1_rows_.push_back(static_cast<int>(i));
    if (n1_rows_.empty())
      throw core::ConfigError(std::string("[env] outage_n1: expected a case with a ") +
                              (br ? "branch" : "gen") + " in service, found none");
    if (p_.n1_steps > horizon)
      throw core::ConfigError("[env] outage_n1_steps: expected at most the horizon (" +
                              std::to_string(horizon) + " steps), found " +
                              std::to_string(p_.n1_steps));
    (br ? track_branch_ : track_gen_) = true;
  }
  track_branch_ = track_branch_ || !fail_branch_.empty();
  track_gen_ = track_gen_ || !fail_gen_.empty();
  active_ = track_branch_ || track_gen_;
}

OutageProcess::OutageProcess(OutageParams p, const std::vector<OutageComponent>& kinds, int horizon)
    : p_(std::move(p)), horizon_(horizon) {
  std::vector<std::string> names;
  std::vector<int> counts, first;  // first: the kind's first row
  for (const OutageComponent& k : kinds) {
    names.push_back(k.name);
    counts.push_back(k.count);
    first.push_back(static_cast<int>(gen_case_on_.size()));
    for (int u = 0; u < k.count; ++u) {
      if (p_.rate > 0 && k.random) fail_gen_.push_back(static_cast<int>(gen_case_on_.size()));
      gen_case_on_.push_back(1);
    }
  }
  data::check_outage_schedule(p_.schedule, names, counts, horizon);
  // The rows as the grid form's: component rows are gen rows.
  for (auto& e : p_.schedule.events) e.index += first[static_cast<size_t>(e.kind)];
  track_gen_ = !p_.schedule.empty() || !fail_gen_.empty();
  if (p_.n1 != OutageParams::N1::kNone) {
    for (size_t i = 0; i < gen_case_on_.size(); ++i) n1_rows_.push_back(static_cast<int>(i));
    if (p_.n1_steps > horizon)
      throw core::ConfigError("[env] outage_n1_steps: expected at most the horizon (" +
                              std::to_string(horizon) + " steps), found " +
                              std::to_string(p_.n1_steps));
    track_gen_ = track_gen_ || !n1_rows_.empty();
  }
  active_ = track_gen_;
}

void OutageProcess::make_state(OutageState& s) const {
  s.branch_on = branch_case_on_;
  s.gen_on = gen_case_on_;
  s.branch_left.assign(branch_case_on_.size(), 0);
  s.gen_left.assign(gen_case_on_.size(), 0);
  s.solved_branch_on = s.branch_on;
  s.solved_gen_on = s.gen_on;
}

void OutageProcess::reset(OutageState& s, core::Rng& rng) const {
  if (!active_) return;
  make_state(s);
  s.n1_row = s.n1_start = -1;
  if (!n1_rows_.empty()) {
    const double u_row = rng.uniform(), u_start = rng.uniform();
    const int n = static_cast<int>(n1_rows_.size()), starts = horizon_ - p_.n1_steps + 1;
    s.n1_row = n1_rows_[std::min(n - 1, static_cast<int>(u_row * n))];
    s.n1_start = std::min(starts - 1, static_cast<int>(u_start * starts));
  }
  advance(s, 0, rng);
  s.solved_branch_on = s.branch_on;
  s.solved_gen_on = s.gen_on;
}

// The N-1 outage at step t: out (held) from its first step, back after n1_steps steps.
void OutageProcess::n1_step(OutageState& s, int t) const {
  if (s.n1_row < 0) return;
  const bool br = p_.n1 == OutageParams::N1::kBranch;
  auto& on = br ? s.branch_on : s.gen_on;
  auto& left = br ? s.branch_left : s.gen_left;
  if (t == s.n1_start) {
    on[s.n1_row] = 0;
    left[s.n1_row] = OutageState::kHeld;
  } else if (t == s.n1_start + p_.n1_steps && left[s.n1_row] == OutageState::kHeld) {
    on[s.n1_row] = 1;
    left[s.n1_row] = 0;
  }
}

void OutageProcess::advance(OutageState& s, int t, core::Rng& rng) const {
  if (!active_) return;
  n1_step(s, t);
  random_step(fail_branch_, p_.rate, p_.duration_steps, s.branch_on, s.branch_left, rng);
  random_step(fail_gen_, p_.rate, p_.duration_steps, s.gen_on, s.gen_left, rng);
  const auto& ev = p_.schedule.events;
  auto it = std::lower_bound(ev.begin(), ev.end(), t,
                             [](const data::OutageEvent& e, int step) { return e.step < step; });
  for (; it != ev.end() && it->step == t; ++it) {
    const bool br = it->element == OutageElement::kBranch;
    auto& on = br ? s.branch_on : s.gen_on;
    auto& left = br ? s.branch_left : s.gen_left;
    const int i = it->index - 1;
    on[i] = static_cast<uint8_t>(it->status);
    left[i] = it->status ? 0 : OutageState::kHeld;
  }
}

void OutageProcess::end_step(OutageState& s, int t, core::Rng& rng) const {
  if (!active_) return;
  s.solved_branch_on = s.branch_on;
  s.solved_gen_on = s.gen_on;
  if (t < horizon_) advance(s, t, rng);
}

namespace {
// First value of a saved outage state with tracked rows: the layout with three values per row
// (status, steps left, solved status). The first layout (two values per row, before the traces
// recorded the solved status) began with a status, 0 or 1, so a tag below 0 tells them apart.
constexpr double kLayoutTag = -2.0;
}  // namespace

void OutageProcess::save_state(const OutageState& s, std::vector<double>& out) const {
  if (track_branch_ || track_gen_) out.push_back(kLayoutTag);
  if (track_branch_)
    for (size_t l = 0; l < s.branch_on.size(); ++l) {
      out.push_back(s.branch_on[l]);
      out.push_back(s.branch_left[l]);
      out.push_back(s.solved_branch_on[l]);
    }
  if (track_gen_)
    for (size_t g = 0; g < s.gen_on.size(); ++g) {
      out.push_back(s.gen_on[g]);
      out.push_back(s.gen_left[g]);
      out.push_back(s.solved_gen_on[g]);
    }
  if (!n1_rows_.empty()) {
    out.push_back(s.n1_row);
    out.push_back(s.n1_start);
  }
}

size_t OutageProcess::load_state(OutageState& s, std::span<const double> in) const {
  // The layout tag, three values per row of a tracked kind (status, steps left, solved status),
  // two for N-1.
  const bool tracks = track_branch_ || track_gen_;
  const size_t n =
      (tracks ? 1 : 0) +
      3 * ((track_branch_ ? s.branch_on.size() : 0) + (track_gen_ ? s.gen_on.size() : 0)) +
      (n1_rows_.empty() ? 0 : 2);
  if (in.size() < n)
    throw core::ConfigError("checkpoint: outage state has " + std::to_string(in.size()) +
                            " values, expected " + std::to_string(n));
  size_t k = 0;
  if (tracks && in[k++] != kLayoutTag)
    throw core::ConfigError(
        "checkpoint: outage state: expected the layout tag " + core::format_number(kLayoutTag) +
        " (three values per element: status, steps left, solved status), found " +
        core::format_number(in[0]) +
        ": a checkpoint written before the traces recorded the solved status (two values per "
        "element) cannot be resumed or evaluated by this version; train it again");
  const auto read = [&](std::vector<uint8_t>& on, std::vector<int>& left,
                        std::vector<uint8_t>& solved, const std::vector<uint8_t>& case_on) {
    for (size_t i = 0; i < on.size(); ++i) {
      on[i] = static_cast<uint8_t>(state_int(in[k++], 0, case_on[i], "outage status"));
      left[i] = state_int(in[k++], OutageState::kHeld, std::max(p_.duration_steps, 1),
                          "outage steps left");
      solved[i] = static_cast<uint8_t>(state_int(in[k++], 0, case_on[i], "solved outage status"));
    }
  };
  if (track_branch_) read(s.branch_on, s.branch_left, s.solved_branch_on, branch_case_on_);
  if (track_gen_) read(s.gen_on, s.gen_left, s.solved_gen_on, gen_case_on_);
  if (!n1_rows_.empty()) {
    const int rows = static_cast<int>(
        (p_.n1 == OutageParams::N1::kBranch ? branch_case_on_ : gen_case_on_).size());
    s.n1_row = state_int(in[k++], 0, rows - 1, "N-1 outage row");
    s.n1_start = state_int(in[k++], 0, horizon_ - p_.n1_steps, "N-1 outage start");
  }
  return n;
}

grid::Case outage_case(const grid::Case& c, const std::vector<uint8_t>& branch_on,
                       const std::vector<uint8_t>& gen_on, std::vector<int>* dead) {
  grid::Case e = c;
  for (int l = 0; l < e.n_branch(); ++l)
    if (!branch_on[l]) e.branch[l].status = 0;
  for (int g = 0; g < e.n_gen(); ++g)
    if (!gen_on[g]) e.gen[g].status = 0;
  return grid::energize(e, dead);
}

std::vector<core::ParamDef> outage_params(const std::vector<std::string>& n1_kinds) {
  std::vector<core::ParamDef> out = {
      core::str_param("outages", "",
                      "scenario file of scheduled outages: CSV step,element,index,status "
                      "(docs/outages.md; relative to the spec); empty = none"),
      core::float_param(
          "outage_rate", 0.0, [](double x) { return x >= 0 && x < 1; }, "a number in [0, 1)",
          "random outages: probability per element and step that an element in service fails "
          "(per step, not per hour: 1 − exp(−λ·dt_hours) for a failure rate λ per hour); 0 = none"),
      core::int_param("outage_duration_steps", 1, 1, 1000000,
                      "random outages: steps an element stays out after it fails"),
      core::choice_param("outage_elements", "branch", {"branch", "gen", "branch,gen"},
                         "random outages: the kinds of element that can fail (every in-service row "
                         "of the case of that kind)"),
  };
  out.push_back(core::choice_param(
      "outage_n1", "none", {"none", "branch", "gen"},
      "N-1: one random outage per episode of this kind (an in-service row drawn uniformly at "
      "reset, from a uniformly drawn step, for outage_n1_steps steps); the n1_branch and n1_gen "
      "evaluation splits set it"));
  out.push_back(core::int_param("outage_n1_steps", 24, 1, 1000000,
                                "N-1: steps the episode's outage lasts (at most the horizon)"));
  out.back().applies = "outage_n1 != \"none\"";
  // An n1_* evaluation split sets outage_n1 after this check, with the task's own length
  // unless the spec names the split's kind itself: say so, the split alone does not read it.
  std::string splits, sets;
  for (size_t i = 0; i < n1_kinds.size(); ++i) {
    const std::string sep = i == 0 ? "" : (i + 1 == n1_kinds.size() ? " or " : ", ");
    splits += sep + "n1_" + n1_kinds[i];
    sets += sep + "env.outage_n1=" + n1_kinds[i];
  }
  const std::string why = "only the N-1 outage reads it, found outage_n1 = none (an " + splits +
                          " split lasts its task's own number of steps; to set them, set "
                          "outage_n1 to the split's kind as well: " +
                          sets + ")";
  out.back().inapplicable = [why](const core::ParamTable& t) -> std::string {
    return t.str("outage_n1") != "none" ? "" : why;
  };
  out.push_back(core::choice_param(
      "outage_status_obs", "auto", {"auto", "true", "false"},
      "the observation carries the outage status fields (branch_status, gen_status, "
      "component_status): true, false (the policy acts blind to outages; physics, costs and "
      "traces unchanged) or auto = true iff this spec configures outages (outages, "
      "outage_rate > 0, outage_n1), decided before an n1 split adds its outage, so a policy "
      "trained without outages evaluates on the n1 splits; the resolved spec records true/false"));
  out[0].is_path = true;
  out[0].file_only = true;  // scenario files have no bundled names
  for (size_t i = 2; i < 4; ++i) {
    out[i].applies = "outage_rate > 0";
    out[i].inapplicable = [](const core::ParamTable& t) -> std::string {
      return t.number("outage_rate") > 0 ? ""
                                         : "only random outages read it, found outage_rate = 0";
    };
  }
  return out;
}

OutageParams outage_params_from(const core::ParamTable& e) {
  OutageParams p;
  if (!e.str("outages").empty()) p.schedule = data::read_outage_schedule(e.str("outages"));
  p.rate = e.number("outage_rate");
  p.duration_steps = static_cast<int>(e.integer("outage_duration_steps"));
  const std::string& kinds = e.str("outage_elements");
  p.random_branch = p.rate > 0 && kinds.find("branch") != std::string::npos;
  p.random_gen = p.rate > 0 && kinds.find("gen") != std::string::npos;
  const std::string& n1 = e.str("outage_n1");
  p.n1 = n1 == "branch" ? OutageParams::N1::kBranch
                        : (n1 == "gen" ? OutageParams::N1::kGen : OutageParams::N1::kNone);
  p.n1_steps = static_cast<int>(e.integer("outage_n1_steps"));
  p.status_obs = outage_status_obs_resolved(e);
  return p;
}

bool outage_status_obs_resolved(const core::ParamTable& e) {
  const std::string v = e.has("outage_status_obs") ? e.str("outage_status_obs") : "auto";
  if (v != "auto") return v == "true";
  const auto set = [&](const char* k) { return e.has(k); };
  return (set("outages") && !e.str("outages").empty()) ||
         (set("outage_rate") && e.number("outage_rate") > 0) ||
         (set("outage_n1") && e.str("outage_n1") != "none");
}

}  // namespace pz::envs
