// HDF5 output via the C API: run files (attributes, config, extendible metrics, arrays) and
// atomically written checkpoint files.
#include "powerzoo/io/hdf5.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "powerzoo/core/error.hpp"

namespace pz::io {
namespace {

using core::ConfigError;
using core::RunError;

constexpr hsize_t kMetricChunk = 1024;
constexpr size_t kArrayChunkBytes = 256 * 1024;

/// Turns off HDF5's automatic error printing for the calling thread (the error stack is
/// per-thread in the thread-safe build); failures become exceptions instead.
void silence_hdf5() {
  thread_local bool done = false;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    done = true;
  }
}

/// The innermost message on the HDF5 error stack ("unable to lock file, errno = 11, ...").
std::string hdf5_detail() {
  std::string detail;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* data) -> herr_t {
        auto* out = static_cast<std::string*>(data);
        if (n == 0 && e->desc) *out = e->desc;
        return 0;
      },
      &detail);
  H5Eclear2(H5E_DEFAULT);
  return detail;
}

/// "HDF5 <op> failed for 'file' [object]: <detail>".
std::string hdf5_message(const std::string& file, const std::string& op,
                         const std::string& object = "") {
  std::string msg = "HDF5 " + op + " failed for '" + file + "'";
  if (!object.empty()) msg += " (" + object + ")";
  std::string detail = hdf5_detail();
  if (!detail.empty()) msg += ": " + detail;
  if (detail.find("lock") != std::string::npos) {
    msg +=
        " (another process may have the file open; on file systems without locking set "
        "HDF5_USE_FILE_LOCKING=FALSE)";
  }
  return msg;
}

[[noreturn]] void fail_run(const std::string& file, const std::string& op,
                           const std::string& object = "") {
  throw RunError(hdf5_message(file, op, object));
}

[[noreturn]] void fail_config(const std::string& file, const std::string& op,
                              const std::string& object = "") {
  throw ConfigError(hdf5_message(file, op, object));
}

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

Handle checked(hid_t id, herr_t (*close)(hid_t), const std::string& file, const std::string& op,
               const std::string& object = "") {
  if (id < 0) fail_run(file, op, object);
  return Handle(id, close);
}

void check(herr_t status, const std::string& file, const std::string& op,
           const std::string& object = "") {
  if (status < 0) fail_run(file, op, object);
}

/// Variable-length UTF-8 string type (file and memory).
Handle vlen_string_type() {
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, H5T_VARIABLE);
  H5Tset_cset(t, H5T_CSET_UTF8);
  return Handle(t, H5Tclose);
}

/// Link creation property list that creates missing intermediate groups.
Handle intermediate_lcpl() {
  hid_t p = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(p, 1);
  return Handle(p, H5Pclose);
}

/// True if every component of `path` exists as a link below `loc` (H5Lexists alone fails when an
/// intermediate group is missing).
bool link_exists(hid_t loc, const std::string& path) {
  size_t pos = 0;
  while (true) {
    size_t slash = path.find('/', pos);
    std::string prefix = path.substr(0, slash);
    if (!prefix.empty() && H5Lexists(loc, prefix.c_str(), H5P_DEFAULT) <= 0) return false;
    if (slash == std::string::npos) return true;
    pos = slash + 1;
  }
}

bool is_dataset(hid_t loc, const std::string& path) {
  if (!link_exists(loc, path)) return false;
  hid_t obj = H5Oopen(loc, path.c_str(), H5P_DEFAULT);
  if (obj < 0) {
    H5Eclear2(H5E_DEFAULT);
    return false;
  }
  bool ds = H5Iget_type(obj) == H5I_DATASET;
  H5Oclose(obj);
  return ds;
}

void validate_name(const std::string& file, const std::string& name) {
  if (name.empty() || name.front() == '/' || name.back() == '/' ||
      name.find("//") != std::string::npos) {
    throw RunError("HDF5: invalid dataset name '" + name + "' for '" + file + "'");
  }
}

