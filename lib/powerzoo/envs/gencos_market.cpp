// GenCos market env: offers from actions, ramp-windowed clearing, profits, private observations.
#include "powerzoo/envs/gencos_market.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/params.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/network_view.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/market/island_clearing.hpp"

namespace pz::envs {

// Info::sums slots (GencosMarket::spec().episode_sum_names, same order).
namespace {
constexpr int kSumProfit = 0, kSumMeanProfit = 1, kSumAgentProfit = 2;  // + U
int sum_share(int nu) { return kSumAgentProfit + nu; }                  // + U
int sum_tail(int nu) { return kSumAgentProfit + 2 * nu; }
// After the per-agent blocks: gen cost, mean lmp, volatility, hhi, share std, convergence, ramp
// binding, planner cost ratio.
constexpr int kTail = 8;
}  // namespace

struct GencosMarket::GState : State {
  int t = 0;
  int64_t start = 0;
  std::vector<double> p_prev, profit, lmp_hist;
  // Episode accumulators of the metrics that are not step sums (emitted at the last step).
  double lmp_sum = 0, lmp_sq = 0, true_cost = 0, planner_cost = 0;
  std::unique_ptr<market::Clearing> clearing, planner;
  market::ClearingResult r;
  // Outages: the status of every row, and the clearings of the network of `net_key` (the status
  // they were built for; rebuilt when it changes, and after a load_state).
  OutageState out;
  std::vector<uint8_t> net_key;
  std::unique_ptr<market::IslandClearing> net, net_planner;
  market::IslandLosses losses;
  bool on_net = false;     // the last (non-planner) clearing was that of `net`
  ForecastState forecast;  // the load forecast's error stream (noise > 0)
};

GencosMarket::GencosMarket(GencosParams p) : p_(std::move(p)), forecast_(p_.forecast) {
  const int nu = n_units(), nd = static_cast<int>(p_.load_bus_idx.size());
  const int max_units = std::min((Info::kMaxSums - kTail - kSumAgentProfit) / 2, Step::kMaxAgents);
  if (nu == 0 || nu > max_units)
    throw core::ConfigError("gencos: expected 1.." + std::to_string(max_units) + " units, found " +
                            std::to_string(nu));
  if (static_cast<int>(p_.ramp_up_mw.size()) != nu ||
      static_cast<int>(p_.ramp_down_mw.size()) != nu)
    throw core::ConfigError("gencos: expected one ramp per unit");
  if (nd == 0 || p_.loads_mw.empty() || p_.loads_mw.size() % nd != 0)
    throw core::ConfigError("gencos: expected a [T x n_loads] load table");
  if (p_.horizon < 1 || p_.dt_hours <= 0 || p_.lmp_history < 0)
    throw core::ConfigError("gencos: expected horizon >= 1, dt_hours > 0, lmp_history >= 0");
  for (int b : p_.load_bus_idx)
    if (b < 0 || b >= p_.grid_case.n_bus())
      throw core::ConfigError("gencos: load bus outside the case");
  market_ = std::make_shared<market::OfferMarket>(p_.grid_case, p_.units, p_.segments);
  { market::Clearing probe(*market_); }  // the network's own checks, once, here
  for (const auto& u : p_.units) {
    max_pmax_ = std::max(max_pmax_, u.pmax_mw);
    sum_pmax_ += u.pmax_mw;
  }
  rated_.resize(p_.grid_case.n_branch());
  for (int l = 0; l < p_.grid_case.n_branch(); ++l) rated_[l] = p_.grid_case.branch[l].rate_a_mva;
  starts_.resize(n_rows());
  std::iota(starts_.begin(), starts_.end(), int64_t{0});
  outages_ = OutageProcess(p_.outages, p_.grid_case, p_.horizon);
  outages_.make_state(intact_);
  const int per = per_agent_obs();
  spec_.id = "gencos_market";
  spec_.obs_dim = per * nu;
  spec_.act_dim = p_.segments * nu;
  spec_.act_low.assign(spec_.act_dim, -1.0f);
  spec_.act_high.assign(spec_.act_dim, 1.0f);
  spec_.cost_names = {"thermal_overload"};
  spec_.horizon = p_.horizon;
  spec_.dt_hours = p_.dt_hours;
  std::vector<std::pair<std::string, int>> fields;
  const int nl = p_.grid_case.n_branch();
  for (int a = 0; a < nu; ++a) {
    const std::string name = "genco_" + std::to_string(a);
    spec_.agents.push_back({name, "genco", {a * per, per}, {a * p_.segments, p_.segments}});
    for (const auto& [f, n] : {std::pair<const char*, int>{"own_cost", 1},
                               {"pmax_share", 1},
                               {"dispatch", 1},
                               {"profit", 1},
                               {"ramp_headroom", 1},
                               {"load_forecast", forecast_.horizon()},
                               {"time_of_day", 2},
                               {"lmp_history", p_.lmp_history},
                               {"branch_status", outages_.observes_status() ? nl : 0},
                               {"gen_status", outages_.observes_status() ? nu : 0}})
      if (n > 0) fields.push_back({name + "/" + f, n});
  }
  spec_.obs_fields = tile_obs_fields(fields);
  auto& n = spec_.episode_sum_names;
  n = {"total_profit", "mean_profit_per_agent"};
  for (int a = 0; a < nu; ++a) n.push_back("profit_genco_" + std::to_string(a));
  for (int a = 0; a < nu; ++a) n.push_back("dispatch_share_genco_" + std::to_string(a));
  for (const char* s : {"total_gen_cost", "mean_lmp", "price_volatility", "hhi", "market_share_std",
                        "sced_convergence_rate", "ramp_binding_rate", "planner_cost_ratio"})
    n.push_back(s);
  const grid::Case& c = p_.grid_case;
  spec_.network = network_view(c);
  spec_.trace_vectors = {
      {"unit_p_mw", nu}, {"bus_lmp_usd_per_mwh", c.n_bus()}, {"branch_p_mw", c.n_branch()}};
  setup_outages();
}

// The outage channels and traces exist only when outages are configured (the shapes of the env
// without them are unchanged). Both statuses are observed whatever kinds can fail: one
// observation for every outage setting, so a learner trained under outages of one kind evaluates
// on both n1 splits. outage_status_obs = false leaves them out of the observation (traced still).
void GencosMarket::setup_outages() {
  if (!outages_.active()) return;
  spec_.cost_names.push_back("unserved_load");
  spec_.cost_names.push_back("spilled_generation");
  spec_.trace_vectors.push_back({"branch_status", p_.grid_case.n_branch()});
  spec_.trace_vectors.push_back({"gen_status", n_units()});
}

// The mean LMP of the energized buses (a de-energized bus has no price).
double GencosMarket::mean_lmp(const GState& s, const market::ClearingResult& r) const {
  double sum = 0;
  size_t n = 0;
  for (size_t b = 0; b < r.lmp.size(); ++b)
    if (!s.on_net || s.net->bus_live(static_cast<int>(b))) sum += r.lmp[b], ++n;
  return sum / std::max<size_t>(n, 1);
}

int GencosMarket::per_agent_obs() const {
  return kPerAgentObs - 1 + forecast_.horizon() + p_.lmp_history +
         (outages_.observes_status() ? p_.grid_case.n_branch() + n_units() : 0);
}

void GencosMarket::clear_network(GState& s, std::span<const double> pd,
                                 std::span<const double> prices, std::span<const double> lo,
                                 std::span<const double> hi, bool planner,
                                 market::ClearingResult& r) const {
  const bool intact = !outages_.active() ||
                      (s.out.branch_on == intact_.branch_on && s.out.gen_on == intact_.gen_on);
  if (!planner) s.on_net = !intact;
  if (intact) {
    (planner ? s.planner : s.clearing)->clear(pd, prices, lo, hi, r);
    if (!planner) {
      s.losses = market::IslandLosses{};
      s.losses.shed_mw = std::max(r.unserved_mw, 0.0);
      s.losses.spilled_mw = std::max(-r.unserved_mw, 0.0);
    }
    return;
  }
  std::vector<uint8_t>& key = s.net_key;
  const size_t nl = s.out.branch_on.size();
  if (key.size() != nl + s.out.gen_on.size() ||
      !std::equal(s.out.branch_on.begin(), s.out.branch_on.end(), key.begin()) ||
      !std::equal(s.out.gen_on.begin(), s.out.gen_on.end(), key.begin() + nl)) {
    // A new status: its islands' markets, built once while it holds (a few per episode).
    key = s.out.branch_on;
    key.insert(key.end(), s.out.gen_on.begin(), s.out.gen_on.end());
    s.net = std::make_unique<market::IslandClearing>(p_.grid_case, p_.units, p_.segments,
                                                     s.out.branch_on, s.out.gen_on);
    s.net_planner = s.net->twin();  // the same islands and markets, a clearing of its own
  }
  market::IslandLosses planner_losses;
  if (planner)
    s.net_planner->clear(pd, prices, lo, hi, r, planner_losses);
  else
    s.net->clear(pd, prices, lo, hi, r, s.losses);
}

void GencosMarket::write_trace(const State& st, std::span<float> out) const {
  const auto& s = static_cast<const GState&>(st);
  const grid::Case& c = p_.grid_case;
  const int o = put_trace(out, put_trace(out, 0, s.r.p_mw, n_units()), s.r.lmp, c.n_bus());
  int k = put_trace(out, o, s.r.flow_mw, c.n_branch());
  if (!outages_.active()) return;
  for (uint8_t on : s.out.solved_branch_on) out[k++] = on;
  for (const auto& u : p_.units) out[k++] = s.out.solved_gen_on[u.gen_row];
}

const market::ClearingResult& GencosMarket::last_clearing(const State& s) const {
  return static_cast<const GState&>(s).r;
}

const OutageState& GencosMarket::outage_state(const State& s) const {
  return static_cast<const GState&>(s).out;
}

int64_t GencosMarket::n_rows() const {
  return static_cast<int64_t>(p_.loads_mw.size() / p_.load_bus_idx.size());
}

void GencosMarket::bus_loads(int64_t row, std::vector<double>& pd) const {
  const size_t nd = p_.load_bus_idx.size();
  pd.assign(p_.grid_case.n_bus(), 0.0);
  const int64_t k = row % n_rows();
  for (size_t d = 0; d < nd; ++d) pd[p_.load_bus_idx[d]] += p_.loads_mw[k * nd + d];
}

double GencosMarket::total_load(int64_t row) const {
  const size_t nd = p_.load_bus_idx.size();
  const int64_t k = row % n_rows();
  double s = 0;
  for (size_t d = 0; d < nd; ++d) s += p_.loads_mw[k * nd + d];
  return s;
}

std::unique_ptr<State> GencosMarket::make_state() const {
  auto s = std::make_unique<GState>();
  const int nu = n_units();
  s->p_prev.assign(nu, 0.0);
  s->profit.assign(nu, 0.0);
  s->lmp_hist.assign(p_.lmp_history, 0.0);
  s->clearing = std::make_unique<market::Clearing>(*market_);
  s->planner = std::make_unique<market::Clearing>(*market_);
  outages_.make_state(s->out);
  return s;
}

void GencosMarket::write_obs(GState& s, std::span<float> obs) const {
  const int nu = n_units(), per = per_agent_obs(), nf = forecast_.horizon();
  const double dt = p_.dt_hours, sc = p_.lmp_scale;
  thread_local std::vector<double> fc;
  fc.resize(static_cast<size_t>(nf));
  for (int k = 1; k <= nf; ++k) fc[k - 1] = total_load(s.start + s.t + k) / (sum_pmax_ + 1e-6);
  forecast_.apply(fc, s.forecast, fc);  // one market-wide forecast for every agent
  float tod[2];
  time_of_day_features(s.t, dt, tod);  // within-episode t, as the reference
  for (int i = 0; i < nu; ++i) {
    const market::OfferUnit& u = p_.units[i];
    float* o = obs.data() + static_cast<size_t>(i) * per;
    o[0] = static_cast<float>(market_->base_prices()[i * p_.segments] / sc);
    o[1] = static_cast<float>(u.pmax_mw / (max_pmax_ + 1e-6));
    o[2] = static_cast<float>(s.p_prev[i] / (u.pmax_mw + 1e-6));
    o[3] = static_cast<float>(s.profit[i] / (sc * u.pmax_mw * dt + 1e-6));
    o[4] = static_cast<float>(std::min(u.pmax_mw - s.p_prev[i], p_.ramp_up_mw[i]) /
                              (u.pmax_mw + 1e-6));
    int k = 5;
    for (int h = 0; h < nf; ++h) o[k++] = static_cast<float>(fc[h]);
    o[k++] = tod[0];
    o[k++] = tod[1];
    for (int h = 0; h < p_.lmp_history; ++h) o[k++] = static_cast<float>(s.lmp_hist[h] / sc);
    if (!outages_.observes_status()) continue;
    for (uint8_t on : s.out.branch_on) o[k++] = on;
    for (const auto& v : p_.units) o[k++] = s.out.gen_on[v.gen_row];
  }
}

void GencosMarket::reset(State& st, core::Rng& rng, std::span<float> obs,
                         const ResetOptions& opt) const {
  auto& s = static_cast<GState&>(st);
  s.start = choose_episode_start(starts_, rng, opt);  // every row, wrapping around
  s.t = 0;
  forecast_.begin_episode(s.forecast, rng, s.start);  // does not advance rng
  outages_.reset(s.out, rng);  // draws nothing when no outages are configured
  thread_local std::vector<double> pd;
  bus_loads(s.start, pd);
  // The static truthful SCED of step 0's network.
  clear_network(s, pd, market_->base_prices(), {}, {}, false, s.r);
  s.p_prev = s.r.p_mw;
  const double mean = mean_lmp(s, s.r);
  std::fill(s.lmp_hist.begin(), s.lmp_hist.end(), mean);
  std::fill(s.profit.begin(), s.profit.end(), 0.0);
  s.lmp_sum = s.lmp_sq = s.true_cost = s.planner_cost = 0;
  write_obs(s, obs);
}

Step GencosMarket::step(State& st, std::span<const float> action, core::Rng& rng,
                        std::span<float> obs, std::span<float> costs, Info* info) const {
  auto& s = static_cast<GState&>(st);
  const int nu = n_units(), k = p_.segments;
  const double dt = p_.dt_hours;
  thread_local std::vector<double> prices, lo, hi, pd;
  prices.resize(static_cast<size_t>(nu) * k);
  lo.resize(nu);
  hi.resize(nu);
  market::offer_prices(market_->base_prices(), action, k, p_.max_markup, prices);
  bus_loads(s.start + s.t, pd);
  market::ramp_window(p_.units, s.p_prev, p_.ramp_up_mw, p_.ramp_down_mw, lo, hi);
  market::ClearingResult& r = s.r;
  clear_network(s, pd, prices, lo, hi, false, r);
  double overload = 0;
  // An exact LP runs binding lines at the rating ± 1e-13 MW: overloads up to 1e-6 MW are the
  // solver's, not the market's (TransGrid's tolerance, docs/deviations.md).
  for (size_t l = 0; l < rated_.size(); ++l) {
    const double over = rated_[l] > 0 ? std::abs(r.flow_mw[l]) - rated_[l] : 0.0;
    if (over > 1e-6) overload += over;
  }
  costs[0] = static_cast<float>(overload);
  const double unserved = s.losses.dead_load_mw + s.losses.shed_mw;
  if (outages_.active()) {
    costs[1] = static_cast<float>(unserved);
    costs[2] = static_cast<float>(s.losses.spilled_mw);
  }
  Step out;
  double team = 0;
  int binding = 0;
  for (int i = 0; i < nu; ++i) {
    const market::OfferUnit& u = p_.units[i];
    const double lmp = r.lmp[p_.grid_case.gen_bus_idx[u.gen_row]];
    // An out unit's offer is withdrawn: 0 MW, profit 0, never ramp-bound.
    const bool on = !outages_.active() || s.out.gen_on[u.gen_row];
    s.profit[i] = on ? lmp * r.p_mw[i] * dt - u.total_cost(r.p_mw[i]) * dt : 0.0;
    out.agent_reward[i] = static_cast<float>(s.profit[i]);
    team += s.profit[i];
    binding += on && (r.p_mw[i] >= hi[i] - 0.5 || r.p_mw[i] <= lo[i] + 0.5);
  }
  out.reward = static_cast<float>(team / nu);
  const double mean = mean_lmp(s, r);
  std::rotate(s.lmp_hist.begin(), s.lmp_hist.begin() + 1, s.lmp_hist.end());
  if (!s.lmp_hist.empty()) s.lmp_hist.back() = mean;
  s.lmp_sum += mean;
  s.lmp_sq += mean * mean;
  s.true_cost += r.true_cost * dt;
  // The planner: a static truthful SCED of the same loads (no ramps), for planner_cost_ratio.
  thread_local market::ClearingResult pr;
  clear_network(s, pd, market_->base_prices(), {}, {}, true, pr);
  s.planner_cost += pr.true_cost * dt;
  s.p_prev = r.p_mw;
  s.t += 1;
  out.truncated = s.t >= p_.horizon;
  // The status this step cleared with (the traces), then the next step's (the observation's).
  outages_.end_step(s.out, s.t, rng);
  if (info) {
    *info = Info{};
    info->gen_cost = r.true_cost;
    const bool lost = unserved > 1e-6;  // only with outages: a de-energized island, a shed
    info->n_violations = (overload > 0) + (outages_.active() && lost);
    info->is_safe = overload <= 0 && !(outages_.active() && lost);
    info->status =
        r.status == grid::DcOpfStatus::kOptimal ? StepStatus::kOk : StepStatus::kSolverFailed;
    double* q = info->sums;
    const double inv_h = 1.0 / p_.horizon;
    q[kSumProfit] = team;
    q[kSumMeanProfit] = team / nu;
    double total_p = 0;
    for (double v : r.p_mw) total_p += v;
    double hhi = 0, sh_mean = 0, sh_sq = 0;
    for (int i = 0; i < nu; ++i) {
      const double sh = total_p > 0 ? r.p_mw[i] / total_p : 0.0;
      q[kSumAgentProfit + i] = s.profit[i];
      q[sum_share(nu) + i] = sh * inv_h;
      hhi += sh * sh;
      sh_mean += sh / nu;
      sh_sq += sh * sh / nu;
    }
    const int t0 = sum_tail(nu);
    q[t0 + 0] = r.true_cost * dt;
    q[t0 + 1] = mean * inv_h;
    q[t0 + 3] = hhi * inv_h;
    q[t0 + 4] = std::sqrt(std::max(sh_sq - sh_mean * sh_mean, 0.0)) * inv_h;
    q[t0 + 5] = r.feasible ? inv_h : 0.0;
    q[t0 + 6] = static_cast<double>(binding) / nu * inv_h;
    if (out.truncated) {  // per-episode statistics, emitted once
      const double m = s.lmp_sum / s.t;
      const double var = std::max(s.lmp_sq / s.t - m * m, 0.0);
      q[t0 + 2] = std::abs(m) > 1e-9 ? std::sqrt(var) / m : 0.0;
      q[t0 + 7] = s.true_cost > 0 ? s.planner_cost / s.true_cost : 0.0;
    }
  }
  write_obs(s, obs);
  return out;
}

void GencosMarket::save_state(const State& st, std::vector<double>& out) const {
  const auto& s = static_cast<const GState&>(st);
  save_clock(s.t, s.start, out);
  out.insert(out.end(), s.p_prev.begin(), s.p_prev.end());
  out.insert(out.end(), s.profit.begin(), s.profit.end());
  out.insert(out.end(), s.lmp_hist.begin(), s.lmp_hist.end());
  out.insert(out.end(), {s.lmp_sum, s.lmp_sq, s.true_cost, s.planner_cost});
  outages_.save_state(s.out, out);  // nothing when no outages are configured
  forecast_.save(s.forecast, out);  // nothing without forecast noise
}

size_t GencosMarket::load_state(State& st, std::span<const double> in) const {
  auto& s = static_cast<GState&>(st);
  const size_t nu = s.p_prev.size(), nh = s.lmp_hist.size();
  const size_t n = 2 + 2 * nu + nh + 4;
  if (in.size() < n)
    throw core::ConfigError("checkpoint: gencos_market state has " + std::to_string(in.size()) +
                            " values, expected " + std::to_string(n));
  load_clock(in, s.t, s.start);
  if (s.t < 0 || s.t > p_.horizon || s.start < 0 || s.start >= n_rows())
    throw core::ConfigError("checkpoint: gencos_market state is inconsistent with this env");
  size_t k = 2;
  // The last dispatch bounds the next LP's ramp window: a value outside the unit's [pmin, pmax]
  // is a damaged checkpoint (1e300 gave CLP bounds it asserts on).
  for (size_t i = 0; i < nu; ++i) {
    const market::OfferUnit& u = p_.units[i];
    const double p = in[k++], tol = 1e-6 * std::max(1.0, u.pmax_mw);
    // Under outages a unit out (or on a de-energized island) last cleared 0 MW.
    const bool off = outages_.active() && p == 0.0;
    if (!off && !(p >= u.pmin_mw - tol && p <= u.pmax_mw + tol))
      throw core::ConfigError(
          "checkpoint: gencos_market unit " + std::to_string(i) +
          " last dispatch: expected a value in [" + core::format_number(u.pmin_mw) + ", " +
          core::format_number(u.pmax_mw) + "] MW, found " + core::format_number(p));
    s.p_prev[i] = p;
  }
  for (size_t i = 0; i < nu; ++i) s.profit[i] = in[k++];
  for (size_t h = 0; h < nh; ++h) s.lmp_hist[h] = in[k++];
  s.lmp_sum = in[k++];
  s.lmp_sq = in[k++];
  s.true_cost = in[k++];
  s.planner_cost = in[k++];
  s.clearing->reset_warm_start();  // the checkpoint has no basis
  s.planner->reset_warm_start();
  const size_t n_out = outages_.load_state(s.out, in.subspan(n));
  s.net_key.clear();  // the next step rebuilds the islands' clearings (cold, as above)
  s.net.reset();
  s.net_planner.reset();
  s.on_net = false;
  return n + n_out + forecast_.load(s.forecast, in.subspan(n + n_out));
}

// The registry entry: the env is built from a task preset's data, so `[env] id` alone selects
// its default preset (tasks/ registers the presets, applied to this entry).
namespace {

EnvEntry gencos_market_entry() {
  EnvEntry e;
  e.id = "gencos_market";
  e.description =
      "GenCos market (task gencos): one bidding agent per generator offers a K-segment markup "
      "curve, cleared by the exact offer-based SCED; profit rewards; cost thermal_overload";
  e.default_task = "gencos";
  return e;
}

const Registrar kRegistrar{gencos_market_entry()};

}  // namespace
}  // namespace pz::envs
