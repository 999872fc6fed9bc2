// The [ippo] section and the entries ippo and ippo_lagrangian: independent PPO (de Witt et al.
// 2020, arXiv:2011.09533) with one PpoLearner per parameter group, reading [ppo] (and
// [lagrangian]) for every group's update.
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/ippo/ippo.hpp"
#include "powerzoo/rl/ppo/ppo_entry.hpp"
#include "powerzoo/rl/section_keys.hpp"

namespace pz::rl {
namespace {

using keys::Bound;

const keys::Names<CostCritic> kCostCritic = {{"shared", CostCritic::kShared},
                                             {"per_constraint", CostCritic::kPerConstraint}};

const keys::Names<Sharing> kSharing = {
    {"full", Sharing::kFull}, {"typed", Sharing::kTyped}, {"independent", Sharing::kIndependent}};

const std::vector<Bound<IppoConfig>>& ippo_keys() {
  static const std::vector<Bound<IppoConfig>> k = {
      PZ_ENUM_KEY(IppoConfig, "sharing",
                  "parameter groups: one network (full), one per name prefix before '_' "
                  "(typed), one per agent (independent)",
                  sharing, kSharing),
      PZ_KEY(IppoConfig,
             core::bool_param("full_batch", false,
                              "one gradient step per epoch on all T·A·N samples, no advantage "
                              "normalization (the reference); false = [ppo] minibatches"),
             full_batch),
      PZ_ENUM_KEY(IppoConfig, "cost_critic",
                  "ippo_lagrangian only: one cost critic per group with one output per [safety] "
                  "constraint (shared, PowerZooJax's layout) or one cost critic per constraint "
                  "(per_constraint)",
                  cost_critic, kCostCritic),
  };
  return k;
}

// cost_critic lays out ippo_lagrangian's cost critics; plain ippo has none, so there the key is
// bad input ("has no effect here") and the resolved spec leaves it out.
std::vector<core::ParamDef> ippo_defs() {
  std::vector<core::ParamDef> defs = keys::defs(ippo_keys());
  for (auto& d : defs)
    if (d.key == "cost_critic") {
      d.applies = "[learner] algo = ippo_lagrangian";
      d.inapplicable_in_spec = [](const std::map<std::string, core::ParamTable>& spec) {
        const std::string algo = spec.at("learner").str("algo");
        return algo == "ippo_lagrangian"
                   ? std::string()
                   : "the layout of ippo_lagrangian's cost critics, found [learner] algo = \"" +
                         algo + "\"";
      };
    }
  return defs;
}

// With full_batch each epoch is one step on the whole batch: [ppo] n_minibatches is not read
// (a spec may not set it), so PPO's divisibility checks see one minibatch.
LearnerContext full_batch_view(const LearnerContext& ctx) {
  if (!ippo_config(ctx).full_batch) return ctx;
  LearnerContext c = ctx;
  c.sections["ppo"].set("n_minibatches", int64_t{1});
  return c;
}

void check_ippo_spec(const LearnerContext& ctx) {
  check_ppo_spec(full_batch_view(ctx));
  // A group's agents may have different action boxes; the Beta policy maps one box per network.
  if (ppo_config(ctx).policy == Policy::kBeta)
    throw core::ConfigError(ctx.where("ppo.policy") + "[ppo] policy = \"beta\": " + ctx.algo +
                            " supports the Gaussian policy only (expected \"gaussian\")");
}

// The grouping is bad input of [ippo] sharing (mismatched sizes in one group), found here
// because only the env knows its agents.
void check_ippo_env(const LearnerContext& ctx) {
  try {
    ippo_groups(ctx.agents, ippo_config(ctx).sharing, ctx.obs_dim, ctx.act_dim);
  } catch (const core::ConfigError& e) {
    throw core::ConfigError(ctx.where("ippo.sharing") + "[ippo] sharing: " + e.what());
  }
}

// PPO's count per agent (each agent's rows through its group's networks) on the minibatches IPPO
// really runs: with full_batch one per epoch. A group's minibatch holds the rows of its A_g agents,
// T·N·A_g / n_minibatches of them, run in blocks of at most kIppoBlockRows rows: the largest
// group's block sets the SGEMM peak's shape (the rows of one GEMM the learner runs).
LearnerBenchShape ippo_bench(const LearnerContext& ctx) {
  const LearnerContext view = full_batch_view(ctx);
  LearnerBenchShape b = ppo_bench(view);
  const PpoConfig c = ppo_config(view);
  size_t rows_per_env = 1;
  for (const AgentGroup& g :
       ippo_groups(ctx.agents, ippo_config(ctx).sharing, ctx.obs_dim, ctx.act_dim))
    rows_per_env = std::max(rows_per_env, g.agents.size());
  const size_t rows = static_cast<size_t>(ctx.rollout_length) * ctx.n_envs * rows_per_env /
                      std::max(c.n_minibatches, 1);
  b.gemm_m = static_cast<int>(std::min(rows, static_cast<size_t>(kIppoBlockRows)));
  b.text += ", " + std::to_string(rows_per_env) + " agents in the largest group";
  return b;
}

LearnerEntry ippo_entry(bool lagrangian) {
  LearnerEntry e;
  e.name = lagrangian ? "ippo_lagrangian" : "ippo";
  e.description = lagrangian ? "IPPO whose groups add cost critics, one team dual per [safety] "
                               "constraint ([lagrangian])"
                             : "independent PPO on a multi-agent env, parameters shared as [ippo] "
                               "sharing says";
  e.sections = lagrangian ? std::vector<std::string>{"ppo", "ippo", "lagrangian"}
                          : std::vector<std::string>{"ppo", "ippo"};
  e.multi_agent = true;
  e.uses_constraints = lagrangian;
  e.check = lagrangian ? LearnerContextCheck([](const LearnerContext& ctx) {
    check_ippo_spec(ctx);
    check_lagrangian_spec(ctx);
  })
                       : LearnerContextCheck(check_ippo_spec);
  e.check_training = [](const LearnerContext& ctx) { check_ppo_training(full_batch_view(ctx)); };
  e.check_env = check_ippo_env;
  e.make = [lagrangian](const LearnerContext& ctx, core::Rng& init_rng) {
    return std::unique_ptr<Learner>(std::make_unique<IppoLearner>(ctx, init_rng, lagrangian));
  };
  e.memory = ppo_memory;
  e.bench = ippo_bench;
  return e;
}

const LearnerRegistrar kIppoSection{LearnerSection{
    "ippo", "parameter sharing and batch mode of ippo and ippo_lagrangian", ippo_defs(), {}}};
const LearnerRegistrar kIppo{ippo_entry(false)};
const LearnerRegistrar kIppoLagrangian{ippo_entry(true)};

}  // namespace

IppoConfig ippo_config(const LearnerContext& ctx) {
  IppoConfig c;
  keys::apply(ippo_keys(), ctx.section("ippo"), c);
  return c;
}

void set_ippo_section(LearnerContext& ctx, const IppoConfig& cfg) {
  ctx.sections["ippo"] = keys::table(ippo_keys(), cfg);
}

}  // namespace pz::rl
