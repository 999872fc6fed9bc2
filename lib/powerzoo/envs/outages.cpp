// The outage process (see outages.hpp).
#include "powerzoo/envs/outages.hpp"

#include <algorithm>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/csv.hpp"
#include "powerzoo/envs/episode.hpp"

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

OutageProcess::OutageProcess(OutageParams p, const grid::Case& c, int horizon) : p_(std::move(p)) {
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
  track_branch_ = track_branch_ || !fail_branch_.empty();
  track_gen_ = track_gen_ || !fail_gen_.empty();
  active_ = track_branch_ || track_gen_;
}

void OutageProcess::make_state(OutageState& s) const {
  s.branch_on = branch_case_on_;
  s.gen_on = gen_case_on_;
  s.branch_left.assign(branch_case_on_.size(), 0);
  s.gen_left.assign(gen_case_on_.size(), 0);
}

void OutageProcess::reset(OutageState& s, core::Rng& rng) const {
  if (!active_) return;
  make_state(s);
  advance(s, 0, rng);
}

void OutageProcess::advance(OutageState& s, int t, core::Rng& rng) const {
  if (!active_) return;
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

void OutageProcess::save_state(const OutageState& s, std::vector<double>& out) const {
  if (track_branch_)
    for (size_t l = 0; l < s.branch_on.size(); ++l) {
      out.push_back(s.branch_on[l]);
      out.push_back(s.branch_left[l]);
    }
  if (track_gen_)
    for (size_t g = 0; g < s.gen_on.size(); ++g) {
      out.push_back(s.gen_on[g]);
      out.push_back(s.gen_left[g]);
    }
}

size_t OutageProcess::load_state(OutageState& s, std::span<const double> in) const {
  const size_t n =
      2 * ((track_branch_ ? s.branch_on.size() : 0) + (track_gen_ ? s.gen_on.size() : 0));
  if (in.size() < n)
    throw core::ConfigError("checkpoint: outage state has " + std::to_string(in.size()) +
                            " values, expected " + std::to_string(n));
  size_t k = 0;
  const auto read = [&](std::vector<uint8_t>& on, std::vector<int>& left,
                        const std::vector<uint8_t>& case_on) {
    for (size_t i = 0; i < on.size(); ++i) {
      on[i] = static_cast<uint8_t>(state_int(in[k++], 0, case_on[i], "outage status"));
      left[i] = state_int(in[k++], OutageState::kHeld, std::max(p_.duration_steps, 1),
                          "outage steps left");
    }
  };
  if (track_branch_) read(s.branch_on, s.branch_left, branch_case_on_);
  if (track_gen_) read(s.gen_on, s.gen_left, gen_case_on_);
  return n;
}

std::vector<core::ParamDef> outage_params() {
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
  out[0].is_path = true;
  for (size_t i = 2; i < out.size(); ++i) {
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
  return p;
}

}  // namespace pz::envs
