// Baseline registry: generic baselines plus the task-specific ones.
#include "powerzoo/exp/baselines.hpp"

#include <algorithm>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/task_dso.hpp"
#include "powerzoo/exp/task_tso.hpp"

namespace pz::exp {

std::vector<std::string> baseline_names(const io::Spec& spec) {
  std::vector<std::string> names = {"zero_action"};
  if (spec.env.task == "dso" || spec.env.id == "dist_grid")
    names.insert(names.end(), dso_baseline_names().begin(), dso_baseline_names().end());
  if (spec.env.task == "tso" || spec.env.id == "unit_commitment") {
    names.push_back("all_on");
    names.push_back("merit_order");
  }
  return names;
}

PolicyFn baseline_policy(const std::string& name, const io::Spec& spec,
                         std::shared_ptr<const envs::Env> env) {
  const int act_dim = env->spec().act_dim;
  if (name == "zero_action") {
    return [act_dim](const float*, int n, float* a) {
      std::fill(a, a + static_cast<size_t>(n) * act_dim, 0.0f);
    };
  }
  if (spec.env.task == "dso" || spec.env.id == "dist_grid")
    if (auto fn = dso_baseline(name, env)) return *fn;
  if (spec.env.task == "tso" || spec.env.id == "unit_commitment") {
    if (auto fn = tso_baseline(name, env)) return *fn;
  }
  std::string known;
  for (const auto& n : baseline_names(spec)) known += (known.empty() ? "" : ", ") + n;
  throw core::ConfigError("--policy: expected one of " + known + ", found '" + name + "'");
}

}  // namespace pz::exp
