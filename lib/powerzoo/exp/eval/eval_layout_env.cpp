// The checkpoint's layout at evaluation (see eval_layout_env.hpp).
#include "powerzoo/exp/eval/eval_layout_env.hpp"

#include <algorithm>
#include <unordered_map>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/network_view.hpp"

namespace pz::exp {
namespace {

using envs::EnvSpec;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The observation fields of the outage status (docs/outages.md), alone or in an agent's block.
bool is_status_field(const std::string& name) {
  for (const char* f : {"branch_status", "gen_status", "component_status"})
    if (name == f || ends_with(name, std::string("/") + f)) return true;
  return false;
}

// The cost channels an env adds only when outages are configured (docs/outages.md).
bool is_outage_channel(const std::string& name) {
  return name == "unserved_load" || name == "spilled_generation";
}

// The fields of `a` that `b` lacks (same name and size), each as "name [size]".
std::vector<std::string> fields_not_in(const EnvSpec& a, const EnvSpec& b) {
  std::vector<std::string> out;
  for (const auto& f : a.obs_fields) {
    const bool in_b = std::any_of(b.obs_fields.begin(), b.obs_fields.end(), [&](const auto& g) {
      return g.name == f.name && g.slice.size == f.slice.size;
    });
    if (!in_b) out.push_back(f.name + " [" + std::to_string(f.slice.size) + "]");
  }
  return out;
}

std::string join_some(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size() && i < 6; ++i) s += (i ? ", " : "") + v[i];
  if (v.size() > 6) s += " and " + std::to_string(v.size() - 6) + " more";
  return s;
}

bool all_status(const std::vector<std::string>& fields) {
  return std::all_of(fields.begin(), fields.end(), [](const std::string& f) {
    return is_status_field(f.substr(0, f.rfind(" [")));
  });
}

bool observes_status(const EnvSpec& s) {
  return std::any_of(s.obs_fields.begin(), s.obs_fields.end(),
                     [](const auto& f) { return is_status_field(f.name); });
}

std::string obs_refusal(const EnvSpec& trained, const EnvSpec& eval, bool may_fill_status,
                        LayoutMatch& m) {
  if (trained.obs_dim == eval.obs_dim && trained.obs_feature_names() == eval.obs_feature_names())
    return "";
  const auto added = fields_not_in(eval, trained), missing = fields_not_in(trained, eval);
  // Status fields the eval env adds are dropped when the policy observed the status of other
  // kinds: it acts blind to the kinds it never saw (a checkpoint trained with branch outages on
  // the n1_gen split), as a checkpoint trained without outages acts blind to all of them.
  const bool drop_added =
      !added.empty() && all_status(added) && may_fill_status && observes_status(trained);
  const bool fill_missing = missing.empty() || (all_status(missing) && may_fill_status);
  const bool reordered = added.empty() && missing.empty();
  if (!reordered && (added.empty() || drop_added) && fill_missing) {
    m.adapt = true;
    m.blind = added;
    return "";
  }
  std::string what = "an observation of " + std::to_string(eval.obs_dim) +
                     " values instead of the checkpoint's " + std::to_string(trained.obs_dim);
  if (!added.empty())
    what += ": it adds " + join_some(added) + ", which the checkpoint's policy was trained without";
  // Status fields lacking while the eval spec observes the status (may_fill_status) belong to
  // kinds of element that cannot go out here, not to outage_status_obs = false.
  if (!missing.empty())
    what += std::string(added.empty() ? ": it" : ", and it") + " lacks " + join_some(missing) +
            ", which the checkpoint's policy was trained with" +
            (all_status(missing) && !may_fill_status
                 ? " (outage_status_obs = false hides the outage status)"
                 : "");
  if (added.empty() && missing.empty()) what += " (the same fields, in another order)";
  return what;
}

}  // namespace

LayoutMatch match_layout(const EnvSpec& trained, const EnvSpec& eval, bool may_fill_status) {
  LayoutMatch m;
  std::string& what = m.refusal;
  if (trained.id != eval.id) {
    what = "env '" + eval.id + "' instead of the checkpoint's '" + trained.id + "'";
  } else if (trained.act_dim != eval.act_dim ||
             trained.action_feature_names() != eval.action_feature_names()) {
    what = "an action of " + std::to_string(eval.act_dim) + " values instead of the checkpoint's " +
           std::to_string(trained.act_dim) +
           (trained.act_dim == eval.act_dim ? " (other agents)" : "");
  } else if (trained.n_agents() != eval.n_agents()) {
    what = std::to_string(eval.n_agents()) + " agents instead of the checkpoint's " +
           std::to_string(trained.n_agents());
  } else {
    what = obs_refusal(trained, eval, may_fill_status, m);
  }
  if (!what.empty()) return m;
  for (const auto& c : trained.cost_names) {
    if (std::find(eval.cost_names.begin(), eval.cost_names.end(), c) != eval.cost_names.end())
      continue;
    if (is_outage_channel(c)) {
      m.adapt = true;  // outages switched off: nothing is unserved
      continue;
    }
    what = "no cost channel '" + c + "', which the checkpoint's env has";
    m.adapt = false;
    break;
  }
  return m;
}

