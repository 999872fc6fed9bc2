// TensorBoard event files: scalar summaries in the TFRecord framing TensorBoard reads, so that
// `tensorboard --logdir RUN_DIR` shows a run's curves without TensorFlow or protobuf in the build.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace pz::io {

/// CRC-32C (Castagnoli) of `n` bytes, as TFRecord frames use it (Boost.CRC).
uint32_t crc32c(const void* data, size_t n);

/// TFRecord's masked CRC: ((crc >> 15) | (crc << 17)) + 0xa282ead8 (TensorFlow's
/// tensorflow/core/lib/hash/crc32c.h), so that a CRC of data that holds CRCs stays robust.
uint32_t masked_crc32c(const void* data, size_t n);

/// One Event protobuf message (TensorBoard's tensorboard/compat/proto/event.proto): wall_time
/// (field 1, double, seconds since the Unix epoch), step (field 2, int64) and a Summary (field 5)
/// of `values` as Summary.Value{tag (field 1), simple_value (field 2, float)}.
std::string encode_scalar_event(double wall_time, int64_t step,
                                const std::vector<std::pair<std::string, float>>& values);

/// An events file: the file_version event ("brain.Event:2") first, then scalar events, each as a
/// TFRecord (uint64 length, masked CRC of the length, the bytes, masked CRC of the bytes; little
/// endian). Throws core::RunError naming the file when it cannot be created or written.
class TbEventWriter {
 public:
  /// kCreate starts the file with the file_version event; kAppend continues one it started.
  enum Mode { kCreate, kAppend };
  explicit TbEventWriter(const std::string& path, Mode mode = kCreate);
  /// Appends one event with every (tag, value) at `step`, and flushes (for a live TensorBoard).
  void write_scalars(int64_t step, double wall_time,
                     const std::vector<std::pair<std::string, float>>& values);
  const std::string& path() const { return path_; }

 private:
  void write_record(const std::string& bytes);

  std::string path_;
  std::ofstream out_;
};

}  // namespace pz::io
