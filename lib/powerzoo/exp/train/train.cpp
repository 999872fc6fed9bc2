// Training loop: a short cadence loop (collect, update, eval, checkpoint, log, progress) over
// rl::Learner, vec::RolloutCollector and exp::RunDirectory.
#include "powerzoo/exp/train/train.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "powerzoo/core/build_info.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/fault.hpp"
#include "powerzoo/core/stop_signal.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/core/utc_time.hpp"
#include "powerzoo/envs/penalty.hpp"
#include "powerzoo/exp/eval/episode_render.hpp"
#include "powerzoo/exp/eval/evaluate.hpp"
#include "powerzoo/exp/run/checkpoint.hpp"
#include "powerzoo/exp/run/eval_layout.hpp"
#include "powerzoo/exp/run/log_levels.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/run/run_lock.hpp"
#include "powerzoo/exp/run/trajectory_keep.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/data_files.hpp"
#include "powerzoo/exp/spec/spec_migrate.hpp"
#include "powerzoo/exp/train/progress_line.hpp"
#include "powerzoo/exp/train/train_row.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/rl/learner_registry.hpp"
#include "powerzoo/vec/rollout_collector.hpp"
#include "powerzoo/vec/vector_env.hpp"

namespace pz::exp {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

std::string hostname() {
  char buf[256] = {0};
  gethostname(buf, sizeof buf - 1);
  return buf;
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

// Eval of every split; metric names of the first split are bare. With [output] trajectories =
// "eval", also each split's recorded episodes ([output] trajectory_episodes of them).
std::pair<std::map<std::string, double>, std::vector<Trajectories>> run_eval(
    const Spec& spec, const std::vector<std::shared_ptr<const envs::Env>>& envs,
    rl::Learner& learner, const std::vector<double>& penalty, core::ThreadPool& pool) {
  std::map<std::string, double> row;
  std::vector<Trajectories> traj;
  const bool record = spec.output.trajectories == "eval";
  for (size_t s = 0; s < envs.size(); ++s) {
    Trajectories t;
    auto m = evaluate_with_reference(envs[s], deterministic_policy(learner), spec.eval.n_episodes,
                                     static_cast<uint64_t>(spec.experiment.seed),
                                     envs[s]->spec().dt_hours, penalty, pool, record ? &t : nullptr,
                                     spec.log.percentiles);
    const std::string prefix = s == 0 ? "" : spec.eval.splits[s] + "/";
    for (const auto& [k, v] : m) row[prefix + k] = v;
    if (record) traj.push_back(first_episodes(t, spec.output.trajectory_episodes));
  }
  return {row, traj};
}

// The records of the evaluation `history` ends with: each split's trajectories (`traj`, if any)
// at trajectories/<split>/step_<n>/, after dropping those of the evaluations no longer kept
// ([output] trajectory_evals), whose space the new ones then reuse, so the file does not grow
// with dropped evaluations; and the latest training rollout with "train-sample". `before_drop`
// runs first when something is dropped (a drawing in progress reads the evaluation it drops).
void write_eval_records(io::RunFile& out, const Spec& spec, const MetricHistory& history,
                        const std::vector<Trajectories>& traj,
                        const vec::RolloutCollector& collector, long long step,
                        const std::function<void()>& before_drop) {
  if (collector.has_record())
    write_trajectories(out, "trajectories/train/step_" + std::to_string(step) + "/",
                       collector.record());
  if (traj.empty()) return;
  const auto kept = kept_trajectory_steps(history.eval, spec.output.trajectory_evals);
  const std::vector<std::map<std::string, double>> before(history.eval.begin(),
                                                          history.eval.end() - 1);
  bool first_drop = true;
  for (long long old : kept_trajectory_steps(before, spec.output.trajectory_evals)) {
    if (kept.count(old)) continue;
    if (std::exchange(first_drop, false)) before_drop();
    for (const auto& split : spec.eval.splits)
      out.remove("trajectories/" + split + "/step_" + std::to_string(old));
  }
  for (size_t s = 0; s < traj.size(); ++s)
    write_trajectories(
        out, "trajectories/" + spec.eval.splits[s] + "/step_" + std::to_string(step) + "/",
        traj[s]);
}

// Throws core::ConfigError unless the checkpoint's spec equals `resolved` up to learner.total_steps
// and eval.render_every_steps (pictures do not touch the numbers).
void check_resume_spec(const Spec& spec, const std::string& ck_resolved, const std::string& ck_path,
                       const std::string& resolved) {
  // Only the budget may change (train longer); anything else would not be the same run.
  Spec ck_spec = parse_spec(migrate_stored_spec(ck_resolved, ck_path),
                            ck_path + " (config/resolved)", {}, true);
  ck_spec.learner.total_steps = spec.learner.total_steps;
  ck_spec.eval.render_every_steps = spec.eval.render_every_steps;
  ck_spec.source_path = spec.source_path;
  ck_spec.vec.threads = spec.vec.threads;  // any thread count gives the same results
  const std::string ck_resolved_now = to_toml(ck_spec);
  if (ck_resolved_now != resolved)
    throw core::ConfigError("--resume: the spec differs from the one in " + ck_path +
                            " (config/resolved) in more than learner.total_steps: " +
                            spec_differences(ck_resolved_now, resolved) +
                            "; resume needs the same spec and overrides");
}

void print_eval(const std::map<std::string, double>& row, const envs::EnvSpec& esp,
                const rl::Learner& learner, bool tty) {
  auto at = [&](const std::string& k) { return row.count(k) ? row.at(k) : 0.0; };
  if (tty) std::cout << "\r\033[K";
  std::cout << "eval @ " << static_cast<long long>(at("global_step")) << ": return "
            << at("return_mean") << " +- " << at("return_std") << ", shaped "
            << at("shaped_return_mean");
  for (const auto& c : esp.cost_names)  // above the violation threshold, not rounding noise
    if (at("cost/" + c) > 1e-6) std::cout << ", " << c << " " << at("cost/" + c);
  if (row.count("opf_gap")) std::cout << ", opf_gap " << row.at("opf_gap");
  for (const auto& [k, v] : learner.status()) std::cout << ", " << k << " " << v;
  std::cout << std::endl;
}

// "a,b,c": the feature-name attributes of run.h5 (trajectories' last axis, in order).
std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

// Root attributes and resolved spec of a new run.h5.
RunFileHeader run_file_header(const Spec& spec, const envs::EnvSpec& esp, int N, size_t threads,
                              const std::string& resolved, const std::string& data_text) {
  return {
      {{"schema_version", "1"},
       {"powerzoo_version", core::version()},
       {"git_sha", core::git_sha()},
       {"env_id", esp.id},
       {"created_utc", core::utc_now()},
       {"hostname", hostname()},
       {"data", describe_data(spec)},
       {"data_files", data_text},
       {"cost_names", join_names(esp.cost_names)},
       {"obs_names", join_names(esp.obs_feature_names())},
       {"action_names", join_names(esp.action_feature_names())},
       {"status", "running"},
       {"status_reason", ""},
       {kEvalSplitsAttr, join_names(spec.eval.splits)}},
      {{"seed", spec.experiment.seed}, {"n_envs", N}, {"threads", static_cast<int64_t>(threads)}},
      resolved,
      spec.eval.splits};
}

// A train row into run.h5, the checkpoints' history and progress.csv.
void record_train_row(const std::map<std::string, double>& row, io::RunFile& out,
                      MetricHistory& history, RunDirectory& dir) {
  out.append_row("metrics/train", row);
  history.train.push_back(row);
  dir.progress_train(row);
}

// run.h5 of this run (a new one, or the resumed one) with the env's network.
io::RunFile start_run_file(RunDirectory& dir, const Spec& spec, const envs::EnvSpec& esp, int N,
                           size_t threads, const std::string& resolved,
                           const std::string& data_text, const MetricHistory* resumed,
                           long long step) {
  dir.set_tensorboard(spec.log.tensorboard);
  // A resumed run keeps the evaluations' trajectories an uninterrupted one holds at `step`.
  std::set<long long> kept;
  if (resumed && spec.output.trajectories == "eval")
    kept = kept_trajectory_steps(resumed->eval, spec.output.trajectory_evals);
  io::RunFile out = dir.start(run_file_header(spec, esp, N, threads, resolved, data_text), resumed,
                              step, spec.output.trajectories == "eval" ? &kept : nullptr);
  write_network(out, esp.network);
  return out;
}

// With --resume, restores the newest checkpoint of `dir` (if any) into learner, streams, envs,
// counters and history; returns its path ("" when starting fresh).
std::string resume_from_checkpoint(const Spec& spec, const RunDirectory& dir,
                                   const std::string& resolved, rl::Learner& learner,
                                   RunStreams& rngs, vec::VectorEnv& venv, LoopCounters& ctr,
                                   MetricHistory& history) {
  core::StateDict sd;
  std::string ck_resolved;
  const std::string resumed_from = dir.newest_checkpoint(&sd, &ck_resolved);
  if (!resumed_from.empty()) {
    check_resume_spec(spec, ck_resolved, resumed_from, resolved);
    // The same spec over other data would not be the same run.
    std::string changed;
    try {
      changed = data_file_changes(recorded_data_files(sd), data_files_text(data_files(spec)));
    } catch (const core::ConfigError& e) {
      throw core::ConfigError("--resume: " + resumed_from + ": " + e.what());
    }
    if (!changed.empty())
      throw core::ConfigError("--resume: a data file changed since " + resumed_from +
                              " was written: " + changed +
                              "; restore it, or start a new run to train on the new data");
    venv.reset_all();  // allocates states; every value is then overwritten by the checkpoint
    try {              // the readers say what is wrong; the user needs to know in which file
      restore_run_checkpoint(sd, learner, rngs, venv, ctr, history);
    } catch (const core::ConfigError& e) {
      throw core::ConfigError("--resume: " + resumed_from + ": " + e.what());
    }
    core::fault_point("resume");
  }
  return resumed_from;
}

void print_banner(const Spec& spec, const envs::EnvSpec& esp, int N, int T, size_t threads,
                  const std::string& run_dir, const std::string& resumed_from, long long step) {
  std::cout << "powerzoo run: " << spec.experiment.name << " | env " << esp.id << " (obs "
            << esp.obs_dim << ", act " << esp.act_dim << ") | " << N << " envs x " << T
            << " steps | " << threads << (threads == 1 ? " thread\n" : " threads\n") << "  "
            << describe_data(spec) << "\n  run directory: " << run_dir << std::endl;
  if (!resumed_from.empty())
    std::cout << "  resuming from " << resumed_from << " (global step " << step << ")" << std::endl;
  // The loop runs whole iterations of N·T steps; say so when that is more than asked for.
  const long long per_iter = static_cast<long long>(N) * T, asked = spec.learner.total_steps;
  const long long planned = (asked + per_iter - 1) / per_iter * per_iter;
  if (planned != asked)
    std::cout << "  learner.total_steps " << asked
              << " is not a multiple of n_envs x rollout_length (" << per_iter
              << "): the run ends after " << planned << " steps" << std::endl;
}

// " (run stopped at global step S, iteration I; ...)": where a fault stopped the run and the
// newest complete checkpoint, written before it, that --resume continues from.
std::string fault_note(const RunDirectory& dir, long long step, int64_t iteration) {
  core::StateDict sd;
  std::string resolved;
  std::string ck;
  try {
    ck = dir.newest_checkpoint(&sd, &resolved);
  } catch (const core::ConfigError&) {
    return " (run stopped at global step " + std::to_string(step) + ", iteration " +
           std::to_string(iteration) + "; its newest checkpoint does not read back)";
  }
  std::string note = " (run stopped at global step " + std::to_string(step) + ", iteration " +
                     std::to_string(iteration) + "; ";
  if (ck.empty()) return note + "no checkpoint was written before it)";
  const auto it = sd.i64.find("counters/global_step");
  const std::string at =
      it == sd.i64.end() || it->second.empty() ? std::string("?") : std::to_string(it->second[0]);
  return note + "the newest checkpoint, " + ck + " (global step " + at +
         "), is from before the fault: the same command with --resume continues from it)";
}

// Throws core::RunError on the first non-finite learner metric.
void check_finite_metrics(const std::map<std::string, double>& metrics, long long steps,
                          int64_t iteration) {
  for (const auto& [k, v] : metrics)
    if (!std::isfinite(v))
      throw core::RunError("non-finite learner metric " + k + " at global step " +
                           std::to_string(steps) + " (iteration " + std::to_string(iteration) +
                           ")");
}

// The cost shown on the progress line: the first constrained channel, else the first channel.
std::string main_cost_channel(const Spec& spec, const envs::EnvSpec& esp) {
  if (!spec.safety.constraints.empty()) return spec.safety.constraints[0];
  return esp.cost_names.empty() ? std::string() : esp.cost_names[0];
}

// Counters of a run that starts: evaluation and checkpoint due at step 0.
LoopCounters fresh_counters(const Spec& spec) {
  LoopCounters ctr;
  ctr.last_eval = -spec.eval.every_steps;
  ctr.last_ckpt = -spec.output.checkpoint_every_steps;
  return ctr;
}

std::optional<RunLock> take_lock(const RunDirectory& dir, bool take) {
  std::optional<RunLock> lock;  // one process per run directory, from before its first write
  if (!take) return lock;
  std::string warning;
  lock.emplace(RunLock::acquire(dir.path(), &warning));
  if (!warning.empty()) std::cerr << "powerzoo run: warning: " << warning << std::endl;
  return lock;
}

// run.h5's status and reason; best effort for "failed" (the fault may be the file itself).
void set_status(io::RunFile& out, const std::string& status, const std::string& reason) {
  try {
    out.set_attr("status", status);
    out.set_attr("status_reason", reason);
  } catch (const std::exception&) {
    if (status != "failed") throw;
  }
}

// Each metric's mean over the updates of an iteration that reported it.
std::map<std::string, double> mean_metrics(
    const std::map<std::string, std::pair<double, int>>& sums) {
  std::map<std::string, double> metrics;
  for (const auto& [k, s] : sums) metrics[k] = s.second == 1 ? s.first : s.first / s.second;
  return metrics;
}

// Whether the run goes on after an iteration: TrainOptions::on_iteration's answer, if it is set.
bool after_iteration(const TrainOptions& opt, long long steps, double seconds,
                     const vec::CollectStats& st, bool learned) {
  return !opt.on_iteration || opt.on_iteration({steps, seconds, st.env_seconds, st.act_seconds,
                                                st.between_seconds, learned});
}

void print_end(const TrainResult& r, bool quiet, double wall) {
  if (r.stopped_by != 0)  // even with --quiet: the log of a preempted job says why it ended
    std::cout << "interrupted by " << core::signal_name(r.stopped_by) << " at step " << r.steps
              << " after a checkpoint; continue with the same command and --resume --out "
              << r.run_dir << std::endl;
  else if (!quiet)
    std::cout << "done: " << r.steps << " steps in " << format_duration(wall) << " ("
              << static_cast<long long>(r.steps / std::max(wall, 1e-9)) << " steps/s)\n"
              << "run file: " << r.run_file << std::endl;
}

}  // namespace

// The checks of a spec against its env that need no learner; returns the penalty weights.
std::vector<double> check_run_settings(const Spec& spec, const envs::EnvSpec& esp) {
  learner_context(spec, esp, spec.vec.n_envs);  // [safety] names are checked first, as before
  std::vector<double> penalty = penalty_weights(spec, esp);
  check_training(spec);
  if (spec.eval.render_every_steps > 0) check_render_tool();
  return penalty;
}

void validate_train(const Spec& spec) {
  const auto train_env = make_learner_env(spec, spec.env.split, true);
  for (const auto& s : spec.eval.splits) make_learner_env(spec, s, false);
  const envs::EnvSpec esp = train_env->spec();
  check_run_settings(spec, esp);
  RunStreams rngs(static_cast<uint64_t>(spec.experiment.seed));
  make_spec_learner(spec, esp, spec.vec.n_envs, rngs.init);  // the learner's own checks
}

std::string unused_settings_warning(const Spec& spec) {
  if (spec.safety.constraints.empty() || learner_uses_constraints(spec)) return "";
  std::string users;
  for (const rl::LearnerEntry* e : rl::registered_learners())
    if (e->uses_constraints) users += (users.empty() ? "" : ", ") + e->name;
  return "[safety] constraints is set, but [learner] algo = \"" + spec.learner.algo +
         "\" does not use it (" + users +
         " do); the cost "
         "channels are only reported";
}

// The spec as run: /config/resolved records the thread count actually used (--threads beats
// vec.threads, 0 = all cores), the rest as given.
static Spec spec_as_run(const Spec& spec, size_t threads) {
  Spec s = spec;
  s.vec.threads = static_cast<int>(threads);
  return s;
}

TrainResult train(const Spec& spec_in, const TrainOptions& opt) {
  core::ThreadPool pool(static_cast<size_t>(opt.threads >= 0 ? opt.threads : spec_in.vec.threads));
  const Spec spec = spec_as_run(spec_in, pool.size());
  // ---- Validate and build everything before anything is written (as validate_train).
  auto train_env = make_learner_env(spec, spec.env.split, true);
  std::vector<std::shared_ptr<const envs::Env>> eval_envs;
  for (const auto& s : spec.eval.splits) eval_envs.push_back(make_learner_env(spec, s, false));
  const envs::EnvSpec esp = train_env->spec();
  const int N = spec.vec.n_envs;
  const std::vector<double> penalty = check_run_settings(spec, esp);
  if (const std::string w = unused_settings_warning(spec); !w.empty())
    std::cerr << "powerzoo run: warning: " << w << std::endl;
  const uint64_t seed = static_cast<uint64_t>(spec.experiment.seed);
  RunStreams rngs(seed);
  const std::unique_ptr<rl::Learner> learner = make_spec_learner(spec, esp, N, rngs.init, &pool);
  const int T = learner->collect_steps();
  vec::VectorEnv venv(envs::with_penalty(train_env, penalty), N, seed, kEnvStreamBase, pool);
  vec::RolloutCollector collector(venv, spec.output.trajectories == "train-sample");
  const std::string resolved = to_toml(spec);
  const std::string data_text = data_files_text(data_files(spec));

  // ---- Output (and, when resuming, the state to continue from).
  RunDirectory dir(RunDirectory::choose(spec, opt.out_dir, opt.resume));
  dir.check_layout();
  const std::optional<RunLock> lock = take_lock(dir, opt.take_lock);
  TrainResult result{dir.path(), dir.run_file()};
  LoopCounters ctr = fresh_counters(spec);
  MetricHistory history;
  std::string resumed_from;
  if (opt.resume)
    resumed_from = resume_from_checkpoint(spec, dir, resolved, *learner, rngs, venv, ctr, history);
  io::RunFile out = start_run_file(dir, spec, esp, N, pool.size(), resolved, data_text,
                                   resumed_from.empty() ? nullptr : &history, ctr.global_step);

  const bool tty = !opt.quiet && isatty(fileno(stdout));
  ProgressLine progress(tty, opt.quiet ? 0.0 : opt.log_every_seconds, spec.learner.total_steps,
                        main_cost_channel(spec, esp));
  if (!opt.quiet)
    print_banner(spec, esp, N, T, pool.size(), result.run_dir, resumed_from, ctr.global_step);

  long long& steps = ctr.global_step;
  const long long total = spec.learner.total_steps;
  double last_eval_ret = NAN;
  const auto t_start = Clock::now();
  EpisodeRenderer renderer(dir.path());  // waits for its last drawing when train() returns
  auto wall = [&] { return ctr.wall_time + since(t_start); };
  auto checkpoint = [&](const std::string& path) {
    LoopCounters c = ctr;
    c.wall_time = wall();
    write_run_checkpoint(path, *learner, rngs, venv, c, history, resolved, data_text);
  };
  auto do_eval = [&] {
    const auto t0 = Clock::now();
    auto [row, traj] = run_eval(spec, eval_envs, *learner, penalty, pool);
    const double secs = since(t0);
    row["global_step"] = static_cast<double>(steps);
    row["wall_time"] = wall();
    row["throughput/eval_sps"] =
        spec.eval.n_episodes * row["episode_length_mean"] * eval_envs.size() / std::max(secs, 1e-9);
    check_finite_metrics(row, "evaluation at global step " + std::to_string(steps));
    append_eval_row(out, row, spec.eval.splits);
    history.eval.push_back(row);
    write_eval_records(out, spec, history, traj, collector, steps, [&] { renderer.finish(); });
    out.publish();  // run.h5 holds these trajectories before the checkpoint of this step exists
    if (render_due(steps, ctr.last_eval, spec.eval.render_every_steps, total))
      renderer.draw(steps);  // reads the published run.h5
    last_eval_ret = row["return_mean"];
    dir.progress_eval(row);
    if (row["shaped_return_mean"] > ctr.best_eval) {
      ctr.best_eval = row["shaped_return_mean"];
      checkpoint(dir.best_checkpoint());
    }
    progress.eval(row);
    progress.end_line();
    if (!opt.quiet) print_eval(row, esp, *learner, tty);
  };
  auto cadence = [&](bool final) {  // eval, then checkpoint, when due (or missing at the end)
    if (final ? spec.eval.every_steps > 0 && ctr.last_eval != steps
              : should_run(steps, ctr.last_eval, spec.eval.every_steps)) {
      do_eval();
      ctr.last_eval = steps;
    }
    if (final ? ctr.last_ckpt != steps
              : should_run(steps, ctr.last_ckpt, spec.output.checkpoint_every_steps)) {
      ctr.last_ckpt = steps;  // before writing, so the checkpoint records its own cadence
      dir.add_step_checkpoint(steps, spec.output.keep_checkpoints, checkpoint);
    }
  };

  // A fault (a non-finite value, a failed write) stops the run before anything of it is written;
  // the message says where, and which checkpoint a resume continues from.
  try {
    if (resumed_from.empty()) {
      venv.reset_all();
      if (spec.eval.every_steps > 0) {
        do_eval();
        ctr.last_eval = 0;
      }
      cadence(false);  // the step-0 checkpoint, if every step counts
    }
    while (steps < total) {
      const auto t_iter = Clock::now();
      // One update per iteration (on-policy) or one after every update_every() steps (off-policy);
      // the train row holds each metric's mean over the updates that reported it.
      std::map<std::string, std::pair<double, int>> sums;
      auto learn = [&] {
        for (const auto& [k, v] : learner->update(rngs.shuffle)) {
          auto [it, first] = sums.try_emplace(k, v, 1);
          if (!first) it->second.first += v, ++it->second.second;
        }
      };
      const vec::CollectStats st =
          collector.collect(*learner, rngs.action, T, steps, learner->update_every(), learn);
      std::map<std::string, double> metrics = mean_metrics(sums);
      check_finite_metrics(metrics, steps, ctr.iteration);
      steps += static_cast<long long>(T) * N;
      ++ctr.iteration;
      const auto row = add_step_metrics(st, esp, N, T, steps, wall(), since(t_iter), spec.log,
                                        *learner, metrics);
      record_train_row(row, out, history, dir);
      cadence(false);
      out.flush();
      if (!opt.quiet) progress.iteration(steps, wall(), metrics, learner->status());
      if (!after_iteration(opt, 1LL * T * N, since(t_iter), st, !sums.empty())) break;
      if ((result.stopped_by = core::stop_signal()) != 0) break;
    }
    if (result.stopped_by == 0) {
      cadence(true);  // the run always ends with an evaluation and a checkpoint
      set_status(out, "finished", "");
    } else {  // a checkpoint of this very step, so that --resume loses nothing
      if (ctr.last_ckpt != steps)
        dir.add_step_checkpoint(ctr.last_ckpt = steps, spec.output.keep_checkpoints, checkpoint);
      set_status(out, "interrupted",
                 std::string(core::signal_name(result.stopped_by)) + " at global step " +
                     std::to_string(steps) + "; --resume continues from " +
                     dir.step_checkpoint(steps));
    }
  } catch (const core::RunError& e) {
    const std::string why = std::string(e.what()) + fault_note(dir, steps, ctr.iteration);
    set_status(out, "failed", why);
    throw core::RunError(why);
  }
  out.flush();
  out.close();
  progress.end_line();
  result.last_eval_return = last_eval_ret;
  result.steps = steps;
  print_end(result, opt.quiet, wall());
  return result;
}

}  // namespace pz::exp
