// HDF5 run file writer (RunFile): root attributes, the resolved config, extendible metric
// columns and chunked, compressed arrays.
#include "powerzoo/io/hdf5.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "powerzoo/core/fault.hpp"
#include "powerzoo/io/hdf5_impl.hpp"

namespace pz::io {

using namespace detail;
using core::RunError;

namespace {

constexpr hsize_t kMetricChunk = 1024;
constexpr size_t kArrayChunkBytes = 256 * 1024;

/// Chunk shape of roughly kArrayChunkBytes: halve the leading dimensions until it fits.
std::vector<hsize_t> chunk_shape(const std::vector<hsize_t>& dims, size_t elem) {
  std::vector<hsize_t> c = dims;
  auto bytes = [&] {
    size_t b = elem;
    for (hsize_t d : c) b *= d;
    return b;
  };
  for (size_t axis = 0; axis < c.size() && bytes() > kArrayChunkBytes; ++axis) {
    while (c[axis] > 1 && bytes() > kArrayChunkBytes) c[axis] = (c[axis] + 1) / 2;
  }
  return c;
}

/// Copies the file `src` to `dst` (created or truncated); "" on success, else the reason
/// (strerror of the failing call: "No space left on device", "File too large").
std::string copy_bytes(const std::string& src, const std::string& dst) {
  const int in = ::open(src.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return std::strerror(errno);
  const int out = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out < 0) {
    const int err = errno;
    ::close(in);
    return std::strerror(err);
  }
  std::vector<char> buf(1 << 20);
  std::string why;
  for (;;) {
    const ssize_t n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n < 0) why = std::strerror(errno);
      break;
    }
    for (ssize_t done = 0; done < n && why.empty();) {
      const ssize_t w = ::write(out, buf.data() + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) why = std::strerror(errno);
      done += w > 0 ? w : 0;
    }
    if (!why.empty()) break;
  }
  if (::close(out) != 0 && why.empty()) why = std::strerror(errno);
  ::close(in);
  return why;
}

/// Chunked, shuffle+deflate(1) array dataset; replaces an existing dataset at `path`.
void write_array(hid_t f, const std::string& file, const std::string& path,
                 const std::vector<int64_t>& shape, hid_t file_type, hid_t mem_type, size_t elem,
                 const void* data) {
  validate_name(file, path);
  std::vector<hsize_t> dims;
  hsize_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) throw RunError("HDF5: negative dimension for '" + path + "' in '" + file + "'");
    dims.push_back(static_cast<hsize_t>(d));
    n *= static_cast<hsize_t>(d);
  }
  if (link_exists(f, path)) check(H5Ldelete(f, path.c_str(), H5P_DEFAULT), file, "delete", path);
  Handle space =
      checked(dims.empty() ? H5Screate(H5S_SCALAR)
                           : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
              H5Sclose, file, "create dataspace", path);
  Handle dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, file, "H5Pcreate");
  if (!dims.empty() && n > 0) {
    std::vector<hsize_t> chunk = chunk_shape(dims, elem);
    check(H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()), file, "set chunk",
          path);
    check(H5Pset_shuffle(dcpl.get()), file, "set shuffle", path);
    check(H5Pset_deflate(dcpl.get(), 1), file, "set deflate", path);
  }
  Handle lcpl = intermediate_lcpl();
  Handle ds = checked(
      H5Dcreate2(f, path.c_str(), file_type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT),
      H5Dclose, file, "create dataset", path);
  if (n > 0) {
    check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), file, "write dataset",
          path);
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// RunFile

/// Open file plus a cache of the metric groups touched so far (columns kept open).
struct RunFile::Impl {
  struct Group {
    std::map<std::string, Handle> columns;  ///< name relative to the group -> dataset
    int64_t rows = 0;
  };
  std::string path;          ///< the file HDF5 writes (the working file when published)
  std::string publish_path;  ///< create_published: where complete copies go ("" otherwise)
  double publish_seconds = 0, last_copy_seconds = 0;
  std::chrono::steady_clock::time_point last_publish;
  Handle file;
  std::map<std::string, Group> groups;

