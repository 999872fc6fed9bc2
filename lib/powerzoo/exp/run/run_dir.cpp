// Run directory layout, choice, resume rebuild, checkpoint rotation and progress.csv.
#include "powerzoo/exp/run/run_dir.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"
#include "powerzoo/core/utc_time.hpp"
#include "powerzoo/exp/run/eval_layout.hpp"
#include "powerzoo/exp/run/run_lock.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace pz::exp {
namespace fs = std::filesystem;
namespace {

bool is_step_name(const std::string& n) { return n.rfind("step_", 0) == 0; }
long long step_of(const std::string& n) { return std::atoll(n.c_str() + 5); }

// ckpt/step_<n>.h5 files of `dir` as (step, path), ascending; only_h5 = require the extension.
std::vector<std::pair<long long, std::string>> step_files(const fs::path& dir, bool only_h5) {
  std::vector<std::pair<long long, std::string>> found;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return found;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string n = e.path().filename().string();
    if (is_step_name(n) && (!only_h5 || e.path().extension() == ".h5"))
      found.emplace_back(step_of(n), e.path().string());
  }
  std::sort(found.begin(), found.end());
  return found;
}

void expect_dir_not_file(const std::string& out_dir) {
  if (fs::exists(out_dir) && !fs::is_directory(out_dir))
    throw core::ConfigError("--out " + out_dir + ": expected a directory, found a file");
}

// An existing --out directory must be empty or a run's own: a run mixed its files into any
// directory, a sweep's included (whose summary then counted it).
void expect_run_or_empty(const std::string& out_dir) {
  std::error_code ec;
  if (!fs::is_directory(out_dir, ec)) return;
  if (fs::exists(fs::path(out_dir) / "sweep.json", ec))
    throw core::ConfigError("--out " + out_dir +
                            ": expected a run directory, found a sweep directory (sweep.json); "
                            "choose another --out");
  for (const auto& e : fs::directory_iterator(out_dir, ec))
    if (!RunDirectory::owns(e.path().filename().string()))
      throw core::ConfigError("--out " + out_dir +
                              ": expected a new, empty or run directory, found '" +
                              core::echo(e.path().filename().string()) +
                              "' in it, which no run writes; choose another --out");
}

}  // namespace

bool RunDirectory::owns(const std::string& name) {
  for (const char* own : {kRunFile, kProgress, kCkptDir, RunLock::kFile, ".run.h5.writing",
                          "run.h5.before-resume", "eval", "summary.csv", kPlotsDir})
    if (name == own) return true;
  if (name.rfind("events.out.tfevents.", 0) == 0) return true;  // [log] tensorboard
  return name.find(".tmp.") != std::string::npos;               // a killed writer's remnant
}

void RunDirectory::check_no_links(const std::string& dir) {
  const fs::path d(dir);
  std::error_code ec;
  auto check = [&](const fs::path& p) {
    if (fs::is_symlink(fs::symlink_status(p, ec)))
      throw core::ConfigError(p.string() + ": expected a file or directory of the run, found a " +
                              "symbolic link (a run never writes through a link out of its " +
                              "directory); remove it");
  };
  for (const char* name : {kRunFile, kProgress, kCkptDir, "eval", kPlotsDir, ".run.h5.writing"}) {
    check(d / name);
    if (fs::is_directory(fs::symlink_status(d / name, ec)))
      for (const auto& e : fs::directory_iterator(d / name, ec)) check(e.path());
  }
}

