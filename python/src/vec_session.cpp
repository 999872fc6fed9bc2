// VecSession implementation.
#include "vec_session.hpp"

#include <algorithm>
#include <filesystem>
#include <span>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/network_view.hpp"
#include "powerzoo/envs/penalty.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/eval/eval_venv.hpp"
#include "powerzoo/exp/run/checkpoint.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/learners.hpp"

namespace pz::py {

using core::ConfigError;

namespace {

std::vector<std::string> entry_ids(const std::vector<const envs::EnvEntry*>& list) {
  std::vector<std::string> ids;
  for (const auto* e : list) ids.push_back(e->name());
  return ids;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

/// The checks `powerzoo validate` makes of the sections an env reads ([env] on the training
/// split and every eval split, [reward] penalty, [safety] channels). The learner sections are not
/// checked: a custom loop is its own learner (a preset with a multi-agent env and the default
/// single-agent [ppo] is fine here).
void check_env_sections(const exp::Spec& spec) {
  const auto env = exp::make_learner_env(spec, spec.env.split, true);
  for (const auto& s : spec.eval.splits) exp::make_learner_env(spec, s, false);
  exp::penalty_weights(spec, env->spec());
  exp::safety_view(spec, env->spec());
}

}  // namespace

exp::Spec resolve_spec(const std::string& name, const std::vector<std::string>& overrides) {
  namespace fs = std::filesystem;
  const bool looks_like_file =
      name.find('/') != std::string::npos || name.ends_with(".toml") || fs::exists(fs::path(name));
  if (looks_like_file) return exp::load_spec(name, overrides);
  if (envs::find_task(name))
    return exp::parse_spec("[env]\ntask = \"" + name + "\"\n", "task preset '" + name + "'",
                           overrides);
  if (envs::find_env(name))
    return exp::parse_spec("[env]\nid = \"" + name + "\"\n", "env '" + name + "'", overrides);
  const auto tasks = entry_ids(envs::registered_tasks());
  const auto envs = entry_ids(envs::registered_envs());
  std::vector<std::string> all = tasks;
  all.insert(all.end(), envs.begin(), envs.end());
  const std::string dym = core::did_you_mean(name, all);
  throw ConfigError("spec: expected a spec file (TOML), a task preset (" + join(tasks) +
                    ") or an env id (" + join(envs) + "), found '" + core::echo(name) + "'" +
                    (dym.empty() ? "" : " (did you mean '" + dym + "'?)"));
}

VecSession::VecSession(const VecOptions& opt) : eval_(opt.eval) {
  if (opt.num_envs < 0 || opt.num_envs > 100000)
    throw ConfigError("num_envs: expected an integer in [1, 100000] (or None), found " +
                      std::to_string(opt.num_envs));
  if (opt.threads < 0 || opt.threads > 1024)
    throw ConfigError("threads: expected an integer in [0, 1024] (0 = all cores), found " +
                      std::to_string(opt.threads));
  std::vector<std::string> overrides = opt.overrides;
  if (opt.seed) overrides.push_back("experiment.seed=" + std::to_string(*opt.seed));
  spec_ = resolve_spec(opt.spec, overrides);
  check_env_sections(spec_);
  resolved_ = exp::to_toml(spec_);
  seed_ = spec_.experiment.seed;
  exp::Spec unseeded = spec_;  // a state carries its own Rng streams: any seed may load it
  unseeded.experiment.seed = 0;
  identity_ = exp::to_toml(unseeded);
  if (!opt.split.empty()) {
    exp::check_split_option(spec_, opt.split);
    split_ = opt.split;
  } else {
    split_ = eval_ ? spec_.eval.splits.front() : spec_.env.split;
  }
  n_ = opt.num_envs > 0 ? opt.num_envs : (eval_ ? spec_.eval.n_episodes : spec_.vec.n_envs);
  // The env a learner of the spec acts on (Sauté view for saute_ppo, reward shaping only when
  // training), with the [reward] penalty as the learner's reward, as run / eval build it.
  env_ = exp::make_learner_env(spec_, split_, !eval_);
  penalty_ = exp::penalty_weights(spec_, env_->spec());
  pool_ = std::make_unique<core::ThreadPool>(static_cast<size_t>(opt.threads));
  build_venv();
}

void VecSession::build_venv() {
  const uint64_t seed = static_cast<uint64_t>(seed_);
  if (eval_) {
    venv_ = exp::make_eval_venv(env_, n_, seed, penalty_, *pool_);
  } else {
    venv_ = std::make_unique<vec::VectorEnv>(envs::with_penalty(env_, penalty_), n_, seed,
                                             exp::kEnvStreamBase, *pool_);
  }
  started_ = false;
}

void VecSession::check_ready(const char* what) const {
  if (!venv_)
    throw ConfigError(std::string(what) + ": the env is closed (make a new one with make_vec)");
  if (!started_)
    throw ConfigError(std::string(what) + ": expected reset() first, found an env never reset");
}

void VecSession::reset(std::optional<int64_t> seed) {
  if (!venv_) throw ConfigError("reset: the env is closed (make a new one with make_vec)");
  if (seed) {
    if (*seed < 0)
      throw ConfigError("reset: seed: expected an integer >= 0, found " + std::to_string(*seed));
    seed_ = *seed;
    build_venv();
  }
  if (eval_)
    exp::reset_eval_venv(*venv_, static_cast<uint64_t>(seed_));
  else
    venv_->reset_all();
  ended_.assign(static_cast<size_t>(n_), 0);
  n_ended_ = 0;
  started_ = true;
}

void VecSession::step(const float* actions, bool traces) {
  check_ready("step");
  if (eval_ && n_ended_ == n_)
    throw ConfigError("step: every one of the " + std::to_string(n_) +
                      " evaluation episodes has ended; call reset() to walk them again");
  venv_->step_all(actions);
  if (traces) write_traces();  // before ended_ moves on: rows of episodes ended earlier are zero
  if (!eval_) return;
  for (int i = 0; i < n_; ++i) {
    if (!ended_[i] && (venv_->terminated[i] || venv_->truncated[i])) {
      ended_[i] = 1;
      ++n_ended_;
    }
  }
}

// The rows evaluate() records per step (exp/eval/evaluate.cpp), for every env at once. The trace
// vectors are written on the pool: the DSO env's cost several of its steps.
void VecSession::write_traces() {
  const envs::EnvSpec& sp = env_->spec();
  const size_t n = static_cast<size_t>(n_), nt = sp.trace_names.size();
  const size_t w = static_cast<size_t>(envs::trace_vector_width(sp));
  const vec::VectorEnv& v = *venv_;
  trace_.assign(n * nt, 0.0f);
  trace_vec_.assign(n * w, 0.0f);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < nt && !(eval_ && ended_[i]); ++j)
      trace_[i * nt + j] = static_cast<float>(v.info[i].trace[j]);
  if (w == 0) return;
  const size_t blocks = std::min(pool_->size(), n);
  pool_->run_blocks(blocks, [&](size_t b) {
    for (size_t i = b * n / blocks; i < (b + 1) * n / blocks; ++i) {
      const bool reset_already = !eval_ && (v.terminated[i] || v.truncated[i]);
      if ((eval_ && ended_[i]) || reset_already) continue;
      env_->write_trace(v.state(static_cast<int>(i)),
                        std::span<float>(trace_vec_.data() + i * w, w));
    }
  });
}

core::StateDict VecSession::state_dict() const {
  check_ready("state_dict");
  if (eval_)
    throw ConfigError(
        "state_dict: expected a training-mode env (eval=False), found eval=True (an evaluation "
        "is walked again from reset())");
  core::StateDict sd;
  venv_->save(sd, "vec/");
  sd.str["powerzoo/spec"] = identity_;
  sd.str["powerzoo/split"] = split_;
  sd.i64["powerzoo/num_envs"] = {n_};
  sd.i64["powerzoo/seed"] = {seed_};
  return sd;
}

void VecSession::load_state_dict(const core::StateDict& sd) {
  if (!venv_)
    throw ConfigError("load_state_dict: the env is closed (make a new one with make_vec)");
  if (eval_)
    throw ConfigError(
        "load_state_dict: expected a training-mode env (eval=False), found eval=True");
  auto str_of = [&sd](const std::string& k) -> const std::string& {
    auto it = sd.str.find(k);
    if (it == sd.str.end())
      throw ConfigError("load_state_dict: " + core::absent_entry(sd, k, "string"));
    return it->second;
  };
  auto int_of = [&sd](const std::string& k) {
    auto it = sd.i64.find(k);
    if (it == sd.i64.end() || it->second.size() != 1)
      throw ConfigError("load_state_dict: " + core::absent_entry(sd, k, "int64") +
                        " (one int64 value expected)");
    return it->second[0];
  };
  if (str_of("powerzoo/spec") != identity_)
    throw ConfigError(
        "load_state_dict: expected the state of an env of the same resolved spec, found one of "
        "another spec (state['powerzoo/spec'] is its resolved spec, with seed 0)");
  if (str_of("powerzoo/split") != split_)
    throw ConfigError("load_state_dict: expected the state of split '" + split_ + "', found '" +
                      core::echo(sd.str.at("powerzoo/split")) + "'");
  if (int_of("powerzoo/num_envs") != n_)
    throw ConfigError("load_state_dict: expected the state of " + std::to_string(n_) +
                      " envs, found " + std::to_string(int_of("powerzoo/num_envs")));
  venv_->load(sd, "vec/");
  seed_ = int_of("powerzoo/seed");
  started_ = true;
}

void VecSession::close() {
  venv_.reset();
  started_ = false;
}

}  // namespace pz::py