  /// Loads (once) the columns below `group`; nullptr if the group does not exist.
  Group* find_group(const std::string& group) {
    if (auto it = groups.find(group); it != groups.end()) return &it->second;
    if (!link_exists(file.get(), group)) return nullptr;
    Group g;
    Handle gid = checked(H5Gopen2(file.get(), group.c_str(), H5P_DEFAULT), H5Gclose, path,
                         "open group", group);
    std::vector<std::string> names;
    auto visit = [](hid_t, const char* name, const H5O_info_t* info, void* data) -> herr_t {
      if (info->type == H5O_TYPE_DATASET)
        static_cast<std::vector<std::string>*>(data)->push_back(name);
      return 0;
    };
    check(H5Ovisit(gid.get(), H5_INDEX_NAME, H5_ITER_INC, visit, &names), path, "visit", group);
    bool first = true;
    for (const auto& name : names) {
      std::string full = group + "/" + name;
      Handle ds = checked(H5Dopen2(file.get(), full.c_str(), H5P_DEFAULT), H5Dclose, path,
                          "open dataset", full);
      Handle space = checked(H5Dget_space(ds.get()), H5Sclose, path, "H5Dget_space", full);
      hsize_t dims[1] = {0};
      if (H5Sget_simple_extent_ndims(space.get()) != 1) continue;  // not a metric column
      H5Sget_simple_extent_dims(space.get(), dims, nullptr);
      int64_t rows = static_cast<int64_t>(dims[0]);
      g.rows = first ? rows : std::max(g.rows, rows);
      first = false;
      g.columns.emplace(name, std::move(ds));
    }
    return &groups.emplace(group, std::move(g)).first->second;
  }

  Group& ensure_group(const std::string& group) {
    if (Group* g = find_group(group)) return *g;
    Handle lcpl = intermediate_lcpl();
    checked(H5Gcreate2(file.get(), group.c_str(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
            path, "create group", group);
    return groups.emplace(group, Group{}).first->second;
  }

  /// New 1-D float64 column with `rows` NaN rows (the fill value).
  Handle create_column(const std::string& full, int64_t rows) {
    hsize_t dims[1] = {static_cast<hsize_t>(rows)};
    hsize_t maxdims[1] = {H5S_UNLIMITED};
    hsize_t chunk[1] = {kMetricChunk};
    Handle space = checked(H5Screate_simple(1, dims, maxdims), H5Sclose, path, "H5Screate", full);
    Handle dcpl = checked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, path, "H5Pcreate");
    check(H5Pset_chunk(dcpl.get(), 1, chunk), path, "set chunk", full);
    double nan = std::numeric_limits<double>::quiet_NaN();
    check(H5Pset_fill_value(dcpl.get(), H5T_NATIVE_DOUBLE, &nan), path, "set fill value", full);
    check(H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_IFSET), path, "set fill time", full);
    Handle lcpl = intermediate_lcpl();
    return checked(H5Dcreate2(file.get(), full.c_str(), H5T_IEEE_F64LE, space.get(), lcpl.get(),
                              dcpl.get(), H5P_DEFAULT),
                   H5Dclose, path, "create dataset", full);
  }

  void require_open() const {
    if (!file.valid()) throw RunError("HDF5: run file '" + path + "' is closed");
  }
};

RunFile::RunFile() : impl_(std::make_unique<Impl>()) {}
RunFile::RunFile(RunFile&&) noexcept = default;
RunFile& RunFile::operator=(RunFile&&) noexcept = default;
RunFile::~RunFile() {
  try {
    close();
  } catch (...) {
    // Destructors must not throw; an explicit close() reports errors. A published file that
    // could not be closed cleanly (a full disk) is left as its last complete copy.
    if (impl_ && !impl_->publish_path.empty()) ::unlink(impl_->path.c_str());
  }
}

RunFile RunFile::create(const std::string& path,
                        const std::map<std::string, std::string>& str_attrs,
                        const std::map<std::string, int64_t>& int_attrs,
                        const std::string& resolved_toml) {
  silence_hdf5();
  RunFile rf;
  rf.impl_->path = path;
  rf.impl_->file = checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                           H5Fclose, path, "create file");
  hid_t f = rf.impl_->file.get();
  for (const auto& [k, v] : str_attrs) write_string_attr(f, path, k, v);
  for (const auto& [k, v] : int_attrs) write_int_attr(f, path, k, v);
  write_string_dataset(f, path, "config/resolved", resolved_toml);
  return rf;
}

