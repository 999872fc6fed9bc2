// Reading a sweep's manifest (sweep.json) back, with every key checked: it is a file users and
// SLURM tasks share, and an edited one must not make a sweep re-run or skip trials.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/exp/sweep.hpp"

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
          s.status != "failed")
        throw ConfigError(where + "status: expected pending, running, done or failed, found '" +
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
  for (const auto& e : fs::directory_iterator(sweep_dir, ec)) {
    const std::string n = e.path().filename().string();
    const bool own = n == "sweep.json" || n == "sweep.json.lock" || n == "logs" ||
                     n.rfind("trial_", 0) == 0 || n.find(".tmp.") != std::string::npos;
    // A run's directory (run.h5, ckpt/) or any other folder: a sweep's files had been mixed in.
    if (!own)
      throw ConfigError("--out " + sweep_dir +
                        ": expected a new, empty or sweep directory, found '" + core::echo(n) +
                        "' in it, which no sweep writes; choose another --out");
  }
  if (fs::path(sweep_dir).lexically_normal().filename() == "ckpt")
    throw ConfigError("--out " + sweep_dir + ": expected a sweep directory, found a run's ckpt/");
}

}  // namespace pz::exp
