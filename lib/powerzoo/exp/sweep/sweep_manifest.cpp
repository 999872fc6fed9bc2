// Reading a sweep's manifest (sweep.json) back, with every key checked: it is a file users and
// SLURM tasks share, and an edited one must not make a sweep re-run or skip trials.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/run/run_dir.hpp"
#include "powerzoo/exp/sweep/sweep.hpp"

namespace pz::exp {

using core::ConfigError;
namespace fs = std::filesystem;

Manifest read_manifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot read sweep manifest");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
    Manifest m;
    // Each key is checked on its own, so a hand-edited manifest is named by key, not by the JSON
    // library's type error; an unknown status had re-run a finished trial.
    if (!j.is_object()) throw ConfigError(path + ": expected a JSON object (the sweep manifest)");
    if (!j.contains("schema_version") || j["schema_version"] != 1)
      throw ConfigError(path + ": schema_version: expected 1, found " +
                        (j.contains("schema_version") ? j["schema_version"].dump() : "none"));
    m.spec_file = j.at("spec").get<std::string>();
    m.args = j.at("args").get<std::vector<std::string>>();
    for (const auto& t : j.at("trials")) {
      TrialStatus s;
      s.trial.index = t.at("index").get<int>();
      s.trial.id = t.at("id").get<std::string>();
      s.trial.overrides = t.at("overrides").get<std::vector<std::string>>();
      s.run_dir = t.at("run_dir").get<std::string>();
      s.status = t.at("status").get<std::string>();
      const std::string where = path + ": trial " + std::to_string(m.trials.size()) + ": ";
      if (s.status != "pending" && s.status != "running" && s.status != "done" &&
          s.status != "failed" && s.status != "interrupted")
        throw ConfigError(where +
                          "status: expected pending, running, done, failed or interrupted, "
                          "found '" +
                          core::echo(s.status) + "'");
      s.message = t.value("message", "");
      if (t.contains("attempts") && (!t["attempts"].is_number_integer() || t["attempts"] < 0))
        throw ConfigError(where + "attempts: expected an integer >= 0, found " +
                          core::echo(t["attempts"].dump()));
      s.attempts = t.value("attempts", 0);
      s.updated_utc = t.value("updated_utc", "");
      // A trial writes into its run_dir: it must be this sweep's own trial_<index>, never a path
      // that an edited manifest points elsewhere ('..', absolute).
      const std::string expected = "trial_" + std::to_string(m.trials.size());
      if (s.trial.index != static_cast<int>(m.trials.size()) || s.run_dir != expected)
        throw ConfigError(path + ": trial " + std::to_string(m.trials.size()) +
                          ": expected index " + std::to_string(m.trials.size()) + " and run_dir '" +
                          expected + "', found index " + std::to_string(s.trial.index) +
                          " and run_dir '" + core::echo(s.run_dir) + "'");
      m.trials.push_back(std::move(s));
    }
    if (!j.contains("n_trials") || j["n_trials"] != m.trials.size())
      throw ConfigError(path + ": n_trials: expected " + std::to_string(m.trials.size()) +
                        " (the trials listed), found " +
                        (j.contains("n_trials") ? core::echo(j["n_trials"].dump()) : "none"));
    return m;
  } catch (const nlohmann::json::exception& e) {
    throw ConfigError(path + ": malformed sweep manifest: " + e.what());
  }
}

void check_sweep_dir(const std::string& sweep_dir) {
  std::error_code ec;
  if (!fs::is_directory(sweep_dir, ec)) return;  // new, or a file (create_output_dir says so)
  const std::string base = fs::path(sweep_dir).lexically_normal().filename().string();
  if (base == "ckpt" || base == "logs")
    throw ConfigError("--out " + sweep_dir +
                      ": expected a sweep directory, found a run's ckpt/ or a sweep's logs/");
  auto numbered = [](const std::string& n, const std::string& prefix, const std::string& suffix) {
    if (n.size() <= prefix.size() + suffix.size() || !n.starts_with(prefix) || !n.ends_with(suffix))
      return false;
    const std::string mid = n.substr(prefix.size(), n.size() - prefix.size() - suffix.size());
    return mid.find_first_not_of("0123456789") == std::string::npos;
  };
  for (const auto& e : fs::directory_iterator(sweep_dir, ec)) {
    const std::string n = e.path().filename().string();
    const bool dir = e.is_directory(ec);
    // What a sweep writes, one level down too: trial_<i>/ holds a run, logs/ the trial logs. A
    // notes.txt in trial_0/ had failed that trial only after trial 1 had run.
    bool own = (n == "sweep.json" || n == "sweep.json.lock" || n == "summary.csv" ||
                n.find(".tmp.") != std::string::npos) &&
               !dir;
    std::string inside;  // the first entry of a sweep-named folder that no sweep writes
    if (dir && n == RunDirectory::kPlotsDir) {
      own = true;  // plot_runs.py's pictures of the sweep
    } else if (dir && n == "logs") {
      own = true;
      // trial_<i>.log from powerzoo, slurm-<job>_<task>.out from SLURM (the emitted --output)
      for (const auto& l : fs::directory_iterator(e.path(), ec)) {
        const std::string ln = l.path().filename().string();
        const bool slurm_out = ln.starts_with("slurm-") && ln.ends_with(".out");
        if (!numbered(ln, "trial_", ".log") && !slurm_out && inside.empty()) inside = ln;
      }
    } else if (dir && numbered(n, "trial_", "")) {
      own = true;
      for (const auto& r : fs::directory_iterator(e.path(), ec)) {
        const std::string rn = r.path().filename().string();
        if (!RunDirectory::owns(rn) && inside.empty()) inside = rn;
      }
    }
    if (!inside.empty())
      throw ConfigError("--out " + sweep_dir +
                        ": expected a new, empty or sweep directory, found " + n + "/" +
                        core::echo(inside) + ", which no sweep writes; choose another " + "--out");
    // A run's directory (run.h5, ckpt/) or any other folder: a sweep's files had been mixed in.
    if (!own)
      throw ConfigError("--out " + sweep_dir +
                        ": expected a new, empty or sweep directory, found '" + core::echo(n) +
                        "' in it, which no sweep writes; choose another --out");
  }
}

}  // namespace pz::exp