void RunFile::set_attr(const std::string& name, const std::string& value) {
  impl_->require_open();
  hid_t f = impl_->file.get();
  if (H5Aexists(f, name.c_str()) > 0)
    check(H5Adelete(f, name.c_str()), impl_->path, "delete attribute", name);
  write_string_attr(f, impl_->path, name, value);
}

std::string RunFile::working_path(const std::string& path) {
  const std::filesystem::path p(path);
  return (p.parent_path() / ("." + p.filename().string() + ".writing")).string();
}

RunFile RunFile::create_published(const std::string& path,
                                  const std::map<std::string, std::string>& str_attrs,
                                  const std::map<std::string, int64_t>& int_attrs,
                                  const std::string& resolved_toml, double publish_seconds) {
  RunFile rf = create(working_path(path), str_attrs, int_attrs, resolved_toml);
  rf.impl_->publish_path = path;
  rf.impl_->publish_seconds = publish_seconds;
  rf.publish();  // readers find the new file at once
  return rf;
}

void RunFile::publish() {
  if (!impl_ || impl_->publish_path.empty()) return;
  silence_hdf5();
  impl_->require_open();
  check(H5Fflush(impl_->file.get(), H5F_SCOPE_GLOBAL), impl_->path, "flush");
  const auto t0 = std::chrono::steady_clock::now();
  const std::string& dst = impl_->publish_path;
  const std::string tmp = dst + ".tmp." + std::to_string(::getpid());
  std::string why = copy_bytes(impl_->path, tmp);
  if (why.empty()) {
    core::fault_point("publish");
    if (std::rename(tmp.c_str(), dst.c_str()) != 0) why = std::strerror(errno);
  }
  if (!why.empty()) {
    ::unlink(tmp.c_str());
    throw RunError("cannot publish the run file '" + dst + "' (a copy of " + impl_->path +
                   "): " + why);
  }
  impl_->last_publish = std::chrono::steady_clock::now();
  impl_->last_copy_seconds = std::chrono::duration<double>(impl_->last_publish - t0).count();
}

RunFile RunFile::open(const std::string& path) {
  silence_hdf5();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    throw RunError("HDF5: cannot open run file '" + path + "' for appending: no such file");
  }
  RunFile rf;
  rf.impl_->path = path;
  rf.impl_->file = checked(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, path,
                           "open file (read-write)");
  return rf;
}

void RunFile::append_row(const std::string& group, const std::map<std::string, double>& row) {
  silence_hdf5();
  impl_->require_open();
  validate_name(impl_->path, group);
  const std::string& path = impl_->path;
  Impl::Group& g = impl_->ensure_group(group);
  for (const auto& [name, value] : row) {
    (void)value;
    if (g.columns.count(name)) continue;
    validate_name(path, name);
    g.columns.emplace(name, impl_->create_column(group + "/" + name, g.rows));
  }
  const hsize_t n = static_cast<hsize_t>(g.rows);
  hsize_t new_dims[1] = {n + 1};
  hsize_t start[1] = {n};
  hsize_t count[1] = {1};
  Handle mem = checked(H5Screate_simple(1, count, nullptr), H5Sclose, path, "H5Screate");
  size_t k = 0;
  for (auto& [name, ds] : g.columns) {
    if (k++ == g.columns.size() / 2) core::fault_point("run_file");
    const std::string full = group + "/" + name;
    auto it = row.find(name);
    double v = it == row.end() ? std::numeric_limits<double>::quiet_NaN() : it->second;
    check(H5Dset_extent(ds.get(), new_dims), path, "extend dataset", full);
    Handle fspace = checked(H5Dget_space(ds.get()), H5Sclose, path, "H5Dget_space", full);
    check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr), path,
          "select row", full);
    check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, mem.get(), fspace.get(), H5P_DEFAULT, &v), path,
          "write row", full);
  }
  g.rows += 1;
}

