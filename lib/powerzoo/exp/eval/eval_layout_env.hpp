// The checkpoint's layout at evaluation: whether the env of an evaluation (its split, its
// overrides) has the observation, action and cost channels a checkpoint's policy was trained on,
// and an adapter for the one tolerated difference, outages switched off (docs/outages.md).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"

namespace pz::exp {

/// How the env of an evaluation relates to the env a checkpoint was trained on.
struct LayoutMatch {
  /// Why the checkpoint's policy cannot act on it ("" = it can): what differs, named (the
  /// observation's sizes and the fields added or missing, the action, the agents, a cost
  /// channel of the checkpoint the env lacks).
  std::string refusal;
  /// It can, through EvalLayoutEnv: the env lacks outage status fields or outage cost channels
  /// of the checkpoint (its outages switched off).
  bool adapt = false;
  /// Status fields of the eval env that the checkpoint's policy never observed (kinds of element
  /// its training env could not take out), each as "name [size]": adapted by dropping them, so
  /// the policy acts blind to those outages; the traces still record them.
  std::vector<std::string> blind;
};

/// Compares the env `eval` with the checkpoint's training env `trained`. The policy reads its
/// observation and writes its action by position, so both must match by name and order; cost
/// channels the eval env adds (unserved_load under outages) are only reported. Outage status
/// fields (branch_status, gen_status, component_status, per agent too) and outage cost channels
/// (unserved_load, spilled_generation) of `trained` that `eval` lacks are tolerated when
/// `may_fill_status` (the eval spec's outage_status_obs resolves true, so a missing field means
/// no element of that kind can go out): EvalLayoutEnv fills them. Under the same condition,
/// status fields `eval` adds are dropped (LayoutMatch::blind) when `trained` observed some status
/// field; a policy that observed none is refused them (outage_status_obs = true asked for them).
LayoutMatch match_layout(const envs::EnvSpec& trained, const envs::EnvSpec& eval,
                         bool may_fill_status);

/// `inner` presented in the observation layout of `trained` (match_layout said adapt): each
/// observation element is inner's element of the same feature name, or 1 (in service) for a
/// status field inner does not have (inner's status fields `trained` lacks are left out); the cost
/// channels are inner's, then the outage channels of `trained` inner lacks, 0 (nothing is out, so
/// nothing is unserved or spilled); the trace vectors are those of `trained` inner has, in its
/// order, its status vectors inner lacks (all 1, as the observation), then inner's others. Actions,
/// rewards, info and state are inner's.
class EvalLayoutEnv : public envs::Env {
 public:
  /// Throws core::ConfigError when `trained` has a non-status element inner lacks.
  EvalLayoutEnv(std::shared_ptr<const envs::Env> inner, const envs::EnvSpec& trained);

  const envs::EnvSpec& spec() const override { return spec_; }
  std::unique_ptr<envs::State> make_state() const override;
  void reset(envs::State& s, core::Rng& rng, std::span<float> obs,
             const envs::ResetOptions& opt = {}) const override;
  envs::Step step(envs::State& s, std::span<const float> action, core::Rng& rng,
                  std::span<float> obs, std::span<float> costs, envs::Info* info) const override;
  void write_trace(const envs::State& s, std::span<float> out) const override;
  void save_state(const envs::State& s, std::vector<double>& out) const override;
  size_t load_state(envs::State& s, std::span<const double> in) const override;

 private:
  void map_obs(std::span<const float> inner, std::span<float> obs) const;
  void map_traces(const envs::EnvSpec& trained);

  struct TraceFrom {
    int offset;  ///< in inner's trace vectors, -1 = a status vector filled with 1
    int size;
  };

  std::shared_ptr<const envs::Env> inner_;
  envs::EnvSpec spec_;
  std::vector<int> from_;  // [obs_dim]: inner element of each element, -1 = status filled with 1
  std::vector<TraceFrom> trace_from_;  // one per spec_.trace_vectors
};

}  // namespace pz::exp
