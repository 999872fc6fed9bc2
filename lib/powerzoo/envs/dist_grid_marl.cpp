// DistGridMarl implementation: agents, BFS neighbours, local observations, team reward, episode
// sums (PowerZooJax's DistGridMARLEnv, powerzoojax/rl/multi_agent.py).
#include "powerzoo/envs/dist_grid_marl.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/registry.hpp"

namespace pz::envs {
namespace {

// Episode sums before the per-type action statistics.
const std::vector<std::string> kSums = {
    "mean_p_loss_mw",         "total_loss_mwh", "voltage_violation_steps",
    "voltage_violation_rate", "total_cost",     "total_cost_continuous"};

// Names of the per-type action statistics (action_stats writes them in this order).
std::vector<std::string> stat_names(DeviceType t) {
  switch (t) {
    case DeviceType::kBattery:
      return {"p_mean", "p_abs_mean", "q_mean", "q_abs_mean"};
    case DeviceType::kRenewable:
      return {"curtail_mean", "q_mean", "q_abs_mean"};
    case DeviceType::kFlexLoad:
      return {"curtail_mean", "shift_mean"};
  }
  return {};
}

float norm_v(double v) { return static_cast<float>((v - 1.0) / 0.1); }

}  // namespace

const char* device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::kBattery:
      return "battery";
    case DeviceType::kRenewable:
      return "renewable";
    case DeviceType::kFlexLoad:
      return "flexload";
  }
  return "?";
}

std::vector<int> bfs_neighbours(const grid::Case& c, int bus, int k) {
  const int nb = c.n_bus();
  std::vector<std::vector<int>> adj(nb);
  for (int r = 0; r < c.n_branch(); ++r) {
    if (c.branch[r].status <= 0) continue;
    const int f = c.branch_from_idx[r], t = c.branch_to_idx[r];
    adj[f].push_back(t);
    adj[t].push_back(f);
  }
  std::vector<int> out;
  std::vector<char> seen(nb, 0);
  std::deque<int> queue{bus};
  seen[bus] = 1;
  while (!queue.empty() && static_cast<int>(out.size()) < k) {
    const int u = queue.front();
    queue.pop_front();
    for (int v : adj[u]) {
      if (seen[v]) continue;
      seen[v] = 1;
      if (static_cast<int>(out.size()) < k) out.push_back(v);
      queue.push_back(v);
    }
  }
  while (static_cast<int>(out.size()) < k) out.push_back(bus);
  return out;
}

