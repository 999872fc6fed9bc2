// The Env contract: agent and observation-field lookups, default (unsupported) serialization.
#include "powerzoo/envs/env.hpp"

#include "powerzoo/core/error.hpp"

namespace pz::envs {

std::vector<ObsField> tile_obs_fields(const std::vector<std::pair<std::string, int>>& sizes) {
  std::vector<ObsField> out;
  int offset = 0;
  for (const auto& [name, size] : sizes) {
    out.push_back(ObsField{name, Slice{offset, size}});
    offset += size;
  }
  return out;
}

std::vector<AgentSpec> EnvSpec::agent_list() const {
  if (!agents.empty()) return agents;
  return {AgentSpec{"agent", "agent", Slice{0, obs_dim}, Slice{0, act_dim}}};
}

std::vector<std::string> EnvSpec::obs_feature_names() const {
  std::vector<std::string> out(static_cast<size_t>(obs_dim));
  for (int i = 0; i < obs_dim; ++i) out[i] = "obs[" + std::to_string(i) + "]";
  for (const auto& f : obs_fields)
    for (int j = 0; j < f.slice.size && f.slice.offset + j < obs_dim; ++j)
      out[f.slice.offset + j] = f.slice.size == 1 ? f.name : f.name + "[" + std::to_string(j) + "]";
  return out;
}

std::vector<std::string> EnvSpec::action_feature_names() const {
  std::vector<std::string> out(static_cast<size_t>(act_dim));
  for (int i = 0; i < act_dim; ++i) out[i] = "a[" + std::to_string(i) + "]";
  for (const auto& a : agents)
    for (int j = 0; j < a.act.size && a.act.offset + j < act_dim; ++j)
      out[a.act.offset + j] = a.name + "[" + std::to_string(j) + "]";
  return out;
}

Slice EnvSpec::obs_field(const std::string& name) const {
  std::string known;
  for (const auto& f : obs_fields) {
    if (f.name == name) return f.slice;
    known += (known.empty() ? "" : ", ") + f.name;
  }
  throw core::ConfigError("env " + id + ": no observation field '" + name + "' (fields: " + known +
                          ")");
}

void Env::write_trace(const State&, std::span<float>) const {}

void Env::save_state(const State&, std::vector<double>&) const {
  throw core::RunError("env " + spec().id + " does not support saving its state in checkpoints");
}

size_t Env::load_state(State&, std::span<const double>) const {
  throw core::ConfigError("env " + spec().id + " does not support restoring its state");
}

}  // namespace pz::envs
