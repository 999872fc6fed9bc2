// The outage process of a grid env: which elements (branches, generators) are out of service at
// each step of an episode, from a scenario file (scheduled) and a seeded two-state random model.
// An immutable model (OutageProcess) and a plain per-episode state (OutageState), as every env.
// Format and model: docs/outages.md.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/data/outage_schedule.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::envs {

/// What an env's [env] outage keys say.
struct OutageParams {
  data::OutageSchedule schedule;  ///< [env] outages (empty: none scheduled)
  double rate = 0;                ///< [env] outage_rate: failure probability per element per step
  int duration_steps = 1;         ///< [env] outage_duration_steps: steps a random outage lasts
  bool random_branch = false;     ///< [env] outage_elements holds "branch" (and rate > 0)
  bool random_gen = false;        ///< [env] outage_elements holds "gen" (and rate > 0)
  /// [env] outage_n1: one random outage per episode of this kind (N-1 evaluation splits);
  /// kComponent: of the components of an env built with OutageComponent kinds.
  enum class N1 { kNone, kBranch, kGen, kComponent } n1 = N1::kNone;
  int n1_steps = 1;  ///< [env] outage_n1_steps: steps the N-1 outage lasts
  /// [env] outage_status_obs, resolved: the observation carries the status of the tracked kinds.
  /// False: the policy acts blind to outages (physics, costs and traces unchanged), so a policy
  /// trained without outages keeps its observation on an N-1 split.
  bool status_obs = true;
};

/// A kind of component of an env without a grid::Case (the DC microgrid's pv, battery, diesel,
/// grid connection): its name in scenario files (the element column), its number of units (the
/// index column, 1-based) and whether the random model (rate > 0) can fail it.
struct OutageComponent {
  std::string name;
  int count = 1;
  bool random = false;
};

/// Per-episode status of every branch and generator row of the case.
struct OutageState {
  std::vector<uint8_t> branch_on, gen_on;  ///< [n_branch], [n_gen]: 1 in service
  /// Steps left of a random outage (> 0), kHeld for a scheduled outage, 0 in service.
  std::vector<int> branch_left, gen_left;
  static constexpr int kHeld = -1;
  /// [n_branch], [n_gen]: the status the last step was solved with (after reset: step 0's). The
  /// evaluation traces' row of a step, which branch_on / gen_on no longer hold once end_step has
  /// moved them on to the next step's (what the observation shows).
  std::vector<uint8_t> solved_branch_on, solved_gen_on;
  /// The episode's N-1 outage (outage_n1): the 0-based row of its kind and its first step
  /// (-1 when there is none).
  int n1_row = -1, n1_start = -1;
};

/// The outage model of one env. Default-constructed: inactive (no outages, draws nothing).
///
/// Each step t (0 at reset, then every step), in this order: (1) every element that can fail
/// at random draws one uniform u from the env's stream (always, whatever its status, so the
/// stream advances by the same amount every step); an element in service fails if u < rate and
/// stays out for duration_steps steps (t .. t + duration − 1); one out at random counts down and
/// is back at t + duration. (2) The schedule's rows of step t set their status (0: out until a
/// row with status 1; 1: back, ending a random outage too). A row of the case that is out of
/// service in the case itself is never in service.
///
/// N-1 mode (outage_n1 = "branch" or "gen"): at reset two more uniforms, drawn before step 0's,
/// pick one in-service row of that kind (uniformly) and its first step s (uniformly in
/// 0 .. horizon − n1_steps); the row is out for steps s .. s + n1_steps − 1 (held against the
/// random model) and back at s + n1_steps. Steps (1) and (2) above apply on top of it.
class OutageProcess {
 public:
  OutageProcess() = default;
  /// Throws core::ConfigError naming the scenario file and line for a row past the case's rows or
  /// the horizon, or a row of an element the case has out of service; and naming
  /// outage_n1_steps when it exceeds the horizon or outage_n1 when the case has no such row.
  OutageProcess(OutageParams p, const grid::Case& energized, int horizon);
  /// The process of an env's components (additive to the grid form): every unit of `kinds`, in
  /// their order, is a row of OutageState::gen_on / gen_left (all in service in the env itself),
  /// so tracks_gens() means "tracks the components" and every rule above holds for them. The
  /// schedule must have been read with the kinds' names (data::read_outage_schedule(path,
  /// names)); random_branch/random_gen are ignored: the kinds marked `random` fail at rate; n1 is
  /// kNone or kComponent (any unit of any kind). Throws core::ConfigError naming the scenario file
  /// and line for a unit past its kind's count or a step past the horizon, and naming
  /// outage_n1_steps when it exceeds the horizon.
  OutageProcess(OutageParams p, const std::vector<OutageComponent>& kinds, int horizon);

