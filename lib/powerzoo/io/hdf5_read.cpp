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

}  // namespace pz::io
