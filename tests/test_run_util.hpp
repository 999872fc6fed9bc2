// Shared helpers of the tests that compare run files: dataset listing, timing columns, scratch
// spec directories, spec variants, and the bytewise comparison of two runs (resume against the
// uninterrupted run, one thread count against another).
#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/io/hdf5_array.hpp"

namespace pz::test {

/// Every dataset path below `group` of an HDF5 file (recursing into nested groups such as losses/).
inline std::vector<std::string> datasets(const std::string& file, const std::string& group) {
  std::vector<std::string> out;
  for (const auto& name : pz::io::list_group(file, group)) {
    const std::string p = group + "/" + name;
    const auto kids = pz::io::list_group(file, p);
    if (kids.empty()) {
      out.push_back(p);
    } else {
      for (const auto& d : datasets(file, p)) out.push_back(d);
    }
  }
  return out;
}

/// Columns that measure the machine (wall time, throughput), excluded from bytewise comparisons.
inline bool timing_column(const std::string& p) {
  return p.find("wall_time") != std::string::npos || p.find("throughput/") != std::string::npos;
}

/// A fresh directory <tmp>/pz_<tag>_<pid> holding spec.toml with `spec_text`.
inline std::filesystem::path spec_dir(const std::string& tag, const std::string& spec_text) {
  const auto d =
      std::filesystem::temp_directory_path() / ("pz_" + tag + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  std::ofstream(d / "spec.toml") << spec_text;
  return d;
}

/// `text` with the first `from` replaced by `to`; `from` must occur (an edit that matches nothing
/// would silently test the unedited spec).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "spec edit: '" << from << "' not found");
  return text.replace(at, from.size(), to);
}

/// The [env] keys of random branch and unit outages on a transmission case (case5: two branches
/// out can cut off a bus, so islands and de-energized load occur).
inline const std::string kGridOutageKeys =
    "outage_rate = 0.02\noutage_duration_steps = 6\noutage_elements = \"branch,gen\"\n";

/// The [env] keys of the DC microgrid's random component outages (pv, battery, diesel, grid; ~6
/// twelve-step outages per episode) and the N-1 outage of every episode.
inline const std::string kDcmgOutageKeys =
    "outage_rate = 0.005\noutage_duration_steps = 12\noutage_n1 = \"component\"\n"
    "outage_n1_steps = 72\n";

/// The PPO run under random branch and generator outages on case14 (its bridge 7-8 islands a
/// generator bus, so LODF steps and full re-solves both occur), 16 envs, rollouts of 32 steps so
/// that checkpoints fall mid-episode with outages in progress. `vec_keys` are extra [vec] lines;
/// the budget, the evaluation period and the checkpoint period are in env steps.
inline std::string case14_outage_spec(const std::string& name, const std::string& vec_keys,
                                      long total_steps, long eval_every, long checkpoint_every) {
  return "[experiment]\nname = \"" + name +
         "\"\nseed = 6\n[env]\ncase = \"case14\"\nhorizon = 48\nreward_scale = 1e-4\n" +
         kGridOutageKeys + "[vec]\nn_envs = 16\n" + vec_keys +
         "[learner]\ntotal_steps = " + std::to_string(total_steps) +
         "\nrollout_length = 32\n\n[ppo]\nhidden = [32, 32]\n[reward]\n"
         "penalty = { power_balance = 0.02, thermal_overload = 0.02, unserved_load = 0.05 }\n"
         "[eval]\nevery_steps = " +
         std::to_string(eval_every) + "\nn_episodes = 8\n[output]\ncheckpoint_every_steps = " +
         std::to_string(checkpoint_every) + "\nkeep_checkpoints = 2\n";
}

/// `spec` (whose [experiment] name is `name`) as `<name>_outages` with `keys` inserted after the
/// line `task_line` of its [env] section.
inline std::string outage_variant(const std::string& spec, const std::string& name,
                                  const std::string& task_line, const std::string& keys) {
  const std::string renamed =
      replaced(spec, "name = \"" + name + "\"\n", "name = \"" + name + "_outages\"\n");
  return replaced(renamed, task_line + "\n", task_line + "\n" + keys);
}

/// Checks every column of `cols` (timing columns excepted) holds the same bytes in the run files
/// `ref_h5` and `h5`. Returns how many columns were compared.
inline int check_same_columns(const std::string& ref_h5, const std::string& h5,
                              const std::vector<std::string>& cols) {
  int compared = 0;
  for (const auto& c : cols) {
    if (timing_column(c)) continue;
    const auto a = pz::io::read_column(ref_h5, c);
    const auto b = pz::io::read_column(h5, c);
    CAPTURE(c);
    REQUIRE(a.size() == b.size());
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
    ++compared;
  }
  return compared;
}

/// Checks every learner/ tensor of `ref` of one kind (f32, f64 or i64) equals the same one in
/// `ck`. Returns how many were compared.
template <typename Map>
int check_same_learner_tensors(const Map& ref, const Map& ck) {
  int compared = 0;
  for (const auto& [name, v] : ref) {
    if (name.rfind("learner/", 0) != 0) continue;
    REQUIRE(ck.count(name));
    CHECK_MESSAGE(ck.at(name) == v, name);
    ++compared;
  }
  return compared;
}

/// What check_same_run compared, and the resolved specs of the two final checkpoints.
struct RunComparison {
  int columns = 0;       ///< metric columns (train and eval, timing columns excepted)
  int learner_f32 = 0;   ///< learner/ f32 tensors of the final checkpoint
  std::string ref_spec;  ///< the reference checkpoint's resolved spec
  std::string spec;      ///< the compared run's
};

/// Checks that the run directory `run` wrote the same bytes as `ref`: every metric column of
/// ref/run.h5 (train and eval, more than 10 each; timing columns excepted), the same kept
/// evaluation trajectories with the same values, and every learner/ tensor (f32, f64 and i64:
/// weights, Adam moments, counters, ring positions) of ckpt/step_<total>.h5.
inline RunComparison check_same_run(const std::string& ref, const std::string& run,
                                    long long total) {
  const std::string ref_h5 = ref + "/run.h5", h5 = run + "/run.h5";
  std::vector<std::string> cols = datasets(ref_h5, "metrics/train");
  const auto eval_cols = datasets(ref_h5, "metrics/eval");
  REQUIRE(cols.size() > 10);
  REQUIRE(eval_cols.size() > 10);
  cols.insert(cols.end(), eval_cols.begin(), eval_cols.end());
  RunComparison r;
  r.columns = check_same_columns(ref_h5, h5, cols);
  const auto ref_traj = datasets(ref_h5, "trajectories");
  CHECK(datasets(h5, "trajectories") == ref_traj);
  for (const auto& t : ref_traj) {
    CAPTURE(t);
    const auto a = pz::io::read_array(ref_h5, t), b = pz::io::read_array(h5, t);
    CHECK(a.shape == b.shape);
    CHECK(a.data == b.data);
  }
  const std::string ckpt = "/ckpt/step_" + std::to_string(total) + ".h5";
  const auto ref_ck = pz::io::read_checkpoint(ref + ckpt, &r.ref_spec);
  const auto ck = pz::io::read_checkpoint(run + ckpt, &r.spec);
  r.learner_f32 = check_same_learner_tensors(ref_ck.f32, ck.f32);
  check_same_learner_tensors(ref_ck.f64, ck.f64);
  check_same_learner_tensors(ref_ck.i64, ck.i64);
  return r;
}

}  // namespace pz::test
