// Internal to the HDF5 I/O: the owning handle, error reporting and the dataset helpers shared by
// hdf5.cpp (RunFile), hdf5_read.cpp (readers) and hdf5_checkpoint.cpp (checkpoints).
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "powerzoo/core/error.hpp"

namespace pz::io::detail {

/// Turns off HDF5's automatic error printing for the calling thread (the error stack is
/// per-thread in the thread-safe build); failures become exceptions instead.
void silence_hdf5();

/// "HDF5 <op> failed for 'file' [object]: <detail>", detail being the innermost message on the
/// HDF5 error stack (which is cleared).
std::string hdf5_message(const std::string& file, const std::string& op,
                         const std::string& object = "");
/// Throws core::RunError(hdf5_message(...)).
[[noreturn]] void fail_run(const std::string& file, const std::string& op,
                           const std::string& object = "");
/// Throws core::ConfigError(hdf5_message(...)).
[[noreturn]] void fail_config(const std::string& file, const std::string& op,
                              const std::string& object = "");

/// Owning hid_t with the matching close function.
class Handle {
 public:
  Handle() = default;
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      close_ = o.close_;
      o.id_ = -1;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  /// Closes now; returns false if the close failed.
  bool reset() {
    bool ok = true;
    if (id_ >= 0 && close_) ok = close_(id_) >= 0;
    id_ = -1;
    return ok;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

/// Handle(id, close), or fail_run if id < 0.
Handle checked(hid_t id, herr_t (*close)(hid_t), const std::string& file, const std::string& op,
               const std::string& object = "");
/// fail_run if status < 0.
void check(herr_t status, const std::string& file, const std::string& op,
           const std::string& object = "");

/// Variable-length UTF-8 string type (file and memory).
Handle vlen_string_type();
/// Link creation property list that creates missing intermediate groups.
Handle intermediate_lcpl();
/// True if every component of `path` exists as a link below `loc` (H5Lexists alone fails when an
/// intermediate group is missing).
bool link_exists(hid_t loc, const std::string& path);
/// True if `path` below `loc` exists and is a dataset.
bool is_dataset(hid_t loc, const std::string& path);
/// Throws core::RunError unless `name` is a relative dataset path without empty components.
void validate_name(const std::string& file, const std::string& name);

void write_string_attr(hid_t loc, const std::string& file, const std::string& name,
                       const std::string& value);
void write_int_attr(hid_t loc, const std::string& file, const std::string& name, int64_t value);
/// Scalar vlen UTF-8 string dataset at `path` (intermediate groups created).
void write_string_dataset(hid_t loc, const std::string& file, const std::string& path,
                          const std::string& value);
/// Reads a scalar string dataset (variable- or fixed-length).
std::string read_string_dataset(hid_t ds, const std::string& file, const std::string& path);

/// What an HDF5 type and dataspace hold, for messages: "a float64", "an int32", "a string",
/// "3 float32 values", "a compound".
std::string hdf5_type_name(hid_t type, hid_t space);

/// Opens a file read-only for the free reader functions; missing or non-HDF5 → ConfigError.
Handle open_for_reading(const std::string& file);
/// Opens the dataset `path` of an open file; absent → ConfigError.
Handle open_dataset(hid_t f, const std::string& file, const std::string& path);

/// Reads a whole 1-D (or scalar) numeric dataset converted to T.
template <typename T>
std::vector<T> read_vector(hid_t ds, hid_t mem_type, const std::string& file,
                           const std::string& path) {
  Handle space = checked(H5Dget_space(ds), H5Sclose, file, "H5Dget_space", path);
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank > 1) {
    throw core::ConfigError("'" + file + "': dataset '" + path + "' has rank " +
                            std::to_string(rank) + ", expected 1");
  }
  hssize_t n = H5Sget_simple_extent_npoints(space.get());
  std::vector<T> out(static_cast<size_t>(std::max<hssize_t>(n, 0)));
  if (!out.empty()) {
    check(H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), file, "read dataset",
          path);
  }
  return out;
}

}  // namespace pz::io::detail