  bool active() const { return active_; }
  /// The observation and the traces carry the branch (gen) status: some branch (gen) can go out.
  bool tracks_branches() const { return track_branch_; }
  bool tracks_gens() const { return track_gen_; }
  /// The observation carries the branch (gen) status: tracked and [env] outage_status_obs.
  bool observes_branches() const { return track_branch_ && p_.status_obs; }
  bool observes_gens() const { return track_gen_ && p_.status_obs; }
  /// Active and [env] outage_status_obs (for envs that observe every kind once active).
  bool observes_status() const { return active_ && p_.status_obs; }

  void make_state(OutageState& s) const;
  /// Every row back to the case's status, then step 0's changes (draws only if random).
  void reset(OutageState& s, core::Rng& rng) const;
  /// The changes of step t (t ≥ 1) as above.
  void advance(OutageState& s, int t, core::Rng& rng) const;
  /// The end of a step, before the env observes: records the status the step was solved with
  /// (OutageState::solved_*), then advances to step t (the next one) if t < horizon (no draws at
  /// the last step). Nothing when inactive.
  void end_step(OutageState& s, int t, core::Rng& rng) const;

  /// Status, counters and solved status of the tracked kinds (nothing when inactive).
  void save_state(const OutageState& s, std::vector<double>& out) const;
  /// Reads what save_state wrote; returns the number of values read. Throws core::ConfigError
  /// for a damaged state.
  size_t load_state(OutageState& s, std::span<const double> in) const;

 private:
  void n1_step(OutageState& s, int t) const;

  OutageParams p_;
  int horizon_ = 0;
  bool active_ = false, track_branch_ = false, track_gen_ = false;
  std::vector<uint8_t> branch_case_on_, gen_case_on_;  // status in the energized case
  std::vector<int> fail_branch_, fail_gen_;            // rows that can fail at random
  std::vector<int> n1_rows_;                           // rows the N-1 outage picks from
};

/// The case of an outage set: `c` with every row that is out (branch_on[l] / gen_on[g] = 0) out of
/// service, read as MATPOWER reads it (grid::energize: each island with an in-service generator
/// gets its own reference, an island without one is de-energized; rows kept in place).
/// branch_on [n_branch], gen_on [n_gen]; `dead` (if not null) receives the de-energized buses.
grid::Case outage_case(const grid::Case& c, const std::vector<uint8_t>& branch_on,
                       const std::vector<uint8_t>& gen_on, std::vector<int>* dead);

/// The [env] keys of the outage process: outages, outage_rate, outage_duration_steps,
/// outage_elements (duration and elements refused without a rate), outage_n1, outage_n1_steps
/// (refused without outage_n1), outage_status_obs ("auto", "true", "false"; a TOML boolean is
/// read as "true"/"false"; "auto" resolves by outage_status_obs_resolved). `n1_kinds`: the
/// kinds of N-1 outage the env takes (its n1_<kind> splits), the only ones the refusal of
/// outage_n1_steps without outage_n1 suggests.
std::vector<core::ParamDef> outage_params(const std::vector<std::string>& n1_kinds = {"branch",
                                                                                      "gen"});

/// [env] outage_status_obs of a section as true/false: "auto" (or the key absent, as in a spec
/// written before it existed) is true iff the section itself configures outages (outages file,
/// outage_rate > 0 or outage_n1 != "none"). A task's N-1 split adds its outage after this, so
/// a spec without outage keys keeps its observation on the n1 splits (docs/outages.md).
bool outage_status_obs_resolved(const core::ParamTable& e);

/// OutageParams from an env's keys (reads the scenario file; its rows are checked against the
/// case by OutageProcess).
OutageParams outage_params_from(const core::ParamTable& e);

}  // namespace pz::envs
