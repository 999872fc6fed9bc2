// VecSession: the state behind one powerzoo.VecEnv of the Python module -- the resolved spec,
// the env (with the spec's penalty / Sauté views, as `powerzoo run` and `eval` build them), the
// thread pool and the vec::VectorEnv, in training mode (auto-reset, training Rng streams) or in
// evaluation mode (the episodes `powerzoo eval` and `baseline` walk). No Python types here.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "powerzoo/core/state_dict.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::py {

struct VecOptions {
  std::string spec;                    ///< a spec file, a task preset or an env id
  int num_envs = 0;                    ///< 0 = vec.n_envs (training) / eval.n_episodes (eval)
  std::optional<int64_t> seed;         ///< unset = experiment.seed of the spec
  int threads = 1;                     ///< worker threads (0 = all cores)
  std::string split;                   ///< "" = env.split (training) / eval.splits[0] (eval)
  bool eval = false;                   ///< the evaluation protocol's episodes
  std::vector<std::string> overrides;  ///< "dotted.key=value", as on the command line
};

/// The spec named by `name`: a spec file (load_spec), else a task preset or an env id (a spec
/// of that [env] alone). Throws core::ConfigError naming what was expected and found.
exp::Spec resolve_spec(const std::string& name, const std::vector<std::string>& overrides);

class VecSession {
 public:
  /// Resolves the spec, checks its env, reward, safety and eval sections as `powerzoo validate`
  /// does, then builds the env. Throws core::ConfigError for bad input.
  explicit VecSession(const VecOptions& opt);

  /// Rebuilds the Rng streams from `seed` (when given) and resets every env: training mode draws
  /// episodes at random, evaluation mode starts episode k of N on env k.
  void reset(std::optional<int64_t> seed);
  /// Steps every env with actions [N, act_dim] (finite, checked by the caller). Throws
  /// core::ConfigError before reset(), after close() and, in evaluation mode, once every
  /// episode has ended. traces = true also fills trace() and trace_vec() with the step's
  /// traces, as evaluation trajectories record them.
  void step(const float* actions, bool traces = false);
  /// After step(actions, true): [N, n_trace] EnvSpec::trace_names of the step and [N, width]
  /// EnvSpec::trace_vectors of the state after it (outage status: the status the step was solved
  /// with). Zero rows where an evaluation episode had ended before the step; trace_vec also zero
  /// where a training episode ended in the step (its state is the next episode's already).
  const std::vector<float>& trace() const { return trace_; }
  const std::vector<float>& trace_vec() const { return trace_vec_; }
  /// Throws core::ConfigError unless the env is open and reset.
  void check_ready(const char* what) const;

  /// The vector env's checkpoint state (vec/...) plus what it belongs to (powerzoo/...).
  core::StateDict state_dict() const;
  /// Inverse of state_dict(); throws core::ConfigError when it belongs to another spec, split,
  /// mode or number of envs, or is malformed.
  void load_state_dict(const core::StateDict& sd);

  void close();
  bool closed() const { return !venv_; }

  const exp::Spec& spec() const { return spec_; }
  const std::string& resolved_toml() const { return resolved_; }
  /// The env as stepped (Sauté: observation with the budget entries).
  const envs::EnvSpec& env_spec() const { return env_->spec(); }
  const envs::Env& env() const { return *env_; }
  vec::VectorEnv& venv() { return *venv_; }
  const vec::VectorEnv& venv() const { return *venv_; }
  int n_envs() const { return n_; }
  int threads() const { return static_cast<int>(pool_->size()); }
  int64_t seed() const { return seed_; }
  const std::string& split() const { return split_; }
  bool eval() const { return eval_; }
  bool started() const { return started_; }
  /// Evaluation mode: whether env i's episode has ended (its steps are no-ops until reset).
  bool ended(int i) const { return ended_[static_cast<size_t>(i)] != 0; }

 private:
  void build_venv();
  void write_traces();

  exp::Spec spec_;
  std::string resolved_;
  std::string identity_;  ///< resolved_ with experiment.seed = 0: what a state belongs to
  std::string split_;
  bool eval_ = false;
  int n_ = 0;
  int64_t seed_ = 0;
  std::shared_ptr<const envs::Env> env_;
  std::vector<double> penalty_;
  std::unique_ptr<core::ThreadPool> pool_;
  std::unique_ptr<vec::VectorEnv> venv_;
  bool started_ = false;
  std::vector<uint8_t> ended_;
  int n_ended_ = 0;
  std::vector<float> trace_, trace_vec_;
};

}  // namespace pz::py
