// Summaries over seeds: result-file discovery, grouping by configuration, bootstrap CIs.
#include "powerzoo/exp/report/summarize.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <numeric>
#include <set>
#include <sstream>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/exp/run/eval_layout.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/spec/spec.hpp"
#include "powerzoo/exp/spec/spec_migrate.hpp"
#include "powerzoo/io/hdf5.hpp"

namespace fs = std::filesystem;

namespace pz::exp {
namespace {

using core::format_printf;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// numpy.percentile(sorted, q) with the default linear interpolation.
double percentile_sorted(const std::vector<double>& v, double q) {
  const double pos = q / 100.0 * static_cast<double>(v.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

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

struct VisitCtx {
  std::vector<std::string> names;
};

herr_t visit_cb(hid_t, const char* name, const H5O_info_t* info, void* data) {
  if (info->type == H5O_TYPE_DATASET) static_cast<VisitCtx*>(data)->names.push_back(name);
  return 0;
}

/// Inspects one .h5 file: returns false if it is not a run, baseline or eval result file. An
/// eval file (`powerzoo eval --out`) is told by its root attribute "checkpoint"; its policy is
/// reported as "eval".
bool inspect(const std::string& path, bool is_run_h5, std::string* policy,
             std::vector<std::string>* eval_cols, std::string* status, std::string* reason) {
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
    if (policy->empty() && !is_run_h5 && !root_str_attr(f, "checkpoint").empty()) *policy = "eval";
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

/// "section.key" -> value text of a canonical TOML document (one key per line).
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

// "nan" for any NaN ("%g" writes a negative one "-nan").
std::string fmt(double v, int prec = 6) {
  return std::isnan(v) ? "nan" : core::format_number(v, prec);
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

SeedStats seed_stats(const std::vector<double>& xs, int resamples, uint64_t seed) {
  SeedStats st;
  st.n = static_cast<int>(xs.size());
  const bool bad =
      xs.empty() || std::any_of(xs.begin(), xs.end(), [](double x) { return std::isnan(x); });
  if (bad) {
    st.mean = st.std = st.iqm = st.ci_low = st.ci_high = kNaN;
    return st;
  }
  const double n = static_cast<double>(xs.size());
  st.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / n;
  double ss = 0;
  for (double x : xs) ss += (x - st.mean) * (x - st.mean);
  st.std = std::sqrt(ss / n);
  std::vector<double> sorted = xs;
  std::sort(sorted.begin(), sorted.end());
  const size_t cut = static_cast<size_t>(0.25 * n);
  st.iqm = std::accumulate(sorted.begin() + cut, sorted.end() - cut, 0.0) /
           static_cast<double>(sorted.size() - 2 * cut);
  core::Rng rng(seed, 0);
  std::vector<double> means(static_cast<size_t>(std::max(resamples, 1)));
  for (auto& m : means) {
    double s = 0;
    for (size_t i = 0; i < xs.size(); ++i) s += xs[rng.below(xs.size())];
    m = s / n;
  }
  std::sort(means.begin(), means.end());
  st.ci_low = percentile_sorted(means, 2.5);
  st.ci_high = percentile_sorted(means, 97.5);
  return st;
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
    std::string policy, status, reason;
    std::vector<std::string> cols;
    const bool is_run = fs::path(f).filename() == "run.h5";
    if (!inspect(f, is_run, &policy, &cols, &status, &reason)) {
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
    r.config_key = r.kind + "\n" + config_text(r.resolved, f);
    const auto flat = flat_keys(r.resolved);
    auto it = flat.find("experiment.seed");
    r.seed = it != flat.end() ? std::atoll(it->second.c_str()) : 0;
    runs.push_back(std::move(r));
  }
  return runs;
}

// The eval splits a stored spec lists, main first (eval.splits as canonical TOML: ["iid", "x"];
// the spec's default when absent).
std::vector<std::string> spec_splits(const std::string& resolved) {
  const auto flat = flat_keys(resolved);
  const auto it = flat.find("eval.splits");
  if (it == flat.end()) return {"iid"};
  std::vector<std::string> out;
  for (size_t q = it->second.find('"'); q != std::string::npos;) {
    const size_t e = it->second.find('"', q + 1);
    if (e == std::string::npos) break;
    out.push_back(it->second.substr(q + 1, e - q - 1));
    q = it->second.find('"', e + 1);
  }
  return out;
}

// The eval splits of a result file, main first: the file's own (RunRecord::splits), else its
// spec's.
std::vector<std::string> splits_of(const RunRecord& r) {
  return r.splits.empty() ? spec_splits(r.resolved) : r.splits;
}

// The split whose columns are bare in the summary: the first run's spec's first split if some
// run was evaluated on it (eval files of one split each: `powerzoo eval CKPT --split S`), else
// the first run's own first split.
std::string main_split_of(const std::vector<RunRecord>& runs) {
  if (runs.empty()) return "";
  const std::vector<std::string> spec = spec_splits(runs[0].resolved);
  if (!spec.empty())
    for (const auto& r : runs) {
      const auto sp = splits_of(r);
      if (std::find(sp.begin(), sp.end(), spec[0]) != sp.end()) return spec[0];
    }
  const auto first = splits_of(runs[0]);
  return first.empty() ? "" : first[0];
}

// Eval (or baseline) files of one checkpoint on different splits, written one split per file
// (`powerzoo eval CKPT --split S --out S/trial_0.h5`), are one seed's results: records of the same
// configuration and seed whose splits do not overlap are merged into one, the first file named.
// Records whose splits overlap stay apart (summarize_runs counts the second as a copy).
std::vector<RunRecord> merge_split_files(std::vector<RunRecord> runs) {
  std::vector<RunRecord> out;
  std::map<std::pair<std::string, int64_t>, size_t> first;
  for (auto& r : runs) {
    const auto [it, fresh] = first.emplace(std::make_pair(r.config_key, r.seed), out.size());
    if (!fresh) {
      RunRecord& m = out[it->second];
      std::vector<std::string> ms = splits_of(m);
      const std::vector<std::string> rs = splits_of(r);
      const bool overlap = std::any_of(rs.begin(), rs.end(), [&](const std::string& x) {
        return std::find(ms.begin(), ms.end(), x) != ms.end();
      });
      if (!overlap) {
        for (const auto& [k, v] : r.last_eval) m.last_eval.emplace(k, v);  // shared: the first's
        ms.insert(ms.end(), rs.begin(), rs.end());
        m.splits = ms;
        continue;
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

// A TOML value as a label shows it: a plain string without its quotes (experiment.name =
// "tso_ppo" reads tso_ppo), anything else as written.
std::string label_value(const std::string& v) {
  const bool plain = v.size() >= 2 && v.front() == '"' && v.back() == '"' &&
                     v.find_first_of("\\\"", 1) == v.size() - 1;
  return plain ? v.substr(1, v.size() - 2) : v;
}

// r's flat columns with `main` as the bare split: runs that list their splits in another order
// have their own main split's columns moved under "<split>/" and main's made bare, so that one
// name means one split in every run.
RunRecord with_main_split(const RunRecord& r, const std::string& main) {
  const std::vector<std::string> splits = splits_of(r);
  if (main.empty() || splits.empty() || splits[0] == main) return r;
  RunRecord out = r;
  out.last_eval.clear();
  for (const auto& [k, v] : r.last_eval) {
    const std::string head = k.substr(0, k.find('/'));
    const bool other = k.find('/') != std::string::npos &&
                       std::find(splits.begin() + 1, splits.end(), head) != splits.end();
    if (is_shared_eval_column(k) || (other && head != main))
      out.last_eval[k] = v;
    else if (other)
      out.last_eval[k.substr(head.size() + 1)] = v;
    else
      out.last_eval[splits[0] + "/" + k] = v;
  }
  return out;
}

// The column prefix of eval split `split` in the runs (re-keyed to the main split `main`):
// "<split>/", or "" for `main`. Throws core::ConfigError if no run has it.
std::string split_prefix(const std::vector<RunRecord>& runs, const std::string& split,
                         const std::string& main) {
  if (split.empty() || split == main) return "";
  std::set<std::string> known = {main};
  for (const auto& r : runs) {
    if (r.last_eval.count(split + "/return_mean")) return split + "/";
    for (const auto& [k, v] : r.last_eval)
      if (const auto slash = k.find("/return_mean"); slash != std::string::npos && slash > 0)
        known.insert(k.substr(0, slash));
  }
  std::vector<std::string> names(known.begin(), known.end());
  const std::string dym = core::did_you_mean(split, names);
  std::string list;
  for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
  throw core::ConfigError("--split " + core::echo(split) + ": no run evaluated on it (splits: " +
                          list + ")" + (dym.empty() ? "" : "; did you mean '" + dym + "'?"));
}

Summary summarize_runs(const std::vector<RunRecord>& all_runs,
                       const std::vector<std::string>& metrics, const std::string& split) {
  Summary s;
  s.split = split;
  // One naming for all runs: the main split bare, every other split prefixed.
  const std::string main = main_split_of(all_runs);
  std::vector<RunRecord> keyed;
  for (const auto& r : all_runs) keyed.push_back(with_main_split(r, main));
  const std::vector<RunRecord> runs = merge_split_files(std::move(keyed));
  s.main_split = main;
  for (const auto& r : all_runs)
    for (const auto& sp : splits_of(r))
      if (std::find(s.splits.begin(), s.splits.end(), sp) == s.splits.end()) s.splits.push_back(sp);
  const std::string prefix = split_prefix(runs, split, main);
  // Metrics.
  if (metrics.empty()) {
    std::set<std::string> seen;
    s.metrics = {prefix + "return_mean", prefix + "shaped_return_mean"};
    for (const auto& r : runs)
      for (const auto& [k, v] : r.last_eval)
        if (k.rfind(prefix + "cost/", 0) == 0 && !seen.count(k) &&
            std::any_of(runs.begin(), runs.end(), [&, &k = k](const RunRecord& o) {
              const auto it = o.last_eval.find(k);
              return it != o.last_eval.end() && it->second != 0;  // a channel zero everywhere
            }))                                                   // says nothing
          seen.insert(k), s.metrics.push_back(k);
    std::sort(s.metrics.begin() + 2, s.metrics.end());
  } else {
    for (const auto& m : metrics) {  // "iid/x" names the main split's bare column x
      const std::string name = prefix + m;
      const bool main_named = !main.empty() && name.rfind(main + "/", 0) == 0;
      s.metrics.push_back(main_named ? name.substr(main.size() + 1) : name);
    }
    for (const auto& m : s.metrics) {
      const bool any = std::any_of(runs.begin(), runs.end(),
                                   [&](const RunRecord& r) { return r.last_eval.count(m) > 0; });
      if (!any && !runs.empty()) {
        std::vector<std::string> avail;
        for (const auto& [k, v] : runs[0].last_eval) avail.push_back(k);
        const std::string dym = core::did_you_mean(m, avail);
        throw core::ConfigError("--metric " + m + ": no run has the evaluation column " + m +
                                (dym.empty() ? "" : " (did you mean '" + dym + "'?)"));
      }
    }
  }
  // Groups in order of first appearance.
  std::vector<std::string> keys;
  std::map<std::string, std::vector<const RunRecord*>> groups;
  for (const auto& r : runs) {
    if (!groups.count(r.config_key)) keys.push_back(r.config_key);
    groups[r.config_key].push_back(&r);
  }
  // Labels: the keys whose values differ between configurations.
  std::vector<std::map<std::string, std::string>> flats;
  for (const auto& k : keys) flats.push_back(flat_keys(k.substr(k.find('\n') + 1)));
  std::set<std::string> differing;
  for (size_t i = 1; i < flats.size(); ++i) {
    for (const auto& [k, v] : flats[i]) {
      auto it = flats[0].find(k);
      if (it == flats[0].end() || it->second != v) differing.insert(k);
    }
    for (const auto& [k, v] : flats[0])
      if (!flats[i].count(k)) differing.insert(k);
  }
  for (size_t g = 0; g < keys.size(); ++g) {
    std::vector<const RunRecord*> members;
    std::map<long long, const RunRecord*> by_seed;
    for (const auto* r : groups[keys[g]]) {
      const auto [it, fresh] = by_seed.emplace(r->seed, r);
      if (fresh)
        members.push_back(r);
      else
        s.left_out.push_back(r->file + ": the configuration and seed " + std::to_string(r->seed) +
                             " of " + it->second->file + " (a copy?); counted once");
    }
    ConfigSummary c;
    c.kind = members[0]->kind;
    for (const auto& k : differing) {
      auto it = flats[g].find(k);
      c.label += (c.label.empty() ? "" : " ") + k + "=" +
                 (it == flats[g].end() ? "-" : label_value(it->second));
    }
    if (c.label.empty()) {
      const auto f = flat_keys(members[0]->resolved);
      auto it = f.find("experiment.name");
      c.label = it != f.end() ? label_value(it->second) : "(all runs)";
    }
    c.min_final_step = INFINITY;
    c.max_final_step = -INFINITY;
    for (const auto* r : members) {
      c.seeds.push_back(r->seed);
      c.files.push_back(r->file);
      c.min_final_step = std::min(c.min_final_step, r->final_step);
      c.max_final_step = std::max(c.max_final_step, r->final_step);
    }
    for (const auto& m : s.metrics) {
      std::vector<double> xs;
      for (const auto* r : members) {
        auto it = r->last_eval.find(m);
        xs.push_back(it == r->last_eval.end() ? kNaN : it->second);
      }
      c.stats[m] = seed_stats(xs);
    }
    s.configs.push_back(std::move(c));
  }
  return s;
}

namespace {

// Every split of the summary but its main one, comma-separated.
std::string join_others(const Summary& s) {
  std::string out;
  for (const auto& sp : s.splits)
    if (sp != s.main_split) out += (out.empty() ? "" : ", ") + sp;
  return out;
}

}  // namespace

std::string summary_table(const Summary& s) {
  std::ostringstream o;
  // A label longer than this is shown as "config <i>" and spelled out under the tables.
  constexpr size_t kMaxLabel = 48;
  std::vector<std::string> labels;
  bool abbreviated = false;
  for (size_t i = 0; i < s.configs.size(); ++i) {
    const auto& c = s.configs[i];
    std::string label = c.kind == "run" ? c.label : "[" + c.kind + "] " + c.label;
    if (label.size() > kMaxLabel) label = "config " + std::to_string(i + 1), abbreviated = true;
    labels.push_back(label);
  }
  size_t w = 13;
  for (const auto& l : labels) w = std::max(w, l.size());
  o << s.configs.size()
    << " configuration(s); 95 % CI: percentile bootstrap of the mean over seeds ("
    << kBootstrapResamples << " resamples), std over seeds (ddof 0)\n";
  if (!s.split.empty())
    o << "eval split: " << s.split << "\n";
  else if (s.splits.size() > 1)  // bare names are one of several splits: say which
    o << "eval split: " << s.main_split << " (--split for the others: " << join_others(s) << ")\n";
  for (const auto& m : s.metrics) {
    o << "\n" << m << "\n";
    o << format_printf("  %-*s %5s %12s %12s %12s %27s\n", static_cast<int>(w), "configuration",
                       "seeds", "mean", "std", "iqm", "95% CI");
    for (size_t i = 0; i < s.configs.size(); ++i) {
      const auto& c = s.configs[i];
      const auto& st = c.stats.at(m);
      const std::string& label = labels[i];
      const std::string ci = "[" + fmt(st.ci_low) + ", " + fmt(st.ci_high) + "]";
      o << format_printf("  %-*s %5d %12s %12s %12s %27s\n", static_cast<int>(w), label.c_str(),
                         st.n, fmt(st.mean).c_str(), fmt(st.std).c_str(), fmt(st.iqm).c_str(),
                         ci.c_str());
    }
  }
  if (abbreviated) {
    o << "\nconfigurations:\n";
    for (size_t i = 0; i < s.configs.size(); ++i)
      if (labels[i].rfind("config ", 0) == 0)
        o << "  " << labels[i] << ": "
          << (s.configs[i].kind == "run" ? "" : "[" + s.configs[i].kind + "] ")
          << s.configs[i].label << "\n";
  }
  for (const auto& c : s.configs)
    if (c.kind == "run" && c.min_final_step != c.max_final_step)
      o << "\nwarning: " << c.label << ": seeds ended at different steps ("
        << fmt(c.min_final_step, 12) << " .. " << fmt(c.max_final_step, 12)
        << "); unfinished runs?\n";
  for (const auto& why : s.left_out) o << "\nleft out: " << why << "\n";
  return o.str();
}

// The eval split of a summary metric: its "<split>/" prefix, else the main split.
std::string split_of(const Summary& s, const std::string& metric) {
  const size_t slash = metric.find('/');
  if (slash != std::string::npos) {
    const std::string head = metric.substr(0, slash);
    if (std::find(s.splits.begin(), s.splits.end(), head) != s.splits.end()) return head;
  }
  return s.main_split;
}

std::string summary_csv(const Summary& s) {
  std::ostringstream o;
  o << "configuration,kind,n_seeds,seeds,final_step,metric,split,mean,std,iqm,ci95_low,"
       "ci95_high\n";
  for (const auto& c : s.configs) {
    std::string seeds;
    for (size_t i = 0; i < c.seeds.size(); ++i)
      seeds += (i ? " " : "") + std::to_string(c.seeds[i]);
    for (const auto& m : s.metrics) {
      const auto& st = c.stats.at(m);
      o << csv_field(c.label) << "," << csv_field(c.kind) << ","
        << format_printf("%d,%s,%s,%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g\n", st.n,
                         csv_field(seeds).c_str(), fmt(c.min_final_step, 17).c_str(),
                         csv_field(m).c_str(), csv_field(split_of(s, m)).c_str(), st.mean, st.std,
                         st.iqm, st.ci_low, st.ci_high);
    }
  }
  return o.str();
}

}  // namespace pz::exp
