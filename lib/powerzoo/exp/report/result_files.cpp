// Result files under a directory: run.h5, baseline and eval files, read into RunRecords.
#include "powerzoo/exp/report/result_files.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/run/eval_layout.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/spec/spec_migrate.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace fs = std::filesystem;

namespace pz::exp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// Reads a root string attribute (variable- or fixed-length); "" if absent.
std::string root_str_attr(hid_t f, const char* name) {
  if (H5Aexists(f, name) <= 0) return "";
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  if (a < 0) return "";
  hid_t t = H5Aget_type(a);
  std::string out;
  if (H5Tget_class(t) == H5T_STRING) {
    if (H5Tis_variable_str(t) > 0) {
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, H5T_VARIABLE);
      H5Tset_cset(mt, H5Tget_cset(t));  // run.h5 writes UTF-8; HDF5 converts no charsets
      char* s = nullptr;
      if (H5Aread(a, mt, &s) >= 0 && s) {
        out = s;
        H5free_memory(s);
      }
      H5Tclose(mt);
    } else {
      const size_t n = H5Tget_size(t);
      std::string buf(n, '\0');
      hid_t mt = H5Tcopy(H5T_C_S1);
      H5Tset_size(mt, n);
      if (H5Aread(a, mt, buf.data()) >= 0) out = buf.c_str();
      H5Tclose(mt);
    }
  }
  H5Tclose(t);
  H5Aclose(a);
  return out;
}

/// Reads a root integer attribute; `fallback` if absent or not an integer.
int64_t root_int_attr(hid_t f, const char* name, int64_t fallback) {
  if (H5Aexists(f, name) <= 0) return fallback;
  hid_t a = H5Aopen(f, name, H5P_DEFAULT);
  if (a < 0) return fallback;
  hid_t t = H5Aget_type(a);
  int64_t v = fallback;
  if (H5Tget_class(t) != H5T_INTEGER || H5Aread(a, H5T_NATIVE_INT64, &v) < 0) v = fallback;
  H5Tclose(t);
  H5Aclose(a);
  return v;
}

struct VisitCtx {
  std::vector<std::string> names;
};

herr_t visit_cb(hid_t, const char* name, const H5O_info_t* info, void* data) {
  if (info->type == H5O_TYPE_DATASET) static_cast<VisitCtx*>(data)->names.push_back(name);
  return 0;
}

/// Inspects one .h5 file: returns false if it is not a run, baseline or eval result file. An
/// eval file (`powerzoo eval --out`) is told by its root attribute "checkpoint"; its policy is
/// reported as "eval", and `evaluated` says what it evaluated: the checkpoint's file name and the
/// number of episodes.
bool inspect(const std::string& path, bool is_run_h5, std::string* policy,
             std::vector<std::string>* eval_cols, std::string* status, std::string* reason,
             std::string* evaluated) {
  evaluated->clear();
  policy->clear();
  status->clear();
  reason->clear();
  eval_cols->clear();
  H5E_auto2_t old_fn = nullptr;
  void* old_data = nullptr;
  H5Eget_auto2(H5E_DEFAULT, &old_fn, &old_data);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // probing: no HDF5 error stack on stderr
  bool ok = false;
  hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f >= 0) {
    *policy = root_str_attr(f, "policy");
    const std::string ckpt = is_run_h5 ? "" : root_str_attr(f, "checkpoint");
    if (policy->empty() && !ckpt.empty()) {
      *policy = "eval";
      // best.h5 of every seed is one configuration; step_<n>.h5 of one run at two steps are two.
      *evaluated = "[checkpoint]\nfile = \"" + fs::path(ckpt).filename().string() +
                   "\"\nepisodes = " + std::to_string(root_int_attr(f, "n_episodes", 0)) + "\n";
    }
    *status = root_str_attr(f, "status");
    *reason = root_str_attr(f, "status_reason");
    ok = (is_run_h5 || !policy->empty()) && H5Lexists(f, "config", H5P_DEFAULT) > 0 &&
         H5Lexists(f, "config/resolved", H5P_DEFAULT) > 0 &&
         H5Lexists(f, "metrics", H5P_DEFAULT) > 0 && H5Lexists(f, "metrics/eval", H5P_DEFAULT) > 0;
    if (ok) {
      hid_t g = H5Gopen2(f, "metrics/eval", H5P_DEFAULT);
      VisitCtx ctx;
      if (g >= 0) {
        H5Ovisit2(g, H5_INDEX_NAME, H5_ITER_INC, visit_cb, &ctx, H5O_INFO_BASIC);
        H5Gclose(g);
      }
      *eval_cols = std::move(ctx.names);
    }
    H5Fclose(f);
  }
  H5Eset_auto2(H5E_DEFAULT, old_fn, old_data);
  return ok;
}