void write_string_attr(hid_t loc, const std::string& file, const std::string& name,
                       const std::string& value) {
  Handle type = vlen_string_type();
  Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, file, "H5Screate");
  Handle attr =
      checked(H5Acreate2(loc, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose, file, "create attribute", name);
  const char* p = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &p), file, "write attribute", name);
}

void write_int_attr(hid_t loc, const std::string& file, const std::string& name, int64_t value) {
  Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, file, "H5Screate");
  Handle attr =
      checked(H5Acreate2(loc, name.c_str(), H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
              H5Aclose, file, "create attribute", name);
  check(H5Awrite(attr.get(), H5T_NATIVE_INT64, &value), file, "write attribute", name);
}

/// Scalar vlen UTF-8 string dataset at `path` (intermediate groups created).
void write_string_dataset(hid_t loc, const std::string& file, const std::string& path,
                          const std::string& value) {
  if (value.find('\0') != std::string::npos) {
    throw RunError("HDF5: string '" + path + "' for '" + file +
                   "' contains a NUL byte (not representable as an HDF5 string)");
  }
  Handle type = vlen_string_type();
  Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, file, "H5Screate");
  Handle lcpl = intermediate_lcpl();
  Handle ds = checked(
      H5Dcreate2(loc, path.c_str(), type.get(), space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, file, "create dataset", path);
  const char* p = value.c_str();
  check(H5Dwrite(ds.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &p), file, "write dataset",
        path);
}

/// Reads a scalar string dataset (variable- or fixed-length).
std::string read_string_dataset(hid_t ds, const std::string& file, const std::string& path) {
  Handle ftype = checked(H5Dget_type(ds), H5Tclose, file, "H5Dget_type", path);
  if (H5Tget_class(ftype.get()) != H5T_STRING) {
    throw ConfigError("'" + file + "': dataset '" + path + "' is not a string");
  }
  Handle space = checked(H5Dget_space(ds), H5Sclose, file, "H5Dget_space", path);
  if (H5Sget_simple_extent_npoints(space.get()) != 1) {
    throw ConfigError("'" + file + "': dataset '" + path + "' is not a scalar string");
  }
  if (H5Tis_variable_str(ftype.get()) > 0) {
    Handle mtype = vlen_string_type();
    char* p = nullptr;
    check(H5Dread(ds, mtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, &p), file, "read dataset", path);
    std::string out = p ? p : "";
    H5free_memory(p);
    return out;
  }
  size_t n = H5Tget_size(ftype.get());
  Handle mtype = checked(H5Tcopy(H5T_C_S1), H5Tclose, file, "H5Tcopy");
  H5Tset_size(mtype.get(), n);
  H5Tset_strpad(mtype.get(), H5T_STR_NULLPAD);
  std::string buf(n, '\0');
  check(H5Dread(ds, mtype.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()), file, "read dataset",
        path);
  buf.resize(std::strlen(buf.c_str()));
  return buf;
}

/// Opens a file read-only for the free reader functions; missing or non-HDF5 → ConfigError.
Handle open_for_reading(const std::string& file) {
  silence_hdf5();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw ConfigError("'" + file + "': no such file");
  if (H5Fis_hdf5(file.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw ConfigError("'" + file + "': not an HDF5 file");
  }
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) fail_config(file, "open (read-only)");
  return Handle(f, H5Fclose);
}

Handle open_dataset(hid_t f, const std::string& file, const std::string& path) {
  if (!is_dataset(f, path)) {
    throw ConfigError("'" + file + "': dataset '" + path + "' not found");
  }
  hid_t ds = H5Dopen2(f, path.c_str(), H5P_DEFAULT);
  if (ds < 0) fail_config(file, "open dataset", path);
  return Handle(ds, H5Dclose);
}

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

