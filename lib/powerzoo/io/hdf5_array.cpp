// read_array: any numeric dataset, converted by HDF5 to double.
#include "powerzoo/io/hdf5_array.hpp"

#include "powerzoo/core/error.hpp"
#include "powerzoo/io/hdf5_impl.hpp"

namespace pz::io {

using namespace detail;

ArrayF64 read_array(const std::string& file, const std::string& path) {
  Handle f = open_for_reading(file);
  Handle ds = open_dataset(f.get(), file, path);
  Handle type = checked(H5Dget_type(ds.get()), H5Tclose, file, "H5Dget_type", path);
  Handle space = checked(H5Dget_space(ds.get()), H5Sclose, file, "H5Dget_space", path);
  const H5T_class_t cls = H5Tget_class(type.get());
  if (cls != H5T_FLOAT && cls != H5T_INTEGER)
    throw core::ConfigError("'" + file + "': dataset '" + path + "': expected numbers, found " +
                            hdf5_type_name(type.get(), space.get()));
  ArrayF64 a;
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(static_cast<size_t>(std::max(rank, 0)));
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  size_t n = 1;
  for (hsize_t d : dims) {
    a.shape.push_back(static_cast<int64_t>(d));
    n *= static_cast<size_t>(d);
  }
  a.data.resize(n);
  if (n > 0)
    check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data.data()), file,
          "read dataset", path);
  return a;
}

}  // namespace pz::io
