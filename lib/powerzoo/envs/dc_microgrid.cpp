// DC microgrid env: data centre + battery + PV + diesel + capped import on one bus (PowerZooJax
// powerzoojax/envs/microgrid/dc_microgrid.py).
#include "powerzoo/envs/dc_microgrid.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/dc_microgrid_data.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/registry.hpp"

namespace pz::envs {
namespace {

using devices::DataCenter;
using devices::JobType;

// Info::sums slots, in the order of spec().episode_sum_names.
enum Sum : int {
  kSumReward,
  kSumEnergy,
  kSumFuel,
  kSumGrid,
  kSumCarbon,
  kSumImport,
  kSumSla,
  kSumOvertemp,
  kSumDeficitRate,
  kSumPvUtil,
  kSumCycles,
  kSumThroughput,
  kSumTerminal,
  kSumPrice,
  kSumSpill,
  kSumDeficit,
  kSumDiesel,
  kSumExpired,
  kNumSums
};
const char* const kSumNames[kNumSums] = {"episode_reward",
                                         "total_energy_cost",
                                         "total_fuel_cost",
                                         "total_grid_cost",
                                         "total_carbon_kg",
                                         "grid_import_mwh",
                                         "sla_violation_rate",
                                         "overtemp_rate",
                                         "power_deficit_rate",
                                         "pv_utilization",
                                         "battery_cycles",
                                         "battery_throughput_mwh",
                                         "total_terminal_soc_cost",
                                         "mean_grid_price_per_mwh",
                                         "power_spill_mwh",
                                         "power_deficit_mwh",
                                         "diesel_mwh",
                                         "tasks_expired"};

// Info::trace slots, in the order of spec().trace_names.
enum Trace : int {
  kTrPdc,
  kTrPit,
  kTrPcool,
  kTrPv,
  kTrBatt,
  kTrDg,
  kTrImport,
  kTrDeficit,
  kTrSpill,
  kTrSoc,
  kTrFuel,
  kTrGridCost,
  kTrCarbon,
  kTrPrice,
  kTrZone,
  kTrExpired,
  kTrDgCommand,
  kTrPenalty,
  kNumTrace
};
const char* const kTraceNames[kNumTrace] = {"p_dc_mw",          "p_it_mw",
                                            "p_cool_mw",        "p_pv_mw",
                                            "p_batt_mw",        "p_dg_mw",
                                            "p_grid_import_mw", "power_deficit_mw",
                                            "power_spill_mw",   "soc",
                                            "fuel_cost",        "grid_cost",
                                            "carbon_kg",        "grid_price_per_mwh",
                                            "t_zone_c",         "n_expired",
                                            "dg_command",       "shaping_penalty"};
static_assert(kNumSums <= Info::kMaxSums && kNumTrace <= Info::kMaxTrace);

constexpr double kBalanceTol = 1e-6;  // MW; see the class comment
constexpr int kPriceLookahead = 72;   // steps: the next 6 h

double clip01(double x) { return std::clamp(x, 0.0, 1.0); }

// The bus balance (the third stage of dc_microgrid.py's step):
// import = min((−raw)⁺, cap), residual = raw + import (a rounding residue below kBalanceTol is 0);
// deficit = (−residual)⁺, spill = residual⁺.
struct Balance {
  double import_mw, residual;
};
Balance balance(double raw_residual, double cap) {
  const double import_mw = std::min(std::max(-raw_residual, 0.0), cap);
  const double r = raw_residual + import_mw;
  return {import_mw, std::abs(r) < kBalanceTol ? 0.0 : r};
}
double finite_or_zero(float x) { return std::isfinite(x) ? static_cast<double>(x) : 0.0; }

// Rows of the outage state (DcMicrogrid::kComponents order).
enum Component : int { kPv, kBattery, kDiesel, kGrid, kNumComponents };

std::vector<OutageComponent> outage_kinds(const std::array<bool, kNumComponents>& random) {
  std::vector<OutageComponent> out;
  for (int c = 0; c < kNumComponents; ++c)
    out.push_back({DcMicrogrid::kComponents[c], 1, random[c]});
  return out;
}

}  // namespace

struct DcMicrogrid::McState : State {
  int64_t start = 0;
  devices::DataCenterState dc;
  devices::BatteryState batt;
  devices::RenewableState pv;
  devices::DieselState dg;
  std::array<float, kActDim> last_action{};
  double pv_peak_mw = 0;   ///< max PV output over the episode window (pv_utilization)
  ForecastState forecast;  ///< the forecasts' error stream (noise > 0)
  OutageState out;         ///< component status (outages active): gen_on in kComponents order
  bool on(int c) const { return out.gen_on.empty() || out.gen_on[c]; }
};

DcMicrogrid::DcMicrogrid(DcMicrogridParams p)
    : p_(std::move(p)),
      dc_(p_.dc),
      batt_({p_.battery}, p_.dt_hours, false),
      pv_({p_.pv}, p_.dt_hours, false, false),
      dg_({p_.dg}, p_.dt_hours),
      forecast_(p_.forecast),
      outages_(p_.outages, outage_kinds(p_.outage_random), p_.horizon) {
  if (!p_.cpu || p_.cpu->empty() || !p_.solar || p_.solar->empty())
    throw core::ConfigError("dc_microgrid: expected non-empty cpu and solar series");
  if (p_.price && p_.price->empty())
    throw core::ConfigError("dc_microgrid: expected a non-empty price series or none");
  if (p_.episode_starts.empty() || p_.horizon < 1)
    throw core::ConfigError("dc_microgrid: expected at least one episode start and horizon >= 1");
  if (std::abs(p_.dc.dt_hours - p_.dt_hours) > 1e-12)
    throw core::ConfigError("dc_microgrid: the data centre's dt_hours must equal the env's");
  if (!(p_.grid_import_max_mw >= 0) || !(p_.grid_price_ref > 0) || !(p_.solar_scale >= 0))
    throw core::ConfigError(
        "dc_microgrid: expected grid_import_max_mw >= 0, grid_price_ref > 0, solar_scale >= 0");
  if (p_.price) price_max6h_ = data::forward_max(*p_.price, kPriceLookahead);
  spec_.id = "datacenter_microgrid";
  const int h = forecast_.horizon(), n_price_fc = p_.price ? h : 0;
  spec_.obs_dim = kObsDim + h + n_price_fc;
  spec_.act_dim = kActDim;
  spec_.act_low = {0, 0, 0, -1, 0};
  spec_.act_high = {1, 1, 1, 1, 1};
  spec_.cost_names = {"sla", "overtemp", "power_deficit"};
  spec_.horizon = p_.horizon;
  spec_.dt_hours = p_.dt_hours;
  spec_.obs_fields = tile_obs_fields({{"gpu_util", 1},
                                      {"inference_util", 1},
                                      {"train_queue", 1},
                                      {"finetune_queue", 1},
                                      {"queue_urgency", 1},
                                      {"zone_temp", 1},
                                      {"outdoor_temp", 1},
                                      {"cop_ratio", 1},
                                      {"solar_cf", 1},
                                      {"soc", 1},
                                      {"dg_margin", 1},
                                      {"load", 1},
                                      {"net_load", 1},
                                      {"battery_discharge_headroom", 1},
                                      {"battery_charge_headroom", 1},
                                      {"price", 1},
                                      {"price_6h_max", 1},
                                      {"last_action", kActDim},
                                      {"time_of_day", 2}});
  if (h > 0) spec_.obs_fields.push_back({"solar_forecast", {kObsDim, h}});
  if (n_price_fc > 0) spec_.obs_fields.push_back({"price_forecast", {kObsDim + h, n_price_fc}});
  spec_.episode_sum_names.assign(kSumNames, kSumNames + kNumSums);
  spec_.trace_names.assign(kTraceNames, kTraceNames + kNumTrace);
  if (outages_.observes_status()) {  // last: the other fields keep their offsets without outages
    status_offset_ = spec_.obs_dim;
    spec_.obs_fields.push_back({"component_status", {status_offset_, kNumComponents}});
    spec_.obs_dim += kNumComponents;
  }
  if (outages_.active()) {  // traced whatever outage_status_obs says
    spec_.trace_vectors.push_back({"component_status", kNumComponents});
  }
}

double DcMicrogrid::series(const std::vector<double>& v, int64_t k) const {
  return v[static_cast<size_t>(k % static_cast<int64_t>(v.size()))];
}

double DcMicrogrid::price_at(int64_t k) const { return p_.price ? series(*p_.price, k) : 0.0; }

double DcMicrogrid::outdoor_temp_c(int t) const {
  const int spd = std::max(1, static_cast<int>(std::lround(24.0 / p_.dt_hours)));
  const double hour = static_cast<double>(t % spd) / spd * 24.0;
  return devices::synthetic_outdoor_temp_c(hour) + p_.temp_offset_c;
}

double DcMicrogrid::window_pv_peak_mw(int64_t start) const {
  double peak = 0;
  for (int t = 0; t < p_.horizon; ++t)
    peak = std::max(peak, clip01(series(*p_.solar, start + t) * p_.solar_scale));
  return peak * p_.pv.cap_mw;
}

std::unique_ptr<State> DcMicrogrid::make_state() const {
  auto s = std::make_unique<McState>();
  dc_.reset(s->dc);
  s->batt = batt_.make_state();
  s->pv = pv_.make_state();
  s->dg = dg_.make_state();
  if (outages_.active()) outages_.make_state(s->out);
  return s;
}

void DcMicrogrid::reset(State& st, core::Rng& rng, std::span<float> obs,
                        const ResetOptions& opt) const {
  auto& s = static_cast<McState&>(st);
  s.start = choose_episode_start(p_.episode_starts, rng, opt);
  forecast_.begin_episode(s.forecast, rng, s.start);
  outages_.reset(s.out, rng);  // draws nothing without outages
  dc_.reset(s.dc);
  batt_.reset(s.batt);
  pv_.reset(s.pv);
  dg_.reset(s.dg);
  s.last_action.fill(0.0f);
  s.pv_peak_mw = window_pv_peak_mw(s.start);
  write_obs(s, obs);
}

double DcMicrogrid::tracking_cost(double soc_pre, double price, double p_load, double p_pv,
                                  double p_batt, double p_dg) const {
  const double net = p_load - p_pv;
  const double max_dis = batt_.discharge_headroom_mw(0, soc_pre);
  const double max_chg = batt_.charge_headroom_mw(0, soc_pre);
  const bool priced = p_.price && p_.grid_import_max_mw > 0;
  double target_b;
  if (priced) {
    const double rho = price / p_.grid_price_ref;
    const double low = clip01((0.55 - rho) / 0.55), high = clip01((rho - 0.85) / 0.85);
    target_b = low > high ? -max_chg * low
                          : std::clamp(net, 0.0, max_dis) * std::max(high, net > 0 ? 0.25 : 0.0);
  } else {
    target_b = std::clamp(net, -max_chg, max_dis);
  }
  const double dg_max = std::max(p_.dg.p_max_mw, 1e-6);
  const double remaining = std::clamp(net - target_b, 0.0, dg_max);
  const double target_dg = !priced || price > p_.dg.fuel_cost_per_mwh ? remaining : 0.0;
  return std::abs(p_batt - target_b) / std::max(p_.battery.p_rated_mw, 1e-6) +
         std::abs(p_dg - target_dg) / dg_max;
}

// Everything one step reports (Info::sums and Info::trace); MW, $, kg, per step.
struct DcMicrogrid::Flows {
  double p_load, p_it, p_cool, p_pv, p_batt, p_dg, import_mw, deficit, spill, soc;
  double fuel, grid_cost, carbon_kg, price, terminal_soc_cost, throughput_mwh, dg_command;
  double penalty, episode_reward, cost_sla, cost_overtemp, cost_deficit;
  int n_expired;
};

void DcMicrogrid::write_info(const McState& s, const Flows& f, Info* info) const {
  const double dt = p_.dt_hours, inv_h = 1.0 / p_.horizon;
  *info = Info{};
  info->gen_cost = (f.fuel + f.grid_cost) / dt;
  info->is_safe = f.cost_sla == 0 && f.cost_overtemp == 0 && f.cost_deficit == 0;
  info->n_violations = (f.cost_sla > 0) + (f.cost_overtemp > 0) + (f.cost_deficit > 0);
  const double usable = p_.battery.capacity_mwh * (p_.battery.soc_max - p_.battery.soc_min);
  double* q = info->sums;
  q[kSumReward] = f.episode_reward;
  q[kSumEnergy] = f.p_load * dt;
  q[kSumFuel] = f.fuel;
  q[kSumGrid] = f.grid_cost;
  q[kSumCarbon] = f.carbon_kg;
  q[kSumImport] = f.import_mw * dt;
  q[kSumSla] = f.cost_sla * inv_h;
  q[kSumOvertemp] = (f.cost_overtemp > 0) * inv_h;
  q[kSumDeficitRate] = (f.cost_deficit > 0) * inv_h;
  q[kSumPvUtil] = s.pv_peak_mw > 0 ? f.p_pv / s.pv_peak_mw * inv_h : 0.0;
  q[kSumCycles] = usable > 0 ? f.throughput_mwh / (2.0 * usable) : 0.0;
  q[kSumThroughput] = f.throughput_mwh;
  q[kSumTerminal] = f.terminal_soc_cost;
  q[kSumPrice] = f.price * inv_h;
  q[kSumSpill] = f.spill * dt;
  q[kSumDeficit] = f.deficit * dt;
  q[kSumDiesel] = f.p_dg * dt;
  q[kSumExpired] = f.n_expired;
  double* r = info->trace;
  r[kTrPdc] = f.p_load;
  r[kTrPit] = f.p_it;
  r[kTrPcool] = f.p_cool;
  r[kTrPv] = f.p_pv;
  r[kTrBatt] = f.p_batt;
  r[kTrDg] = f.p_dg;
  r[kTrImport] = f.import_mw;
  r[kTrDeficit] = f.deficit;
  r[kTrSpill] = f.spill;
  r[kTrSoc] = f.soc;
  r[kTrFuel] = f.fuel;
  r[kTrGridCost] = f.grid_cost;
  r[kTrCarbon] = f.carbon_kg;
  r[kTrPrice] = f.price;
  r[kTrZone] = s.dc.t_zone_c;
  r[kTrExpired] = f.n_expired;
  r[kTrDgCommand] = f.dg_command;
  r[kTrPenalty] = f.penalty;
}

Step DcMicrogrid::step(State& st, std::span<const float> action, core::Rng& rng,
                       std::span<float> obs, std::span<float> costs, Info* info) const {
  auto& s = static_cast<McState&>(st);
  const int t = s.dc.t;
  const int64_t k = s.start + t;
  const double dt = p_.dt_hours;
  double a[kActDim];
  for (int j = 0; j < kActDim; ++j)
    a[j] = std::clamp(finite_or_zero(action[j]), static_cast<double>(spec_.act_low[j]),
                      static_cast<double>(spec_.act_high[j]));
  const double soc_pre = s.batt.soc[0];
  Flows f{};

  const devices::DataCenterStep d =
      dc_.step(s.dc, a[0], a[1], a[2], series(*p_.cpu, p_.cpu_from_first_row ? t : k),
               outdoor_temp_c(t), rng);
  f.p_load = d.p_dc_mw;

  // An out component produces and absorbs nothing: the battery idles (0 MW keeps its SOC), PV
  // is 0, the diesel's command 0, the import cap 0.
  std::array<double, 1> p_b{}, p_pv{}, p_dg{};
  const float a_batt[1] = {s.on(kBattery) ? static_cast<float>(a[3]) : 0.0f};
  const devices::BatteryStep bs = batt_.step(s.batt, a_batt, p_b, {});
  const double cf[1] = {series(*p_.solar, k) * p_.solar_scale};
  pv_.step(s.pv, {}, cf, p_pv, {});
  if (!s.on(kPv)) p_pv[0] = s.pv.p_mw[0] = 0.0;

  const double cap = s.on(kGrid) ? p_.grid_import_max_mw : 0.0;
  f.dg_command = a[4];
  if (p_.dg_autobalance)  // the residual of the same step with the diesel at 0
    f.dg_command = clip01(-balance(p_b[0] + p_pv[0] + 0.0 - f.p_load, cap).residual /
                          std::max(p_.dg.p_max_mw, 1e-6));
  if (!s.on(kDiesel)) f.dg_command = 0.0;
  const float a_dg[1] = {static_cast<float>(f.dg_command)};
  const devices::DieselStep gs = dg_.step(s.dg, a_dg, p_dg);
  f.p_batt = p_b[0], f.p_pv = p_pv[0], f.p_dg = p_dg[0];
  f.p_it = d.p_it_mw, f.p_cool = d.p_cool_mw;

  const Balance bal = balance(f.p_batt + f.p_pv + f.p_dg - f.p_load, cap);
  f.import_mw = bal.import_mw;
  f.deficit = std::max(-bal.residual, 0.0);
  f.spill = std::max(bal.residual, 0.0);
  f.price = price_at(k);
  f.fuel = gs.fuel_cost;
  f.grid_cost = f.import_mw * dt * f.price;
  f.carbon_kg = gs.carbon_kg + f.import_mw * dt * 1000.0 * p_.grid_carbon_kg_per_kwh;
  f.throughput_mwh = bs.throughput_mwh;

  const bool done = t + 1 >= p_.horizon;
  f.soc = s.batt.soc[0];
  const double gap = f.soc - p_.terminal_soc_target;
  f.terminal_soc_cost = done ? p_.terminal_soc_penalty * gap * gap : 0.0;
  const double r_cost = -(f.fuel + f.grid_cost + f.throughput_mwh * p_.battery_deg_cost_per_mwh +
                          f.terminal_soc_cost);
  const double reward = -f.p_load * dt + p_.w_cost * r_cost + p_.w_carbon * (-f.carbon_kg);

  const double load_den = std::max(f.p_load, 1e-6);
  f.cost_sla = d.cost_sla;
  f.cost_overtemp = d.cost_overtemp;
  f.cost_deficit = f.deficit / load_den;
  f.n_expired = d.n_expired;
  costs[0] = static_cast<float>(f.cost_sla);
  costs[1] = static_cast<float>(f.cost_overtemp);
  costs[2] = static_cast<float>(f.cost_deficit);

  Step out;
  out.reward = static_cast<float>(reward);
  out.truncated = done;
  if (p_.shaping) {
    const DcmgShaping& w = p_.weights;
    f.penalty = w.sla * f.cost_sla + w.overtemp * f.cost_overtemp +
                w.power_deficit * f.cost_deficit + w.power_spill * f.spill / load_den +
                w.power_balance * std::abs(bal.residual) / load_den;
    if (w.dispatch_tracking != 0)
      f.penalty +=
          w.dispatch_tracking * tracking_cost(soc_pre, f.price, f.p_load, f.p_pv, f.p_batt, f.p_dg);
    out.shaped_reward = reward - f.penalty;
  }
  f.episode_reward = reward - f.penalty;
  for (int j = 0; j < kActDim; ++j) s.last_action[j] = static_cast<float>(a[j]);
  s.last_action[4] = a_dg[0];  // the command the diesel ran (the reference's wrapper re-steps)
  if (info) write_info(s, f, info);
  outages_.end_step(s.out, t + 1, rng);  // records the status run with; the next step's
  write_obs(s, obs);
  return out;
}

void DcMicrogrid::write_obs(McState& s, std::span<float> obs) const {
  const devices::DataCenterState& d = s.dc;
  const double n = p_.dc.n_gpus;
  const int t = d.t;
  const int64_t k = s.start + t;
  const double pb = p_.battery.p_rated_mw, dgm = p_.dg.p_max_mw, pvc = p_.pv.cap_mw;
  const double p_load = std::max(d.p_dc_mw, 0.0);
  const double soc = s.batt.soc[0];
  double o[kObsDim];
  o[0] = clip01(d.gpus_active / n);
  o[1] = clip01(d.gpus_infer / n);
  o[2] = clip01(DataCenter::waiting_gpus(d, JobType::kTrain) / n);
  o[3] = clip01(DataCenter::waiting_gpus(d, JobType::kFinetune) / n);
  o[4] = DataCenter::queue_urgency(d);
  o[5] = clip01((d.t_zone_c - DataCenter::kZoneMinC) /
                (DataCenter::kZoneMaxC - DataCenter::kZoneMinC));
  o[6] = clip01((d.t_outdoor_c - 10.0) / 20.0);
  o[7] = clip01((dc_.cop_factor(d.t_outdoor_c) - 0.4) / 0.8);
  o[8] = clip01(series(*p_.solar, k) * p_.solar_scale);
  o[9] = soc;
  o[10] = clip01(1.0 - s.dg.p_mw[0] / std::max(dgm, 1e-9));
  o[11] = clip01(p_load / std::max(pb + dgm + pvc, 1e-6));
  o[12] = std::clamp((p_load - s.pv.p_mw[0]) / std::max(pb + dgm, 1e-6), -1.0, 1.0);
  const double safe_p = std::max(pb, 1e-6);
  o[13] = batt_.discharge_headroom_mw(0, soc) / safe_p;
  o[14] = batt_.charge_headroom_mw(0, soc) / safe_p;
  o[15] = p_.price ? clip01(price_at(k) / p_.grid_price_ref) : 0.0;
  o[16] = p_.price ? clip01(series(price_max6h_, k) / p_.grid_price_ref) : 0.0;
  for (int j = 0; j < kActDim; ++j) o[17 + j] = s.last_action[j];
  for (int j = 0; j < 22; ++j) obs[j] = static_cast<float>(o[j]);
  time_of_day_features(t, p_.dt_hours, &obs[22]);
  if (outages_.observes_status())
    for (int c = 0; c < kNumComponents; ++c) obs[status_offset_ + c] = s.out.gen_on[c];
  const int h = forecast_.horizon();
  if (h == 0) return;
  thread_local std::vector<double> fc;
  fc.resize(static_cast<size_t>(h));
  size_t i = kObsDim;
  for (int j = 1; j <= h; ++j) fc[j - 1] = series(*p_.solar, k + j) * p_.solar_scale;
  forecast_.apply(fc, s.forecast, fc);
  for (double v : fc) obs[i++] = static_cast<float>(clip01(v));
  if (!p_.price) return;
  for (int j = 1; j <= h; ++j) fc[j - 1] = price_at(k + j);
  forecast_.apply(fc, s.forecast, fc);
  for (double v : fc) obs[i++] = static_cast<float>(clip01(v / p_.grid_price_ref));
}

int64_t DcMicrogrid::episode_start(const State& s) { return static_cast<const McState&>(s).start; }
int DcMicrogrid::step_index(const State& s) { return static_cast<const McState&>(s).dc.t; }
double DcMicrogrid::soc(const State& s) { return static_cast<const McState&>(s).batt.soc[0]; }

void DcMicrogrid::save_state(const State& st, std::vector<double>& out) const {
  const auto& s = static_cast<const McState&>(st);
  const devices::DataCenterState& d = s.dc;
  save_clock(d.t, s.start, out);
  out.insert(out.end(),
             {d.t_zone_c, d.t_setpoint_c, d.t_outdoor_c, d.p_it_mw, d.p_cool_mw, d.p_dc_mw,
              static_cast<double>(d.gpus_infer), static_cast<double>(d.gpus_active),
              static_cast<double>(d.sla_violations)});
  for (int i = 0; i < DataCenter::kSlots; ++i)
    out.insert(out.end(), {static_cast<double>(d.gpus[i]), static_cast<double>(d.deadline[i]),
                           static_cast<double>(d.duration[i]), static_cast<double>(d.remaining[i]),
                           static_cast<double>(d.type[i]), static_cast<double>(d.status[i])});
  out.insert(out.end(), {s.batt.soc[0], s.batt.p_mw[0], s.pv.cf[0], s.pv.p_mw[0], s.dg.p_mw[0]});
  out.insert(out.end(), s.last_action.begin(), s.last_action.end());
  forecast_.save(s.forecast, out);
  outages_.save_state(s.out, out);
}

size_t DcMicrogrid::load_state(State& st, std::span<const double> in) const {
  auto& s = static_cast<McState&>(st);
  constexpr size_t kN = 2 + 9 + 6 * DataCenter::kSlots + 5 + kActDim;
  if (in.size() < kN + forecast_.state_size())
    throw core::ConfigError("checkpoint: datacenter_microgrid state has " +
                            std::to_string(in.size()) + " values, expected " +
                            std::to_string(kN + forecast_.state_size()));
  devices::DataCenterState& d = s.dc;
  load_clock(in, d.t, s.start);
  if (d.t < 0 || d.t > p_.horizon || s.start < 0)
    throw core::ConfigError("checkpoint: datacenter_microgrid state is inconsistent with this env");
  size_t j = 2;
  d.t_zone_c = in[j++];
  d.t_setpoint_c = in[j++];
  d.t_outdoor_c = in[j++];
  d.p_it_mw = in[j++];
  d.p_cool_mw = in[j++];
  d.p_dc_mw = in[j++];
  constexpr int kBig = 1 << 24;  // counts and steps of a saved state stay far below this
  d.gpus_infer = state_int(in[j++], 0, kBig, "datacenter gpus_infer");
  d.gpus_active = state_int(in[j++], 0, kBig, "datacenter gpus_active");
  d.sla_violations = state_int(in[j++], 0, kBig, "datacenter sla_violations");
  for (int i = 0; i < DataCenter::kSlots; ++i) {
    d.gpus[i] = state_int(in[j++], 0, kBig, "datacenter job gpus");
    d.deadline[i] = state_int(in[j++], -kBig, kBig, "datacenter job deadline");
    d.duration[i] = state_int(in[j++], 0, kBig, "datacenter job duration");
    d.remaining[i] = state_int(in[j++], 0, kBig, "datacenter job remaining");
    d.type[i] = static_cast<JobType>(state_int(in[j++], 0, 1, "datacenter job type"));
    d.status[i] =
        static_cast<devices::JobStatus>(state_int(in[j++], 0, 2, "datacenter job status"));
  }
  s.batt.soc[0] = in[j++];
  s.batt.p_mw[0] = in[j++];
  s.pv.cf[0] = in[j++];
  s.pv.p_mw[0] = in[j++];
  s.dg.p_mw[0] = in[j++];
  for (int a = 0; a < kActDim; ++a) s.last_action[a] = static_cast<float>(in[j++]);
  s.pv_peak_mw = window_pv_peak_mw(s.start);
  const size_t n = kN + forecast_.load(s.forecast, in.subspan(kN));
  return n + outages_.load_state(s.out, in.subspan(n));
}

void DcMicrogrid::write_trace(const State& st, std::span<float> out) const {
  if (!outages_.active()) return;
  const auto& s = static_cast<const McState&>(st);
  for (int c = 0; c < kNumComponents; ++c) out[c] = s.out.solved_gen_on[c];
}

// The registry entry: the env is built from a task preset's data, so `[env] id` alone selects
// its default preset (tasks/ registers the presets, applied to this entry).
namespace {

EnvEntry dc_microgrid_entry() {
  EnvEntry e;
  e.id = "datacenter_microgrid";
  e.description =
      "AI data centre behind the meter (job scheduling, cooling) with PV, battery, diesel and a "
      "capped grid import (task dc_microgrid); costs sla, overtemp, power_deficit";
  e.default_task = "dc_microgrid";
  return e;
}

const Registrar kRegistrar{dc_microgrid_entry()};

}  // namespace
}  // namespace pz::envs
