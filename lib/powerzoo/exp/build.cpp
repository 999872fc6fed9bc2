// Env construction from a spec, with a per-process cache of parsed cases and profiles.
#include "powerzoo/exp/build.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <sstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/profile.hpp"
#include "powerzoo/envs/trans_grid.hpp"
#include "powerzoo/exp/task_dso.hpp"
#include "powerzoo/exp/task_tso.hpp"
#include "powerzoo/grid/case.hpp"

namespace pz::exp {
namespace {

std::mutex cache_mu;

const data::Profile& cached_profile(const std::string& name) {
  static std::map<std::string, data::Profile> cache;
  if (std::filesystem::is_directory(name))
    throw core::ConfigError("expected a CSV file, found the directory '" + name + "'");
  std::lock_guard<std::mutex> lock(cache_mu);
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, data::load_profile(name)).first;
  return it->second;
}

grid::Case cached_case(const std::string& name) {
  static std::map<std::string, grid::Case> cache;
  const std::string path = grid::resolve_case_path(name);
  if (std::filesystem::is_directory(path))
    throw core::ConfigError("expected a MATPOWER .m file, found the directory '" + path + "'");
  std::lock_guard<std::mutex> lock(cache_mu);
  auto it = cache.find(path);
  if (it == cache.end()) it = cache.emplace(path, grid::load_case(path)).first;
  return it->second;
}

std::string where(const io::Spec& s) {
  return (s.source_path.empty() ? std::string("spec") : s.source_path) + ": ";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> env_catalog() {
  return {
      {"trans_grid",
       "DC transmission dispatch: the agent sets every in-service generator's output; slack-bus "
       "units absorb the imbalance; costs thermal_overload, voltage_violation, power_balance, "
       "resource"},
      {"dist_grid",
       "radial distribution feeder (exact DistFlow) with FlexLoad demand response; the dso task "
       "preset: case33bw, six flexible loads, AEMO feeder shapes; costs voltage_violation, "
       "thermal_overload, resource"},
      {"unit_commitment",
       "DC unit commitment (task tso): the agent commits units and biases an exact DC-OPF "
       "dispatch; costs thermal_overload, reserve_shortfall, min_updown"}};
}

// Runs f, prefixing a ConfigError with the spec file and key it came from.
template <class F>
auto with_key(const io::Spec& spec, const char* key, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const core::ConfigError& err) {
    throw core::ConfigError(where(spec) + key + ": " + err.what());
  }
}

std::shared_ptr<const envs::Env> make_env(const io::Spec& spec, const std::string& split) {
  const auto& e = spec.env;
  if (e.task == "dso" || e.id == "dist_grid") return make_dso_env(spec, split);
  if (e.task == "tso" || e.id == "unit_commitment") return make_tso_env(spec, split);
  if (!e.task.empty())
    throw core::ConfigError(where(spec) +
                            "[env] task: expected no task preset or one of dso, tso, found '" +
                            e.task + "'");
  if (e.id != "trans_grid")
    throw core::ConfigError(
        where(spec) + "[env] id: expected one of trans_grid, dist_grid, unit_commitment, found '" +
        e.id + "'");
  envs::TransGridParams p;
  p.grid_case = with_key(spec, "[env] case", [&] { return cached_case(e.case_name); });
  const data::Profile& prof = with_key(
      spec, "[env] profile", [&]() -> const data::Profile& { return cached_profile(e.profile); });
  const double step_h = prof.step_seconds / 3600.0;
  if (std::abs(step_h - e.dt_hours) > 1e-9)
    throw core::ConfigError(where(spec) + "[env] dt_hours: expected the profile's step of " +
                            std::to_string(step_h) + " h, found " + std::to_string(e.dt_hours));
  const data::Split sp = data::split_by_name(split);
  p.profile = prof.values;
  p.profile_mean = data::split_mean(prof, data::split_by_name("train"));
  p.episode_starts = data::episode_starts(prof, sp, e.horizon);
  p.horizon = e.horizon;
  p.dt_hours = e.dt_hours;
  p.load_scale = e.load_scale;
  p.reward_scale = e.reward_scale;
  p.opf_dispatch = e.dispatch == "dcopf";
  p.report_opf_gap = e.report_opf_gap;
  return std::make_shared<envs::TransGrid>(std::move(p));
}

std::vector<double> penalty_weights(const io::Spec& spec, const envs::EnvSpec& env_spec) {
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
      const std::string hint = io::did_you_mean(name, env_spec.cost_names);
      throw core::ConfigError(where(spec) + "[reward] penalty: expected a cost channel of " +
                              env_spec.id + " (" + known + "), found '" + name + "'" +
                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
  }
  return w;
}

std::string describe_data(const io::Spec& spec) {
  if (spec.env.task == "dso" || spec.env.id == "dist_grid") return describe_dso_data();
  const data::Profile& prof = cached_profile(spec.env.profile);
  std::ostringstream os;
  os << "profile " << prof.path << " [" << prof.column << "]: " << prof.report.summary();
  return os.str();
}

}  // namespace pz::exp
