// Env construction from a spec through the registry; penalty weights by channel name.
#include "powerzoo/exp/spec/build.hpp"

#include <algorithm>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::exp {
namespace {

std::string where(const Spec& s) {
  return (s.source_path.empty() ? std::string("spec") : s.source_path) + ": ";
}

}  // namespace

const envs::EnvEntry& env_entry(const Spec& spec) {
  return envs::resolve_entry(spec.env.id, spec.env.task, true, where(spec), where(spec));
}

void check_split_option(const Spec& spec, const std::string& split) {
  const envs::EnvEntry& entry = env_entry(spec);
  if (entry.splits.empty() ||
      std::find(entry.splits.begin(), entry.splits.end(), split) != entry.splits.end())
    return;
  std::string list;
  for (const auto& n : entry.splits) list += (list.empty() ? "" : ", ") + n;
  const std::string dym = core::did_you_mean(split, entry.splits);
  throw core::ConfigError("--split: expected one of " + list + " (the splits of " + entry.id +
                          "), found '" + core::echo(split) + "'" +
                          (dym.empty() ? "" : " (did you mean '" + dym + "'?)"));
}

std::shared_ptr<const envs::Env> make_env(const Spec& spec, const std::string& split) {
  const envs::EnvEntry& entry = env_entry(spec);
  envs::BuildContext ctx{spec.env.params, split, where(spec), nullptr};
  ctx.where_key = [&spec](const std::string& key) { return spec.at("env." + key); };
  return entry.make(ctx);
}

std::vector<double> penalty_weights(const Spec& spec, const envs::EnvSpec& env_spec) {
  std::vector<double> w(env_spec.cost_names.size(), 0.0);
  for (const auto& [name, weight] : spec.penalty) {
    bool found = false;
    for (size_t k = 0; k < w.size(); ++k) {
      if (env_spec.cost_names[k] == name) {
        w[k] = weight;
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const auto& n : env_spec.cost_names) known += (known.empty() ? "" : ", ") + n;
      const std::string hint = core::did_you_mean(name, env_spec.cost_names);
      throw core::ConfigError(spec.at("reward.penalty") +
                              "[reward] penalty: expected a cost channel of " + env_spec.id + " (" +
                              known + "), found '" + core::echo(name) + "'" +
                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  return w;
}

std::string describe_data(const Spec& spec) {
  const envs::EnvEntry& entry = env_entry(spec);
  return entry.describe_data ? entry.describe_data(spec.env.params) : std::string();
}

}  // namespace pz::exp
