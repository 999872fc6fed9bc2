// HDF5 readers of run files: metric columns, group listings and string datasets.
#include <string>
#include <vector>

#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/io/hdf5_impl.hpp"

namespace pz::io {

using namespace detail;

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

std::string read_string_attr(const std::string& file, const std::string& name) {
  Handle f = open_for_reading(file);
  if (H5Aexists(f.get(), name.c_str()) <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw core::ConfigError("'" + file + "': no root attribute '" + name + "'");
  }
  Handle attr =
      checked(H5Aopen(f.get(), name.c_str(), H5P_DEFAULT), H5Aclose, file, "open attribute", name);
  Handle type = checked(H5Aget_type(attr.get()), H5Tclose, file, "H5Aget_type", name);
  if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) <= 0)
    throw core::ConfigError("'" + file + "': attribute '" + name +
                            "' is not a variable-length string");
  Handle mem = vlen_string_type();
  char* p = nullptr;
  check(H5Aread(attr.get(), mem.get(), &p), file, "read attribute", name);
  std::string out = p ? p : "";
  H5free_memory(p);
  return out;
}

}  // namespace pz::io