/// Canonical configuration text: resolved spec with experiment seed, name and out_dir and
/// vec.threads cleared. The thread count is the one the run used (/config/resolved records it),
/// and it changes no number (docs/design.md, determinism), so runs of one spec on 1 and on 2
/// threads are seeds of one configuration.
std::string config_text(const std::string& resolved, const std::string& file) {
  try {
    Spec s = parse_spec(migrate_stored_spec(resolved, file), file, {}, true);
    s.experiment.seed = 0;
    s.experiment.name.clear();
    s.experiment.out_dir.clear();
    s.vec.threads = 0;
    s.source_path.clear();
    return to_toml(s);
  } catch (const core::ConfigError&) {
    // Written by another schema version: compare the text without those four lines.
    std::istringstream in(resolved);
    std::string line, out;
    std::string section;
    while (std::getline(in, line)) {
      if (!line.empty() && line[0] == '[') section = line.substr(0, line.find(']') + 1);
      const bool in_exp = section == "[experiment]";
      if (in_exp && (line.rfind("seed", 0) == 0 || line.rfind("name", 0) == 0 ||
                     line.rfind("out_dir", 0) == 0))
        continue;
      if (section == "[vec]" && line.rfind("threads", 0) == 0) continue;
      out += line + "\n";
    }
    return out;
  }
}

}  // namespace

std::map<std::string, std::string> flat_keys(const std::string& toml) {
  std::map<std::string, std::string> out;
  std::istringstream in(toml);
  std::string line, section;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line[0] == '[') {
      section = line.substr(1, line.find(']') - 1);
      continue;
    }
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    out[(section.empty() ? "" : section + ".") + line.substr(0, eq)] = line.substr(eq + 3);
  }
  return out;
}

std::vector<RunRecord> find_runs(const std::string& dir, std::vector<std::string>* pending,
                                 std::vector<std::string>* unfinished, bool include_unfinished) {
  if (!fs::is_directory(dir))
    throw core::ConfigError(dir + ": expected a directory of runs, found " +
                            (fs::exists(dir) ? "a file" : "nothing"));
  std::vector<std::string> files;
  for (auto it =
           fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied);
       it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && it->path().filename() == RunDirectory::kCkptDir) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && it->path().extension() == ".h5")
      files.push_back(it->path().string());
  }
  std::sort(files.begin(), files.end());
  std::vector<RunRecord> runs;
  for (const auto& f : files) {
    std::string policy, status, reason, evaluated;
    std::vector<std::string> cols;
    const bool is_run = fs::path(f).filename() == "run.h5";
    if (!inspect(f, is_run, &policy, &cols, &status, &reason, &evaluated)) {
      if (is_run && pending) pending->push_back(f);
      continue;
    }
    if (!status.empty() && status != "finished" && !include_unfinished) {
      // A failed run's last row is not a result, an interrupted one's not the final one.
      if (unfinished)
        unfinished->push_back(f + ": " + status + (reason.empty() ? "" : " (" + reason + ")"));
      continue;
    }
    RunRecord r;
    r.status = status;
    r.status_reason = reason;
    r.file = f;
    r.kind = policy.empty() ? "run" : policy == "eval" ? "eval" : "baseline:" + policy;
    try {
      r.resolved = io::read_string(f, "config/resolved");
      const EvalLayout layout = read_eval_layout(f);  // tables use flat names (main split bare)
      if (layout.per_split) r.splits = layout.splits;
      for (const auto& c : cols) {
        const auto v = io::read_column(f, "metrics/eval/" + c);
        r.last_eval[flat_eval_name(layout, c)] = v.empty() ? kNaN : v.back();
      }
    } catch (const std::exception&) {
      continue;  // unreadable or being written: not a result yet
    }
    const bool no_rows = std::all_of(r.last_eval.begin(), r.last_eval.end(),
                                     [](const auto& kv) { return std::isnan(kv.second); });
    if (no_rows) {  // columns without a row: a run before its first evaluation
      if (pending) pending->push_back(f);
      continue;
    }
    r.final_step = r.last_eval.count("global_step") ? r.last_eval["global_step"] : kNaN;
    r.config_key = r.kind + "\n" + config_text(r.resolved, f) + evaluated;
    const auto flat = flat_keys(r.resolved);
    auto it = flat.find("experiment.seed");
    r.seed = it != flat.end() ? std::atoll(it->second.c_str()) : 0;
    runs.push_back(std::move(r));
  }
  return runs;
}

}  // namespace pz::exp
