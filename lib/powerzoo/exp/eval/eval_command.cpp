// `powerzoo eval` logic: checkpoint → learner (by name, through rl::Learner) → eval file.
#include "powerzoo/exp/eval/eval_command.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <variant>

#include "powerzoo/core/build_info.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/thread_pool.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/eval/eval_layout_env.hpp"
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
#include "powerzoo/rl/learner_registry.hpp"

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

// Names as run and baseline files write them: comma-separated.
std::string join_names(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

std::string join_overrides(const std::vector<std::string>& overrides) {
  std::string joined;
  for (const auto& o : overrides) joined += (joined.empty() ? "" : " ") + o;
  return joined;
}

// The default eval file's name part for overrides ("" without): their text, file-name safe, so
// an evaluation under changed conditions never replaces the checkpoint's own.
std::string override_suffix(const std::vector<std::string>& overrides) {
  std::string s;
  for (char ch : join_overrides(overrides))
    s += std::isalnum(static_cast<unsigned char>(ch)) || ch == '.' || ch == '-' ? ch : '_';
  if (s.size() > 80) s.resize(80);
  return s.empty() ? "" : "_" + s;
}

// Only [env] and [eval] keys change the conditions of an evaluation; every other section is the
// learner, its training or the run's bookkeeping, which the checkpoint fixes. env.id and env.task
// name the env the policy was trained in: another one is refused here, by the override's name,
// before the stored spec is re-read under it (its keys would be blamed instead).
void check_override_sections(const std::vector<std::string>& overrides, const Spec& stored,
                             bool episodes_given) {
  constexpr const char* kFixed =
      "the checkpoint fixes the learner and its training; only the env's conditions and "
      "eval.n_episodes may change at evaluation";
  for (const std::string& o : overrides) {
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw core::ConfigError("eval override '" + core::echo(o) + "': expected section.key=value");
    const std::string key = o.substr(0, eq);
    if (key.find('.') == std::string::npos)  // `run` reads seed=N as experiment.seed=N
      throw core::ConfigError(
          "eval override '" + core::echo(o) + "': expected an [env] or [eval] key, found '" +
          core::echo(key) + "'" +
          (key == "seed" ? " (experiment.seed, the seed of the run): " : ": ") + kFixed);
    const std::string section = key.substr(0, key.find('.'));
    if (section != "env" && section != "eval")
      throw core::ConfigError("eval override '" + core::echo(o) +
                              "': expected an [env] or [eval] key, found the [" +
                              core::echo(section) + "] key " + core::echo(key) + ": " + kFixed);
    // Keys the evaluation does not read would be recorded in the eval file as if it had: the
    // split is --split, and of [eval] only n_episodes counts (one evaluation, no periodic ones).
    if (key == "env.split")
      throw core::ConfigError("eval override '" + core::echo(o) +
                              "': env.split is the split the run trained on; the evaluation's "
                              "split is --split (e.g. --split " +
                              core::echo(o.substr(eq + 1)) + ")");
    if (section == "eval" && key != "eval.n_episodes")
      throw core::ConfigError("eval override '" + core::echo(o) +
                              "': has no effect on an evaluation (it evaluates one split, given by "
                              "--split, once); of [eval] only n_episodes applies");
    if (key == "eval.n_episodes" && episodes_given)
      throw core::ConfigError("eval override '" + core::echo(o) +
                              "': --episodes is given too; give the number of episodes once");
    std::string value = o.substr(eq + 1);
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
      value = value.substr(1, value.size() - 2);
    const bool id = key == "env.id", task = key == "env.task";
    if ((id && value != stored.env.id) || (task && value != stored.env.task))
      throw core::ConfigError(
          "eval override '" + core::echo(o) + "': the checkpoint was trained in env '" +
          stored.env.id + "'" + (stored.env.task.empty() ? "" : " (task " + stored.env.task + ")") +
          "; another env or task is another observation and action layout, so " + key +
          " cannot change at evaluation");
  }
}

// The checkpoint's spec under the eval overrides. A key of the stored spec that the overrides
// leave without effect (outage_duration_steps under env.outage_rate=0) is dropped with a note:
// the user did not give it now. An override without effect is refused, as parse_spec does.
Spec parse_eval_spec(const Spec& stored, const std::string& ckpt,
                     const std::vector<std::string>& overrides) {
  const Spec spec = parse_spec(to_toml(stored), ckpt + " (config/resolved)", overrides, true);
  std::set<std::string> given;
  for (const std::string& o : overrides) {
    const std::string key = o.substr(0, o.find('=')), section = key.substr(0, key.find('.'));
    if (section.size() >= key.size()) continue;            // parse_spec refused it already
    const size_t end = key.find('.', section.size() + 1);  // env.key.sub: a table key's entry
    const std::string name = key.substr(section.size() + 1, end - section.size() - 1);
    given.insert(section + "." + name);
    if (const std::string why = no_effect_reason(spec, section, name); !why.empty())
      throw core::ConfigError("command line override '" + core::echo(o) + "': [" + section + "] " +
                              name + ": has no effect here: " + why + " (remove the key)");
  }
  for (const auto& [key, _] : stored.env.params.items()) {
    if (given.count("env." + key) || !no_effect_reason(stored, "env", key).empty()) continue;
    if (const std::string why = no_effect_reason(spec, "env", key); !why.empty())
      std::cerr << "powerzoo eval: note: [env] " << key << " of the checkpoint's spec has no "
                << "effect under the overrides (" << why << "); dropped for this evaluation"
                << std::endl;
  }
  return spec;
}

// The evaluation reads the overrides' value of [env] `name`, not the checkpoint's: another file,
// "" for none, or none at all (the key left without effect).
bool replaced(const Spec& stored, const Spec& spec, const std::string& name) {
  const auto &a = stored.env.params, &b = spec.env.params;
  return a.has(name) != b.has(name) || (a.has(name) && a.str(name) != b.str(name));
}

std::string env_key(const std::string& file_key) {
  return file_key.rfind("env.", 0) == 0 ? file_key.substr(4) : file_key;
}

// A recorded data file the evaluation reads but that is gone: named with its key and the
// override that evaluates anyway (docs/design.md §8.2).
std::string missing_file_message(const Spec& stored, const DataFile& f, const std::string& ckpt) {
  const std::string name = env_key(f.key);
  bool optional = false;  // a key whose default is "" (outages): the file may be left out
  for (const auto& d : env_entry(stored).params)
    if (d.key == name)
      if (const auto* v = std::get_if<std::string>(&d.def)) optional = v->empty();
  return ckpt + ": [env] " + name + ": expected the data file the checkpoint was trained on, " +
         f.path + ", found it missing or unreadable (moved or deleted since); to evaluate, give " +
         "its new place or another file as " + f.key + "=FILE" +
         (optional ? ", or none as " + f.key + "='\"\"'" : "");
}

struct CheckpointFiles {
  std::string changes;  ///< data_file_changes of the files the evaluation reads
  /// Keys of recorded files that are gone and that the overrides replace: the checkpoint's env
  /// is rebuilt for its layout with the overrides' value.
  std::vector<std::string> gone;
};

// The checkpoint's data files that the evaluation reads (the overrides leave their key as it
// was) are checked against their hashes; a file an override replaces is not the evaluation's
// concern, whether it moved or changed. Throws core::ConfigError for a malformed record, one of
// other keys, or a file the evaluation reads that is gone.
CheckpointFiles check_checkpoint_files(const core::StateDict& sd, const Spec& stored,
                                       const Spec& spec, const std::string& ckpt) {
  CheckpointFiles out;
  std::vector<DataFile> recorded, now;
  try {
    for (auto& f : parse_data_files(recorded_data_files(sd))) {
      std::error_code ec;
      const bool here = fs::is_regular_file(f.path, ec) && std::ifstream(f.path).good();
      if (replaced(stored, spec, env_key(f.key))) {
        if (!here) out.gone.push_back(env_key(f.key));
        continue;
      }
      if (!here) throw core::ConfigError(missing_file_message(stored, f, ckpt));
      recorded.push_back(std::move(f));
    }
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    throw core::ConfigError(what.rfind(ckpt, 0) == 0 ? what : ckpt + ": " + what);
  }
  for (auto& f : data_files(spec))
    if (!replaced(stored, spec, env_key(f.key))) now.push_back(std::move(f));
  try {
    out.changes = data_file_changes(data_files_text(recorded), data_files_text(now));
  } catch (const core::ConfigError& e) {
    throw core::ConfigError(ckpt + ": " + e.what());
  }
  return out;
}

// The spec of the checkpoint's training env for its layout: a data file of it that is gone is
// read from the override that replaces it.
Spec layout_spec(const Spec& stored, const Spec& spec, const std::vector<std::string>& gone) {
  Spec out = stored;
  for (const auto& name : gone)
    if (spec.env.params.has(name)) out.env.params.set(name, spec.env.params.str(name));
  return out;
}

// The checkpoint's policy reads observations and writes actions by position: the env of the
// evaluation (its split and overrides) must have the layout of the env it was trained on (its
// stored spec on its training split). The n1 and forecast_error splits and the overrides are
// held to the same rule; cost channels they add are reported, outages switched off and status
// kinds the policy never observed are adapted (EvalLayoutEnv). Returns the env to evaluate.
std::shared_ptr<const envs::Env> checkpoint_layout_env(const Spec& stored, const Spec& spec,
                                                       const std::string& split,
                                                       const std::vector<std::string>& overrides) {
  auto env = make_env(spec, split);
  const envs::EnvSpec trained = make_env(stored, stored.env.split)->spec();
  const auto& p = spec.env.params;
  const bool fill = p.has("outage_status_obs") && p.str("outage_status_obs") == "true";
  const LayoutMatch m = match_layout(trained, env->spec(), fill);
  if (!m.refusal.empty())
    throw core::ConfigError(
        "eval on split " + split +
        (overrides.empty() ? "" : " with overrides '" + join_overrides(overrides) + "'") +
        ": the env has " + m.refusal + "; the checkpoint's policy acts only on envs with the " +
        "observation and action layout it was trained on (split " + stored.env.split + ")");
  if (!m.blind.empty()) {
    std::string fields, traces;
    for (const auto& f : m.blind) {
      fields += (fields.empty() ? "" : ", ") + f;
      const std::string name = f.substr(0, f.rfind(" ["));
      const std::string trace = "info/" + name.substr(name.rfind('/') + 1);
      if (traces.find(trace) == std::string::npos) traces += (traces.empty() ? "" : ", ") + trace;
    }
    std::cerr << "powerzoo eval: note: the env of split " << split << " observes " << fields
              << ", which the checkpoint's policy was trained without (its training env took no "
                 "such element out): the policy acts blind to them; the trajectories record them ("
              << traces << ")\n";
  }
  if (m.adapt) env = std::make_shared<EvalLayoutEnv>(env, trained);
  return env;
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
  const Spec stored =
      parse_spec(migrate_stored_spec(resolved, ckpt), ckpt + " (config/resolved)", {}, true);
  check_override_sections(opt.overrides, stored, opt.episodes > 0);
  const Spec spec = opt.overrides.empty() ? stored : parse_eval_spec(stored, ckpt, opt.overrides);
  // The split comes from the command line, so a wrong one is named as --split, not as a line of
  // the checkpoint's stored spec.
  check_split_option(spec, split);
  // The env is rebuilt from the recorded spec: a data file edited since then changes the episodes.
  const CheckpointFiles files = check_checkpoint_files(sd, stored, spec, ckpt);
  res.data_changes = files.changes;
  if (!res.data_changes.empty())
    std::cerr << "powerzoo eval: warning: a data file changed since " << ckpt
              << " was written, so this is not the run's own evaluation: " << res.data_changes
              << std::endl;
  check_global_step(sd, ckpt);
  const int episodes = opt.episodes > 0 ? opt.episodes : spec.eval.n_episodes;
  res.episodes = episodes;
  // As the learner's entry wraps it.
  std::shared_ptr<const envs::Env> env =
      checkpoint_layout_env(layout_spec(stored, spec, files.gone), spec, split, opt.overrides);
  if (const auto& e = rl::learner_entry(spec.learner.algo); e.wrap_env)
    env = e.wrap_env(env, learner_context(spec, env->spec(), spec.vec.n_envs), false);
  const auto& esp = env->spec();
  core::ThreadPool pool(static_cast<size_t>(opt.threads));
  core::Rng init(0, 0);
  // Evaluation only acts, one env at a time: the training batch's checks (minibatch splits,
  // which IPPO checks against its n_envs × agents columns) do not apply to it.
  const auto learner = make_spec_learner(stored, esp, 1, init, &pool, true);
  try {
    learner->load(sd);
  } catch (const core::ConfigError& e) {
    std::string why;  // the layout was rebuilt without a file of the checkpoint's
    for (const auto& name : files.gone) {
      const std::string v = spec.env.params.has(name) ? spec.env.params.str(name) : "";
      why += (why.empty() ? " (" : "; ") + std::string("its [env] ") + name +
             " file is gone, so its env was rebuilt with env." + name + "=" +
             (v.empty() ? std::string("'\"\"'") : core::echo(v)) +
             " for the layout; give the file's new place as env." + name + "=FILE";
    }
    throw core::ConfigError(ckpt + ": " + e.what() + (why.empty() ? "" : why + ")"));
  }
  const auto penalty = penalty_weights(spec, esp);
  res.eval_file = opt.out;
  if (!opt.out.empty())
    RunDirectory::check_output_file(opt.out, "--out", RunDirectory::OutputKind::kEvalHdf5);
  if (res.eval_file.empty()) {
    const fs::path run_dir = RunDirectory::of_checkpoint(ckpt);
    RunDirectory::check_no_links(run_dir.string());
    res.eval_file =
        (run_dir / "eval" /
         (fs::path(ckpt).stem().string() + "_" + split + override_suffix(opt.overrides) + ".h5"))
            .string();
  }
  Trajectories traj;
  auto& m = res.metrics;
  m = evaluate_with_reference(env, deterministic_policy(*learner), episodes,
                              static_cast<uint64_t>(spec.experiment.seed), env->spec().dt_hours,
                              penalty, pool, &traj, spec.log.percentiles);
  check_finite_metrics(m, "eval of " + ckpt + " on split " + split);
  const fs::path out(res.eval_file);
  if (out.has_parent_path()) fs::create_directories(out.parent_path());
  auto it = sd.i64.find("counters/global_step");
  const int64_t global_step = it != sd.i64.end() && !it->second.empty() ? it->second[0] : 0;
  // /config/resolved is the spec the evaluation ran (the checkpoint's, with the overrides).
  auto f = io::RunFile::create(
      res.eval_file,
      {{"schema_version", "1"},
       {"status", "finished"},
       {"powerzoo_version", core::version()},
       {"git_sha", core::git_sha()},
       {"checkpoint", fs::absolute(ckpt).string()},
       {"split", split},
       {"env_id", esp.id},
       // The evaluated env's layout: the checkpoint's observation and action, and the cost
       // channels of trajectories/<split>/costs (outages an override or n1 split adds among them).
       {"cost_names", join_names(esp.cost_names)},
       {"obs_names", join_names(esp.obs_feature_names())},
       {"action_names", join_names(esp.action_feature_names())},
       {"overrides", join_overrides(opt.overrides)},
       {"data_files", data_files_text(data_files(spec))},
       {"data_changed_since_checkpoint", res.data_changes},
       {kEvalSplitsAttr, split}},
      {{"seed", spec.experiment.seed}, {"n_episodes", episodes}, {"global_step", global_step}},
      opt.overrides.empty() ? resolved : to_toml(spec));
  m["global_step"] = static_cast<double>(global_step);
  append_eval_row(f, m, {split});
  write_network(f, esp.network);
  write_trajectories(f, "trajectories/" + split + "/", traj);
  f.close();
  return res;
}

}  // namespace pz::exp
