// IPPO (de Witt et al. 2020, arXiv:2011.09533, as PowerZooJax's ippo.py): independent PPO on a
// multi-agent env, one PpoLearner per parameter group.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/rng.hpp"
#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/rl/config.hpp"
#include "powerzoo/rl/learner.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"

namespace pz::rl {

/// Rows per update block of a group: a full batch of T·A_g·N rows (61,440 on GenCos) in four
/// blocks streamed every activation through memory; blocks of 1,024 rows keep a layer's
/// activations (1,024 × 128 floats, 512 KiB) near the core and give the second thread even work.
inline constexpr int kIppoBlockRows = 1024;

/// A parameter group: the agents (indices into LearnerContext::agents) that share one network.
struct AgentGroup {
  std::string name;         ///< "all" (full), the type prefix (typed) or the agent name
  std::vector<int> agents;  ///< ascending agent order
  int obs_dim = 0, act_dim = 0;
};

/// The [ippo] section of a context as an IppoConfig (defaults for keys it does not hold), and
/// the inverse (for learners built in code). Defined with the section in rl/ippo/ippo_entry.cpp.
IppoConfig ippo_config(const LearnerContext& ctx);
void set_ippo_section(LearnerContext& ctx, const IppoConfig& cfg);

/// Partition of `agents` (empty = one agent seeing the whole env, size obs_dim × act_dim) by
/// `sharing`: kFull one group "all"; kTyped one group per name prefix before the first '_' (the
/// whole name if it has none), sorted by type name as the reference does; kIndependent one group
/// per agent, in agent order. Throws core::ConfigError if the agents of a group have different
/// observation or action sizes (the message names the group and both sizes).
std::vector<AgentGroup> ippo_groups(const std::vector<AgentSlice>& agents, Sharing sharing,
                                    int obs_dim, int act_dim);

/// IPPO learner: per group g with A_g agents, a PpoLearner on obs [obs_g] → act [act_g] whose
/// "env columns" are the N·A_g (env i, agent k) pairs, column i·A_g + k. Each agent's column sees
/// its own observation slice, action slice and reward (StepView::shaped_reward [N, A]); done and
/// truncation are the team's, so GAE runs per agent with the team done (de Witt et al. 2020,
/// arXiv:2011.09533, as PowerZooJax's ippo.py). full_batch (the reference) makes each epoch one
/// gradient step on all T·A_g·N samples of the group without advantage normalization; otherwise
/// [ppo] n_minibatches split the group's columns. Each group keeps its own Adam state and its own
/// global-norm clip (the reference clips the sum of the per-type losses jointly under one
/// optimizer; docs/deviations.md).
///
/// IPPO-Lagrangian (lagrangian = true, PowerZooJax's ippo_typed_lagrangian): every group's
/// PpoLearner also has cost critics for the [safety] constraints, by default one network with
/// one output per constraint ([ippo] cost_critic), trained on the team's cost row
/// (the same at each of the group's columns, divided by cost_scale); advantages are normalized
/// per group (Â_R and each Â_C over the group's full batch) and the actor uses
/// Â_R − Σ_c λ_c Â_C,c. One team dual per constraint: after the groups' updates, log λ moves by
/// LagrangeDuals::update with Ĵ_C = the mean scaled cost of the team's episodes that ended in the
/// rollout (none ended: mean per-step cost × horizon), and every group takes the new λ.
///
/// Threads: acting and collection run the groups one after the other, each on the whole pool
/// (its row blocks); update() runs the groups' phases side by side (PpoLearner::update_policies:
/// every group's row blocks of a phase in one pool batch). A PpoLearner's result does not depend
/// on its pool and group g's shuffle stream is drawn from `rng` in group order before any work,
/// so every thread count gives the same bytes.
class IppoLearner final : public Learner {
 public:
  /// Groups by [ippo] sharing (ippo_groups), then builds the groups' PpoLearners in group
  /// order from `init_rng`. Throws core::ConfigError for mismatched sizes in a group, a
  /// Lagrangian learner without constraints, or minibatches that do not divide a group's N·A_g
  /// columns.
  IppoLearner(const LearnerContext& ctx, core::Rng& init_rng, bool lagrangian = false);
  ~IppoLearner();

  const std::string& name() const override;
  /// Deterministic (rng == nullptr) or sampled actions for obs [n, obs_dim] → actions
  /// [n, act_dim]; sampling draws group after group from *rng.
  void act(const float* obs, int n, core::Rng* rng, float* actions) override;
  void collect_act(const float* obs, int n, core::Rng& rng, float* actions) override;
  /// Hands each group its agents' rewards, final and next observations; throws
  /// core::ConfigError if the step's shape is not [N, n_agents].
  void observe(const core::StepView& step) override;
  int collect_steps() const override;
  /// Every group's PPO update. Metrics: with one group that group's; with several the mean over
  /// groups of each metric plus "group/<name>/losses/total" and "group/<name>/grad_norm".
  /// IPPO-Lagrangian then takes the team dual step and adds "lambda/<name>" and
  /// "safety/episode_cost_est/<name>".
  std::map<std::string, double> update(core::Rng& rng) override;
  /// "lambda/<constraint>" (IPPO-Lagrangian), else empty.
  std::map<std::string, double> status() const override;
  /// The team duals' log λ (IPPO-Lagrangian; empty otherwise).
  const std::vector<double>& log_lambdas() const;
  /// Group g's state under "learner/group/<g>/" (the PpoLearner's entries), the partition
  /// under "learner/ippo/groups" (per group: size, agent indices), the team duals under
  /// "learner/ippo/log_lambda" (IPPO-Lagrangian).
  void trainable_parameters(std::vector<std::span<const float>>& out) const override;
  void save(core::StateDict& sd) const override;
  /// Inverse of save(); throws core::ConfigError if the partition or any group's layout differs.
  /// Validates every group before changing any.
  void load(const core::StateDict& sd) override;

  const std::vector<AgentGroup>& groups() const;
  /// Group g's learner (tests read its parameters).
  PpoLearner& group_learner(int g);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pz::rl
