// DERs task preset: [env] keys of the devices, their validation, the env on each split and the
// baselines; registers "ders".
#include "powerzoo/tasks/ders.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <variant>

#include "powerzoo/core/cache.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/forecast.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/tasks/ders_data.hpp"
#include "powerzoo/tasks/split_settings.hpp"

namespace pz::tasks {
namespace {

constexpr int kSteps = 48;
constexpr double kDt = 0.5;
// The n1_branch split: one line out per episode for 12 steps (6 h), from a random step.
constexpr int kN1Steps = 12;
// The forecast_error split's relative error of the feeder's load and PV forecasts one step ahead
// when the spec sets none: 5 % at 30 min, 10 % two hours ahead, as the dso task's feeder load
// (docs/tasks/ders.md). A feeder's load is little smoothed by aggregation and PV's intraday
// forecast errors are larger still, so this is a moderate stress level, not a calibration.
constexpr double kSplitForecastNoise = 0.05;
const std::vector<std::string> kTypes = {"battery", "renewable", "flexload"};

const grid::Case& case141() {
  static core::Cache<grid::Case> cache;
  return cache.get("case141", [] { return grid::load_case(grid::resolve_case_path("case141")); });
}

core::ParamDef int_array(std::string key, std::vector<int64_t> def, std::string doc) {
  core::ParamDef d;
  d.key = std::move(key);
  d.kind = core::ParamKind::kIntArray;
  d.def = std::move(def);
  d.int_lo = 1;
  d.int_hi = 1'000'000;
  d.non_empty = true;
  d.expected = "a non-empty array of bus ids";
  d.doc = std::move(doc);
  return d;
}

// A rating: one number for every device of the type, or one per device.
core::ParamDef per_device(std::string key, double def, bool (*ok)(double), std::string expected,
                          std::string doc) {
  core::ParamDef d;
  d.key = std::move(key);
  d.kind = core::ParamKind::kFloatArray;
  d.def = std::vector<double>{def};
  d.ok = ok;
  d.scalar_ok = true;
  d.non_empty = true;
  d.expected = expected + " (one for every device, or an array with one per device)";
  d.doc = std::move(doc);
  return d;
}

bool positive(double x) { return x > 0; }
bool nonneg(double x) { return x >= 0; }
bool efficiency(double x) { return x > 0 && x <= 1; }
bool any(double) { return true; }

std::string list(const std::vector<double>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + core::format_number(v[i]);
  return out + "]";
}

// Reads the per-device values of the keys of one device type, checked against its bus list.
struct TypeKeys {
  const envs::BuildContext& ctx;
  std::string type;
  size_t n = 0;
  std::string err(const std::string& key) const { return ctx.at(key) + "[env] " + key + ": "; }
  // Value of device d: a single number broadcasts; otherwise one per device.
  double value(const std::string& key, size_t d) const {
    const auto& v = std::get<std::vector<double>>(ctx.params.at(key));
    if (v.size() != 1 && v.size() != n)
      throw core::ConfigError(err(key) + "expected one number or " + std::to_string(n) +
                              " (one per " + type + " in " + type + "_buses), found " +
                              std::to_string(v.size()) + " values " + list(v));
    return v.size() == 1 ? v[0] : v[d];
  }
};

// Bus positions of the devices of one type; each id must be a non-slack bus of the case.
std::vector<int> device_buses(const envs::BuildContext& ctx, const std::string& key,
                              const grid::Case& c) {
  const auto& ids = std::get<std::vector<int64_t>>(ctx.params.at(key));
  std::vector<int> out;
  const int slack = c.bus[c.ref_bus_idx].id;
  for (int64_t id : ids) {
    int b = -1;
    for (int i = 0; i < c.n_bus(); ++i)
      if (c.bus[i].id == id) b = i;
    if (b < 0 || id == slack)
      throw core::ConfigError(ctx.at(key) + "[env] " + key + ": expected bus ids of " + c.name +
                              " other than the slack bus " + std::to_string(slack) + " (buses 1.." +
                              std::to_string(c.n_bus()) + "), found " + std::to_string(id));
    out.push_back(b);
  }
  return out;
}

}  // namespace

const std::vector<std::string>& ders_splits() {
  static const std::vector<std::string> s = {
      "train",       "iid",       "voltage_tightening", "pv_penetration_shift",
      "load_stress", "n1_branch", "forecast_error"};
  return s;
}

std::vector<core::ParamDef> ders_params() {
  core::ParamDef horizon = core::int_param("horizon", kSteps, kSteps, kSteps, "steps per episode");
  horizon.expected = "48 (the ders task fixes a day of half-hour steps)";
  core::ParamDef dt = core::float_param(
      "dt_hours", kDt, [](double x) { return x == kDt; },
      "0.5 (the ders task fixes a day of half-hour steps)", "step length (h)");
  core::ParamDef devices;
  devices.key = "devices";
  devices.kind = core::ParamKind::kStrArray;
  devices.def = kTypes;
  devices.non_empty = devices.distinct = true;
  devices.expected = "a non-empty array of distinct device types (battery, renewable, flexload)";
  devices.doc = "device bundles in declaration order (fixes the agent order)";
  std::vector<core::ParamDef> params = {
      horizon,
      dt,
      core::float_param(
          "voltage_penalty", 4.0, nonneg, "a number >= 0",
          "learner reward = team reward − voltage_penalty·cost_continuous (p.u. out of band)"),
      core::int_param("train_windows", 8, 1, 1000,
                      "training draws one of this many evenly spaced train days per reset"),
      core::int_param("neighbours", 4, 0, 16, "K: bus voltages (BFS nearest) in each local obs"),
      core::choice_param("load_model", "matpower", {"matpower", "reference"},
                         "bus loads at the shape's peak: matpower = the case's PD, QD (0.85 "
                         "p.f.); reference = PowerZooJax's case141 table (PD/0.85 as MW, Q = 0)"),
      devices,
      int_array("battery_buses", {9, 55, 17, 122}, "bus ids of the batteries"),
      per_device("battery_p_mw", 0.10, positive, "a number > 0", "battery P rating (MW)"),
      per_device("battery_capacity_mwh", 0.30, positive, "a number > 0", "battery energy (MWh)"),
      per_device("battery_s_mva", 0.15, positive, "a number > 0",
                 "battery inverter S rating (MVA), >= battery_p_mw"),
      per_device("battery_soc_min", 0.1, any, "a number", "lower SOC bound, in [0, 1)"),
      per_device("battery_soc_max", 0.9, any, "a number", "upper SOC bound, in (soc_min, 1]"),
      per_device("battery_soc_init", 0.5, any, "a number", "SOC at reset, inside the window"),
      per_device("battery_eta_charge", 0.95, efficiency, "a number in (0, 1]",
                 "one-way charge efficiency"),
      per_device("battery_eta_discharge", 0.95, efficiency, "a number in (0, 1]",
                 "one-way discharge efficiency"),
      int_array("renewable_buses", {6, 73, 72, 82}, "bus ids of the PV inverters"),
      per_device("renewable_cap_mw", 0.20, positive, "a number > 0",
                 "PV capacity (MW) at the PV shape's peak"),
      per_device("renewable_s_mva", 0.22, positive, "a number > 0",
                 "PV inverter S rating (MVA), >= renewable_cap_mw"),
      per_device("renewable_curtail_cost", 0.0, nonneg, "a number >= 0", "$ per curtailed MWh"),
      int_array("flexload_buses", {41, 70, 135, 24}, "bus ids of the flexible loads"),
      per_device("flexload_curtail_mw", 0.10, nonneg, "a number >= 0", "curtailment cap (MW)"),
      per_device("flexload_shift_mw", 0.10, nonneg, "a number >= 0", "shift cap (MW)"),
      per_device("flexload_curtail_cost", 50.0, nonneg, "a number >= 0", "$ per curtailed MWh"),
      per_device("flexload_shift_cost", 10.0, nonneg, "a number >= 0",
                 "$ per MWh waiting in the shift buffer"),
      core::int_param("flexload_shift_horizon", 4, 1, 64, "steps over which shifted load returns"),
  };
  // A device type's keys are read only when `devices` lists it (ders_devices).
  for (auto& d : params)
    for (const std::string& type : kTypes)
      if (d.key.rfind(type + "_", 0) == 0) {
        d.applies = "devices listing \"" + type + "\"";
        d.inapplicable = [type](const core::ParamTable& t) -> std::string {
          const auto& list = std::get<std::vector<std::string>>(t.at("devices"));
          if (std::find(list.begin(), list.end(), type) != list.end()) return "";
          std::string found;
          for (const auto& x : list) found += (found.empty() ? "\"" : ", \"") + x + "\"";
          return "the " + type + " devices' key, found devices = [" + found + "]";
        };
      }
  // The feeder's load and PV forecasts (docs/design.md §4.12), off by default: the benchmark's
  // agents observe none.
  for (auto& d : envs::forecast_params(0, "load_forecast and pv_forecast (per agent)")) {
    if (d.key == "forecast_noise") d.doc += "; split forecast_error uses 0.05 when this is 0";
    params.push_back(std::move(d));
  }
  return params;
}

DersDevices ders_devices(const envs::BuildContext& ctx, const grid::Case& c) {
  DersDevices out;
  for (const auto& name : std::get<std::vector<std::string>>(ctx.params.at("devices"))) {
    const auto it = std::find(kTypes.begin(), kTypes.end(), name);
    if (it == kTypes.end())
      throw core::ConfigError(ctx.at("devices") +
                              "[env] devices: expected device types among battery, renewable, "
                              "flexload, found '" +
                              core::echo(name) + "'");
    out.order.push_back(static_cast<envs::DeviceType>(it - kTypes.begin()));
  }
  auto has = [&](envs::DeviceType t) {
    return std::find(out.order.begin(), out.order.end(), t) != out.order.end();
  };
  if (has(envs::DeviceType::kBattery)) {
    const auto buses = device_buses(ctx, "battery_buses", c);
    const TypeKeys k{ctx, "battery", buses.size()};
    for (size_t d = 0; d < buses.size(); ++d) {
      devices::BatteryDevice b;
      b.bus = buses[d];
      b.p_rated_mw = k.value("battery_p_mw", d);
      b.capacity_mwh = k.value("battery_capacity_mwh", d);
      b.s_rated_mva = k.value("battery_s_mva", d);
      b.soc_min = k.value("battery_soc_min", d);
      b.soc_max = k.value("battery_soc_max", d);
      b.soc_init = k.value("battery_soc_init", d);
      b.eta_charge = k.value("battery_eta_charge", d);
      b.eta_discharge = k.value("battery_eta_discharge", d);
      const std::string dev =
          " for battery " + std::to_string(d) + " (bus " + std::to_string(c.bus[b.bus].id) + ")";
      if (b.s_rated_mva < b.p_rated_mw)
        throw core::ConfigError(k.err("battery_s_mva") + "expected an S rating >= battery_p_mw (" +
                                core::format_number(b.p_rated_mw) + " MW)" + dev + ", found " +
                                core::format_number(b.s_rated_mva));
      if (!(b.soc_min >= 0 && b.soc_min < b.soc_max && b.soc_max <= 1)) {
        // The end out of [0, 1]; for min >= max, the end the command line set (an override of
        // soc_min was reported against the spec file's soc_max).
        const bool min_bad = !(b.soc_min >= 0 && b.soc_min < 1);
        const bool max_bad = !(b.soc_max > 0 && b.soc_max <= 1);
        const bool min_on_cli = ctx.at("battery_soc_min").rfind("command line", 0) == 0;
        const std::string key =
            min_bad || (!max_bad && min_on_cli) ? "battery_soc_min" : "battery_soc_max";
        throw core::ConfigError(k.err(key) + "expected a SOC window 0 <= soc_min < soc_max <= 1" +
                                dev + ", found [" + core::format_number(b.soc_min) + ", " +
                                core::format_number(b.soc_max) + "]");
      }
      if (!(b.soc_init >= b.soc_min && b.soc_init <= b.soc_max))
        throw core::ConfigError(k.err("battery_soc_init") + "expected a SOC inside [" +
                                core::format_number(b.soc_min) + ", " +
                                core::format_number(b.soc_max) + "]" + dev + ", found " +
                                core::format_number(b.soc_init));
      out.batteries.push_back(b);
    }
  }
  if (has(envs::DeviceType::kRenewable)) {
    const auto buses = device_buses(ctx, "renewable_buses", c);
    const TypeKeys k{ctx, "renewable", buses.size()};
    for (size_t d = 0; d < buses.size(); ++d) {
      devices::RenewableDevice r;
      r.bus = buses[d];
      r.cap_mw = k.value("renewable_cap_mw", d);
      r.s_rated_mva = k.value("renewable_s_mva", d);
      r.curtail_cost_per_mwh = k.value("renewable_curtail_cost", d);
      if (r.s_rated_mva < r.cap_mw)
        throw core::ConfigError(
            k.err("renewable_s_mva") + "expected an S rating >= renewable_cap_mw (" +
            core::format_number(r.cap_mw) + " MW) for renewable " + std::to_string(d) + " (bus " +
            std::to_string(c.bus[r.bus].id) + "), found " + core::format_number(r.s_rated_mva));
      out.renewables.push_back(r);
    }
  }
  if (has(envs::DeviceType::kFlexLoad)) {
    const auto buses = device_buses(ctx, "flexload_buses", c);
    const TypeKeys k{ctx, "flexload", buses.size()};
    for (size_t d = 0; d < buses.size(); ++d) {
      devices::FlexLoadDevice f;
      f.bus = buses[d];
      f.curtail_cap_mw = k.value("flexload_curtail_mw", d);
      f.shift_cap_mw = k.value("flexload_shift_mw", d);
      f.curtail_cost_per_mwh = k.value("flexload_curtail_cost", d);
      f.shift_cost_per_mwh = k.value("flexload_shift_cost", d);
      f.shift_horizon = static_cast<int>(ctx.params.integer("flexload_shift_horizon"));
      out.flexloads.push_back(f);
    }
  }
  return out;
}

std::shared_ptr<const envs::Env> make_ders_env(const envs::BuildContext& ctx) {
  const std::string& split = ctx.split;
  const auto& splits = ders_splits();
  if (std::find(splits.begin(), splits.end(), split) == splits.end())
    throw core::ConfigError(
        ctx.at("split") +
        "[env] split: expected one of train, iid, voltage_tightening, "
        "pv_penetration_shift, load_stress, n1_branch, forecast_error (the ders task), found '" +
        core::echo(split) + "'");
  const grid::Case& c = case141();
  DersDevices dev = ders_devices(ctx, c);
  const DersData& data = ders_data();
  const bool train = split == "train";
  const DersDays& days = train ? data.train : data.iid;  // every OOD split is built on iid
  envs::DistGridParams p;
  p.grid_case = c;
  const double load_mult = split == "load_stress" ? 1.15 : 1.0;
  // The reference's converted case141 table keeps the file's kVA column as MW and drops Q.
  const bool ref_loads = ctx.params.str("load_model") == "reference";
  for (const auto& b : c.bus) {
    p.bus_p_mw.push_back((ref_loads ? b.pd_mw / 0.85 : b.pd_mw) * load_mult);
    p.bus_q_mvar.push_back(ref_loads ? 0.0 : b.qd_mvar * load_mult);
    p.bus_shape.push_back(0);
  }
  p.shapes = {days.load};
  p.cf_shapes = {days.pv};
  p.episode_starts = days.starts;
  if (train)
    p.train_starts =
        envs::train_bank(days.starts, static_cast<int>(ctx.params.integer("train_windows")));
  p.horizon = kSteps;
  p.dt_hours = kDt;
  p.v_slack = 1.0;
  p.v_min = split == "voltage_tightening" ? 0.96 : 0.94;
  p.v_max = split == "voltage_tightening" ? 1.04 : 1.06;
  p.loss_penalty_weight = 0.1;
  p.include_der = false;
  if (split == "pv_penetration_shift")
    for (auto& r : dev.renewables) r.cap_mw *= 2, r.s_rated_mva *= 2;
  p.batteries = std::move(dev.batteries);
  p.renewables = std::move(dev.renewables);
  p.flexloads = std::move(dev.flexloads);
  p.outages = split_outages(ctx, kN1Steps);
  p.forecast = split_forecast(ctx, kSplitForecastNoise);
  envs::DistGridMarlParams mp;
  mp.order = dev.order;
  mp.n_neighbours = static_cast<int>(ctx.params.integer("neighbours"));
  mp.voltage_penalty = ctx.params.number("voltage_penalty");
  return envs::with_key(ctx, "", [&]() -> std::shared_ptr<const envs::Env> {
    auto grid = std::make_shared<const envs::DistGrid>(std::move(p));
    return std::make_shared<const envs::DistGridMarl>(std::move(grid), mp);
  });
}

std::optional<envs::PolicyFn> ders_baseline(const std::string& name,
                                            std::shared_ptr<const envs::Env> env) {
  auto view = std::dynamic_pointer_cast<const envs::DistGridMarl>(env);
  if (!view || (name != "no_control" && name != "volt_droop" && name != "max_support"))
    return std::nullopt;
  const envs::EnvSpec& sp = env->spec();
  struct Slot {
    envs::DeviceType type;
    int v_obs, act;
  };
  std::vector<Slot> slots;
  for (size_t i = 0; i < sp.agents.size(); ++i)
    slots.push_back({view->agents()[i].type,
                     sp.obs_field(sp.agents[i].name + "/own_voltage").offset,
                     sp.agents[i].act.offset});
  const int obs_dim = sp.obs_dim, act_dim = sp.act_dim;
  const bool droop = name == "volt_droop";
  // max_support is a bound, not a controller: every device lifts the voltage as far as it can at
  // every step (full capacitive Q, no PV curtailment, full load curtailment; battery P stays 0 so
  // its SOC never limits a later step). A step it leaves below the band cannot be brought inside
  // by any action of that step.
  if (name == "max_support")
    return envs::PolicyFn([=](const float*, int n, float* a) {
      for (int i = 0; i < n; ++i) {
        float* ai = a + static_cast<size_t>(i) * act_dim;
        for (const Slot& s : slots) {
          ai[s.act] = s.type == envs::DeviceType::kBattery ? 0.0f : 1.0f;
          ai[s.act + 1] = s.type == envs::DeviceType::kFlexLoad ? 0.0f : 1.0f;
        }
      }
    });
  return envs::PolicyFn([=](const float* obs, int n, float* a) {
    for (int i = 0; i < n; ++i) {
      const float* o = obs + static_cast<size_t>(i) * obs_dim;
      float* ai = a + static_cast<size_t>(i) * act_dim;
      for (const Slot& s : slots) {
        const double v = 1.0 + 0.1 * static_cast<double>(o[s.v_obs]);
        const float q = droop ? static_cast<float>(std::clamp(10.0 * (1.0 - v), -1.0, 1.0)) : 0.0f;
        switch (s.type) {
          case envs::DeviceType::kBattery:
            ai[s.act] = 0.0f, ai[s.act + 1] = q;
            break;
          case envs::DeviceType::kRenewable:
            ai[s.act] = droop && v > 1.03 ? -0.5f : 1.0f, ai[s.act + 1] = q;
            break;
          case envs::DeviceType::kFlexLoad:
            ai[s.act] = droop && v < 0.97 ? 0.5f : 0.0f, ai[s.act + 1] = 0.0f;
            break;
        }
      }
    }
  });
}

std::string describe_ders_data() {
  const DersData& d = ders_data();
  std::ostringstream os;
  os << "ders task: load " << d.load_path << " (NSW1, market days from 00:00 UTC+10, / peak), PV "
     << d.pv_path << " (same calendar day from 00:00 UTC, / peak " << d.pv_peak << "); train "
     << d.train.starts.size() << " days, iid " << d.iid.starts.size() << " days (every 4th)";
  return os.str();
}

namespace {

envs::TaskPreset ders_preset() {
  envs::TaskPreset e;
  e.name = "ders";
  e.env_id = "dist_grid_marl";
  e.description =
      "DERs benchmark: case141 with 4 batteries, 4 PV inverters and 4 flexible loads as 12 "
      "agents (local obs 15, action 2 each), team reward −0.1·loss, AEMO load days paired with "
      "synthetic GB PV days; splits train, iid, voltage_tightening, pv_penetration_shift, "
      "load_stress, n1_branch (iid days, one line out for 12 steps), forecast_error (iid days, "
      "load and PV forecast error 5 % · sqrt(lead) unless forecast_noise is set)";
  e.params = ders_params();
  e.splits = ders_splits();
  e.make = make_ders_env;
  e.baselines = envs::named_baselines({"no_control", "volt_droop", "max_support"}, "ders task",
                                      ders_baseline);
  e.describe_data = [](const core::ParamTable&) { return describe_ders_data(); };
  e.bench_specs = {"experiments/ders_ippo_short.toml"};
  e.benchmark_specs = {"experiments/ders_ippo.toml", "experiments/ders_ippo_rs.toml",
                       "experiments/ders_ippo_lagrangian.toml"};
  // PowerZooJax's published benchmark table: end-to-end training steps/s (env steps / wall
  // time) of its IPPO run of this task on one GPU and on a 64-core CPU.
  e.reference_rates = {127000, 4700};
  return e;
}

const envs::Registrar kRegistrar{ders_preset()};

}  // namespace
}  // namespace pz::tasks