DistGridMarl::DistGridMarl(std::shared_ptr<const DistGrid> grid, DistGridMarlParams p)
    : grid_(std::move(grid)), p_(std::move(p)) {
  const DistGrid& g = *grid_;
  const DistGridParams& gp = g.params();
  if (gp.include_der)
    throw core::ConfigError("DistGridMarl: the grid must not have nodal DER actions");
  if (p_.n_neighbours < 0) throw core::ConfigError("DistGridMarl: expected n_neighbours >= 0");
  // Per-device block sizes of each bundle and where its devices sit.
  for (DeviceType t : p_.order) {
    int n = 0, act = 0, obs = 0, act_off = 0;
    std::vector<int> buses;
    switch (t) {
      case DeviceType::kBattery:
        n = g.battery().n_devices(), act = g.battery().act_per_device();
        obs = g.battery().obs_per_device(), act_off = g.battery_act_offset();
        for (const auto& d : gp.batteries) buses.push_back(d.bus);
        break;
      case DeviceType::kRenewable:
        n = g.renewable().n_devices(), act = g.renewable().act_per_device();
        obs = g.renewable().obs_per_device(), act_off = g.renewable_act_offset();
        for (const auto& d : gp.renewables) buses.push_back(d.bus);
        break;
      case DeviceType::kFlexLoad:
        n = g.flexload().n_devices(), act = devices::FlexLoad::kActPerDevice;
        obs = devices::FlexLoad::kObsPerDevice, act_off = g.flex_act_offset();
        for (const auto& d : gp.flexloads) buses.push_back(d.bus);
        break;
    }
    if (n > 0) pad_ = std::max(pad_, obs);
    for (int d = 0; d < n; ++d) {
      Agent a{t, d, buses[d], act_off + act * d, act, obs * d, obs, {}};
      a.neighbours = bfs_neighbours(gp.grid_case, a.bus, p_.n_neighbours);
      agents_.push_back(std::move(a));
    }
  }
  if (agents_.empty()) throw core::ConfigError("DistGridMarl: the grid has no devices");
  if (static_cast<int>(agents_.size()) > Step::kMaxAgents)
    throw core::ConfigError("DistGridMarl: " + std::to_string(agents_.size()) +
                            " devices, at most " + std::to_string(Step::kMaxAgents) + " agents");
  const int K = p_.n_neighbours;
  n_status_ = g.outages().observes_branches() ? g.n_lines() : 0;
  n_forecast_ = g.forecast_obs_dim();
  agent_obs_ = 1 + K + 3 + 2 + pad_ + n_status_ + n_forecast_;
  spec_.id = "dist_grid_marl";
  spec_.obs_dim = agent_obs_ * static_cast<int>(agents_.size());
  std::vector<std::pair<std::string, int>> fields;
  std::vector<int> count(3, 0);
  int act = 0;
  for (size_t i = 0; i < agents_.size(); ++i) {
    const Agent& a = agents_[i];
    const std::string type = device_type_name(a.type);
    const std::string name = type + "_" + std::to_string(count[static_cast<int>(a.type)]++);
    for (const auto& [f, n] : std::vector<std::pair<std::string, int>>{
             {"own_voltage", 1},
             {"neighbour_voltage", K},
             {"voltage_min", 1},
             {"voltage_max", 1},
             {"voltage_mean", 1},
             {"time_of_day", 2},
             {"device", pad_},
             {"branch_status", n_status_},
             {"load_forecast", g.forecast().horizon()},
             {"pv_forecast", n_forecast_ - g.forecast().horizon()}})
      if (n > 0) fields.emplace_back(name + "/" + f, n);
    spec_.agents.push_back(AgentSpec{
        name, type, Slice{static_cast<int>(i) * agent_obs_, agent_obs_}, Slice{act, a.act_dim}});
    act += a.act_dim;
  }
  spec_.obs_fields = tile_obs_fields(fields);
  spec_.act_dim = act;
  spec_.act_low.assign(act, -1.0f);
  spec_.act_high.assign(act, 1.0f);
  spec_.cost_names = g.spec().cost_names;
  spec_.horizon = g.spec().horizon;
  spec_.dt_hours = g.spec().dt_hours;
  spec_.trace_vectors = g.spec().trace_vectors;
  spec_.network = g.spec().network;
  spec_.episode_sum_names = kSums;
  sum_stats_ = static_cast<int>(kSums.size());
  for (DeviceType t : p_.order) {
    const bool present =
        std::any_of(agents_.begin(), agents_.end(), [t](const Agent& a) { return a.type == t; });
    if (!present) continue;
    for (const auto& s : stat_names(t))
      spec_.episode_sum_names.push_back(std::string("action/") + device_type_name(t) + "/" + s);
  }
  if (spec_.episode_sum_names.size() > static_cast<size_t>(Info::kMaxSums))
    throw core::ConfigError("DistGridMarl: too many episode sums");
  // No control: batteries idle, renewables uncurtailed without Q, flexible loads idle.
  spec_.reference_action.assign(act, 0.0f);
  for (size_t i = 0; i < agents_.size(); ++i)
    if (agents_[i].type == DeviceType::kRenewable && g.renewable().curtailment())
      spec_.reference_action[spec_.agents[i].act.offset] = 1.0f;
  spec_.reduction_names.assign(spec_.episode_sum_names.size(), "");
  spec_.reduction_names[0] = "loss_reduction_pct";
  spec_.reduction_names[4] = "cost_reduction_pct";
}

