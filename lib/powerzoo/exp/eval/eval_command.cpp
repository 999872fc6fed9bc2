// `powerzoo eval` logic: checkpoint → learner (by name, through rl::Learner) → eval file.
#include "powerzoo/exp/eval/eval_command.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "powerzoo/core/build_info.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/eval/evaluate.hpp"
#include "powerzoo/exp/run/checkpoint.hpp"
#include "powerzoo/exp/run/eval_layout.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/exp/spec/data_files.hpp"
#include "powerzoo/exp/spec/learners.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/spec/spec_migrate.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace fs = std::filesystem;

namespace pz::exp {
namespace {

// The eval file records the checkpoint's global step; one --resume would refuse (negative, not
// one int64) was recorded as it stood, or as 0.
void check_global_step(const core::StateDict& sd, const std::string& ckpt) {
  const std::string name = "counters/global_step";
  const auto it = sd.i64.find(name);
  if (it == sd.i64.end()) {
    if (sd.f64.count(name) || sd.f32.count(name) || sd.str.count(name))
      throw core::ConfigError(ckpt + ": " + core::absent_entry(sd, name, "int64"));
    return;  // older checkpoints without counters
  }
  if (it->second.size() != 1 || it->second[0] < 0 || it->second[0] > 1'000'000'000'000'000)
    throw core::ConfigError(ckpt + ": expected '" + name + "' as one int64 in [0, 1e15], found " +
                            (it->second.size() == 1
                                 ? std::to_string(it->second[0])
                                 : std::to_string(it->second.size()) + " values"));
}

}  // namespace

EvalCommandResult run_eval_command(const EvalCommandOptions& opt) {
  EvalCommandResult res;
  const std::string& split = opt.split;
  res.checkpoint = RunDirectory::resolve_checkpoint(opt.path);
  const std::string& ckpt = res.checkpoint;
  std::string resolved;
  const core::StateDict sd = io::read_checkpoint(ckpt, &resolved);
  // A checkpoint of an earlier version stores its spec in the layout before [learner].
  const Spec spec =
      parse_spec(migrate_stored_spec(resolved, ckpt), ckpt + " (config/resolved)", {}, true);
  // The split comes from the command line, so a wrong one is named as --split, not as a line of
  // the checkpoint's stored spec.
  check_split_option(spec, split);
  // The env is rebuilt from the recorded spec: a data file edited since then changes the episodes.
  {
    try {
      res.data_changes =
          data_file_changes(recorded_data_files(sd), data_files_text(data_files(spec)));
    } catch (const core::ConfigError& e) {
      throw core::ConfigError(ckpt + ": " + e.what());
    }
    if (!res.data_changes.empty())
      std::cerr << "powerzoo eval: warning: a data file changed since " << ckpt
                << " was written, so this is not the run's own evaluation: " << res.data_changes
                << std::endl;
  }
  check_global_step(sd, ckpt);
  const int episodes = opt.episodes > 0 ? opt.episodes : spec.eval.n_episodes;
  res.episodes = episodes;
  auto env = make_learner_env(spec, split, false);  // as the learner's entry wraps it
  const auto& esp = env->spec();
  core::ThreadPool pool(static_cast<size_t>(opt.threads));
  core::Rng init(0, 0);
  // Evaluation only acts, one env at a time: the training batch's checks (minibatch splits,
  // which IPPO checks against its n_envs × agents columns) do not apply to it.
  const auto learner = make_spec_learner(spec, esp, 1, init, &pool, true);
  try {
    learner->load(sd);
  } catch (const core::ConfigError& e) {
    throw core::ConfigError(ckpt + ": " + e.what());
  }
  const auto penalty = penalty_weights(spec, esp);
  res.eval_file = opt.out;
  if (!opt.out.empty())
    RunDirectory::check_output_file(opt.out, "--out", RunDirectory::OutputKind::kEvalHdf5);
  if (res.eval_file.empty()) {
    const fs::path run_dir = RunDirectory::of_checkpoint(ckpt);
    RunDirectory::check_no_links(run_dir.string());
    res.eval_file =
        (run_dir / "eval" / (fs::path(ckpt).stem().string() + "_" + split + ".h5")).string();
  }
  Trajectories traj;
  auto& m = res.metrics;
  m = evaluate_with_reference(env, deterministic_policy(*learner), episodes,
                              static_cast<uint64_t>(spec.experiment.seed), env->spec().dt_hours,
                              penalty, pool, &traj, spec.log.percentiles);
  check_finite_metrics(m, "eval of " + ckpt + " on split " + split);
  const fs::path out(res.eval_file);
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  auto f =
      io::RunFile::create(res.eval_file,
                          {{"schema_version", "1"},
                           {"powerzoo_version", core::version()},
                           {"checkpoint", fs::absolute(ckpt).string()},
                           {"split", split},
                           {"env_id", esp.id},
                           {"data_files", data_files_text(data_files(spec))},
                           {"data_changed_since_checkpoint", res.data_changes},
                           {kEvalSplitsAttr, split}},
                          {{"seed", spec.experiment.seed}, {"n_episodes", episodes}}, resolved);
  auto it = sd.i64.find("counters/global_step");
  m["global_step"] =
      it != sd.i64.end() && !it->second.empty() ? static_cast<double>(it->second[0]) : 0;
  append_eval_row(f, m, {split});
  write_network(f, esp.network);
  write_trajectories(f, "trajectories/" + split + "/", traj);
  f.close();
  return res;
}

}  // namespace pz::exp
