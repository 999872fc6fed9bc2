// Training loop implementation.
#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/exp/train.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/saute.hpp"
#include "powerzoo/exp/build.hpp"
#include "powerzoo/exp/checkpoint.hpp"
#include "powerzoo/exp/evaluate.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::exp {
namespace fs = std::filesystem;
namespace {

std::string utc_now(const char* fmt) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

std::string hostname() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

std::string fmt_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long v = static_cast<long>(s);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", v / 3600, (v / 60) % 60, v % 60);
  return buf;
}

std::string make_run_dir(const Spec& spec, const TrainOptions& opt) {
  if (opt.resume) {
    if (!opt.out_dir.empty()) {
      if (fs::exists(opt.out_dir) && !fs::is_directory(opt.out_dir))
        throw core::ConfigError("--out " + opt.out_dir + ": expected a directory, found a file");
      return opt.out_dir;
    }
    // The newest existing run directory of this experiment (timestamps sort by name).
    const fs::path base = fs::path(spec.experiment.out_dir) / spec.experiment.name;
    std::string newest;
    if (fs::is_directory(base))
      for (const auto& e : fs::directory_iterator(base))
        if (e.is_directory() && fs::exists(e.path() / "run.h5") &&
            e.path().filename().string() > fs::path(newest).filename().string())
          newest = e.path().string();
    if (!newest.empty()) return newest;
  }
  if (!opt.out_dir.empty()) {
    // Never overwrite: an existing file, or a directory that already holds a run, is bad input.
    if (fs::exists(opt.out_dir) && !fs::is_directory(opt.out_dir))
      throw core::ConfigError("--out " + opt.out_dir + ": expected a directory, found a file");
    if (fs::exists(fs::path(opt.out_dir) / "run.h5"))
      throw core::ConfigError("--out " + opt.out_dir +
                              ": expected a new or empty run directory, found an existing run "
                              "(run.h5); choose another --out");
    return opt.out_dir;
  }
  const fs::path base = fs::path(spec.experiment.out_dir) / spec.experiment.name;
  const std::string stamp = utc_now("%Y%m%d-%H%M%S");
  fs::path dir = base / stamp;
  for (int i = 1; fs::exists(dir); ++i) dir = base / (stamp + "-" + std::to_string(i));
  return dir.string();
}

void check_finite(const float* x, size_t n, int width, const char* what, long long step) {
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]))
      throw core::RunError(std::string("non-finite ") + what + " at env " +
                           std::to_string(i / width) + ", global step " + std::to_string(step));
  }
}

// Eval + trajectories for every split; metric names of the first split are bare.
std::map<std::string, double> run_eval(const Spec& spec,
                                       const std::vector<std::shared_ptr<const envs::Env>>& envs,
                                       rl::PpoLearner& learner, const std::vector<double>& penalty,
                                       core::ThreadPool& pool, io::RunFile* out, long long step) {
  std::map<std::string, double> row;
  for (size_t s = 0; s < envs.size(); ++s) {
    Trajectories traj;
    const bool record = out && spec.output.trajectories == "eval";
    auto m = evaluate_with_reference(envs[s], deterministic_policy(learner), spec.eval.n_episodes,
                                     static_cast<uint64_t>(spec.experiment.seed), envs[s]->spec().dt_hours,
                                     penalty, pool, record ? &traj : nullptr);
    const std::string prefix = s == 0 ? "" : spec.eval.splits[s] + "/";
    for (const auto& [k, v] : m) row[prefix + k] = v;
    if (record) {
      const std::string p =
          "trajectories/" + spec.eval.splits[s] + "/step_" + std::to_string(step) + "/";
      const int64_t T = traj.T, K = traj.K;
      out->write_f32(p + "obs", {T, K, traj.obs_dim}, traj.obs.data());
      out->write_f32(p + "action", {T, K, traj.act_dim}, traj.action.data());
      out->write_f32(p + "reward", {T, K}, traj.reward.data());
      out->write_f32(p + "costs", {T, K, traj.n_costs}, traj.costs.data());
      out->write_u8(p + "terminated", {T, K}, traj.terminated.data());
      out->write_u8(p + "truncated", {T, K}, traj.truncated.data());
    }
  }
  return row;
}

