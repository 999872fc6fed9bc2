// HDF5 helpers shared by the run file, reader and checkpoint code: error messages, handles,
// attributes, string datasets and read-only opening.
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "powerzoo/core/paths.hpp"
#include "powerzoo/io/hdf5_impl.hpp"

namespace pz::io::detail {

using core::ConfigError;
using core::RunError;

namespace {

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

}  // namespace

void silence_hdf5() {
  thread_local bool done = false;
  if (!done) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    done = true;
  }
}

std::string hdf5_message(const std::string& file, const std::string& op,
                         const std::string& object) {
  std::string msg = "HDF5 " + op + " failed for '" + file + "'";
  if (!object.empty()) msg += " (" + object + ")";
  std::string detail = hdf5_detail();
  // A failed write's detail is a dump of the call (time, buffer address, sizes): keep its reason.
  if (const size_t m = detail.find("error message = '"); m != std::string::npos) {
    const size_t b = m + 17, e = detail.find('\'', b);
    const size_t en = detail.find("errno = ");
    std::string why = detail.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (en != std::string::npos)
      why += " (errno " + std::to_string(std::atoi(detail.c_str() + en + 8)) + ")";
    detail = "write failed: " + why;
  }
  if (!detail.empty()) msg += ": " + detail;
  if (detail.find("lock") != std::string::npos) {
    msg +=
        " (another process may have the file open; on file systems without locking set "
        "HDF5_USE_FILE_LOCKING=FALSE)";
  }
  return msg;
}

[[noreturn]] void fail_run(const std::string& file, const std::string& op,
                           const std::string& object) {
  throw RunError(hdf5_message(file, op, object));
}

[[noreturn]] void fail_config(const std::string& file, const std::string& op,
                              const std::string& object) {
  throw ConfigError(hdf5_message(file, op, object));
}

Handle checked(hid_t id, herr_t (*close)(hid_t), const std::string& file, const std::string& op,
               const std::string& object) {
  if (id < 0) fail_run(file, op, object);
  return Handle(id, close);
}

void check(herr_t status, const std::string& file, const std::string& op,
           const std::string& object) {
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

std::string hdf5_type_name(hid_t type, hid_t space) {
  const size_t bits = 8 * H5Tget_size(type);
  std::string name;
  switch (H5Tget_class(type)) {
    case H5T_INTEGER:
      name = (H5Tget_sign(type) == H5T_SGN_NONE ? "uint" : "int") + std::to_string(bits);
      break;
    case H5T_FLOAT:
      name = "float" + std::to_string(bits);
      break;
    case H5T_STRING:
      name = "string";
      break;
    case H5T_COMPOUND:
      name = "compound";
      break;
    case H5T_ENUM:
      name = "enum";
      break;
    default:
      name = "non-numeric value";
  }
  const hssize_t n = H5Sget_simple_extent_npoints(space);
  if (n == 1) return (name[0] == 'i' || name[0] == 'e' ? "an " : "a ") + name;
  return std::to_string(n) + " " + name + " values";
}

/// Opens a file read-only for the free reader functions; missing or non-HDF5 → ConfigError.
Handle open_for_reading(const std::string& file) {
  silence_hdf5();
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) throw ConfigError("'" + file + "': no such file");
  core::expect_regular_file(file, "an HDF5 file");
  if (H5Fis_hdf5(file.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw ConfigError("'" + file + "': not an HDF5 file");
  }
  hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0) {
    const std::string detail = hdf5_detail();
    if (detail.find("truncated file") != std::string::npos)
      throw ConfigError("'" + file + "': expected a complete HDF5 file, found a truncated one (" +
                        detail + ")");
    throw ConfigError("HDF5 open (read-only) failed for '" + file + "': " + detail +
                      (detail.find("lock") != std::string::npos
                           ? " (another process may have the file open; on file systems without "
                             "locking set HDF5_USE_FILE_LOCKING=FALSE)"
                           : ""));
  }
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

}  // namespace pz::io::detail

namespace pz::io {

void skip_hdf5_exit_cleanup() { H5dont_atexit(); }

}  // namespace pz::io
