// GenCos task factory and baselines (PowerZooJax powerzoojax/tasks/gencos.py and
// benchmarks/gencos/configs; docs/tasks/gencos.md); registers "gencos".
#include "powerzoo/tasks/gencos.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/data/profile.hpp"
#include "powerzoo/data/profile_cache.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/forecast.hpp"
#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/case/energized.hpp"
#include "powerzoo/tasks/split_settings.hpp"

namespace pz::tasks {
namespace {

// The task's units: gen rows 1..5 of case5 at buses kUnitBus. Status, PMAX and the linear cost
// c ($/MWh) are the case's rows (plain case5: c = 14, 15, 30, 40, 10 and PMAX = 40, 170, 520,
// 200, 600, the task's table); PMIN is the case's if positive, else the task's minimum stable
// output kUnitPmin (case5's PMIN is 0 on every row), at most PMAX.
constexpr int kUnits = 5;
constexpr int kUnitBus[kUnits] = {1, 1, 3, 4, 5};
constexpr double kUnitPmin[kUnits] = {5, 10, 20, 10, 20};
// Loads at buses 2, 3, 4 with d_max 500/600/400 MW and d_min 0.
constexpr int kLoadBus[3] = {2, 3, 4};
const std::vector<double> kDMax = {500, 600, 400};
const std::vector<double> kDMin = {0, 0, 0};
// The N-1 splits (n1_branch, n1_gen): the iid window with one outage per episode lasting
// kN1Steps steps (12 h of the 48 half-hour steps; at most the horizon).
constexpr int kN1Steps = 24;
// The forecast_error split's load-forecast error one step ahead when the spec sets none: 2 % at
// 30 min (2.8 % at two steps). Day-ahead and intraday system-demand forecasts of GB and similar
// systems err by 1-3 % (MAPE); the market-wide demand a GenCo sees is such a system total, so the
// split takes the middle of that range (docs/tasks/gencos.md), a stress level, not a calibration.
constexpr double kSplitForecastNoise = 0.02;

/// Where a gen or gencost cell of `c` is, for messages: "<file>: mpc.gen row 4 column 9 (PMAX)".
std::string cell(const grid::Case& c, const char* table, int row, int col, const char* name,
                 int line = 0) {
  const std::string file = c.source_path.empty() ? c.name : c.source_path;
  return file + (line > 0 ? ":" + std::to_string(line) : "") + ": mpc." + table + " row " +
         std::to_string(row + 1) + " column " + std::to_string(col) + " (" + name + ")";
}

/// Unit i's marginal cost c ($/MWh) from its gencost row: a polynomial (model 2) that is linear
/// (no quadratic or higher term, no constant: the task's offers and profits have no other cost).
double linear_cost(const grid::Case& c, int i) {
  if (static_cast<int>(c.gencost.size()) <= i)
    throw core::ConfigError((c.source_path.empty() ? c.name : c.source_path) +
                            ": expected an mpc.gencost row per GenCos unit, found " +
                            std::to_string(c.gencost.size()) + " rows");
  const grid::GenCost& gc = c.gencost[i];
  if (gc.model != 2)
    throw core::ConfigError(cell(c, "gencost", i, 1, "MODEL", gc.source_line) +
                            ": expected 2 (polynomial; the GenCos offers are built from a linear "
                            "marginal cost), found " +
                            std::to_string(gc.model));
  const int n = static_cast<int>(gc.coeffs.size());
  for (int k = 0; k < n; ++k) {
    const int order = n - 1 - k;
    if (order == 1 || gc.coeffs[k] == 0.0) continue;
    throw core::ConfigError(
        cell(c, "gencost", i, 5 + k, order == 0 ? "c0" : "c2+", gc.source_line) +
        ": expected 0 (the GenCos task prices a linear cost c·P only), found " +
        core::format_number(gc.coeffs[k]));
  }
  return n >= 2 ? gc.coeffs[n - 2] : 0.0;
}

/// The task's units on case `c` (read through grid::energize); throws core::ConfigError (message
/// without prefix) if the case's gen rows 1..5 are not at buses 1, 1, 3, 4, 5, buses 2, 3, 4 are
/// missing, or an in-service row's limits or cost cannot be offered.
std::vector<market::OfferUnit> gencos_units(const grid::Case& c) {
  std::ostringstream found;
  for (int g = 0; g < c.n_gen(); ++g) found << (g ? ", " : "") << c.gen[g].bus;
  bool ok = c.n_gen() == kUnits;
  for (int i = 0; ok && i < kUnits; ++i) ok = c.gen[i].bus == kUnitBus[i];
  for (int b : kLoadBus) {
    bool has = false;
    for (const auto& bus : c.bus) has = has || bus.id == b;
    ok = ok && has;
  }
  if (!ok)
    throw core::ConfigError(
        "expected a case with the GenCos units (5 gens at buses 1, 1, 3, 4, 5) and load buses "
        "2, 3, 4 for task = \"gencos\" (case5), found '" +
        core::echo(c.name) + "' with gens at buses " + found.str());
  std::vector<market::OfferUnit> units(kUnits);
  for (int i = 0; i < kUnits; ++i) {
    const grid::Gen& g = c.gen[i];
    units[i].gen_row = i;
    units[i].mc_c = linear_cost(c, i);
    units[i].in_service = g.status > 0;
    if (!units[i].in_service) continue;  // clears 0 MW, bounds 0
    if (!(g.pmax_mw > 0))
      throw core::ConfigError(cell(c, "gen", i, 9, "PMAX") +
                              ": expected a positive PMAX for an in-service GenCos unit (or "
                              "GEN_STATUS 0), found " +
                              core::format_number(g.pmax_mw));
    units[i].pmax_mw = g.pmax_mw;
    units[i].pmin_mw = g.pmin_mw > 0 ? g.pmin_mw : std::min(kUnitPmin[i], 0.5 * g.pmax_mw);
    if (!(units[i].pmax_mw > units[i].pmin_mw))
      throw core::ConfigError(cell(c, "gen", i, 10, "PMIN") + ": expected PMIN < PMAX (" +
                              core::format_number(g.pmax_mw) + "), found " +
                              core::format_number(g.pmin_mw));
  }
  return units;
}

/// The profile's finite values within the split's days (both inclusive, UTC).
std::vector<double> window_values(const data::Profile& prof, const data::Split& sp) {
  const int64_t spd = prof.steps_per_day();
  const int64_t d0 = (data::parse_date(sp.first_day) - prof.t0_unix) / 86400;
  const int64_t d1 = (data::parse_date(sp.last_day) - prof.t0_unix) / 86400;
  const auto n = static_cast<int64_t>(prof.values.size());
  std::vector<double> out;
  for (int64_t k = std::max<int64_t>(d0, 0) * spd; k < std::min((d1 + 1) * spd, n); ++k)
    if (std::isfinite(prof.values[k])) out.push_back(prof.values[k]);
  return out;
}

}  // namespace

std::vector<double> gencos_bus_loads(const std::vector<double>& mw,
                                     const std::vector<double>& d_min,
                                     const std::vector<double>& d_max, double mult, double sum_pmin,
                                     double sum_pmax) {
  if (d_min.size() != d_max.size() || d_min.empty())
    throw core::ConfigError("gencos: expected d_min and d_max of one size per load bus");
  std::vector<double> v;
  for (double x : mw)
    if (std::isfinite(x)) v.push_back(x);
  if (v.size() < 2) throw core::ConfigError("gencos: expected at least 2 demand values");
  const auto [lo_it, hi_it] = std::minmax_element(v.begin(), v.end());
  const double lo = *lo_it, span = std::max(*hi_it - lo, 1e-9);
  const size_t nd = d_max.size();
  double dsum = 0;
  for (double d : d_max) dsum += d;
  const double floor_mw = sum_pmin + 1, cap_mw = sum_pmax - 1;
  std::vector<double> out(v.size() * nd);
  for (size_t t = 0; t < v.size(); ++t) {
    const double n = (v[t] - lo) / span;
    double* row = &out[t * nd];
    double tot = 0;
    for (size_t d = 0; d < nd; ++d) {
      row[d] = std::clamp(d_min[d] + n * (d_max[d] - d_min[d]), d_min[d], d_max[d]) * mult;
      tot += row[d];
    }
    if (tot < floor_mw) {
      for (size_t d = 0; d < nd; ++d)
        row[d] = tot > 1e-9 ? row[d] * floor_mw / tot : floor_mw * d_max[d] / dsum;
      tot = floor_mw;
    }
    if (tot > cap_mw)
      for (size_t d = 0; d < nd; ++d) row[d] *= cap_mw / tot;
  }
  return out;
}

std::shared_ptr<const envs::Env> make_gencos_env(const envs::BuildContext& ctx) {
  const core::ParamTable& e = ctx.params;
  const std::string& split = ctx.split;
  double mult = 1.0;
  envs::GencosParams p;
  std::string window = split;
  if (split == "demand_shift" || split == "renewable_shock") {
    window = "iid";  // both OOD splits are built on the iid window (as PowerZooJax)
    mult = split == "demand_shift" ? 1.10 : 1.05;
  } else if (split == "forecast_error" || is_n1_split(split)) {
    window = "iid";
  } else if (split != "train" && split != "iid") {
    throw core::ConfigError(ctx.at("split") +
                            "[env] split: expected one of train, iid, demand_shift, "
                            "renewable_shock, forecast_error, n1_branch, n1_gen, found '" +
                            core::echo(split) + "'");
  }
  p.forecast = split_forecast(ctx, kSplitForecastNoise);
  try {
    // The network and the units' status as every reader of the case sees it (grid/case/energized).
    p.grid_case = grid::energize(grid::load_case(grid::resolve_case_path(e.str("case"))));
    p.units = gencos_units(p.grid_case);
  } catch (const core::ConfigError& err) {
    throw core::ConfigError(ctx.at("case") + "[env] case: " + err.what());
  }
  const data::Profile* prof = nullptr;
  try {
    prof = &data::cached_profile(e.str("profile"));
  } catch (const core::ConfigError& err) {
    throw core::ConfigError(ctx.at("profile") + "[env] profile: " + err.what());
  }
  const double dt_hours = e.number("dt_hours");
  const double step_h = prof->step_seconds / 3600.0;
  if (std::abs(step_h - dt_hours) > 1e-9)
    throw core::ConfigError(ctx.at("dt_hours") + "[env] dt_hours: expected the profile's step of " +
                            core::format_number(step_h) + " h, found " +
                            core::format_number(dt_hours));
  double sum_pmin = 0, sum_pmax = 0;
  const double ramp_frac = e.number("ramp_fraction");
  for (const auto& u : p.units) {
    sum_pmin += u.pmin_mw;
    sum_pmax += u.pmax_mw;
    p.ramp_up_mw.push_back(ramp_frac * u.pmax_mw);
    p.ramp_down_mw.push_back(ramp_frac * u.pmax_mw);
  }
  for (int b : kLoadBus) {
    const int k = p.grid_case.bus_index(b);
    if (p.grid_case.bus[k].type == 4)  // its demand would have nowhere to go
      throw core::ConfigError(ctx.at("case") + "[env] case: expected the GenCos load bus " +
                              std::to_string(b) +
                              " energized, found it in an island without "
                              "an in-service generator (or of type 4)");
    p.load_bus_idx.push_back(k);
  }
  std::vector<double> mw;
  try {
    mw = window_values(*prof, data::split_by_name(window));
    p.loads_mw = gencos_bus_loads(mw, kDMin, kDMax, mult, sum_pmin, sum_pmax);
  } catch (const core::ConfigError& err) {
    throw core::ConfigError(ctx.at("profile") + "[env] profile (split " + split +
                            "): " + err.what());
  }
  p.segments = static_cast<int>(e.integer("segments"));
  p.max_markup = e.number("max_markup");
  p.lmp_history = static_cast<int>(e.integer("lmp_history"));
  p.horizon = static_cast<int>(e.integer("horizon"));
  p.dt_hours = dt_hours;
  p.outages = split_outages(ctx, std::min(kN1Steps, p.horizon));
  // The outages against the case and horizon (a scenario row names its file and line).
  envs::with_key(ctx, "outages", [&] { envs::OutageProcess(p.outages, p.grid_case, p.horizon); });
  return envs::with_key(ctx, "",
                        [&] { return std::make_shared<envs::GencosMarket>(std::move(p)); });
}

std::optional<envs::PolicyFn> gencos_baseline(const std::string& name,
                                              std::shared_ptr<const envs::Env> env) {
  auto g = std::dynamic_pointer_cast<const envs::GencosMarket>(env);
  if (!g) return std::nullopt;
  float a = 0;
  if (name == "truthful" || name == "no_control")
    a = -1.0f;
  else if (name == "uniform_mid")
    a = 0.0f;
  else if (name == "max_markup")
    a = 1.0f;
  else
    return std::nullopt;
  const int act_dim = g->spec().act_dim;
  return envs::PolicyFn([a, act_dim](const float*, int n, float* out) {
    std::fill(out, out + static_cast<size_t>(n) * act_dim, a);
  });
}

namespace {

envs::TaskPreset gencos_preset() {
  envs::TaskPreset e;
  e.name = "gencos";
  e.env_id = "gencos_market";
  e.description =
      "GenCos benchmark: 5 bidding generators on case5, offer-based SCED every half hour, GB "
      "demand mapped onto buses 2-4; splits train, iid, demand_shift (×1.10), renewable_shock "
      "(×1.05), forecast_error (load forecast error 2 % · sqrt(lead) unless forecast_noise is "
      "set), n1_branch and n1_gen (iid with one branch / unit out for 24 steps)";
  e.params = envs::concat(
      envs::data_params("case5"),
      {
          core::int_param("horizon", 48, 1, 100000, "steps per episode"),
          core::float_param(
              "dt_hours", 0.5, [](double x) { return x > 0 && x <= 24; }, "a number in (0, 24]",
              "step length (h); must equal the data's"),
          core::int_param("segments", 3, 1, 64, "offer segments per unit"),
          core::float_param(
              "max_markup", 2.0, [](double x) { return x >= 0 && x <= 10; }, "a number in [0, 10]",
              "offer = base·(1 + m·max_markup), m = (a + 1)/2 ∈ [0, 1]"),
          core::int_param("lmp_history", 4, 0, 48, "mean LMPs of past steps in each observation"),
          core::float_param(
              "ramp_fraction", 0.5, [](double x) { return x > 0 && x <= 1; }, "a number in (0, 1]",
              "ramp limit per step as a share of pmax"),
      });
  // Outages (docs/outages.md): the clearing runs on each step's network, island by island.
  for (auto& d : envs::outage_params()) e.params.push_back(std::move(d));
  // Forecasts (docs/design.md §4.12): one step ahead by default, the observation the reference
  // has (its next-step total load), perfect unless forecast_noise is set.
  for (auto& d : envs::forecast_params(1, "load_forecast")) {
    if (d.key == "forecast_noise") d.doc += "; split forecast_error uses 0.02 when this is 0";
    e.params.push_back(std::move(d));
  }
  e.splits = {"train",          "iid",       "demand_shift", "renewable_shock",
              "forecast_error", "n1_branch", "n1_gen"};
  e.make = make_gencos_env;
  e.baselines = envs::named_baselines({"truthful", "no_control", "uniform_mid", "max_markup"},
                                      "gencos task", gencos_baseline);
  e.describe_data = [](const core::ParamTable& p) {
    return data::describe_profile(p.str("profile"));
  };
  e.bench_specs = {"experiments/gencos_ippo_short.toml"};
  e.benchmark_specs = {"experiments/gencos_ippo.toml"};
  // PowerZooJax's published benchmark table: end-to-end training steps/s (env steps / wall
  // time) of its IPPO run of this task on one GPU and on a 64-core CPU.
  e.reference_rates = {75000, 7600};
  return e;
}

const envs::Registrar kRegistrar{gencos_preset()};

}  // namespace
}  // namespace pz::tasks
