// Builds environments from a resolved spec (cases, profiles, splits) and validates env-level keys.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/io/spec.hpp"

namespace pz::exp {

/// Registered env ids with a one-line description (for `powerzoo envs`).
std::vector<std::pair<std::string, std::string>> env_catalog();

/// Builds the env of spec.env on `split` (train, iid, ...). Loads the case and the profile (cached
/// per process), normalizes demand by the train-split mean. Throws core::ConfigError naming the
/// spec file and key for an unknown env id, case, profile or split.
std::shared_ptr<const envs::Env> make_env(const io::Spec& spec, const std::string& split);

/// Penalty weights [n_costs] in the env's channel order; throws ConfigError naming
/// [reward] penalty and the known channels for an unknown channel name.
std::vector<double> penalty_weights(const io::Spec& spec, const envs::EnvSpec& env_spec);

/// Human-readable summary of the data behind the env (case, profile gaps, split sizes).
std::string describe_data(const io::Spec& spec);

}  // namespace pz::exp
