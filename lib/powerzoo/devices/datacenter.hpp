// AI data-centre physics: a 64-slot job table (Poisson arrivals, force-scheduled urgent jobs,
// greedy EDF by slack), GPU power, a COP curve and a first-order zone-temperature model
// (as PowerZooJax's data centre, powerzoojax/envs/resource/datacenter.py).
#pragma once

#include <array>
#include <cstdint>

#include "powerzoo/core/rng.hpp"

namespace pz::devices {

/// One class of batch jobs (training or fine-tuning). Arrivals per step ~ Poisson(1/interval)
/// capped at DataCenter::kMaxArrivals; GPUs ~ U{gpu_lo..gpu_hi}, duration ~ U{dur_lo..dur_hi}
/// steps; deadline = arrival step + ⌊duration·deadline_slack⌋; a running job draws
/// idle + (active − idle)·eta watts per GPU.
struct JobClass {
  int arrival_interval = 8;  ///< mean steps between arrivals (> 0)
  int gpu_lo = 50, gpu_hi = 200;
  int dur_lo = 10, dur_hi = 50;
  double deadline_slack = 2.0;  ///< > 0
  double eta = 0.90;            ///< GPU utilisation of a running job, [0, 1]
};

/// Parameters of a data centre (the reference's defaults; the microgrid uses p_base 0.4 MW).
struct DataCenterParams {
  int n_gpus = 1000;
  double gpu_idle_w = 55, gpu_active_w = 580;
  double p_base_mw = 0.5;    ///< non-GPU IT power (network, storage)
  int infer_gpu_peak = 400;  ///< inference GPUs = ⌊peak · inference fraction⌋
  double cop_ref = 5, cop_decay_per_c = 0.04, t_ref_c = 20;
  double c_thermal_kwh_per_c = 500;  ///< zone heat capacity
  double ua_cooling_kw_per_c = 200;  ///< cooling heat removal per °C of zone above setpoint
  double h_wall_kw_per_c = 5;        ///< envelope conductance to outdoors
  double t_set_min_c = 18, t_set_max_c = 27, t_initial_c = 22, t_critical_c = 35;
  double p_aux_frac = 0.05;  ///< auxiliary power as a fraction of IT power
  JobClass train{8, 50, 200, 10, 50, 2.0, 0.90};
  JobClass finetune{4, 10, 50, 5, 20, 3.0, 0.75};
  double dt_hours = 0.5;
};

enum class JobStatus : int8_t { kInactive = 0, kWaiting = 1, kRunning = 2 };
enum class JobType : int8_t { kTrain = 0, kFinetune = 1 };

/// Plain-array state (a struct copy is a checkpoint). Slot arrays are [kSlots]; a slot's fields
/// are meaningful only while its status is not kInactive.
struct DataCenterState {
  static constexpr int kSlots = 64;
  int t = 0;  ///< step counter (deadlines are absolute steps)
  double t_zone_c = 22, t_setpoint_c = 22, t_outdoor_c = 20;
  double p_it_mw = 0, p_cool_mw = 0, p_dc_mw = 0;  ///< last step's powers
  int gpus_infer = 0, gpus_active = 0;             ///< last step's GPU counts
  int64_t sla_violations = 0;                      ///< expired jobs since reset
  std::array<int32_t, kSlots> gpus{}, deadline{}, duration{}, remaining{};
  std::array<JobType, kSlots> type{};
  std::array<JobStatus, kSlots> status{};
};

/// The jobs that arrive in one step: n[c] of class c (0 train, 1 finetune), with GPUs and
/// durations in arrival order (entries beyond n[c] unused).
struct Arrivals {
  static constexpr int kMax = 5;
  int n[2] = {0, 0};
  int gpus[2][kMax] = {};
  int duration[2][kMax] = {};
};

/// Result of one step.
struct DataCenterStep {
  double p_it_mw = 0, p_cool_mw = 0, p_dc_mw = 0;  ///< P_dc = P_it·(1 + aux) + P_cool
  double cop = 0;
  double q_cool_kw = 0;
  int n_expired = 0;         ///< waiting jobs that passed their deadline (SLA violations)
  int n_dropped = 0;         ///< arrivals lost because the table was full
  double cost_sla = 0;       ///< n_expired / n_gpus
  double cost_overtemp = 0;  ///< (T_zone' − T_crit)⁺ / (45 − T_crit)
};

/// A data centre. Step with action (r_train, r_ft, cool) ∈ [0, 1]³ (clipped; non-finite → 0),
/// the inference fraction f and the outdoor temperature (°C), from pre-step counter t:
/// T_set = t_set_min + cool·(t_set_max − t_set_min); infer = ⌊peak·f⌋; arrivals go into the first
/// free slots in index order (training first); waiting jobs with deadline − t − duration ≤ 0 are
/// force-scheduled (EDF by deadline) within n − infer − running GPUs; then training jobs within
/// ⌊r_train·avail⌋ and fine-tuning jobs within ⌊r_ft·avail'⌋ (greedy EDF by slack
/// deadline − t − duration: the sorted prefix whose cumulative GPUs fit; ties by slot index);
/// running jobs advance one step and finish at 0 remaining (so a job drains power for
/// duration − 1 steps, as the reference); waiting jobs with t ≥ deadline expire. Power:
/// P_it = (min(infer, n)·active·0.5 + Σ_running gpus·(idle + (active − idle)·eta)
/// + (n − active_gpus)·idle)/1e6 + p_base; COP = cop_ref·clip(1 − decay·(T_out − t_ref)⁺,
/// 0.4, 1.2); q_cool = UA·(T_z − T_set)⁺ kW, P_cool = q_cool/(1000·COP); explicit Euler
/// T_z' = clip(T_z + dt·(1000·P_it − q_cool + h_wall·(T_out − T_z))/C_th, 15, 45).
class DataCenter {
 public:
  static constexpr int kSlots = DataCenterState::kSlots;
  static constexpr int kMaxArrivals = Arrivals::kMax;
  static constexpr double kZoneMinC = 15, kZoneMaxC = 45;

