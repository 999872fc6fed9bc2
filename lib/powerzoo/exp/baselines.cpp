// Baseline registry: generic baselines plus the task-specific ones.
#include "powerzoo/exp/baselines.hpp"

#include <algorithm>

#include "powerzoo/core/error.hpp"

namespace pz::exp {

std::vector<std::string> baseline_names(const io::Spec& spec) {
  std::vector<std::string> names = {"zero_action"};
  (void)spec;  // task-specific names are added below as tasks provide them
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
  std::string known;
  for (const auto& n : baseline_names(spec)) known += (known.empty() ? "" : ", ") + n;
  throw core::ConfigError("--policy: expected one of " + known + ", found '" + name + "'");
}

}  // namespace pz::exp