std::string RunDirectory::choose(const Spec& spec, const std::string& out_dir, bool resume) {
  const fs::path base = fs::path(spec.experiment.out_dir) / spec.experiment.name;
  if (resume) {
    if (!out_dir.empty()) {
      expect_dir_not_file(out_dir);
      expect_run_or_empty(out_dir);
      return out_dir;
    }
    // The newest existing run directory of this experiment: by UTC stamp, then by the -i
    // suffix of runs started in the same second as a number (-10 after -2).
    auto order = [](const std::string& name) {
      const size_t dash = name.rfind('-');
      const bool suffix = std::count(name.begin(), name.end(), '-') >= 2 &&
                          dash + 1 < name.size() &&
                          name.find_first_not_of("0123456789", dash + 1) == std::string::npos;
      return suffix ? std::make_pair(name.substr(0, dash), std::atoll(name.c_str() + dash + 1))
                    : std::make_pair(name, 0LL);
    };
    std::string newest;
    if (fs::is_directory(base))
      for (const auto& e : fs::directory_iterator(base))
        if (e.is_directory() && fs::exists(e.path() / kRunFile) &&
            (newest.empty() ||
             order(e.path().filename().string()) > order(fs::path(newest).filename().string())))
          newest = e.path().string();
    if (!newest.empty()) return newest;
  }
  if (!out_dir.empty()) {
    // Never overwrite: an existing file, or a directory that already holds a run, is bad input.
    expect_dir_not_file(out_dir);
    if (fs::exists(fs::path(out_dir) / kRunFile)) {
      const std::string holder = RunLock::holder(out_dir);
      throw core::ConfigError("--out " + out_dir +
                              ": expected a new or empty run directory, found an existing run "
                              "(run.h5" +
                              (holder.empty() ? "" : ", in use by " + holder) +
                              "); choose another --out");
    }
    expect_run_or_empty(out_dir);
    return out_dir;
  }
  const std::string stamp = core::utc_now(core::kUtcStamp);
  fs::path dir = base / stamp;
  for (int i = 1; fs::exists(dir); ++i) dir = base / (stamp + "-" + std::to_string(i));
  return dir.string();
}

namespace {
// An output file carries its format's extension: `baseline --out x.csv` wrote HDF5 under a CSV
// name, which a reader of the name (or summarize's CSV reader) then mistook.
void check_output_extension(const std::string& path, const std::string& what,
                            RunDirectory::OutputKind kind) {
  const std::string ext = fs::path(path).extension().string();
  const bool csv = kind == RunDirectory::OutputKind::kSummaryCsv;
  if (csv ? ext == ".csv" : (ext == ".h5" || ext == ".hdf5")) return;
  throw core::ConfigError(
      what + " " + core::echo(path) + ": expected a file name ending in " +
      (csv ? "'.csv' (the summary is CSV)" : "'.h5' or '.hdf5' (the file is HDF5)") + ", found " +
      (ext.empty() ? std::string("no extension") : "'" + core::echo(ext) + "'"));
}
}  // namespace

void RunDirectory::check_output_file(const std::string& path, const std::string& what,
                                     OutputKind kind) {
  const fs::path p = fs::absolute(fs::path(path)).lexically_normal();
  std::error_code ec;
  if (fs::is_directory(p, ec))
    throw core::ConfigError(what + " " + core::echo(path) + ": expected a file, found a directory");
  // Its folder is created when missing; a file in the way failed only after the evaluation.
  for (fs::path up = p.parent_path(); !up.empty(); up = up.parent_path()) {
    if (fs::exists(up, ec)) {
      if (!fs::is_directory(up, ec))
        throw core::ConfigError(what + " " + core::echo(path) + ": expected a path below a " +
                                "directory, found the file " + core::echo(up.string()) +
                                " in the way");
      break;
    }
    if (up == up.parent_path()) break;
  }
  const std::string name = p.filename().string();
  const bool owned = name == kRunFile || name == ".run.h5.writing" || name == kProgress ||
                     name == RunLock::kFile || name == "sweep.json" ||
                     (p.parent_path().filename() == kCkptDir &&
                      fs::exists(p.parent_path().parent_path() / kRunFile, ec));
  if (owned)
    throw core::ConfigError(what + " " + core::echo(path) +
                            ": expected a new file, found a file of a run or sweep (run.h5, "
                            "progress.csv, run.lock, sweep.json or a checkpoint), which it would "
                            "overwrite; choose another path");
  if (!fs::exists(fs::symlink_status(p, ec))) return check_output_extension(path, what, kind);
  // An existing file is replaced only when it is an earlier output of the same kind: the input
  // spec itself (and any other file) had been overwritten with exit 0.
  bool same_kind = fs::is_regular_file(p, ec);
  if (same_kind && kind == OutputKind::kSummaryCsv) {
    std::ifstream in(p);
    std::string first;
    std::getline(in, first);
    same_kind = first.rfind("configuration,kind,", 0) == 0;
  } else if (same_kind) {
    try {
      io::read_string_attr(p.string(), "schema_version");
      same_kind = true;
    } catch (const core::ConfigError&) {
      same_kind = false;
    }
  }
  if (!same_kind)
    throw core::ConfigError(
        what + " " + core::echo(path) + ": expected a new file or an earlier " +
        (kind == OutputKind::kSummaryCsv ? "summary CSV" : "eval or baseline file") + ", found " +
        core::file_kind(p.string()) +
        " that is not one, which it would overwrite; choose another path");
  check_output_extension(path, what, kind);
}

