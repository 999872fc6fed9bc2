// Data files of a run: resolution of the [env] path keys, content hashes, change detection.
#include "powerzoo/exp/spec/data_files.hpp"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/core/sha256.hpp"
#include "powerzoo/data/profile.hpp"
#include "powerzoo/exp/spec/build.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::exp {
namespace fs = std::filesystem;

std::vector<DataFile> data_files(const Spec& spec) {
  std::vector<DataFile> out;
  for (const auto& d : env_entry(spec).params) {
    if (!d.is_path || !spec.env.params.has(d.key)) continue;
    const std::string value = spec.env.params.str(d.key);
    const std::string where = spec.at("env." + d.key) + "[env] " + d.key + ": ";
    std::string file;
    try {
      file = d.key == "case"      ? grid::resolve_case_path(value)
             : d.key == "profile" ? data::resolve_profile_path(value)
                                  : value;
    } catch (const core::ConfigError& e) {
      // The resolvers name the key themselves ("[env] profile: expected ..."): once is enough.
      std::string msg = e.what();
      if (const std::string tag = "[env] " + d.key + ": "; msg.rfind(tag, 0) == 0)
        msg = msg.substr(tag.size());
      throw core::ConfigError(where + msg);
    }
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) continue;  // not a file: the env's builder reports it
    DataFile f;
    f.key = "env." + d.key;
    f.path = fs::absolute(file, ec).lexically_normal().string();
    try {
      f.sha256 = core::sha256_file(f.path);
    } catch (const core::ConfigError& e) {
      throw core::ConfigError(where + e.what());
    }
    out.push_back(std::move(f));
  }
  return out;
}

std::string data_files_text(const std::vector<DataFile>& files) {
  std::string out;
  for (const auto& f : files) out += f.key + "\t" + f.path + "\t" + f.sha256 + "\n";
  return out;
}

std::vector<DataFile> parse_data_files(const std::string& text) {
  std::vector<DataFile> out;
  std::istringstream in(text);
  int n = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    const size_t a = line.find('\t'), b = line.rfind('\t');
    const std::string sha = b == std::string::npos ? "" : line.substr(b + 1);
    // A damaged record skipped the check that the data are the run's (it was read leniently).
    if (a == std::string::npos || b == a || a == 0 || b == a + 1 || sha.size() != 64 ||
        sha.find_first_not_of("0123456789abcdef") != std::string::npos)
      throw core::ConfigError("'" + std::string("data/files") + "' line " + std::to_string(n) +
                              ": expected key<TAB>path<TAB>sha256 (64 hex digits), found '" +
                              core::echo(line, 120) + "'");
    out.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), sha});
  }
  return out;
}

std::string data_file_changes(const std::string& recorded, const std::string& current) {
  std::string out;
  const auto files = parse_data_files(recorded), now_files = parse_data_files(current);
  auto keys = [](const std::vector<DataFile>& v) {
    std::string k;
    for (const auto& f : v) k += (k.empty() ? "" : ", ") + f.key;
    return k.empty() ? std::string("none") : k;
  };
  // data_files skips a path that is not a file, so a recorded file missing now is not among
  // the current ones: it is reported below as missing, not as a record of other keys.
  std::vector<DataFile> compared;
  for (const auto& f : files) {
    const bool in_now = std::any_of(now_files.begin(), now_files.end(),
                                    [&](const DataFile& g) { return g.key == f.key; });
    std::error_code ec;
    if (in_now || fs::is_regular_file(f.path, ec)) compared.push_back(f);
  }
  if (keys(compared) != keys(now_files))
    throw core::ConfigError("'" + std::string("data/files") + "': expected the data files " +
                            keys(now_files) + " (those its spec reads), found " + keys(files));
  for (const auto& f : files) {
    std::string now;
    try {
      now = core::sha256_file(f.path);
    } catch (const core::ConfigError&) {
      now = "";
    }
    if (now == f.sha256) continue;
    out += (out.empty() ? "" : "; ") + f.key + ": " + f.path + " (sha256 " +
           f.sha256.substr(0, 12) + "… when recorded, " +
           (now.empty() ? std::string("missing or unreadable now") : now.substr(0, 12) + "… now") +
           ")";
  }
  return out;
}

}  // namespace pz::exp