int64_t RunFile::n_rows(const std::string& group) const {
  silence_hdf5();
  impl_->require_open();
  Impl::Group* g = impl_->find_group(group);
  return g ? g->rows : 0;
}

void RunFile::truncate_rows(const std::string& group, int64_t n) {
  silence_hdf5();
  impl_->require_open();
  Impl::Group* g = impl_->find_group(group);
  int64_t rows = g ? g->rows : 0;
  if (n < 0 || n > rows) {
    throw RunError("HDF5: cannot truncate '" + group + "' in '" + impl_->path + "' to " +
                   std::to_string(n) + " rows: it has " + std::to_string(rows));
  }
  if (!g) return;
  hsize_t dims[1] = {static_cast<hsize_t>(n)};
  for (auto& [name, ds] : g->columns) {
    check(H5Dset_extent(ds.get(), dims), impl_->path, "shrink dataset", group + "/" + name);
  }
  g->rows = n;
}

void RunFile::write_f32(const std::string& path, const std::vector<int64_t>& shape,
                        const float* data) {
  silence_hdf5();
  impl_->require_open();
  write_array(impl_->file.get(), impl_->path, path, shape, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT,
              sizeof(float), data);
}

void RunFile::write_u8(const std::string& path, const std::vector<int64_t>& shape,
                       const uint8_t* data) {
  silence_hdf5();
  impl_->require_open();
  write_array(impl_->file.get(), impl_->path, path, shape, H5T_STD_U8LE, H5T_NATIVE_UINT8,
              sizeof(uint8_t), data);
}

void RunFile::write_i32(const std::string& path, const std::vector<int64_t>& shape,
                        const int32_t* data) {
  silence_hdf5();
  impl_->require_open();
  write_array(impl_->file.get(), impl_->path, path, shape, H5T_STD_I32LE, H5T_NATIVE_INT32,
              sizeof(int32_t), data);
}

bool RunFile::copy_from(const std::string& src_file, const std::string& path) {
  silence_hdf5();
  const hid_t src = H5Fopen(src_file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (src < 0) return false;
  bool ok = link_exists(src, path);
  if (ok) {
    Handle lcpl = intermediate_lcpl();
    ok = H5Ocopy(src, path.c_str(), impl_->file.get(), path.c_str(), H5P_DEFAULT, lcpl.get()) >= 0;
  }
  H5Fclose(src);
  return ok;
}

void RunFile::remove(const std::string& path) {
  silence_hdf5();
  impl_->require_open();
  // Metric groups keep their columns open (Impl::groups); a removed group must not stay cached.
  for (auto it = impl_->groups.begin(); it != impl_->groups.end();)
    it = it->first == path || it->first.rfind(path + "/", 0) == 0 ? impl_->groups.erase(it)
                                                                  : std::next(it);
  hid_t f = impl_->file.get();
  if (link_exists(f, path))
    check(H5Ldelete(f, path.c_str(), H5P_DEFAULT), impl_->path, "delete", path);
}

void RunFile::flush() {
  silence_hdf5();
  impl_->require_open();
  if (!impl_->publish_path.empty()) {
    const double since =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - impl_->last_publish)
            .count();
    if (since >= std::max(impl_->publish_seconds, 20 * impl_->last_copy_seconds)) {
      publish();
      return;
    }
  }
  check(H5Fflush(impl_->file.get(), H5F_SCOPE_GLOBAL), impl_->path, "flush");
}

void RunFile::close() {
  if (!impl_ || !impl_->file.valid()) return;
  silence_hdf5();
  impl_->groups.clear();  // closes the cached column datasets first
  if (!impl_->file.reset()) fail_run(impl_->path, "close");
  if (!impl_->publish_path.empty()) {
    // The complete working file becomes the published one (no copy needed at the end).
    if (std::rename(impl_->path.c_str(), impl_->publish_path.c_str()) != 0)
      throw RunError("cannot rename '" + impl_->path + "' to '" + impl_->publish_path +
                     "': " + std::strerror(errno));
    impl_->publish_path.clear();
  }
}

}  // namespace pz::io
