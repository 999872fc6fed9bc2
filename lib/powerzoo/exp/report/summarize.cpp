// Summaries over seeds: grouping result files by configuration, bootstrap CIs, table and CSV.
#include "powerzoo/exp/report/summarize.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
      // --split S --metric S/x names S/x, as --metric S/x alone does.
      const std::string name = !prefix.empty() && m.rfind(prefix, 0) == 0 ? m : prefix + m;
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
  else if (!s.main_split.empty())
    o << "eval split: " << s.main_split << "\n";
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