/// Contiguous 1-D dataset (checkpoint entries).
void write_vector(hid_t f, const std::string& file, const std::string& path, hid_t file_type,
                  hid_t mem_type, size_t n, const void* data) {
  hsize_t dims[1] = {n};
  Handle space = checked(H5Screate_simple(1, dims, nullptr), H5Sclose, file, "H5Screate", path);
  Handle lcpl = intermediate_lcpl();
  Handle ds = checked(
      H5Dcreate2(f, path.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, file, "create dataset", path);
  if (n > 0) {
    check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), file, "write dataset",
          path);
  }
}

/// Reads a whole 1-D (or scalar) numeric dataset converted to T.
template <typename T>
std::vector<T> read_vector(hid_t ds, hid_t mem_type, const std::string& file,
                           const std::string& path) {
  Handle space = checked(H5Dget_space(ds), H5Sclose, file, "H5Dget_space", path);
  int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank > 1) {
    throw ConfigError("'" + file + "': dataset '" + path + "' has rank " + std::to_string(rank) +
                      ", expected 1");
  }
  hssize_t n = H5Sget_simple_extent_npoints(space.get());
  std::vector<T> out(static_cast<size_t>(std::max<hssize_t>(n, 0)));
  if (!out.empty()) {
    check(H5Dread(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), file, "read dataset",
          path);
  }
  return out;
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
  std::string path;
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
    // Destructors must not throw; an explicit close() reports errors.
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
  for (auto& [name, ds] : g.columns) {
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

void RunFile::flush() {
  silence_hdf5();
  impl_->require_open();
  check(H5Fflush(impl_->file.get(), H5F_SCOPE_GLOBAL), impl_->path, "flush");
}

void RunFile::close() {
  if (!impl_ || !impl_->file.valid()) return;
  silence_hdf5();
  impl_->groups.clear();  // closes the cached column datasets first
  if (!impl_->file.reset()) fail_run(impl_->path, "close");
}

// ---------------------------------------------------------------------------------------------
// Readers

std::vector<double> read_column(const std::string& file, const std::string& path) {
  Handle f = open_for_reading(file);
  Handle ds = open_dataset(f.get(), file, path);
  return read_vector<double>(ds.get(), H5T_NATIVE_DOUBLE, file, path);
}

std::vector<std::string> list_group(const std::string& file, const std::string& path) {
  silence_hdf5();
  std::vector<std::string> names;
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) return names;
  if (link_exists(f, path)) {
    const hid_t g = H5Gopen2(f, path.c_str(), H5P_DEFAULT);
    if (g >= 0) {
      auto cb = [](hid_t, const char* name, const H5L_info_t*, void* data) -> herr_t {
        static_cast<std::vector<std::string>*>(data)->push_back(name);
        return 0;
      };
      H5Literate(g, H5_INDEX_NAME, H5_ITER_INC, nullptr, cb, &names);
      H5Gclose(g);
    }
  }
  H5Fclose(f);
  return names;
}

std::string read_string(const std::string& file, const std::string& path) {
  Handle f = open_for_reading(file);
  Handle ds = open_dataset(f.get(), file, path);
  return read_string_dataset(ds.get(), file, path);
}

// ---------------------------------------------------------------------------------------------
// Checkpoints

