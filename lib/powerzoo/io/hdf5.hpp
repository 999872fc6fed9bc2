// HDF5 output: run.h5 (attributes, resolved config, extendible metric columns, trajectories) and
// checkpoint files (StateDict, written atomically).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "powerzoo/core/state_dict.hpp"

namespace pz::io {

/// Writer for one run file. Only the thread that owns it calls it (HDF5 has one global lock).
class RunFile {
 public:
  /// Creates (truncates) `path`; writes root attributes (string and int64 values) and the dataset
  /// /config/resolved (scalar variable-length UTF-8 string). Throws core::RunError on I/O failure.
  static RunFile create(const std::string& path,
                        const std::map<std::string, std::string>& str_attrs,
                        const std::map<std::string, int64_t>& int_attrs,
                        const std::string& resolved_toml);
  /// create() for a file that others read while it is written (run.h5; docs/design.md §8.3):
  /// HDF5 is written to a hidden sibling, `.<name>.writing`, and `path` only ever holds a
  /// complete, flushed copy of it, replaced atomically (copy to a temporary name, rename), so a
  /// reader (h5py, summarize, plot_runs.py) never meets a half-written file or the writer's file
  /// lock, and a kill -9 leaves the last copy readable. flush() publishes when `publish_seconds`
  /// (or 20 times the last copy's duration) have passed since the last copy; close() makes the
  /// working file itself `path`. If the file is destroyed without close() (an exception), it is
  /// published only if it still flushes and closes cleanly; otherwise `path` keeps the last copy.
  static RunFile create_published(const std::string& path,
                                  const std::map<std::string, std::string>& str_attrs,
                                  const std::map<std::string, int64_t>& int_attrs,
                                  const std::string& resolved_toml, double publish_seconds = 2.0);
  /// The working file of create_published(path) (".<name>.writing" next to it).
  static std::string working_path(const std::string& path);
  /// Opens an existing run file for appending (resume).
  static RunFile open(const std::string& path);
  RunFile(RunFile&&) noexcept;
  RunFile& operator=(RunFile&&) noexcept;
  ~RunFile();

  /// Appends one row to every column of group `group` ("metrics/train", "metrics/eval"). Columns
  /// are 1-D float64, chunked, unlimited; a column missing from `row` gets NaN; a new name creates
  /// a column back-filled with NaN. Names may contain '/' (nested groups).
  void append_row(const std::string& group, const std::map<std::string, double>& row);
  /// Number of rows in `group` (0 if absent).
  int64_t n_rows(const std::string& group) const;
  /// Shrinks every column of `group` to n rows (resume drops rows after the checkpoint).
  void truncate_rows(const std::string& group, int64_t n);

  /// Writes a float32 dataset of the given shape at `path` (e.g. "trajectories/iid/step_0/obs"),
  /// chunked and deflate-compressed; replaces an existing dataset.
  void write_f32(const std::string& path, const std::vector<int64_t>& shape, const float* data);
  void write_u8(const std::string& path, const std::vector<int64_t>& shape, const uint8_t* data);
  void write_i32(const std::string& path, const std::vector<int64_t>& shape, const int32_t* data);
  /// Copies the object (group or dataset) at `path` of the HDF5 file `src_file` into this file at
  /// the same path (H5Ocopy). Returns false, without throwing, if the source file cannot be read
  /// or has no such object (e.g. a run.h5 left corrupt by a killed process).
  bool copy_from(const std::string& src_file, const std::string& path);
  /// Deletes the object (group or dataset) at `path`, if there is one. HDF5 cannot give the space
  /// back to the file system: later writes of this session reuse it (the run file is written in
  /// one session per process). Throws core::RunError.
  void remove(const std::string& path);
  /// Sets (creates or replaces) the string attribute `name` of the root group (run.h5 "status",
  /// "status_reason"). Throws core::RunError.
  void set_attr(const std::string& name, const std::string& value);
  /// Flushes to the file (and publishes when due, see create_published). Throws core::RunError.
  void flush();
  /// create_published files: flushes and publishes now. No-op for other files.
  void publish();
  /// Flushes, closes and (create_published) makes the file `path`. Throws core::RunError.
  void close();

 private:
  RunFile();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Tells HDF5 not to run its library cleanup at process exit (H5dont_atexit; call first in main).
/// A file whose final flush failed (a full disk) stays half-closed inside HDF5 1.10, and that
/// cleanup crashes on it (SIGSEGV after the error was reported); the run's files are closed
/// explicitly before exit anyway.
void skip_hdf5_exit_cleanup();

/// Reads one 1-D float64 column ("metrics/train/global_step"). Throws core::ConfigError if absent.
std::vector<double> read_column(const std::string& file, const std::string& path);
/// Names of the direct children of group `path` in `file` (empty if the file or group cannot be
/// read).
std::vector<std::string> list_group(const std::string& file, const std::string& path);
/// Reads a scalar string dataset ("config/resolved").
std::string read_string(const std::string& file, const std::string& path);
/// Reads a variable-length string attribute of the root group ("data_files"). Throws
/// core::ConfigError if the file or the attribute is missing or not a string.
std::string read_string_attr(const std::string& file, const std::string& name);

/// Writes sd and the resolved spec (dataset /config/resolved) to `path` atomically: a temporary
/// file in the same directory, fsync'd, then rename(). Throws core::RunError on failure.
void write_checkpoint(const std::string& path, const core::StateDict& sd,
                      const std::string& resolved_toml);
/// Reads a checkpoint written by write_checkpoint. Throws core::ConfigError if the file is missing
/// or not a powerzoo checkpoint.
core::StateDict read_checkpoint(const std::string& path, std::string* resolved_toml);

}  // namespace pz::io
