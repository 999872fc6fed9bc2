// The learner registry: every learner registers an entry from its own files (as envs do, see
// docs/adding-a-learner.md), with the spec sections it reads, its checks, its factory, the env
// wrapping it needs, its memory estimate and what `powerzoo bench` counts.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"
#include "powerzoo/envs/env.hpp"
#include "powerzoo/rl/learner.hpp"

namespace pz::rl {

/// One spec section of learner keys ([ppo], [lagrangian], [sac], ...), declared once in the
/// file of the learner family that owns it. Several learners may read one section.
struct LearnerSection {
  std::string name;                  ///< the TOML section name
  std::string doc;                   ///< one line for `powerzoo keys`
  std::vector<core::ParamDef> keys;  ///< kind, default, range, doc of each key
  /// Keys that an earlier layout of the spec had in this section and where they are now
  /// ("total_steps" -> "[learner] total_steps"): refused with that message.
  std::map<std::string, std::string> moved;
};

/// What the bench measures of a learner on its spec and env.
struct LearnerBenchShape {
  double macs_per_sample = 0;      ///< executed GEMM multiply-adds per sample of one update
  bool counts_grad_steps = false;  ///< true: report gradient steps/s (off-policy)
  int grad_steps_per_update = 1;   ///< gradient steps of one update() call
  int samples_per_grad_step = 0;   ///< samples per gradient step (0: all collected samples)
  int gemm_m = 0, gemm_n = 0;      ///< the dominant GEMM's rows and width (SGEMM peak shape)
  std::string text;  ///< the shape for the bench header ("hidden 64 64, T 48 x N 64, ...")
};

/// Buffers a learner allocates, in bytes, for `powerzoo validate`.
struct LearnerMemory {
  double rollout_bytes = 0;
  double replay_bytes = 0;
};

/// A registered learner.
struct LearnerEntry {
  std::string name;                   ///< [learner] algo
  std::string description;            ///< one line for `powerzoo keys learner` and the docs
  std::vector<std::string> sections;  ///< the learner sections it reads, in order
  bool multi_agent = false;           ///< needs an env with agents (else: refuses one)
  /// Needs [safety] constraints (a non-empty list) and acts on them (cost critics, budgets).
  bool uses_constraints = false;
  /// Cross-key checks on the spec (ctx without the env: obs_dim = 0). Throws core::ConfigError
  /// with ctx.at("<section>.<key>") as prefix.
  std::function<void(const LearnerContext& ctx)> check;
  /// Checks of a training run (budget against one iteration, batch sizes); not for evaluation.
  std::function<void(const LearnerContext& ctx)> check_training;
  /// Checks against the env (action box, agent groups), before make.
  std::function<void(const LearnerContext& ctx)> check_env;
  LearnerFactory make;
  /// Wraps the env the learner acts on (nullptr: none); `training` = the training env.
  std::function<std::shared_ptr<const envs::Env>(std::shared_ptr<const envs::Env> env,
                                                 const LearnerContext& ctx, bool training)>
      wrap_env;
  /// Buffer sizes on the env of ctx (n_costs = the env's cost channels).
  std::function<LearnerMemory(const LearnerContext& ctx, int n_costs)> memory;
  /// What the bench counts (ctx with the env's shapes).
  std::function<LearnerBenchShape(const LearnerContext& ctx)> bench;
  /// The [log] level of each metric of its own that status() reports ("sac/alpha" ->
  /// "actor_extra"); the shared names (losses/, policy/, ...) are placed by exp/log_levels.
  std::map<std::string, std::string> metric_levels;
};

using LearnerContextCheck = std::function<void(const LearnerContext& ctx)>;

/// Adds a section / an entry (called from a static Registrar in the learner family's .cpp).
/// Throws core::ConfigError on a duplicate name or (entries) a section not registered first.
void register_learner_section(LearnerSection section);
void register_learner_entry(LearnerEntry entry);

/// Registers at static-initialization time: `static const LearnerRegistrar kReg{entry()};`.
struct LearnerRegistrar {
  explicit LearnerRegistrar(LearnerSection s) { register_learner_section(std::move(s)); }
  explicit LearnerRegistrar(LearnerEntry e) { register_learner_entry(std::move(e)); }
};

/// The entry / section of that name; nullptr if none.
const LearnerEntry* find_learner(const std::string& name);
const LearnerSection* find_learner_section(const std::string& name);
/// The entry of that name; throws core::ConfigError listing the names (with a did-you-mean).
const LearnerEntry& learner_entry(const std::string& name);
/// Registered entries and sections, sorted by name.
std::vector<const LearnerEntry*> registered_learners();
std::vector<const LearnerSection*> registered_learner_sections();
/// Registered learner names, sorted.
std::vector<std::string> learner_names();
/// The learners that read `section`, comma-separated ("ppo, ppo_lagrangian, ...").
std::string learners_reading(const std::string& section);
/// The default of [learner] algo.
std::string default_learner();
/// The level a registered learner gives its metric `name` (LearnerEntry::metric_levels); "" if
/// no learner names it.
std::string learner_metric_level(const std::string& name);

/// learner_entry(name).make(ctx, init_rng) with ctx.sections completed by the defaults of the
/// entry's sections.
std::unique_ptr<Learner> make_learner(const std::string& name, const LearnerContext& ctx,
                                      core::Rng& init_rng);

}  // namespace pz::rl