void write_checkpoint(const std::string& path, const core::StateDict& sd,
                      const std::string& resolved_toml) {
  silence_hdf5();
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  try {
    {
      // Strong close degree: H5Fclose really closes the file before the fsync below.
      Handle fapl = checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, tmp, "H5Pcreate");
      H5Pset_fclose_degree(fapl.get(), H5F_CLOSE_STRONG);
      Handle f = checked(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()), H5Fclose,
                         tmp, "create checkpoint file");
      hid_t fid = f.get();
      auto name_ok = [&](const std::string& name) {
        validate_name(tmp, name);
        if (name == "config" || name.rfind("config/", 0) == 0) {
          throw RunError("HDF5: checkpoint entry '" + name + "' collides with /config");
        }
      };
      for (const auto& [name, v] : sd.f32) {
        name_ok(name);
        write_vector(fid, tmp, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, v.size(), v.data());
      }
      for (const auto& [name, v] : sd.f64) {
        name_ok(name);
        write_vector(fid, tmp, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.size(), v.data());
      }
      for (const auto& [name, v] : sd.i64) {
        name_ok(name);
        write_vector(fid, tmp, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v.size(), v.data());
      }
      for (const auto& [name, v] : sd.str) {
        name_ok(name);
        write_string_dataset(fid, tmp, name, v);
      }
      write_string_dataset(fid, tmp, "config/resolved", resolved_toml);
      write_int_attr(fid, tmp, "powerzoo_checkpoint", 1);
      if (!f.reset()) fail_run(tmp, "close checkpoint file");
    }
    int fd = ::open(tmp.c_str(), O_RDONLY);
    if (fd < 0 || ::fsync(fd) != 0) {
      int err = errno;
      if (fd >= 0) ::close(fd);
      throw RunError("cannot fsync checkpoint '" + tmp + "': " + std::strerror(err));
    }
    ::close(fd);
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      throw RunError("cannot rename checkpoint '" + tmp + "' to '" + path +
                     "': " + std::strerror(errno));
    }
  } catch (...) {
    ::unlink(tmp.c_str());
    throw;
  }
  // Make the rename durable (best effort: some file systems refuse fsync on directories).
  std::string dir = std::filesystem::path(path).parent_path().string();
  int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

core::StateDict read_checkpoint(const std::string& path, std::string* resolved_toml) {
  Handle f = open_for_reading(path);
  const hid_t fid = f.get();
  if (H5Aexists(fid, "powerzoo_checkpoint") <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw ConfigError("'" + path +
                      "' is not a powerzoo checkpoint (no 'powerzoo_checkpoint' attribute)");
  }
  std::vector<std::string> names;
  auto visit = [](hid_t, const char* name, const H5O_info_t* info, void* data) -> herr_t {
    if (info->type == H5O_TYPE_DATASET)
      static_cast<std::vector<std::string>*>(data)->push_back(name);
    return 0;
  };
  if (H5Ovisit(fid, H5_INDEX_NAME, H5_ITER_INC, visit, &names) < 0) fail_config(path, "visit");

  core::StateDict sd;
  for (const auto& name : names) {
    Handle ds = open_dataset(fid, path, name);
    if (name == "config/resolved") {
      if (resolved_toml) *resolved_toml = read_string_dataset(ds.get(), path, name);
      continue;
    }
    Handle type = checked(H5Dget_type(ds.get()), H5Tclose, path, "H5Dget_type", name);
    H5T_class_t cls = H5Tget_class(type.get());
    size_t size = H5Tget_size(type.get());
    if (cls == H5T_FLOAT && size == 4) {
      sd.f32[name] = read_vector<float>(ds.get(), H5T_NATIVE_FLOAT, path, name);
    } else if (cls == H5T_FLOAT && size == 8) {
      sd.f64[name] = read_vector<double>(ds.get(), H5T_NATIVE_DOUBLE, path, name);
    } else if (cls == H5T_INTEGER && size == 8 && H5Tget_sign(type.get()) == H5T_SGN_2) {
      sd.i64[name] = read_vector<int64_t>(ds.get(), H5T_NATIVE_INT64, path, name);
    } else if (cls == H5T_STRING) {
      sd.str[name] = read_string_dataset(ds.get(), path, name);
    } else {
      throw ConfigError("'" + path + "': checkpoint dataset '" + name +
                        "' has an unsupported type (expected float32, float64, int64 or string)");
    }
  }
  if (resolved_toml && std::find(names.begin(), names.end(), "config/resolved") == names.end()) {
    throw ConfigError("'" + path + "': checkpoint has no /config/resolved");
  }
  return sd;
}

}  // namespace pz::io