void DistGridMarl::observe(DistGrid::GridState& s, std::span<float> obs) const {
  const DistGrid& g = *grid_;
  // The bundles' own observations, device-major (small: a few floats per device).
  thread_local std::vector<float> bat, ren, flex;
  bat.resize(g.battery().obs_dim());
  ren.resize(g.renewable().obs_dim());
  flex.resize(g.flexload().obs_dim());
  g.battery().observe(s.battery, bat);
  g.renewable().observe(s.renewable, ren);
  g.flexload().observe(s.flex, flex);
  // Over the energized buses of the step (a de-energized one has no voltage; the substation is
  // always live).
  const std::vector<char>& live = s.live;
  const int root = g.network().ref_bus();
  double vmin = s.v[root], vmax = s.v[root], vsum = 0;
  int n_live = 0;
  for (size_t b = 0; b < s.v.size(); ++b) {
    if (!live[b]) continue;
    const double v = s.v[b];
    vmin = std::min(vmin, v);
    vmax = std::max(vmax, v);
    vsum += v;
    ++n_live;
  }
  float tod[2];
  time_of_day_features(s.t, g.params().dt_hours, tod);
  thread_local std::vector<float> fc;  // the feeder's forecasts, the same for every agent
  fc.resize(static_cast<size_t>(n_forecast_));
  g.write_forecasts(s, fc);
  const float stats[3] = {norm_v(vmin), norm_v(vmax), norm_v(vsum / static_cast<double>(n_live))};
  for (size_t i = 0; i < agents_.size(); ++i) {
    const Agent& a = agents_[i];
    float* o = &obs[i * agent_obs_];
    *o++ = norm_v(s.v[a.bus]);
    for (int b : a.neighbours) *o++ = norm_v(s.v[b]);
    o = std::copy(stats, stats + 3, o);
    o = std::copy(tod, tod + 2, o);
    const std::vector<float>& dev = a.type == DeviceType::kBattery     ? bat
                                    : a.type == DeviceType::kRenewable ? ren
                                                                       : flex;
    o = std::copy_n(dev.begin() + a.dev_obs, a.dev_obs_dim, o);
    o = std::fill_n(o, pad_ - a.dev_obs_dim, 0.0f);
    if (n_status_ > 0)
      for (int k : g.line_rows()) *o++ = s.out.branch_on[k];
    std::copy(fc.begin(), fc.end(), o);
  }
}

void DistGridMarl::reset(State& st, core::Rng& rng, std::span<float> obs,
                         const ResetOptions& opt) const {
  auto& s = static_cast<DistGrid::GridState&>(st);
  grid_->reset_state(s, rng, opt);
  observe(s, obs);
}

// Per present type, in order, the per-step means over devices of its applied commands (each
// divided by the horizon, so the episode sum is the mean over steps).
void DistGridMarl::action_stats(const DistGrid::GridState& s, double* sums) const {
  const DistGrid& g = *grid_;
  const DistGridParams& gp = g.params();
  const double h = static_cast<double>(gp.horizon);
  int k = 0;
  for (DeviceType t : p_.order) {
    double acc[4] = {0, 0, 0, 0};
    int n = 0;
    switch (t) {
      case DeviceType::kBattery:
        n = g.battery().n_devices();
        for (int d = 0; d < n; ++d) {
          const double pn = s.battery.p_mw[d] / gp.batteries[d].p_rated_mw;
          const double qn = s.battery.q_mvar[d] / g.battery().s_rated_mva(d);
          acc[0] += pn, acc[1] += std::abs(pn), acc[2] += qn, acc[3] += std::abs(qn);
        }
        break;
      case DeviceType::kRenewable:
        n = g.renewable().n_devices();
        for (int d = 0; d < n; ++d) {
          const double sr = g.renewable().s_rated_mva(d);
          const double qn = sr > 0 ? s.renewable.q_mvar[d] / sr : 0.0;
          acc[0] += s.renewable.curtail_frac[d], acc[1] += qn, acc[2] += std::abs(qn);
        }
        break;
      case DeviceType::kFlexLoad:
        n = g.flexload().n_devices();
        for (int d = 0; d < n; ++d) {
          const auto& f = gp.flexloads[d];
          acc[0] += f.curtail_cap_mw > 0 ? s.flex.curtailed[d] / f.curtail_cap_mw : 0.0;
          acc[1] += f.shift_cap_mw > 0 ? s.flex.shift_out[d] / f.shift_cap_mw : 0.0;
        }
        break;
    }
    if (n == 0) continue;
    const int m = t == DeviceType::kBattery ? 4 : t == DeviceType::kRenewable ? 3 : 2;
    for (int j = 0; j < m; ++j) sums[k++] = acc[j] / (n * h);
  }
}