std::string RunDirectory::resolve_checkpoint(const std::string& p) {
  if (!fs::exists(p)) throw core::ConfigError("checkpoint or run directory '" + p + "' not found");
  if (!fs::is_directory(p)) return p;
  const fs::path ck = fs::path(p) / kCkptDir;
  if (fs::exists(ck / "best.h5")) return (ck / "best.h5").string();
  // The newest step; of equal steps the first in directory order.
  long long best = -1;
  std::string path;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(ck, ec)) {
    const std::string n = e.path().filename().string();
    if (is_step_name(n) && e.path().extension() == ".h5" && step_of(n) > best)
      best = step_of(n), path = e.path().string();
  }
  if (path.empty())
    throw core::ConfigError("run directory '" + p +
                            "': expected ckpt/best.h5 or ckpt/step_<n>.h5, "
                            "found none");
  return path;
}

bool RunDirectory::has_step_checkpoint(const std::string& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(fs::path(dir) / kCkptDir, ec))
    if (is_step_name(e.path().filename().string())) return true;
  return false;
}

std::string RunDirectory::of_checkpoint(const std::string& ckpt_path) {
  return fs::path(ckpt_path).parent_path().parent_path().string();
}

RunDirectory::RunDirectory(std::string path) : path_(std::move(path)) {}

std::string RunDirectory::run_file() const { return (fs::path(path_) / kRunFile).string(); }

std::string RunDirectory::best_checkpoint() const {
  return (fs::path(path_) / kCkptDir / "best.h5").string();
}

std::string RunDirectory::step_checkpoint(long long step) const {
  return (fs::path(path_) / kCkptDir / ("step_" + std::to_string(step) + ".h5")).string();
}

std::string RunDirectory::newest_checkpoint(core::StateDict* sd, std::string* resolved) const {
  auto found = step_files(fs::path(path_) / kCkptDir, true);
  std::sort(found.rbegin(), found.rend());
  if (found.empty()) return "";
  // Checkpoints are written to a temporary file, synced and renamed into place, so a kill never
  // leaves a partial step_<n>.h5: one that does not read back was changed since. Falling back to
  // an older one (and then overwriting the newer) lost it silently.
  const std::string& path = found.front().second;
  try {
    *sd = io::read_checkpoint(path, resolved);
  } catch (const core::ConfigError& e) {
    const std::string what = e.what();
    if (what.find("another powerzoo version") != std::string::npos) throw;
    throw core::ConfigError(what +
                            " (the newest checkpoint of the run; a run writes its checkpoints "
                            "whole, so this one was changed since: move it out of ckpt/ to "
                            "continue from the one before)");
  }
  return path;
}

void RunDirectory::check_layout() const {
  check_no_links(path_);  // a link out of the directory is named as such
  const fs::path d(path_);
  std::error_code ec;
  auto expect = [&](const fs::path& p, bool dir) {
    if (!fs::exists(fs::symlink_status(p, ec))) return;
    const bool ok = dir ? fs::is_directory(fs::symlink_status(p, ec))
                        : fs::is_regular_file(fs::symlink_status(p, ec));
    if (!ok)
      throw core::ConfigError(p.string() + ": expected " + (dir ? "a directory" : "a file") +
                              " of the run, found " + core::file_kind(p.string()) +
                              "; move it away");
  };
  for (const char* f : {kRunFile, kProgress, "run.h5.before-resume", ".run.h5.writing"})
    expect(d / f, false);
  // Files of the run by content too: a text file named run.h5 was replaced, and a foreign
  // progress.csv had rows appended under its own header. (A kill leaves neither: run.h5 is
  // published by rename and a truncated HDF5 file keeps its signature.)
  auto first_bytes = [](const fs::path& p, size_t n) {
    std::ifstream in(p, std::ios::binary);
    std::string s(n, '\0');
    in.read(s.data(), static_cast<std::streamsize>(n));
    s.resize(static_cast<size_t>(in.gcount()));
    return s;
  };
  if (fs::is_regular_file(d / kRunFile, ec) &&
      first_bytes(d / kRunFile, 8) != std::string("\x89HDF\r\n\x1a\n", 8))
    throw core::ConfigError((d / kRunFile).string() +
                            ": expected the run's HDF5 file, found a file that is not HDF5; move "
                            "it away");
  if (fs::is_regular_file(d / kRunFile, ec)) {
    // Readable without a run's resolved spec: another HDF5 file (a checkpoint copied over). One
    // that does not open is a run.h5 cut short by a kill, which resume rebuilds.
    bool foreign = false;
    try {
      io::read_string((d / kRunFile).string(), "config/resolved");
    } catch (const core::ConfigError& e) {
      foreign = std::string(e.what()).find("' not found") != std::string::npos;
    }
    if (!foreign && !io::list_group((d / kRunFile).string(), "learner").empty())
      foreign = true;  // a checkpoint's layout
    if (foreign)
      throw core::ConfigError((d / kRunFile).string() +
                              ": expected the run's HDF5 file (with /config/resolved), found "
                              "another HDF5 file; move it away");
  }
  const std::string progress_start =
      fs::is_regular_file(d / kProgress, ec) ? first_bytes(d / kProgress, 1) : "";
  if (!progress_start.empty() && !std::isdigit(static_cast<unsigned char>(progress_start[0])) &&
      first_bytes(d / kProgress, std::string(kProgressHeader).size()) != kProgressHeader)
    throw core::ConfigError((d / kProgress).string() + ": expected the run's progress file (" +
                            "header " + kProgressHeader + "), found another file; move it away");
  expect(d / kCkptDir, true);
  expect(d / kPlotsDir, true);
  if (fs::is_directory(d / kCkptDir, ec))
    for (const auto& e : fs::directory_iterator(d / kCkptDir, ec))
      if (is_step_name(e.path().filename().string()) || e.path().filename() == "best.h5")
        expect(e.path(), false);
}