namespace {

struct LayoutState : envs::State {
  std::unique_ptr<envs::State> inner;
  std::vector<float> obs, costs;
  mutable std::vector<float> trace;  // inner's trace vectors, scratch of write_trace
};

}  // namespace

EvalLayoutEnv::EvalLayoutEnv(std::shared_ptr<const envs::Env> inner, const EnvSpec& trained)
    : inner_(std::move(inner)), spec_(inner_->spec()) {
  const EnvSpec& in = inner_->spec();
  std::unordered_map<std::string, int> at;
  const auto in_names = in.obs_feature_names();
  for (size_t i = 0; i < in_names.size(); ++i) at[in_names[i]] = static_cast<int>(i);
  const auto names = trained.obs_feature_names();
  for (const auto& n : names) {
    if (auto it = at.find(n); it != at.end()) {
      from_.push_back(it->second);
      continue;
    }
    if (!is_status_field(n.substr(0, n.find('['))))
      throw core::ConfigError("expected the observation element '" + n +
                              "' of the checkpoint in the env of the evaluation, found none");
    from_.push_back(-1);
  }
  spec_.obs_dim = trained.obs_dim;
  spec_.obs_fields = trained.obs_fields;
  spec_.agents = trained.agents;
  for (const auto& c : trained.cost_names)
    if (std::find(in.cost_names.begin(), in.cost_names.end(), c) == in.cost_names.end())
      spec_.cost_names.push_back(c);
  map_traces(trained);
}

// The traces in the checkpoint's order, as the observation: a status vector of `trained` that
// inner lacks is written as 1 (in service), so info/branch_status lines up with the observed
// status; inner's other vectors follow.
void EvalLayoutEnv::map_traces(const EnvSpec& trained) {
  const EnvSpec& in = inner_->spec();
  std::vector<int> offset;
  int o = 0;
  for (const auto& v : in.trace_vectors) {
    offset.push_back(o);
    o += v.size;
  }
  std::vector<bool> used(in.trace_vectors.size(), false);
  spec_.trace_vectors.clear();
  for (const auto& v : trained.trace_vectors) {
    int at = -1;
    for (size_t j = 0; j < in.trace_vectors.size(); ++j)
      if (in.trace_vectors[j].name == v.name && in.trace_vectors[j].size == v.size) {
        at = offset[j];
        used[j] = true;
      }
    if (at < 0 && !is_status_field(v.name)) continue;  // not written without it: nothing to show
    spec_.trace_vectors.push_back(v);
    trace_from_.push_back({at, v.size});
  }
  for (size_t j = 0; j < in.trace_vectors.size(); ++j) {
    if (used[j]) continue;
    spec_.trace_vectors.push_back(in.trace_vectors[j]);
    trace_from_.push_back({offset[j], in.trace_vectors[j].size});
  }
}

std::unique_ptr<envs::State> EvalLayoutEnv::make_state() const {
  auto s = std::make_unique<LayoutState>();
  s->inner = inner_->make_state();
  s->obs.resize(static_cast<size_t>(inner_->spec().obs_dim));
  s->costs.resize(inner_->spec().cost_names.size());
  s->trace.resize(static_cast<size_t>(envs::trace_vector_width(inner_->spec())));
  return s;
}

void EvalLayoutEnv::map_obs(std::span<const float> inner, std::span<float> obs) const {
  for (size_t i = 0; i < from_.size(); ++i) obs[i] = from_[i] < 0 ? 1.0f : inner[from_[i]];
}

void EvalLayoutEnv::reset(envs::State& s, core::Rng& rng, std::span<float> obs,
                          const envs::ResetOptions& opt) const {
  auto& ls = static_cast<LayoutState&>(s);
  inner_->reset(*ls.inner, rng, ls.obs, opt);
  map_obs(ls.obs, obs);
}

envs::Step EvalLayoutEnv::step(envs::State& s, std::span<const float> action, core::Rng& rng,
                               std::span<float> obs, std::span<float> costs,
                               envs::Info* info) const {
  auto& ls = static_cast<LayoutState&>(s);
  const envs::Step st = inner_->step(*ls.inner, action, rng, ls.obs, ls.costs, info);
  map_obs(ls.obs, obs);
  std::copy(ls.costs.begin(), ls.costs.end(), costs.begin());
  std::fill(costs.begin() + static_cast<std::ptrdiff_t>(ls.costs.size()), costs.end(), 0.0f);
  return st;
}

void EvalLayoutEnv::write_trace(const envs::State& s, std::span<float> out) const {
  const auto& ls = static_cast<const LayoutState&>(s);
  inner_->write_trace(*ls.inner, ls.trace);
  size_t k = 0;
  for (const auto& [from, size] : trace_from_)
    for (int i = 0; i < size; ++i) out[k++] = from < 0 ? 1.0f : ls.trace[from + i];
}

void EvalLayoutEnv::save_state(const envs::State& s, std::vector<double>& out) const {
  inner_->save_state(*static_cast<const LayoutState&>(s).inner, out);
}

size_t EvalLayoutEnv::load_state(envs::State& s, std::span<const double> in) const {
  return inner_->load_state(*static_cast<LayoutState&>(s).inner, in);
}

}  // namespace pz::exp
