// The [sac] section and the sac entry: soft actor-critic (Haarnoja et al. 2018,
// arXiv:1812.05905) with Rejax 0.1.2's defaults; [sac] holds every key SAC reads besides
// [learner] total_steps and rollout_length (vector steps per train row).
#include <climits>
#include <cmath>
#include <limits>
#include <memory>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/learner_entry_util.hpp"
#include "powerzoo/rl/learner_registry.hpp"
#include "powerzoo/rl/sac/sac.hpp"
#include "powerzoo/rl/section_keys.hpp"

namespace pz::rl {
namespace {

using core::ParamDef;
using keys::Bound;

/// What [sac] configures: the network and optimizer keys (as PpoConfig fields, which
/// SacLearner takes) and SAC's own. The network defaults are PPO's, as before [sac] held them.
struct SacKeys {
  PpoConfig net;
  SacConfig sac;
};

bool pos(double x) { return x > 0; }
bool nonneg(double x) { return x >= 0; }
bool unit(double x) { return x >= 0 && x <= 1; }
ParamDef F(const char* key, std::function<bool(double)> ok, const char* expected, const char* doc) {
  return core::float_param(key, 0.0, std::move(ok), expected, doc);
}
ParamDef I(const char* key, int64_t lo, int64_t hi, const char* doc) {
  return core::int_param(key, 0, lo, hi, doc);
}

const keys::Names<Activation> kActivation = {{"relu", Activation::kRelu},
                                             {"tanh", Activation::kTanh}};

const std::vector<Bound<SacKeys>>& sac_keys() {
  static const std::vector<Bound<SacKeys>> k = [] {
    ParamDef hidden;
    hidden.key = "hidden";
    hidden.kind = core::ParamKind::kIntArray;
    hidden.expected = "a non-empty array of integers in [1, 4096]";
    hidden.doc = "hidden layer widths of the actor and both critics";
    hidden.int_lo = 1;
    hidden.int_hi = 4096;
    hidden.non_empty = true;
    return std::vector<Bound<SacKeys>>{
        PZ_KEY(SacKeys, F("learning_rate", pos, "a number > 0", "Adam step size (all three)"),
               net.learning_rate),
        PZ_KEY(SacKeys, F("gamma", unit, "a number in [0, 1]", "discount"), net.gamma),
        PZ_KEY(SacKeys, hidden, net.hidden),
        PZ_KEY(SacKeys,
               F("max_grad_norm", nonneg, "a number >= 0",
                 "per-element clamp of every gradient entry (as optax.clip); 0 = off"),
               net.max_grad_norm),
        PZ_KEY(SacKeys, F("adam_eps", pos, "a number > 0", "Adam ε (outside the sqrt)"),
               net.adam_eps),
        PZ_KEY(SacKeys,
               core::bool_param("normalize_obs", false, "running mean/std observation normalizer"),
               net.normalize_obs),
        PZ_KEY(SacKeys, I("buffer_size", 1, INT_MAX, "replay capacity in transitions (a ring)"),
               sac.buffer_size),
        PZ_KEY(SacKeys,
               I("learning_starts", 0, std::numeric_limits<int64_t>::max(),
                 "gradient steps start once more transitions than this were stored"),
               sac.learning_starts),
        PZ_KEY(SacKeys, I("batch_size", 1, INT_MAX, "transitions per gradient step (uniform)"),
               sac.batch_size),
        PZ_KEY(SacKeys, I("num_epochs", 1, INT_MAX, "gradient steps after every vector step"),
               sac.num_epochs),
        PZ_KEY(SacKeys,
               F(
                   "tau", [](double x) { return x > 0 && x <= 1; }, "a number in (0, 1]",
                   "Polyak rate of the target critics, every vector step"),
               sac.tau),
        PZ_KEY(SacKeys, F("init_alpha", pos, "a number > 0", "initial temperature α"),
               sac.init_alpha),
        PZ_KEY(SacKeys,
               F(
                   "target_entropy_per_dim", [](double x) { return std::isfinite(x); },
                   "a finite number", "target entropy = this × act_dim (−act_dim)"),
               sac.target_entropy_per_dim),
        PZ_ENUM_KEY(SacKeys, "activation", "hidden activation of actor and critics", sac.activation,
                    kActivation),
    };
  }();
  return k;
}

SacKeys sac_settings(const LearnerContext& ctx) {
  SacKeys c;
  c.net.total_steps = ctx.total_steps;
  c.net.rollout_length = ctx.rollout_length;
  keys::apply(sac_keys(), ctx.section("sac"), c);
  return c;
}

void check_sac_spec(const LearnerContext& ctx) {
  const SacConfig s = sac_settings(ctx).sac;
  if (!ctx.acting_only && s.buffer_size < ctx.n_envs)
    throw core::ConfigError(
        ctx.where("sac.buffer_size") +
        "[sac] buffer_size: expected at least [vec] n_envs = " + std::to_string(ctx.n_envs) +
        " (one vector step of transitions), found " + std::to_string(s.buffer_size));
}

void check_sac_training(const LearnerContext& ctx) {
  const SacConfig s = sac_settings(ctx).sac;
  // Both ran to the end with exit 0 and never took a gradient step.
  if (s.learning_starts >= ctx.total_steps)
    throw core::ConfigError(ctx.where("sac.learning_starts") +
                            "[sac] learning_starts: expected fewer transitions than [learner] "
                            "total_steps = " +
                            std::to_string(ctx.total_steps) + " (else no update runs), found " +
                            std::to_string(s.learning_starts));
  if (s.batch_size > s.buffer_size)
    throw core::ConfigError(
        ctx.where("sac.batch_size") + "[sac] batch_size: expected at most [sac] buffer_size = " +
        std::to_string(s.buffer_size) + " transitions, found " + std::to_string(s.batch_size));
}

// The squashed Gaussian maps onto the box: loc + scale·tanh(u).
void check_sac_env(const LearnerContext& ctx) {
  check_bounded_action_box(ctx, "learner.algo", "[learner] algo = \"sac\"");
}

LearnerMemory sac_memory(const LearnerContext& ctx, int n_costs) {
  const SacConfig s = sac_settings(ctx).sac;
  LearnerMemory m;
  // obs and next obs, action, reward, done, costs per transition.
  m.replay_bytes = 4.0 * s.buffer_size * (2.0 * ctx.obs_dim + ctx.act_dim + 2 + n_costs);
  m.rollout_bytes = 4.0 * ctx.n_envs * (ctx.obs_dim + ctx.act_dim);
  return m;
}

// Executed GEMM multiply-adds per sample of one gradient step: forward Σ in·out, weight
// gradients Σ in·out, input gradients over every layer but the first (in the actor step, ∂Q/∂a:
// each row through the one critic that attains its minimum, its first layer to the action
// columns only, and no weight gradients).
LearnerBenchShape sac_bench(const LearnerContext& ctx) {
  const SacKeys c = sac_settings(ctx);
  const auto& hidden = c.net.hidden;
  auto macs = [&](int in, int out) { return mlp_macs(in, hidden, out); };
  auto first = [&](int in, int out) { return mlp_first_layer_macs(in, hidden, out); };
  const int od = ctx.obs_dim, ad = ctx.act_dim;
  const double a = macs(od, 2 * ad), a1 = first(od, 2 * ad);
  const double q = macs(od + ad, 1), q1 = first(od + ad, 1);
  LearnerBenchShape b;
  // Actor step: actor forward, 2 critics forward, 1 critic input-backward, actor backward.
  // Critic step: actor forward (s'), 2 target and 2 critic forwards, 2 critic backwards.
  const double q_da = q - q1 + q1 * ad / (od + ad);
  b.macs_per_sample = (a + 2 * q + q_da + 2 * a - a1) + (a + 4 * q + 2 * (2 * q - q1));
  b.counts_grad_steps = true;
  b.grad_steps_per_update = c.sac.num_epochs;
  b.samples_per_grad_step = c.sac.batch_size;
  b.gemm_m = c.sac.batch_size;
  b.gemm_n = widest_layer(hidden);
  b.text = hidden_text(hidden) + ", batch " + std::to_string(c.sac.batch_size) + ", " +
           std::to_string(c.sac.num_epochs) + " gradient steps per vector step of N " +
           std::to_string(ctx.n_envs);
  return b;
}

LearnerEntry sac_entry() {
  LearnerEntry e;
  e.name = "sac";
  e.description =
      "soft actor-critic, off-policy: replay, twin critics, Polyak targets, learned "
      "temperature ([sac])";
  e.sections = {"sac"};
  e.check = check_sac_spec;
  e.check_training = check_sac_training;
  e.check_env = check_sac_env;
  e.make = [](const LearnerContext& ctx, core::Rng& init_rng) {
    const SacKeys c = sac_settings(ctx);
    auto l = std::make_unique<SacLearner>(ctx.obs_dim, ctx.act_dim, c.net, c.sac, init_rng);
    l->set_context(ctx);
    return std::unique_ptr<Learner>(std::move(l));
  };
  e.memory = sac_memory;
  e.bench = sac_bench;
  e.metric_levels = {{"sac/alpha", "actor_extra"}, {"sac/q_mean", "critic_extra"}};
  return e;
}

const LearnerRegistrar kSacSection{
    LearnerSection{"sac",
                   "soft actor-critic: networks, replay, targets, temperature",
                   keys::defs(sac_keys()),
                   {}}};
const LearnerRegistrar kSac{sac_entry()};

}  // namespace

}  // namespace pz::rl