// Newest ckpt/step_<n>.h5 that reads back completely; "" if none.
std::string newest_checkpoint(const std::string& run_dir, core::StateDict* sd,
                              std::string* resolved) {
  std::vector<std::pair<long long, std::string>> found;
  const fs::path dir = fs::path(run_dir) / "ckpt";
  if (!fs::is_directory(dir)) return "";
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("step_", 0) == 0 && e.path().extension() == ".h5")
      found.emplace_back(std::atoll(n.c_str() + 5), e.path().string());
  }
  std::sort(found.rbegin(), found.rend());
  for (const auto& [step, path] : found) {
    try {
      *sd = io::read_checkpoint(path, resolved);
      return path;
    } catch (const std::exception&) {
      // A checkpoint cut short by a kill: fall back to the previous one.
    }
  }
  return "";
}

// "ppo.pid_ki: expected 1.0 (checkpoint), found 2.0" for the first differing keys of two
// canonical to_toml() texts (same key order, one `key = value` line per key).
std::string spec_differences(const std::string& expected, const std::string& found) {
  auto entries = [](const std::string& text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::istringstream in(text);
    std::string line, section;
    while (std::getline(in, line)) {
      if (line.size() > 2 && line.front() == '[' && line.back() == ']') {
        section = line.substr(1, line.size() - 2);
      } else if (const auto eq = line.find(" = "); eq != std::string::npos) {
        out.emplace_back(section + "." + line.substr(0, eq), line.substr(eq + 3));
      }
    }
    return out;
  };
  const auto a = entries(expected), b = entries(found);
  std::map<std::string, std::string> bm(b.begin(), b.end());
  std::string msg;
  int n = 0;
  for (const auto& [key, va] : a) {
    const auto it = bm.find(key);
    const std::string vb = it == bm.end() ? "nothing" : it->second;
    if (vb == va) continue;
    if (n++ == 3) {
      msg += ", ...";
      break;
    }
    msg += (msg.empty() ? "" : ", ") + key + ": expected " + va + " (checkpoint), found " + vb;
  }
  return msg.empty() ? "the [sweep] table" : msg;
}

// Keeps the rows of progress.csv up to global_step `step` (resume drops the later ones).
void truncate_progress(const fs::path& file, long long step) {
  std::ifstream in(file);
  if (!in) return;
  std::vector<std::string> keep;
  std::string line;
  bool header = true;
  while (std::getline(in, line)) {
    if (header || std::atoll(line.c_str()) <= step) keep.push_back(line);
    header = false;
  }
  in.close();
  std::ofstream out(file, std::ios::trunc);
  for (const auto& l : keep) out << l << "\n";
}

}  // namespace

