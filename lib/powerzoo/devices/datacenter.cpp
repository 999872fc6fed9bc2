// Data-centre physics (PowerZooJax powerzoojax/envs/resource/datacenter.py): job table, EDF,
// power, thermal.
#include "powerzoo/devices/datacenter.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/params.hpp"

namespace pz::devices {
namespace {

constexpr int kSlots = DataCenterState::kSlots;

double unit(double x) { return std::isfinite(x) ? std::clamp(x, 0.0, 1.0) : 0.0; }

void require(bool ok, const std::string& what, double found) {
  if (!ok)
    throw core::ConfigError("DataCenter: expected " + what + ", found " +
                            core::format_number(found));
}

void check_class(const JobClass& c, const std::string& name) {
  require(c.arrival_interval > 0, name + " arrival_interval > 0", c.arrival_interval);
  require(c.gpu_lo >= 1 && c.gpu_lo <= c.gpu_hi, name + " 1 <= gpu_lo <= gpu_hi", c.gpu_lo);
  require(c.dur_lo >= 1 && c.dur_lo <= c.dur_hi, name + " 1 <= dur_lo <= dur_hi", c.dur_lo);
  require(c.deadline_slack > 0 && std::isfinite(c.deadline_slack), name + " deadline_slack > 0",
          c.deadline_slack);
  require(c.eta >= 0 && c.eta <= 1, name + " eta in [0, 1]", c.eta);
}

// Greedy EDF (reference _greedy_edf_schedule): the eligible slots sorted by key, ties by slot
// index (a stable sort), then the sorted prefix whose cumulative GPUs fit `budget` starts
// running with remaining = duration. Insertion sort: at most 64 slots, usually a handful.
template <class Eligible, class Key>
void greedy_edf(DataCenterState& s, int budget, Eligible eligible, Key key) {
  int idx[kSlots];
  int keys[kSlots];
  int n = 0;
  for (int i = 0; i < kSlots; ++i) {
    if (!eligible(i)) continue;
    const int k = key(i);
    int j = n++;
    while (j > 0 && keys[j - 1] > k) {  // strict: equal keys keep slot order
      keys[j] = keys[j - 1];
      idx[j] = idx[j - 1];
      --j;
    }
    keys[j] = k;
    idx[j] = i;
  }
  int cum = 0;
  for (int j = 0; j < n; ++j) {
    cum += s.gpus[idx[j]];
    if (cum > budget) break;  // cumulative GPUs only grow: the rest do not fit either
    s.status[idx[j]] = JobStatus::kRunning;
    s.remaining[idx[j]] = s.duration[idx[j]];
  }
}

// min(Poisson(lambda), cap) by inversion of one uniform.
int poisson_capped(double lambda, int cap, core::Rng& rng) {
  const double u = rng.uniform();
  double p = std::exp(-lambda), cdf = p;
  int k = 0;
  while (u >= cdf && k < cap) {
    ++k;
    p *= lambda / k;
    cdf += p;
  }
  return k;
}

}  // namespace

DataCenter::DataCenter(DataCenterParams p) : p_(std::move(p)) {
  require(p_.n_gpus > 0, "n_gpus > 0", p_.n_gpus);
  require(p_.gpu_idle_w >= 0 && p_.gpu_active_w >= p_.gpu_idle_w, "0 <= gpu_idle_w <= gpu_active_w",
          p_.gpu_idle_w);
  require(p_.p_base_mw >= 0, "p_base_mw >= 0", p_.p_base_mw);
  require(p_.infer_gpu_peak >= 0, "infer_gpu_peak >= 0", p_.infer_gpu_peak);
  require(p_.cop_ref > 0, "cop_ref > 0", p_.cop_ref);
  require(p_.cop_decay_per_c >= 0, "cop_decay_per_c >= 0", p_.cop_decay_per_c);
  require(p_.c_thermal_kwh_per_c > 0, "c_thermal_kwh_per_c > 0", p_.c_thermal_kwh_per_c);
  require(p_.ua_cooling_kw_per_c >= 0, "ua_cooling_kw_per_c >= 0", p_.ua_cooling_kw_per_c);
  require(p_.h_wall_kw_per_c >= 0, "h_wall_kw_per_c >= 0", p_.h_wall_kw_per_c);
  require(p_.t_set_min_c <= p_.t_set_max_c, "t_set_min_c <= t_set_max_c", p_.t_set_min_c);
  require(p_.t_critical_c < kZoneMaxC, "t_critical_c < 45", p_.t_critical_c);
  require(p_.p_aux_frac >= 0, "p_aux_frac >= 0", p_.p_aux_frac);
  require(p_.dt_hours > 0 && std::isfinite(p_.dt_hours), "dt_hours > 0", p_.dt_hours);
  check_class(p_.train, "train");
  check_class(p_.finetune, "finetune");
}

void DataCenter::reset(DataCenterState& s) const {
  s = DataCenterState{};
  s.t_zone_c = s.t_setpoint_c = p_.t_initial_c;
  s.t_outdoor_c = p_.t_ref_c;
}

Arrivals DataCenter::draw_arrivals(core::Rng& rng) const {
  Arrivals a;
  const JobClass* cls[2] = {&p_.train, &p_.finetune};
  for (int c = 0; c < 2; ++c) {
    const JobClass& k = *cls[c];
    a.n[c] = poisson_capped(1.0 / k.arrival_interval, kMaxArrivals, rng);
    for (int i = 0; i < a.n[c]; ++i) {
      a.gpus[c][i] = k.gpu_lo + static_cast<int>(rng.below(k.gpu_hi - k.gpu_lo + 1));
      a.duration[c][i] = k.dur_lo + static_cast<int>(rng.below(k.dur_hi - k.dur_lo + 1));
    }
  }
  return a;
}

void DataCenter::insert(DataCenterState& s, JobType type, const Arrivals& a, int& dropped) const {
  const int c = static_cast<int>(type);
  const JobClass& k = c == 0 ? p_.train : p_.finetune;
  int slot = 0;
  for (int i = 0; i < a.n[c]; ++i) {
    while (slot < kSlots && s.status[slot] != JobStatus::kInactive) ++slot;
    if (slot == kSlots) {
      dropped += a.n[c] - i;
      return;
    }
    s.gpus[slot] = a.gpus[c][i];
    s.duration[slot] = s.remaining[slot] = a.duration[c][i];
    // ⌊duration·slack⌋; the 1e-9 keeps products such as 15·1.2 from truncating to 17.
    s.deadline[slot] =
        s.t + static_cast<int32_t>(std::floor(a.duration[c][i] * k.deadline_slack + 1e-9));
    s.type[slot] = type;
    s.status[slot] = JobStatus::kWaiting;
  }
}

int DataCenter::running_gpus(const DataCenterState& s) const {
  int g = 0;
  for (int i = 0; i < kSlots; ++i) g += s.status[i] == JobStatus::kRunning ? s.gpus[i] : 0;
  return g;
}

double DataCenter::cop_factor(double t_outdoor_c) const {
  return std::clamp(1.0 - p_.cop_decay_per_c * std::max(t_outdoor_c - p_.t_ref_c, 0.0), 0.4, 1.2);
}

DataCenterStep DataCenter::step(DataCenterState& s, double r_train, double r_ft, double cool,
                                double infer_frac, double t_outdoor_c,
                                const Arrivals& arrivals) const {
  DataCenterStep out;
  r_train = unit(r_train);
  r_ft = unit(r_ft);
  cool = unit(cool);
  const int t = s.t, n = p_.n_gpus;
  const double t_set = p_.t_set_min_c + cool * (p_.t_set_max_c - p_.t_set_min_c);
  const double f = std::isfinite(infer_frac) ? std::max(infer_frac, 0.0) : 0.0;
  // Clamped to [0, n]: every use is min(infer, n) or max(0, n − infer − ·).
  const int infer = static_cast<int>(std::min<double>(std::floor(p_.infer_gpu_peak * f), n));

  insert(s, JobType::kTrain, arrivals, out.n_dropped);
  insert(s, JobType::kFinetune, arrivals, out.n_dropped);

  auto waiting = [&s](int i) { return s.status[i] == JobStatus::kWaiting; };
  auto slack = [&s, t](int i) { return s.deadline[i] - t - s.duration[i]; };
  greedy_edf(
      s, std::max(0, n - infer - running_gpus(s)),
      [&](int i) { return waiting(i) && slack(i) <= 0; }, [&s](int i) { return s.deadline[i]; });
  const int avail = std::max(0, n - infer - running_gpus(s));
  greedy_edf(
      s, static_cast<int>(r_train * avail),
      [&](int i) { return waiting(i) && s.type[i] == JobType::kTrain; }, slack);
  const int avail_ft = std::max(0, n - infer - running_gpus(s));
  greedy_edf(
      s, static_cast<int>(r_ft * avail_ft),
      [&](int i) { return waiting(i) && s.type[i] == JobType::kFinetune; }, slack);

  double p_run_w = 0;
  int run_gpus = 0;
  for (int i = 0; i < kSlots; ++i) {
    if (s.status[i] == JobStatus::kRunning) {
      s.remaining[i] = std::max(0, s.remaining[i] - 1);
      if (s.remaining[i] == 0) {
        s.status[i] = JobStatus::kInactive;  // completed
        continue;
      }
      const double eta = s.type[i] == JobType::kTrain ? p_.train.eta : p_.finetune.eta;
      p_run_w += s.gpus[i] * (p_.gpu_idle_w + (p_.gpu_active_w - p_.gpu_idle_w) * eta);
      run_gpus += s.gpus[i];
    } else if (s.status[i] == JobStatus::kWaiting && t >= s.deadline[i]) {
      s.status[i] = JobStatus::kInactive;  // expired: an SLA violation
      ++out.n_expired;
    }
  }
  s.sla_violations += out.n_expired;

  const int active = std::min(infer + run_gpus, n);
  const double p_idle_w = (n - active) * p_.gpu_idle_w;
  const double p_inf_w = infer * p_.gpu_active_w * 0.5;
  out.p_it_mw = (p_inf_w + p_run_w + p_idle_w) / 1e6 + p_.p_base_mw;
  out.cop = p_.cop_ref * cop_factor(t_outdoor_c);
  const double t_z = s.t_zone_c;
  out.q_cool_kw = p_.ua_cooling_kw_per_c * std::max(t_z - t_set, 0.0);
  const double q_wall_kw = p_.h_wall_kw_per_c * (t_outdoor_c - t_z);
  out.p_cool_mw = out.q_cool_kw / (out.cop * 1000.0);
  out.p_dc_mw = out.p_it_mw * (1.0 + p_.p_aux_frac) + out.p_cool_mw;
  const double t_new = t_z + p_.dt_hours * (1000.0 * out.p_it_mw - out.q_cool_kw + q_wall_kw) /
                                 p_.c_thermal_kwh_per_c;
  s.t_zone_c = std::clamp(t_new, kZoneMinC, kZoneMaxC);
  out.cost_sla = static_cast<double>(out.n_expired) / n;
  out.cost_overtemp = std::max(s.t_zone_c - p_.t_critical_c, 0.0) / (kZoneMaxC - p_.t_critical_c);

  s.t_setpoint_c = t_set;
  s.t_outdoor_c = t_outdoor_c;
  s.p_it_mw = out.p_it_mw;
  s.p_cool_mw = out.p_cool_mw;
  s.p_dc_mw = out.p_dc_mw;
  s.gpus_infer = infer;
  s.gpus_active = active;
  s.t = t + 1;
  return out;
}

int DataCenter::waiting_gpus(const DataCenterState& s, JobType type) {
  int g = 0;
  for (int i = 0; i < kSlots; ++i)
    g += s.status[i] == JobStatus::kWaiting && s.type[i] == type ? s.gpus[i] : 0;
  return g;
}

double DataCenter::queue_urgency(const DataCenterState& s) {
  double m = 5.0;
  for (int i = 0; i < kSlots; ++i) {
    if (s.status[i] != JobStatus::kWaiting) continue;
    const double sl = static_cast<double>(s.deadline[i] - s.t - s.duration[i]) /
                      std::max(static_cast<double>(s.duration[i]), 1.0);
    m = std::min(m, sl);
  }
  return std::clamp(m / 5.0, -1.0, 1.0);
}

double synthetic_outdoor_temp_c(double hour) {
  return 20.0 + 8.0 * std::sin(2 * std::numbers::pi * (hour - 8.0) / 24.0);
}

double synthetic_inference_fraction(double hour) {
  return std::clamp(0.5 + 0.5 * std::sin(2 * std::numbers::pi * (hour - 8.0) / 24.0), 0.1, 1.0);
}

}  // namespace pz::devices