io::RunFile RunDirectory::start(const RunFileHeader& h, const MetricHistory* resumed,
                                long long step, const std::set<long long>* kept_steps) {
  const fs::path dir(path_), ckpt = dir / kCkptDir, progress = dir / kProgress;
  check_no_links(path_);
  fs::create_directories(ckpt);
  // Temporary files of a killed writer (a checkpoint or a run.h5 copy being written).
  for (const fs::path& d : {dir, ckpt})
    for (const auto& e : fs::directory_iterator(d))
      if (e.path().filename().string().find(".tmp.") != std::string::npos) fs::remove(e.path());
  // Rebuild run.h5 from the checkpoint's history (a kill may have left the old file corrupt);
  // trajectories up to the checkpoint are copied over when the old file is still readable.
  const std::string file = run_file(), old_file = file + ".before-resume";
  if (resumed && fs::exists(old_file))
    fs::remove(file);  // a resume that was killed: old_file is still the run's own file
  else if (resumed && fs::exists(file))
    fs::rename(file, old_file);
  io::RunFile out = io::RunFile::create_published(file, h.str_attrs, h.int_attrs, h.resolved_toml);
  if (resumed) {
    for (const auto& row : resumed->train) out.append_row("metrics/train", row);
    for (const auto& row : resumed->eval) append_eval_row(out, row, h.eval_splits);
    for (const auto& split : io::list_group(old_file, "trajectories"))
      for (const auto& step_name : io::list_group(old_file, "trajectories/" + split))
        if (const long long at = std::atoll(step_name.c_str() + 5);
            at <= step && (!kept_steps || kept_steps->count(at)))
          out.copy_from(old_file, "trajectories/" + split + "/" + step_name);
    out.publish();  // the rebuilt file replaces the old one before the old one goes
    fs::remove(old_file);
    // Checkpoints written after the one we resume from belong to the abandoned continuation.
    for (const auto& e : fs::directory_iterator(ckpt)) {
      const std::string n = e.path().filename().string();
      if (is_step_name(n) && step_of(n) > step) fs::remove(e.path());
    }
  } else {
    fs::remove(old_file);
    for (const auto& e : fs::directory_iterator(ckpt)) fs::remove(e.path());
  }
  kept_.clear();
  for (const auto& [st, p] : step_files(ckpt, false)) kept_.push_back(p);
  progress_.open(progress.string(), resumed);
  if (tensorboard_on_) tensorboard_.open(path_, resumed, h.eval_splits);
  return out;
}

void RunDirectory::add_step_checkpoint(long long step, int keep,
                                       const std::function<void(const std::string&)>& write) {
  const std::string p = step_checkpoint(step);
  write(p);
  kept_.push_back(p);
  while (static_cast<int>(kept_.size()) > keep) {
    fs::remove(kept_.front());
    kept_.erase(kept_.begin());
  }
}

}  // namespace pz::exp