SafetyView safety_view(const Spec& spec, const envs::EnvSpec& env_spec) {
  SafetyView v;
  const auto& sf = spec.safety;
  const size_t k = sf.constraints.size();
  for (const auto& name : sf.constraints) {
    int idx = -1;
    for (size_t c = 0; c < env_spec.cost_names.size(); ++c)
      if (env_spec.cost_names[c] == name) idx = static_cast<int>(c);
    if (idx < 0) {
      std::string known;
      for (const auto& n : env_spec.cost_names) known += (known.empty() ? "" : ", ") + n;
      const std::string hint = core::did_you_mean(name, env_spec.cost_names);
      throw core::ConfigError((spec.source_path.empty() ? "spec" : spec.source_path) +
                              ": [safety] constraints: expected a cost channel of " + env_spec.id +
                              " (" + (known.empty() ? "none" : known) + "), found '" + name + "'" +
                              (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    v.channels.push_back(idx);
    v.names.push_back(name);
  }
  v.thresholds = sf.thresholds.empty() ? std::vector<double>(k, 0.0) : sf.thresholds;
  if (sf.cost_scale.empty())
    v.cost_scale.assign(k, 1.0);
  else if (sf.cost_scale.size() == 1)
    v.cost_scale.assign(k, sf.cost_scale[0]);
  else
    v.cost_scale = sf.cost_scale;
  return v;
}

std::shared_ptr<const envs::Env> make_learner_env(const Spec& spec, const std::string& split,
                                                  bool training) {
  auto env = make_env(spec, split);
  if (spec.ppo.algo != rl::Algo::kSautePpo) return env;
  // Sauté-PPO (rl.md §2.9): train with reward shaping, evaluate with it off (budget obs kept).
  const SafetyView sv = safety_view(spec, env->spec());
  return std::make_shared<const envs::SauteEnv>(env, sv.channels, sv.thresholds, env->spec().horizon,
                                                spec.ppo.saute_unsafe_reward, training);
}

int learner_cost_channels(const Spec& spec) {
  return spec.ppo.algo == rl::Algo::kPpoLagrangian
             ? static_cast<int>(spec.safety.constraints.size())
             : 0;
}

TrainResult train(const Spec& spec, const TrainOptions& opt) {
  // ---- Validate and build everything before anything is written.
  auto train_env = make_learner_env(spec, spec.env.split, true);
  std::vector<std::shared_ptr<const envs::Env>> eval_envs;
  for (const auto& s : spec.eval.splits) eval_envs.push_back(make_learner_env(spec, s, false));
  const SafetyView safety = safety_view(spec, train_env->spec());
  const rl::Algo algo = spec.ppo.algo;
  const envs::EnvSpec esp = train_env->spec();
  // PPO-Lagrangian: costs and budgets in scaled units (rl.md §2.7: c/s, d = thresholds/s).
  const int n_lag = algo == rl::Algo::kPpoLagrangian ? static_cast<int>(safety.channels.size()) : 0;
  std::vector<double> lag_budget(n_lag);
  for (int c = 0; c < n_lag; ++c) lag_budget[c] = safety.thresholds[c] / safety.cost_scale[c];
  const std::vector<double> penalty = penalty_weights(spec, esp);
  const rl::PpoConfig& cfg = spec.ppo;
  const int N = spec.vec.n_envs, T = cfg.rollout_length;
  if (N % cfg.n_minibatches != 0)
    throw core::ConfigError(spec.source_path +
                            ": [ppo] n_minibatches: expected a divisor of "
                            "[vec] n_envs = " +
                            std::to_string(N) + ", found " + std::to_string(cfg.n_minibatches));
  const int threads = opt.threads >= 0 ? opt.threads : spec.vec.threads;
  core::ThreadPool pool(static_cast<size_t>(threads));
  const uint64_t seed = static_cast<uint64_t>(spec.experiment.seed);
  RunStreams rngs(seed);
  rl::PpoLearner learner(esp.obs_dim, esp.act_dim, cfg, rngs.init, n_lag);
  vec::VectorEnv venv(train_env, N, seed, kEnvStreamBase, pool, penalty);
  const std::string resolved = to_toml(spec);

  // ---- Output (and, when resuming, the state to continue from).
  TrainResult result;
  result.run_dir = make_run_dir(spec, opt);
  result.run_file = (fs::path(result.run_dir) / "run.h5").string();
  LoopCounters ctr;
  ctr.last_eval = -spec.eval.every_steps;
  ctr.last_ckpt = -spec.output.checkpoint_every_steps;
  MetricHistory history;
  std::string resumed_from;
  if (opt.resume) {
    core::StateDict sd;
    std::string ck_resolved;
    resumed_from = newest_checkpoint(result.run_dir, &sd, &ck_resolved);
    if (!resumed_from.empty()) {
      // Only the budget may change (train longer); anything else would not be the same run.
      Spec ck_spec = parse_spec(ck_resolved, resumed_from + " (config/resolved)");
      ck_spec.ppo.total_steps = spec.ppo.total_steps;
      ck_spec.source_path = spec.source_path;
      const std::string ck_resolved_now = to_toml(ck_spec);
      if (ck_resolved_now != resolved)
        throw core::ConfigError("--resume: the spec differs from the one in " + resumed_from +
                                " (config/resolved) in more than ppo.total_steps: " +
                                spec_differences(ck_resolved_now, resolved) +
                                "; resume needs the same spec and overrides");
      venv.reset_all();  // allocates states; every value is then overwritten by the checkpoint
      restore_run_checkpoint(sd, learner, rngs, venv, ctr, history);
    }
  }
  fs::create_directories(fs::path(result.run_dir) / "ckpt");
  // Rebuild run.h5 from the checkpoint's history (a kill may have left the old file corrupt);
  // trajectories up to the checkpoint are copied over when the old file is still readable.
  const std::string old_run_file = result.run_file + ".before-resume";
  if (!resumed_from.empty() && fs::exists(result.run_file))
    fs::rename(result.run_file, old_run_file);
  io::RunFile out = io::RunFile::create(result.run_file,
                                        {{"schema_version", "1"},
                                         {"powerzoo_version", PZ_VERSION},
                                         {"git_sha", PZ_GIT_SHA},
                                         {"env_id", esp.id},
                                         {"created_utc", utc_now("%Y-%m-%dT%H:%M:%SZ")},
                                         {"hostname", hostname()},
                                         {"data", describe_data(spec)}},
                                        {{"seed", spec.experiment.seed},
                                         {"n_envs", N},
                                         {"threads", static_cast<int64_t>(pool.size())}},
                                        resolved);
  if (!resumed_from.empty()) {
    for (const auto& row : history.train) out.append_row("metrics/train", row);
    for (const auto& row : history.eval) out.append_row("metrics/eval", row);
    for (const auto& split : io::list_group(old_run_file, "trajectories"))
      for (const auto& step_name : io::list_group(old_run_file, "trajectories/" + split))
        if (std::atoll(step_name.c_str() + 5) <= ctr.global_step)
          out.copy_from(old_run_file, "trajectories/" + split + "/" + step_name);
    out.flush();
    fs::remove(old_run_file);
    // Checkpoints written after the one we resume from belong to the abandoned continuation.
    for (const auto& e : fs::directory_iterator(fs::path(result.run_dir) / "ckpt")) {
      const std::string n = e.path().filename().string();
      if (n.rfind("step_", 0) == 0 && std::atoll(n.c_str() + 5) > ctr.global_step)
        fs::remove(e.path());
    }
    truncate_progress(fs::path(result.run_dir) / "progress.csv", ctr.global_step);
  } else {
    fs::remove(fs::path(result.run_dir) / "progress.csv");
    for (const auto& e : fs::directory_iterator(fs::path(result.run_dir) / "ckpt"))
      fs::remove(e.path());
  }
  std::vector<std::string> kept_ckpts;
  {
    std::vector<std::pair<long long, std::string>> existing;
    for (const auto& e : fs::directory_iterator(fs::path(result.run_dir) / "ckpt")) {
      const std::string n = e.path().filename().string();
      if (n.rfind("step_", 0) == 0)
        existing.emplace_back(std::atoll(n.c_str() + 5), e.path().string());
    }
    std::sort(existing.begin(), existing.end());
    for (const auto& [st, p] : existing) kept_ckpts.push_back(p);
  }
  const bool fresh_progress = !fs::exists(fs::path(result.run_dir) / "progress.csv");
  std::ofstream progress_csv(fs::path(result.run_dir) / "progress.csv", std::ios::app);
  if (fresh_progress)
    progress_csv << "global_step,wall_time,train_sps,train_episode_return,eval_return_mean,"
                    "eval_shaped_return_mean\n";

  const bool tty = !opt.quiet && isatty(fileno(stdout));
  if (!opt.quiet) {
    std::cout << "powerzoo run: " << spec.experiment.name << " | env " << esp.id << " (obs "
              << esp.obs_dim << ", act " << esp.act_dim << ") | " << N << " envs x " << T
              << " steps | " << pool.size() << " threads\n"
              << "  " << describe_data(spec) << "\n  run directory: " << result.run_dir
              << std::endl;
    if (!resumed_from.empty())
      std::cout << "  resuming from " << resumed_from << " (global step " << ctr.global_step << ")"
                << std::endl;
  }

  rl::Rollout ro;
  ro.resize(T, N, esp.obs_dim, esp.act_dim, n_lag);
  const size_t n_costs = esp.cost_names.size();
  std::vector<float> ro_costs(static_cast<size_t>(T) * N * n_costs);  // [T, N, k] for train-sample
  bool have_rollout = false;
  const size_t od = esp.obs_dim, ad = esp.act_dim;
  // Env actions of one step: the rollout keeps the raw Gaussian sample u, the env gets tanh(u)
  // with ppo.squash = "tanh" (a plain copy of u otherwise).
  std::vector<float> env_act(static_cast<size_t>(N) * ad);
  long long& steps = ctr.global_step;
  double last_eval_ret = NAN, last_train_ret = NAN;
  const auto t_start = std::chrono::steady_clock::now();
  auto wall = [&] {
    return ctr.wall_time +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
  };
  auto checkpoint = [&](const fs::path& p) {
    LoopCounters c = ctr;
    c.wall_time = wall();
    write_run_checkpoint(p.string(), learner, rngs, venv, c, history, resolved);
  };

  auto do_eval = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    auto row = run_eval(spec, eval_envs, learner, penalty, pool, &out, steps);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    row["global_step"] = static_cast<double>(steps);
    row["wall_time"] = wall();
    row["throughput/eval_sps"] =
        spec.eval.n_episodes * row["episode_length_mean"] * eval_envs.size() / std::max(secs, 1e-9);
    out.append_row("metrics/eval", row);
    history.eval.push_back(row);
    if (spec.output.trajectories == "train-sample" && have_rollout) {
      // The latest training rollout (shaped reward, raw actions before clipping/squashing).
      const std::string p = "trajectories/train/step_" + std::to_string(steps) + "/";
      const int64_t TT = T, NN = N;
      std::vector<uint8_t> term(ro.dones.size());
      for (size_t i = 0; i < term.size(); ++i) term[i] = ro.dones[i] && !ro.truncated[i];
      out.write_f32(p + "obs", {TT, NN, esp.obs_dim}, ro.obs.data());
      out.write_f32(p + "action", {TT, NN, esp.act_dim}, ro.actions.data());
      out.write_f32(p + "reward", {TT, NN}, ro.rewards.data());
      out.write_f32(p + "costs", {TT, NN, static_cast<int64_t>(n_costs)}, ro_costs.data());
      out.write_u8(p + "terminated", {TT, NN}, term.data());
      out.write_u8(p + "truncated", {TT, NN}, ro.truncated.data());
    }
    out.flush();
    last_eval_ret = row["return_mean"];
    progress_csv << steps << "," << row["wall_time"] << ",,"
                 << "," << row["return_mean"] << "," << row["shaped_return_mean"] << "\n";
    progress_csv.flush();
    if (row["shaped_return_mean"] > ctr.best_eval) {
      ctr.best_eval = row["shaped_return_mean"];
      checkpoint(fs::path(result.run_dir) / "ckpt" / "best.h5");
    }
    if (!opt.quiet) {
      if (tty) std::cout << "\r\033[K";
      std::cout << "eval @ " << steps << ": return " << row["return_mean"] << " +- "
                << row["return_std"] << ", shaped " << row["shaped_return_mean"];
      for (const auto& c : esp.cost_names)  // above the violation threshold, not rounding noise
        if (row["cost/" + c] > 1e-6) std::cout << ", " << c << " " << row["cost/" + c];
      if (row.count("opf_gap")) std::cout << ", opf_gap " << row["opf_gap"];
      if (n_lag > 0) {
        const auto lam = learner.lambdas();
        for (int c = 0; c < n_lag; ++c)
          std::cout << ", lambda/" << safety.names[c] << " " << lam[c];
      }
      std::cout << std::endl;
    }
  };
  auto do_ckpt = [&] {
    const fs::path p =
        fs::path(result.run_dir) / "ckpt" / ("step_" + std::to_string(steps) + ".h5");
    checkpoint(p);
    kept_ckpts.push_back(p.string());
    while (static_cast<int>(kept_ckpts.size()) > spec.output.keep_checkpoints) {
      fs::remove(kept_ckpts.front());
      kept_ckpts.erase(kept_ckpts.begin());
    }
  };

  if (resumed_from.empty()) {
    venv.reset_all();
    if (spec.eval.every_steps > 0) {
      do_eval();
      ctr.last_eval = 0;
    }
    if (should_run(steps, ctr.last_ckpt, spec.output.checkpoint_every_steps)) {
      ctr.last_ckpt = steps;
      do_ckpt();
    }
  }

  std::vector<double> ep_returns;
  while (steps < cfg.total_steps) {
    const auto t_iter = std::chrono::steady_clock::now();
    ep_returns.clear();
    double ep_shaped = 0, rew_sum = 0;
    std::vector<double> cost_sum(esp.cost_names.size(), 0.0);
    std::vector<double> lag_ep_cost(n_lag, 0.0);  // Σ over finished episodes of scaled ep. cost
    int lag_episodes = 0;
    for (int t = 0; t < T; ++t) {
      float* obs_t = &ro.obs[t * N * od];
      std::copy(venv.obs.begin(), venv.obs.end(), obs_t);
      learner.act(obs_t, N, &rngs.action, env_act.data(), &ro.logp[t * N], &ro.values[t * N],
                  &ro.actions[t * N * ad]);
      venv.step_all(env_act.data());
      check_finite(venv.obs.data(), venv.obs.size(), esp.obs_dim, "observation", steps + t * N);
      check_finite(venv.shaped_reward.data(), N, 1, "reward", steps + t * N);
      for (int i = 0; i < N; ++i) ro.dones[t * N + i] = venv.terminated[i] | venv.truncated[i];
      learner.process_rewards(venv.shaped_reward.data(), &ro.dones[t * N], N, &ro.rewards[t * N]);
      for (int i = 0; i < N; ++i) {
        ro.truncated[t * N + i] = venv.truncated[i];
        rew_sum += venv.reward[i];
        for (size_t j = 0; j < n_costs; ++j) {
          cost_sum[j] += venv.costs[i * n_costs + j];
          ro_costs[(static_cast<size_t>(t) * N + i) * n_costs + j] = venv.costs[i * n_costs + j];
        }
        for (int c = 0; c < n_lag; ++c)
          ro.costs[(static_cast<size_t>(t) * N + i) * n_lag + c] = static_cast<float>(
              venv.costs[i * n_costs + safety.channels[c]] / safety.cost_scale[c]);
        if (ro.dones[t * N + i])
          std::copy(&venv.final_obs[i * od], &venv.final_obs[(i + 1) * od],
                    &ro.final_obs[(t * N + i) * od]);
      }
      for (const auto& [i, ep] : venv.finished()) {
        ep_returns.push_back(ep.ret);
        ep_shaped += ep.shaped_ret;
        for (int c = 0; c < n_lag; ++c)
          lag_ep_cost[c] += ep.cost_sum[safety.channels[c]] / safety.cost_scale[c];
        lag_episodes += n_lag > 0 ? 1 : 0;
      }
    }
    std::copy(venv.obs.begin(), venv.obs.end(), ro.next_obs.begin());
    const double rollout_secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_iter).count();
    have_rollout = true;
    auto metrics = learner.update(ro, rngs.shuffle);
    if (n_lag > 0) {
      // Dual step (rl.md §2.7 step 7) with Ĵ_C = mean scaled cost of the episodes that finished
      // in this rollout; if none finished, the reference's estimate mean per-step cost × horizon.
      std::vector<double> j_c(n_lag);
      for (int c = 0; c < n_lag; ++c) {
        if (lag_episodes > 0) {
          j_c[c] = lag_ep_cost[c] / lag_episodes;
        } else {
          double sum = 0;
          for (size_t i = 0; i < static_cast<size_t>(T) * N; ++i) sum += ro.costs[i * n_lag + c];
          j_c[c] = sum / (static_cast<double>(T) * N) * esp.horizon;
        }
      }
      const auto lam = learner.dual_update(j_c, lag_budget);
      for (int c = 0; c < n_lag; ++c) {
        metrics["lambda/" + safety.names[c]] = lam[c];
        metrics["safety/episode_cost_est/" + safety.names[c]] = j_c[c];
      }
    }
    for (const auto& [k, v] : metrics)
      if (!std::isfinite(v))
        throw core::RunError("non-finite learner metric " + k + " at global step " +
                             std::to_string(steps) + " (iteration " +
                             std::to_string(ctr.iteration) + ")");
    steps += static_cast<long long>(T) * N;
    ++ctr.iteration;
    const double iter_secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_iter).count();
    metrics["global_step"] = static_cast<double>(steps);
    metrics["wall_time"] = wall();
    metrics["throughput/train_sps"] = T * N / std::max(iter_secs, 1e-9);
    metrics["throughput/env_sps"] = T * N / std::max(rollout_secs, 1e-9);
    metrics["rollout/reward_mean"] = rew_sum / (T * N);
    for (size_t j = 0; j < cost_sum.size(); ++j)
      metrics["rollout/cost_" + esp.cost_names[j]] = cost_sum[j] / (T * N);
    if (!ep_returns.empty()) {
      double s = 0;
      for (double r : ep_returns) s += r;
      last_train_ret = s / ep_returns.size();
      metrics["episode_return"] = last_train_ret;
      metrics["episode_shaped_return"] = ep_shaped / ep_returns.size();
    } else {
      metrics["episode_return"] = NAN;
      metrics["episode_shaped_return"] = NAN;
    }
    out.append_row("metrics/train", metrics);
    history.train.push_back(metrics);
    progress_csv << steps << "," << metrics["wall_time"] << "," << metrics["throughput/train_sps"]
                 << "," << metrics["episode_return"] << ",,\n";

    if (should_run(steps, ctr.last_eval, spec.eval.every_steps)) {
      do_eval();
      ctr.last_eval = steps;
    }
    if (should_run(steps, ctr.last_ckpt, spec.output.checkpoint_every_steps)) {
      ctr.last_ckpt = steps;  // before writing, so the checkpoint records its own cadence
      do_ckpt();
    }
    out.flush();
    if (tty) {
      const double el = wall();
      const double sps = steps / std::max(el, 1e-9);
      std::printf(
          "\r\033[Kstep %lld/%lld (%.0f%%) | %.0f steps/s | ETA %s | train return %.4g | "
          "eval return %.4g",
          steps, static_cast<long long>(cfg.total_steps), 100.0 * steps / cfg.total_steps, sps,
          fmt_duration((cfg.total_steps - steps) / std::max(sps, 1e-9)).c_str(), last_train_ret,
          last_eval_ret);
      if (n_lag > 0) {
        const auto lam = learner.lambdas();
        std::printf(" | lambda");
        for (int c = 0; c < n_lag; ++c) std::printf(" %s %.3g", safety.names[c].c_str(), lam[c]);
      }
      std::fflush(stdout);
    }
  }
  // Final evaluation and checkpoint so the run always ends with both.
  if (spec.eval.every_steps > 0 && ctr.last_eval != steps) {
    do_eval();
    ctr.last_eval = steps;
  }
  if (ctr.last_ckpt != steps) {
    ctr.last_ckpt = steps;
    do_ckpt();
  }
  out.flush();
  out.close();
  if (tty) std::cout << "\n";
  result.last_eval_return = last_eval_ret;
  if (!opt.quiet)
    std::cout << "done: " << steps << " steps in " << fmt_duration(wall()) << " ("
              << static_cast<long long>(steps / std::max(wall(), 1e-9)) << " steps/s)\n"
              << "run file: " << result.run_file << std::endl;
  return result;
}

}  // namespace pz::exp
