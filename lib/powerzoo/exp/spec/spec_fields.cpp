// The spec key table (docs/design.md §3): each key's kind, check, doc and Spec field, once.
#include "powerzoo/exp/spec/spec_fields.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

#include "powerzoo/core/param_fields.hpp"
#include "powerzoo/rl/learner_registry.hpp"

namespace pz::exp::detail {
namespace {

using core::ParamDef;
using core::ParamKind;
using core::ParamValue;

constexpr int64_t kIntMax = INT_MAX;
constexpr int64_t kI64Max = std::numeric_limits<int64_t>::max();

bool pos(double x) { return x > 0; }
bool nonneg(double x) { return x >= 0; }
[[maybe_unused]] bool unit(double x) { return x >= 0 && x <= 1; }

using core::choice_list;
template <class E>
using Names = core::ChoiceNames<E>;

ParamDef I(const char* key, int64_t lo, int64_t hi, const char* doc) {
  return core::int_param(key, 0, lo, hi, doc);
}
[[maybe_unused]] ParamDef F(const char* key, bool (*ok)(double), const char* expected,
                            const char* doc) {
  return core::float_param(key, 0.0, ok, expected, doc);
}
ParamDef S(const char* key, const char* doc) { return core::str_param(key, "", doc); }
ParamDef B(const char* key, const char* doc) { return core::bool_param(key, false, doc); }
ParamDef C(const char* key, std::vector<std::string> choices, const char* doc) {
  return core::choice_param(key, "", std::move(choices), doc);
}
ParamDef A(const char* key, ParamKind kind, const char* expected, const char* doc) {
  ParamDef d;
  d.key = key;
  d.kind = kind;
  d.expected = expected;
  d.doc = doc;
  return d;
}

// A key bound to a plain Spec member expression.
#define PZ_FIELD(SEC, DEF, MEMBER)                                                        \
  Field {                                                                                 \
    SEC, DEF, [](const Spec& s) -> ParamValue { return core::to_param_value(s.MEMBER); }, \
        [](Spec& s, const ParamValue& v) { core::from_param_value(v, s.MEMBER); }         \
  }
// A key bound to an enum member through its choice names.
#define PZ_ENUM_FIELD(SEC, KEY, DOC, MEMBER, NAMES)          \
  Field {                                                    \
    SEC, C(KEY, choice_list(NAMES), DOC),                    \
        [](const Spec& s) -> ParamValue {                    \
          for (const auto& [n, e] : NAMES)                   \
            if (e == s.MEMBER) return std::string(n);        \
          return std::string();                              \
        },                                                   \
        [](Spec& s, const ParamValue& v) {                   \
          for (const auto& [n, e] : NAMES)                   \
            if (std::get<std::string>(v) == n) s.MEMBER = e; \
        }                                                    \
  }

std::vector<Field> experiment_env_vec() {
  ParamDef name = S("name", "run name; the run directory is out_dir/name/<time>");
  name.non_empty = name.no_slash = true;
  return {
      PZ_FIELD("experiment", name, experiment.name),
      PZ_FIELD("experiment", I("seed", 0, kI64Max, "master seed of every random stream"),
               experiment.seed),
      PZ_FIELD("experiment", S("out_dir", "parent directory of run directories"),
               experiment.out_dir),
      PZ_FIELD("env", S("id", "registered env id (`powerzoo envs`)"), env.id),
      PZ_FIELD("env", S("task", "registered task preset (\"\" = none); decides the env"), env.task),
      PZ_FIELD("env", S("split", "data split the learner trains on"), env.split),
      PZ_FIELD("vec", I("n_envs", 1, 65536, "envs stepped in parallel (N)"), vec.n_envs),
      PZ_FIELD("vec", I("threads", 0, 1024, "worker threads; 0 = all cores"), vec.threads),
  };
}

// [learner] (the learner's own sections come from rl's registry, see spec.cpp).
std::vector<Field> learner_fields() {
  ParamDef algo = C("algo", rl::learner_names(),
                    "registered learner (`powerzoo keys learner`); reads the sections its entry "
                    "lists");
  return {
      PZ_FIELD("learner", algo, learner.algo),
      PZ_FIELD("learner", I("total_steps", 1, kI64Max, "env steps to train"), learner.total_steps),
      PZ_FIELD("learner",
               I("rollout_length", 1, kIntMax,
                 "vector steps per train row (PPO's rollout T; SAC's steps between rows)"),
               learner.rollout_length),
  };
}

/// [safety] thresholds are read by the learners that use constraints (the duals' budgets, Sauté's
/// budgets) and cost_scale only by those with cost critics, which read [lagrangian] (Sauté
/// leaves costs unscaled: docs/deviations.md): with any other learner they have no effect.
void constrained_keys(ParamDef& thresholds, ParamDef& cost_scale) {
  auto rule = [](ParamDef& d, bool (*uses)(const rl::LearnerEntry&)) {
    std::string names;
    for (const rl::LearnerEntry* e : rl::registered_learners())
      if (uses(*e)) names += (names.empty() ? "" : ", ") + e->name;
    d.applies = "[learner] algo = " + names;
    d.inapplicable_in_spec = [uses, names](const std::map<std::string, core::ParamTable>& spec) {
      const std::string algo = spec.at("learner").str("algo");
      return uses(rl::learner_entry(algo))
                 ? std::string()
                 : "read by " + names + ", found [learner] algo = \"" + algo + "\"";
    };
  };
  rule(thresholds, [](const rl::LearnerEntry& e) { return e.uses_constraints; });
  rule(cost_scale, [](const rl::LearnerEntry& e) {
    return std::find(e.sections.begin(), e.sections.end(), "lagrangian") != e.sections.end();
  });
}

std::vector<Field> other_fields() {
  ParamDef penalty =
      A("penalty", ParamKind::kFloatTable, "a table of channel = weight (weights >= 0)",
        "shaped reward = reward − Σ weight·cost per channel");
  penalty.ok = nonneg;
  penalty.elem_expected = "a number >= 0";
  ParamDef constraints = A("constraints", ParamKind::kStrArray,
                           "an array of distinct non-empty strings", "constrained cost channels");
  constraints.distinct = true;
  ParamDef thresholds = A("thresholds", ParamKind::kFloatArray, "an array of numbers >= 0",
                          "per-episode budgets, raw units; empty = 0");
  thresholds.ok = nonneg;
  ParamDef cost_scale = A("cost_scale", ParamKind::kFloatArray,
                          "a number > 0 or an array of numbers > 0", "divides each cost channel");
  cost_scale.ok = pos;
  cost_scale.scalar_ok = true;
  constrained_keys(thresholds, cost_scale);
  // Both kinds are written at evaluations (train.cpp: do_eval), so without any they do nothing.
  ParamDef trajectories =
      C("trajectories", {"none", "eval", "train-sample"},
        "which trajectories to store (eval: each evaluation's episodes; train-sample: the latest "
        "training rollout, at each evaluation)");
  trajectories.applies = "[eval] every_steps > 0, or \"none\"";
  // "none" says what a run without evaluations does anyway, so it is accepted there: it is how a
  // spec that keeps trajectories runs without evaluations (eval.every_steps=0
  // output.trajectories=none on the command line).
  trajectories.inapplicable_in_spec = [](const std::map<std::string, core::ParamTable>& spec) {
    return spec.at("eval").integer("every_steps") > 0 ||
                   spec.at("output").str("trajectories") == "none"
               ? std::string()
               : "trajectories are written at evaluations, found [eval] every_steps = 0 "
                 "(trajectories = \"none\" says so)";
  };
  // Which evaluations keep their trajectories in run.h5 (exp/run/trajectory_keep.hpp): every
  // evaluation's metrics are kept, but the episodes of all of them made a 20M-step run's file
  // several GB.
  auto only_eval_trajectories = [](const core::ParamTable& output) {
    return output.str("trajectories") == "eval"
               ? std::string()
               : "only evaluation trajectories are selected, found [output] trajectories = \"" +
                     output.str("trajectories") + "\"";
  };
  ParamDef trajectory_evals =
      C("trajectory_evals", {"first_best_last", "all"},
        "evaluations whose trajectories run.h5 keeps (first_best_last: the first, the best by "
        "the first split's shaped_return_mean, as ckpt/best.h5, and the latest; all: every one)");
  trajectory_evals.applies = "[output] trajectories = \"eval\"";
  trajectory_evals.inapplicable = only_eval_trajectories;
  ParamDef trajectory_episodes =
      I("trajectory_episodes", 0, 100000,
        "episodes of each kept evaluation stored in run.h5 (the first N of [eval] n_episodes; the "
        "metrics use all of them); 0 = all");
  trajectory_episodes.applies = trajectory_evals.applies;
  trajectory_episodes.inapplicable = only_eval_trajectories;
  ParamDef splits = A("splits", ParamKind::kStrArray, "a non-empty array of non-empty strings",
                      "splits evaluated");
  splits.non_empty = true;
  ParamDef level = A("level", ParamKind::kStrArray,
                     "an array of distinct levels among losses, actor_extra, critic_extra, "
                     "grad_norm, weights, throughput",
                     "train columns recorded: losses (actor, critic, entropy, total), actor_extra "
                     "(approx_kl, clipping_fraction, policy/*), critic_extra (critic_R^2), "
                     "grad_norm, weights (weights/mean, std, abs_max of every trainable "
                     "parameter), throughput (steps/s); the rollout and episode columns always");
  level.choices = {"losses", "actor_extra", "critic_extra", "grad_norm", "weights", "throughput"};
  level.distinct = true;
  ParamDef percentiles =
      A("percentiles", ParamKind::kFloatArray, "an array of numbers in [0, 100]",
        "adds p<q> columns: episode returns and costs (train: episode_return_p<q>, "
        "episode_cost_p<q>/<channel>; eval: return_p<q>, cost_p<q>/<channel>) and weights/p<q>");
  percentiles.ok = [](double x) { return x >= 0 && x <= 100; };
  return {
      PZ_FIELD("reward", penalty, penalty),
      PZ_FIELD("safety", constraints, safety.constraints),
      PZ_FIELD("safety", thresholds, safety.thresholds),
      PZ_FIELD("safety", cost_scale, safety.cost_scale),
      PZ_FIELD("eval", I("every_steps", 0, kI64Max, "env steps between evaluations; 0 = off"),
               eval.every_steps),
      PZ_FIELD("eval", I("n_episodes", 1, 100000, "episodes per evaluation"), eval.n_episodes),
      PZ_FIELD("eval", splits, eval.splits),
      PZ_FIELD("eval",
               I("render_every_steps", 0, kI64Max,
                 "env steps between pictures of evaluation episodes (plot_episode.py "
                 "--all-splits into <run>/plots/, in the background; also the first and the "
                 "final evaluation); 0 = off; needs output.trajectories = \"eval\" and "
                 "python3-matplotlib ($POWERZOO_PYTHON, $POWERZOO_SCRIPTS: see README Outputs)"),
               eval.render_every_steps),
      PZ_FIELD("log", level, log.level),
      PZ_FIELD("log", percentiles, log.percentiles),
      PZ_FIELD("log",
               B("tensorboard",
                 "TensorBoard events file beside run.h5 (events.out.tfevents.*): every train "
                 "scalar as train/<name>, every eval scalar as eval/<split>/<metric>, at its "
                 "global step (`tensorboard --logdir RUN_DIR`)"),
               log.tensorboard),
      PZ_FIELD("output", trajectories, output.trajectories),
      PZ_FIELD("output", trajectory_evals, output.trajectory_evals),
      PZ_FIELD("output", trajectory_episodes, output.trajectory_episodes),
      PZ_FIELD("output",
               I("checkpoint_every_steps", 0, kI64Max, "env steps between checkpoints; 0 = off"),
               output.checkpoint_every_steps),
      PZ_FIELD("output", I("keep_checkpoints", 1, kIntMax, "step checkpoints kept"),
               output.keep_checkpoints),
  };
}

#undef PZ_FIELD
#undef PZ_ENUM_FIELD

}  // namespace

const std::vector<Field>& spec_fields() {
  static const std::vector<Field> kFields = [] {
    std::vector<Field> all = experiment_env_vec();
    for (auto& f : learner_fields()) all.push_back(std::move(f));
    for (auto& f : other_fields()) all.push_back(std::move(f));
    // The default of each key is the Spec field's default: declared once, in spec.hpp.
    Spec defaults;
    for (auto& f : all) f.def.def = f.get(defaults);
    return all;
  }();
  return kFields;
}

const std::vector<std::string>& section_order() {
  // The learner sections (rl's registry) come right after [learner].
  static const std::vector<std::string> kOrder = {"experiment", "env",  "vec", "learner", "reward",
                                                  "safety",     "eval", "log", "output",  "sweep"};
  return kOrder;
}

}  // namespace pz::exp::detail
