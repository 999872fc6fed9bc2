// The PPO family's sections and entries: [ppo] (Schulman et al. 2017, arXiv:1707.06347; GAE,
// Schulman et al. 2015, arXiv:1506.02438), [lagrangian] (PPO-Lagrangian, Ray, Achiam & Amodei
// 2019 "Benchmarking Safe Exploration in Deep Reinforcement Learning"; PID Lagrangian, Stooke,
// Achiam & Abbeel 2020, arXiv:2007.03964) and [saute] (Sootla et al. 2022, arXiv:2202.06558);
// learners ppo, ppo_lagrangian and saute_ppo.
#include "powerzoo/rl/ppo/ppo_entry.hpp"

#include <climits>
#include <cmath>
#include <memory>

#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/saute.hpp"
#include "powerzoo/rl/learner_entry_util.hpp"
#include "powerzoo/rl/ppo/ppo.hpp"
#include "powerzoo/rl/section_keys.hpp"

namespace pz::rl {
namespace {

using core::ParamDef;
using keys::Bound;
using keys::Names;

bool pos(double x) { return x > 0; }
bool nonneg(double x) { return x >= 0; }
bool unit(double x) { return x >= 0 && x <= 1; }
ParamDef I(const char* key, int64_t lo, int64_t hi, const char* doc) {
  return core::int_param(key, 0, lo, hi, doc);
}
ParamDef F(const char* key, std::function<bool(double)> ok, const char* expected, const char* doc) {
  return core::float_param(key, 0.0, std::move(ok), expected, doc);
}
ParamDef B(const char* key, const char* doc) { return core::bool_param(key, false, doc); }

const Names<Truncation> kTruncation = {{"bootstrap", Truncation::kBootstrap},
                                       {"zero_td", Truncation::kZeroTd}};
const Names<Squash> kSquash = {{"none", Squash::kNone}, {"tanh", Squash::kTanh}};
const Names<Policy> kPolicy = {{"gaussian", Policy::kGaussian}, {"beta", Policy::kBeta}};
const Names<GradClip> kGradClip = {{"global_norm", GradClip::kGlobalNorm},
                                   {"element", GradClip::kElement}};
const Names<AdvantageTiming> kAdvantages = {{"minibatch", AdvantageTiming::kMinibatch},
                                            {"rollout", AdvantageTiming::kRollout}};
const Names<DualRule> kDual = {{"log_ascent", DualRule::kLogAscent}, {"pid", DualRule::kPid}};

const std::vector<Bound<PpoConfig>>& ppo_keys() {
  static const std::vector<Bound<PpoConfig>> k = [] {
    ParamDef hidden;
    hidden.key = "hidden";
    hidden.kind = core::ParamKind::kIntArray;
    hidden.expected = "a non-empty array of integers in [1, 4096]";
    hidden.doc = "hidden layer widths of actor and critic";
    hidden.int_lo = 1;
    hidden.int_hi = 4096;
    hidden.non_empty = true;
    return std::vector<Bound<PpoConfig>>{
        PZ_KEY(PpoConfig, I("n_epochs", 1, INT_MAX, "passes over each rollout"), n_epochs),
        PZ_KEY(PpoConfig, I("n_minibatches", 1, INT_MAX, "minibatches over the env axis"),
               n_minibatches),
        PZ_KEY(PpoConfig, F("learning_rate", pos, "a number > 0", "Adam step size"), learning_rate),
        PZ_KEY(PpoConfig, F("gamma", unit, "a number in [0, 1]", "discount"), gamma),
        PZ_KEY(PpoConfig, F("gae_lambda", unit, "a number in [0, 1]", "GAE λ"), gae_lambda),
        PZ_KEY(PpoConfig, F("clip_range", pos, "a number > 0", "PPO ratio clip ε"), clip_range),
        PZ_KEY(PpoConfig, F("entropy_coef", nonneg, "a number >= 0", "entropy bonus weight"),
               entropy_coef),
        PZ_KEY(PpoConfig, F("critic_loss_weight", nonneg, "a number >= 0", "value loss weight"),
               critic_loss_weight),
        PZ_KEY(PpoConfig,
               F("max_grad_norm", nonneg, "a number >= 0",
                 "gradient clip threshold (see grad_clip); 0 = off"),
               max_grad_norm),
        PZ_ENUM_KEY(PpoConfig, "grad_clip",
                    "global_norm: scale the whole gradient to norm <= max_grad_norm; element: "
                    "clamp every entry to ±max_grad_norm (Rejax's PPO)",
                    grad_clip, kGradClip),
        PZ_KEY(PpoConfig,
               B("clip_value_loss",
                 "Rejax's value clipping: max of the plain and the clipped (rollout value ± "
                 "clip_range) squared error, reward critic"),
               clip_value_loss),
        PZ_ENUM_KEY(PpoConfig, "advantages",
                    "minibatch: GAE per minibatch from the current critic (nnx-ppo); rollout: "
                    "once per rollout from the collecting critic (Rejax, CleanRL)",
                    advantages, kAdvantages),
        PZ_KEY(PpoConfig, F("weight_decay", nonneg, "a number >= 0", "0 = Adam, > 0 = AdamW"),
               weight_decay),
        PZ_KEY(PpoConfig, F("adam_eps", pos, "a number > 0", "Adam ε (outside the sqrt)"),
               adam_eps),
        PZ_KEY(PpoConfig, hidden, hidden),
        PZ_KEY(PpoConfig,
               F(
                   "init_log_std", [](double x) { return x >= -10 && x <= 5; },
                   "a number in [-10, 5]", "initial log σ of the Gaussian policy"),
               init_log_std),
        PZ_KEY(PpoConfig,
               F("init_actor_scale", pos, "a number > 0",
                 "scale of the actor's output layer at init (0.01; Rejax: 1)"),
               init_actor_scale),
        PZ_KEY(PpoConfig, B("normalize_obs", "running mean/std observation normalizer"),
               normalize_obs),
        PZ_KEY(PpoConfig, B("normalize_advantages", "per-minibatch advantage normalization"),
               normalize_advantages),
        PZ_KEY(PpoConfig, B("normalize_rewards", "divide rewards by the running return std"),
               normalize_rewards),
        PZ_ENUM_KEY(PpoConfig, "truncation", "how a time-limit truncation enters GAE", truncation,
                    kTruncation),
        PZ_ENUM_KEY(PpoConfig, "squash", "none = clipped Gaussian, tanh = squashed", squash,
                    kSquash),
        PZ_ENUM_KEY(PpoConfig, "policy",
                    "gaussian, or beta: Beta(α, β) per action scaled to the (bounded) action box",
                    policy, kPolicy),
        PZ_KEY(PpoConfig,
               B("bounded_mean",
                 "Gaussian mean = box centre + half-width·tanh(head), inside the action box "
                 "(PowerZooJax's CMDP actor); false: unbounded, clipped by the env"),
               bounded_mean),
    };
  }();
  return k;
}

// squash and init_log_std shape the Gaussian policy; the Beta policy has neither. IPPO's
// full_batch makes each epoch one step on the whole batch with the reference's advantage rule
// (ippo.cpp), so n_minibatches and normalize_advantages are not read there.
std::vector<ParamDef> ppo_defs() {
  std::vector<ParamDef> defs = keys::defs(ppo_keys());
  for (auto& d : defs)
    if (d.key == "squash" || d.key == "init_log_std") {
      d.applies = "policy = \"gaussian\"";
      d.inapplicable = [](const core::ParamTable& t) -> std::string {
        return t.str("policy") == "beta" ? "the Gaussian policy's, found policy = \"beta\"" : "";
      };
    } else if (d.key == "bounded_mean") {
      d.applies = "policy = \"gaussian\" and squash = \"none\"";
      d.inapplicable = [](const core::ParamTable& t) -> std::string {
        if (t.str("policy") == "beta") return "the Gaussian policy's, found policy = \"beta\"";
        return t.str("squash") == "tanh"
                   ? "an unsquashed Gaussian's (the tanh squash bounds the action already), found "
                     "squash = \"tanh\""
                   : "";
      };
    } else if (d.key == "grad_clip") {
      d.applies = "max_grad_norm > 0";
      d.inapplicable = [](const core::ParamTable& t) -> std::string {
        return t.number("max_grad_norm") > 0 ? ""
                                             : "a clip of max_grad_norm, found max_grad_norm = 0";
      };
    } else if (d.key == "n_minibatches" || d.key == "normalize_advantages") {
      d.applies = "a single-agent learner, or [ippo] full_batch = false";
      const std::string what = d.key == "n_minibatches"
                                   ? "each epoch is one gradient step on the whole batch"
                                   : "advantages are normalized as the reference does (not for "
                                     "ippo, per batch for ippo_lagrangian)";
      d.inapplicable_in_spec =
          [what](const std::map<std::string, core::ParamTable>& spec) -> std::string {
        const auto it = spec.find("ippo");
        if (it == spec.end() || !it->second.boolean("full_batch")) return "";
        return what + ", found [ippo] full_batch = true";
      };
    }
  return defs;
}

const std::vector<Bound<PpoConfig>>& lagrangian_keys() {
  static const std::vector<Bound<PpoConfig>> k = {
      PZ_KEY(PpoConfig, F("lambda_lr", nonneg, "a number >= 0", "dual step on log λ"), lambda_lr),
      PZ_KEY(PpoConfig, F("lambda_init", pos, "a number > 0", "initial λ"), lambda_init),
      PZ_KEY(PpoConfig, F("log_lambda_max", pos, "a number > 0", "|log λ| bound"), log_lambda_max),
      PZ_KEY(PpoConfig, F("cost_gamma", unit, "a number in [0, 1]", "discount of the cost GAE"),
             cost_gamma),
      PZ_ENUM_KEY(PpoConfig, "dual", "dual rule of PPO-Lagrangian", dual, kDual),
      PZ_KEY(PpoConfig, F("pid_kp", nonneg, "a number >= 0", "PID dual: proportional gain"),
             pid_kp),
      PZ_KEY(PpoConfig, F("pid_ki", nonneg, "a number >= 0", "PID dual: integral gain"), pid_ki),
      PZ_KEY(PpoConfig, F("pid_kd", nonneg, "a number >= 0", "PID dual: derivative gain"), pid_kd),
  };
  return k;
}

// lambda_lr steps log λ by ascent; the PID rule sets λ from its gains instead (lagrangian.cpp).
std::vector<ParamDef> lagrangian_defs() {
  std::vector<ParamDef> defs = keys::defs(lagrangian_keys());
  for (auto& d : defs) {
    const bool pid = d.key.rfind("pid_", 0) == 0;
    if (!pid && d.key != "lambda_lr") continue;
    const std::string rule = pid ? "pid" : "log_ascent";
    d.applies = "dual = \"" + rule + "\"";
    d.inapplicable = [rule](const core::ParamTable& t) -> std::string {
      const std::string dual = t.str("dual");
      return dual == rule ? ""
                          : "read by the " + rule + " dual rule, found dual = \"" + dual + "\"";
    };
  }
  return defs;
}

const std::vector<Bound<PpoConfig>>& saute_keys() {
  static const std::vector<Bound<PpoConfig>> k = {
      PZ_KEY(PpoConfig,
             F(
                 "unsafe_reward", [](double) { return true; }, "a finite number",
                 "Sauté reward once the budget is spent"),
             saute_unsafe_reward),
  };
  return k;
}

std::unique_ptr<Learner> make_ppo(const LearnerContext& ctx, core::Rng& init_rng, int n_costs) {
  auto l =
      std::make_unique<PpoLearner>(ctx.obs_dim, ctx.act_dim, ppo_config(ctx), init_rng, n_costs);
  l->set_context(ctx.algo, ctx);
  return l;
}

LearnerEntry ppo_family_entry(const std::string& name, const std::string& description,
                              std::vector<std::string> sections) {
  LearnerEntry e;
  e.name = name;
  e.description = description;
  e.sections = std::move(sections);
  e.check = check_ppo_spec;
  e.check_training = check_ppo_training;
  e.check_env = check_ppo_action_box;
  e.make = [](const LearnerContext& ctx, core::Rng& init_rng) {
    return make_ppo(ctx, init_rng, 0);
  };
  e.memory = ppo_memory;
  e.bench = ppo_bench;
  return e;
}

LearnerEntry ppo_lagrangian_entry() {
  LearnerEntry e = ppo_family_entry(
      "ppo_lagrangian",
      "PPO-Lagrangian: a reward critic and one cost critic per [safety] constraint, dual ascent "
      "on log λ ([lagrangian])",
      {"ppo", "lagrangian"});
  e.uses_constraints = true;
  e.check = [](const LearnerContext& ctx) {
    check_ppo_spec(ctx);
    check_lagrangian_spec(ctx);
  };
  e.make = [](const LearnerContext& ctx, core::Rng& init_rng) {
    return make_ppo(ctx, init_rng, static_cast<int>(ctx.constraint_channels.size()));
  };
  return e;
}

LearnerEntry saute_entry() {
  LearnerEntry e = ppo_family_entry(
      "saute_ppo",
      "Sauté-PPO: plain PPO on the env with the remaining budget observed and the reward "
      "replaced by [saute] unsafe_reward once a budget is spent",
      {"ppo", "saute"});
  e.uses_constraints = true;
  e.check = [](const LearnerContext& ctx) {
    check_ppo_spec(ctx);
    bool ok = ctx.thresholds.size() == ctx.constraint_names.size();
    for (double d : ctx.thresholds) ok = ok && d > 0;
    if (!ok)
      throw core::ConfigError(ctx.where("safety.thresholds") +
                              "[safety] thresholds: saute_ppo needs one budget > 0 per constraint "
                              "(a zero budget makes every reward the unsafe reward)");
  };
  // Train with the reward shaping, evaluate with it off (the budget observation is kept).
  e.wrap_env = [](std::shared_ptr<const envs::Env> env, const LearnerContext& ctx,
                  bool training) -> std::shared_ptr<const envs::Env> {
    const int horizon = env->spec().horizon;
    return std::make_shared<const envs::SauteEnv>(env, ctx.constraint_channels, ctx.thresholds,
                                                  horizon, ppo_config(ctx).saute_unsafe_reward,
                                                  training);
  };
  return e;
}

// The layout before [learner] had the shared keys, the duals and Sauté's reward in [ppo].
LearnerSection ppo_section() {
  LearnerSection s{"ppo", "the PPO update and policy", ppo_defs(), {}};
  for (const char* k : {"algo", "total_steps", "rollout_length"})
    s.moved[k] = std::string("[learner] ") + k;
  for (const auto& k : lagrangian_keys()) s.moved[k.def.key] = "[lagrangian] " + k.def.key;
  s.moved["saute_unsafe_reward"] = "[saute] unsafe_reward";
  return s;
}

const LearnerRegistrar kPpoSection{ppo_section()};
const LearnerRegistrar kLagrangianSection{
    LearnerSection{"lagrangian", "the duals of the Lagrangian learners", lagrangian_defs(), {}}};
const LearnerRegistrar kSauteSection{
    LearnerSection{"saute", "the Sauté env of saute_ppo", keys::defs(saute_keys()), {}}};
const LearnerRegistrar kPpo{ppo_family_entry(
    "ppo", "PPO with clipped ratio and GAE on the (possibly penalty-shaped) reward", {"ppo"})};
const LearnerRegistrar kPpoLagrangian{ppo_lagrangian_entry()};
const LearnerRegistrar kSaute{saute_entry()};

}  // namespace

PpoConfig ppo_config(const LearnerContext& ctx) {
  PpoConfig c;
  c.total_steps = ctx.total_steps;
  c.rollout_length = ctx.rollout_length;
  keys::apply(ppo_keys(), ctx.section("ppo"), c);
  keys::apply(lagrangian_keys(), ctx.section("lagrangian"), c);
  keys::apply(saute_keys(), ctx.section("saute"), c);
  if (ctx.acting_only) c.n_minibatches = 1;  // acting needs no minibatch split
  return c;
}

void set_ppo_sections(LearnerContext& ctx, const PpoConfig& cfg) {
  ctx.total_steps = cfg.total_steps;
  ctx.rollout_length = cfg.rollout_length;
  ctx.sections["ppo"] = keys::table(ppo_keys(), cfg);
  ctx.sections["lagrangian"] = keys::table(lagrangian_keys(), cfg);
  ctx.sections["saute"] = keys::table(saute_keys(), cfg);
}

void check_ppo_spec(const LearnerContext& ctx) {
  const PpoConfig c = ppo_config(ctx);
  if (c.policy == Policy::kBeta && c.squash != Squash::kNone)
    throw core::ConfigError(ctx.where("ppo.squash") +
                            "[ppo] squash: the Beta policy is bounded by construction; expected "
                            "\"none\" with policy = \"beta\", found \"tanh\"");
  if (!ctx.acting_only && ctx.n_envs % c.n_minibatches != 0) {
    const std::string at = ctx.given("ppo.n_minibatches") || !ctx.given("vec.n_envs")
                               ? ctx.where("ppo.n_minibatches")
                               : ctx.where("vec.n_envs");
    throw core::ConfigError(at + "[ppo] n_minibatches = " + std::to_string(c.n_minibatches) +
                            " must divide [vec] n_envs = " + std::to_string(ctx.n_envs) +
                            " (minibatches split the env axis)");
  }
}

void check_lagrangian_spec(const LearnerContext& ctx) {
  const PpoConfig c = ppo_config(ctx);
  // λ up to e^20 ≈ 4.9e8 times the cost is far past any useful weight; beyond it (or a
  // lambda_init beyond the bound) the first update's loss was non-finite or λ was clipped.
  if (c.log_lambda_max > 20)
    throw core::ConfigError(ctx.where("lagrangian.log_lambda_max") +
                            "[lagrangian] log_lambda_max: expected at most 20 (λ <= e^20 ≈ "
                            "4.9e8), found " +
                            core::format_number(c.log_lambda_max));
  if (std::log(c.lambda_init) > c.log_lambda_max)
    throw core::ConfigError(
        ctx.where(ctx.given("lagrangian.lambda_init") ? "lagrangian.lambda_init"
                                                      : "lagrangian.log_lambda_max") +
        "[lagrangian] lambda_init: expected at most e^log_lambda_max = " +
        core::format_number(std::exp(c.log_lambda_max)) + ", found " +
        core::format_number(c.lambda_init) + " (λ stays within e^±log_lambda_max)");
}

void check_ppo_training(const LearnerContext& ctx) {
  const int N = ctx.n_envs, n_mb = ppo_config(ctx).n_minibatches;
  if (N % n_mb != 0)
    throw core::ConfigError(ctx.where("ppo.n_minibatches") +
                            "[ppo] n_minibatches: expected a divisor of [vec] n_envs = " +
                            std::to_string(N) + ", found " + std::to_string(n_mb));
  // Training runs whole iterations of n_envs × rollout_length steps; a budget below one
  // iteration trained more than it asked for.
  const int64_t per_iter = static_cast<int64_t>(N) * ctx.rollout_length;
  if (ctx.total_steps < per_iter)
    throw core::ConfigError(ctx.where("learner.total_steps") +
                            "[learner] total_steps: expected at least one iteration, [vec] "
                            "n_envs × [learner] rollout_length = " +
                            std::to_string(per_iter) + " steps, found " +
                            std::to_string(ctx.total_steps));
}

void check_ppo_action_box(const LearnerContext& ctx) {
  // Beta maps u ∈ (0, 1) onto the box: low + u·(high − low).
  if (ppo_config(ctx).policy == Policy::kBeta)
    check_bounded_action_box(ctx, "ppo.policy", "[ppo] policy = \"beta\"");
}

LearnerMemory ppo_memory(const LearnerContext& ctx, int n_costs) {
  const double agents = std::max<double>(1.0, static_cast<double>(ctx.agents.size()));
  // obs, action, then per agent log-prob, value, reward, done, advantage, return and per cost
  // channel its cost, value, advantage and return.
  const double per_step = ctx.obs_dim + ctx.act_dim + agents * (6 + 4.0 * n_costs);
  LearnerMemory m;
  m.rollout_bytes = 4.0 * ctx.n_envs * ctx.rollout_length * per_step;
  return m;
}

LearnerBenchShape ppo_bench(const LearnerContext& ctx) {
  const PpoConfig c = ppo_config(ctx);
  const auto& hidden = c.hidden;
  auto macs = [&](int in, int out) { return mlp_macs(in, hidden, out); };
  auto first = [&](int in, int out) { return mlp_first_layer_macs(in, hidden, out); };
  // Forward Σ in·out, weight gradients Σ in·out, input gradients over every layer but the first;
  // each sample is seen n_epochs times; a multi-agent sample is one row per agent through that
  // agent's networks (its observation and action slices).
  double m = 0;
  auto add_agent = [&](int obs, int act) {
    m += 3 * (macs(obs, act) + macs(obs, 1)) - first(obs, act) - first(obs, 1);
  };
  if (ctx.agents.empty()) add_agent(ctx.obs_dim, ctx.act_dim);
  for (const auto& a : ctx.agents) add_agent(a.obs_dim, a.act_dim);
  LearnerBenchShape b;
  b.macs_per_sample = m * c.n_epochs;
  b.gemm_m = ctx.rollout_length * ctx.n_envs / std::max(c.n_minibatches, 1);
  b.gemm_n = widest_layer(hidden);
  b.text = hidden_text(hidden) + ", T " + std::to_string(ctx.rollout_length) + " x N " +
           std::to_string(ctx.n_envs) + ", " + std::to_string(c.n_epochs) + " epochs x " +
           std::to_string(c.n_minibatches) + " minibatches";
  return b;
}

}  // namespace pz::rl
