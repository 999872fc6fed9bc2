// Canonical TOML output of a resolved spec (every key, defaults filled in, doubles round-trip).
#include <sstream>

#include "powerzoo/io/spec.hpp"
#include "powerzoo/io/spec_schema.hpp"

namespace pz::io {

using detail::format_double;
using detail::quote;
using detail::toml_key;

std::string to_toml(const Spec& s) {
  std::ostringstream o;
  auto str = [&](const char* k, const std::string& v) { o << k << " = " << quote(v) << "\n"; };
  auto num = [&](const char* k, int64_t v) { o << k << " = " << v << "\n"; };
  auto dbl = [&](const char* k, double v) { o << k << " = " << format_double(v) << "\n"; };
  auto boolean = [&](const char* k, bool v) { o << k << " = " << (v ? "true" : "false") << "\n"; };

  o << "[experiment]\n";
  str("name", s.experiment.name);
  num("seed", s.experiment.seed);
  str("out_dir", s.experiment.out_dir);

  o << "\n[env]\n";
  str("id", s.env.id);
  str("task", s.env.task);
  str("case", s.env.case_name);
  str("profile", s.env.profile);
  str("split", s.env.split);
  num("horizon", s.env.horizon);
  dbl("dt_hours", s.env.dt_hours);
  dbl("load_scale", s.env.load_scale);
  dbl("reward_scale", s.env.reward_scale);
  str("dispatch", s.env.dispatch);
  boolean("report_opf_gap", s.env.report_opf_gap);

  o << "\n[vec]\n";
  num("n_envs", s.vec.n_envs);
  num("threads", s.vec.threads);

  const auto& p = s.ppo;
  o << "\n[ppo]\n";
  num("total_steps", p.total_steps);
  num("rollout_length", p.rollout_length);
  num("n_epochs", p.n_epochs);
  num("n_minibatches", p.n_minibatches);
  dbl("learning_rate", p.learning_rate);
  dbl("gamma", p.gamma);
  dbl("gae_lambda", p.gae_lambda);
  dbl("clip_range", p.clip_range);
  dbl("entropy_coef", p.entropy_coef);
  dbl("critic_loss_weight", p.critic_loss_weight);
  dbl("max_grad_norm", p.max_grad_norm);
  dbl("weight_decay", p.weight_decay);
  dbl("adam_eps", p.adam_eps);
  o << "hidden = [";
  for (size_t i = 0; i < p.hidden.size(); ++i) o << (i ? ", " : "") << p.hidden[i];
  o << "]\n";
  dbl("init_log_std", p.init_log_std);
  boolean("normalize_obs", p.normalize_obs);
  boolean("normalize_advantages", p.normalize_advantages);
  boolean("normalize_rewards", p.normalize_rewards);
  str("truncation", p.truncation == rl::Truncation::kBootstrap ? "bootstrap" : "zero_td");
  str("squash", p.squash == rl::Squash::kTanh ? "tanh" : "none");
  str("algo", p.algo == rl::Algo::kPpo             ? "ppo"
              : p.algo == rl::Algo::kPpoLagrangian ? "ppo_lagrangian"
                                                   : "saute_ppo");
  dbl("lambda_lr", p.lambda_lr);
  dbl("lambda_init", p.lambda_init);
  dbl("log_lambda_max", p.log_lambda_max);
  dbl("cost_gamma", p.cost_gamma);
  str("dual", p.dual == rl::DualRule::kPid ? "pid" : "log_ascent");
  dbl("pid_kp", p.pid_kp);
  dbl("pid_ki", p.pid_ki);
  dbl("pid_kd", p.pid_kd);
  dbl("saute_unsafe_reward", p.saute_unsafe_reward);

  o << "\n[reward]\npenalty = {";
  bool first = true;
  for (const auto& [ch, w] : s.penalty) {
    o << (first ? " " : ", ") << toml_key(ch) << " = " << format_double(w);
    first = false;
  }
  o << (first ? "}" : " }") << "\n";

  auto dbl_array = [&](const char* k, const std::vector<double>& v) {
    o << k << " = [";
    for (size_t i = 0; i < v.size(); ++i) o << (i ? ", " : "") << format_double(v[i]);
    o << "]\n";
  };
  o << "\n[safety]\nconstraints = [";
  for (size_t i = 0; i < s.safety.constraints.size(); ++i)
    o << (i ? ", " : "") << quote(s.safety.constraints[i]);
  o << "]\n";
  dbl_array("thresholds", s.safety.thresholds);
  dbl_array("cost_scale", s.safety.cost_scale);

  o << "\n[eval]\n";
  num("every_steps", s.eval.every_steps);
  num("n_episodes", s.eval.n_episodes);
  o << "splits = [";
  for (size_t i = 0; i < s.eval.splits.size(); ++i) o << (i ? ", " : "") << quote(s.eval.splits[i]);
  o << "]\n";

  o << "\n[output]\n";
  str("trajectories", s.output.trajectories);
  num("checkpoint_every_steps", s.output.checkpoint_every_steps);
  num("keep_checkpoints", s.output.keep_checkpoints);

  o << "\n[sweep]\n" << s.sweep_toml;
  if (!s.sweep_toml.empty() && s.sweep_toml.back() != '\n') o << "\n";
  return o.str();
}

std::string toml_double(double x) { return format_double(x); }

std::string toml_quote(std::string_view s) { return quote(s); }

}  // namespace pz::io