Step DistGridMarl::step(State& st, std::span<const float> action, core::Rng& rng,
                        std::span<float> obs, std::span<float> costs, Info* info) const {
  auto& s = static_cast<DistGrid::GridState&>(st);
  const DistGrid& g = *grid_;
  // Agent-order actions → the grid's bundle-block layout.
  thread_local std::vector<float> flat;
  flat.assign(g.spec().act_dim, 0.0f);
  for (size_t i = 0; i < agents_.size(); ++i)
    std::copy_n(&action[spec_.agents[i].act.offset], agents_[i].act_dim,
                &flat[agents_[i].grid_act]);
  const DistGridOutcome o = g.advance(s, flat, costs, rng);
  observe(s, obs);
  const DistGridParams& gp = g.params();
  Step out;
  out.reward = static_cast<float>(-gp.loss_penalty_weight * o.loss_mw);
  const int na = static_cast<int>(agents_.size());
  std::fill_n(out.agent_reward, na, out.reward);
  if (p_.voltage_penalty > 0) {
    out.shaped_reward = out.reward - p_.voltage_penalty * o.cost_continuous;
    std::fill_n(out.agent_shaped, na, static_cast<float>(out.shaped_reward));
  }
  out.truncated = s.t >= gp.horizon;
  out.terminated = !o.ok;
  if (info) {
    const int nv = o.n_voltage + o.n_thermal;
    const double h = static_cast<double>(gp.horizon);
    info->gen_cost = 0;
    info->n_violations = nv;
    info->is_safe = o.ok && nv == 0 && o.unserved_mw <= 1e-6;
    info->status = o.ok ? StepStatus::kOk : StepStatus::kSolverFailed;
    info->sums[0] = o.loss_mw / h;
    info->sums[1] = o.loss_mw * gp.dt_hours;
    info->sums[2] = o.n_voltage > 0 ? 1.0 : 0.0;
    info->sums[3] = info->sums[2] / h;
    info->sums[4] = nv;  // the reference DistGridEnv's total_cost: Σ n_violations
    info->sums[5] = o.cost_continuous;
    action_stats(s, &info->sums[sum_stats_]);
  }
  return out;
}

// The registry entry: the env is built from a task preset's data, so `[env] id` alone selects
// its default preset (tasks/ registers the presets, applied to this entry).
namespace {

EnvEntry dist_grid_marl_entry() {
  EnvEntry e;
  e.id = "dist_grid_marl";
  e.description =
      "multi-agent view of a DistGrid (task ders): one agent per battery, PV inverter or "
      "flexible load, local observations, shared team reward; costs voltage_violation, "
      "thermal_overload, resource";
  e.params = outage_params({"branch"});  // branch outages (DistGrid; docs/outages.md)
  e.default_task = "ders";
  return e;
}

const Registrar kRegistrar{dist_grid_marl_entry()};

}  // namespace
}  // namespace pz::envs
