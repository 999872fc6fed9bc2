// Builds environments from a resolved spec through the env registry; validates env-level keys.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/spec.hpp"

namespace pz::exp {

/// The registry entry (env or task preset) that builds the spec's env. Throws core::ConfigError.
const envs::EnvEntry& env_entry(const Spec& spec);

/// Checks a split given on the command line (`--split` of eval and baseline) against the spec's
/// env; an env that lists no splits takes any. Throws core::ConfigError naming --split, the
/// splits and a did-you-mean.
void check_split_option(const Spec& spec, const std::string& split);

/// Builds the env of spec.env on `split` (train, iid, ...) with the entry's factory. Throws
/// core::ConfigError naming the spec file and key for an unknown case, profile or split.
std::shared_ptr<const envs::Env> make_env(const Spec& spec, const std::string& split);

/// Penalty weights [n_costs] in the env's channel order; throws ConfigError naming
/// [reward] penalty and the known channels for an unknown channel name.
std::vector<double> penalty_weights(const Spec& spec, const envs::EnvSpec& env_spec);

/// Human-readable summary of the data behind the env (case, profile gaps, split sizes).
std::string describe_data(const Spec& spec);

}  // namespace pz::exp