  /// Throws core::ConfigError naming the parameter for n_gpus ≤ 0, non-positive powers,
  /// capacities, COP or dt, a setpoint range with min > max, a job class with interval ≤ 0,
  /// lo > hi or lo < 1, deadline_slack ≤ 0, eta outside [0, 1], T_crit ≥ 45.
  explicit DataCenter(DataCenterParams p);

  const DataCenterParams& params() const { return p_; }

  /// T_z = T_set = t_initial, T_out = t_ref, everything else 0.
  void reset(DataCenterState& s) const;
  /// Draws one step's arrivals: per class (train, then finetune) n = min(Poisson(1/interval),
  /// kMaxArrivals) by inversion from one uniform, then n (GPUs, duration) pairs.
  Arrivals draw_arrivals(core::Rng& rng) const;
  /// One step with the given arrivals (see the class comment). Never throws.
  DataCenterStep step(DataCenterState& s, double r_train, double r_ft, double cool,
                      double infer_frac, double t_outdoor_c, const Arrivals& arrivals) const;
  /// draw_arrivals then step.
  DataCenterStep step(DataCenterState& s, double r_train, double r_ft, double cool,
                      double infer_frac, double t_outdoor_c, core::Rng& rng) const {
    return step(s, r_train, r_ft, cool, infer_frac, t_outdoor_c, draw_arrivals(rng));
  }

  /// clip(1 − decay·(T_out − t_ref)⁺, 0.4, 1.2): COP / cop_ref.
  double cop_factor(double t_outdoor_c) const;
  /// Σ GPUs of waiting jobs of one type.
  static int waiting_gpus(const DataCenterState& s, JobType type);
  /// clip(min over waiting jobs of ((deadline − t − duration)/max(duration, 1)) / 5, −1, 1);
  /// 1 with nothing waiting.
  static double queue_urgency(const DataCenterState& s);

 private:
  void insert(DataCenterState& s, JobType type, const Arrivals& a, int& dropped) const;
  int running_gpus(const DataCenterState& s) const;

  DataCenterParams p_;
};

/// The reference's synthetic outdoor temperature at hour h of the day (°C):
/// 20 + 8·sin(2π(h − 8)/24).
double synthetic_outdoor_temp_c(double hour);
/// The reference's synthetic inference fraction: clip(0.5 + 0.5·sin(2π(h − 8)/24), 0.1, 1).
double synthetic_inference_fraction(double hour);

}  // namespace pz::devices
