// The data files a run reads (its [env] case and profile), by absolute path and content hash, so
// that eval and --resume notice a file edited after the run (docs/design.md §8.2).
#pragma once

#include <string>
#include <vector>

#include "powerzoo/exp/spec/spec.hpp"

namespace pz::exp {

struct DataFile {
  std::string key;     ///< spec key that names it ("env.case")
  std::string path;    ///< absolute, normalized path of the file read
  std::string sha256;  ///< hex SHA-256 of its content
};

/// Every [env] key of the spec's env or task that names a file (core::ParamDef::is_path: case,
/// profile), resolved to the file that is read (bundled names to their files in the data
/// directory) with its SHA-256, in declaration order. Throws core::ConfigError (naming the key)
/// if a file cannot be read.
std::vector<DataFile> data_files(const Spec& spec);

/// One "key<TAB>path<TAB>sha256" line per file (what run.h5 and checkpoints store), and back.
std::string data_files_text(const std::vector<DataFile>& files);
std::vector<DataFile> parse_data_files(const std::string& text);

/// The files of `recorded` (a data_files_text) whose content is not what it was (changed,
/// missing or unreadable), one "env.case: /abs/mine.m (sha256 1a2b3c4d… when recorded, 5e6f…
/// now)" per file, joined by "; "; "" if every file is unchanged. Throws core::ConfigError if
/// `recorded` is malformed or names other keys than `current` (the data_files_text of the spec
/// as it reads now, which leaves out a path that is no file: a recorded file missing now is
/// reported as missing, not as another key).
std::string data_file_changes(const std::string& recorded, const std::string& current);

}  // namespace pz::exp
