// Non-learning baseline policies by name (`powerzoo baseline --policy NAME`).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/exp/evaluate.hpp"
#include "powerzoo/io/spec.hpp"

namespace pz::exp {

/// Baseline names available for the spec's env (e.g. {"zero_action"} for trans_grid).
std::vector<std::string> baseline_names(const io::Spec& spec);

/// The named baseline as a PolicyFn over observations of `env` (built from `spec`).
/// Throws core::ConfigError listing baseline_names(spec) for an unknown name.
PolicyFn baseline_policy(const std::string& name, const io::Spec& spec,
                         std::shared_ptr<const envs::Env> env);

}  // namespace pz::exp
