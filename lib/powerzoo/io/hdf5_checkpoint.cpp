// HDF5 checkpoint files: a core::StateDict plus the resolved config, written atomically
// (temporary file, fsync, rename) and read back with type checks.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "powerzoo/core/fault.hpp"
#include "powerzoo/io/hdf5.hpp"
#include "powerzoo/io/hdf5_impl.hpp"

namespace pz::io {

using namespace detail;
using core::ConfigError;
using core::RunError;

namespace {

/// Value of the root attribute powerzoo_checkpoint: the layout version of checkpoint files.
constexpr int64_t kCheckpointFormat = 1;

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

}  // namespace

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
        // The reader refuses a non-finite learner tensor: never write one (a diverged learner
        // stops the run, and the previous checkpoint stays the newest).
        for (size_t i = 0; i < v.size(); ++i)
          if (!std::isfinite(v[i]))
            throw RunError("refusing to write checkpoint '" + path + "': entry '" + name +
                           "' holds a non-finite value (" + std::to_string(v[i]) + " at index " +
                           std::to_string(i) + ")");
        write_vector(fid, tmp, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, v.size(), v.data());
      }
      core::fault_point("checkpoint");
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
      write_int_attr(fid, tmp, "powerzoo_checkpoint", kCheckpointFormat);
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

namespace {

/// What no run writes, by dataset name, so that a damaged or edited file is refused at load:
/// non-finite learner statistics (a mean of Inf scaled every observation to NaN), negative Adam
/// second moments or step counts (the update divided by their root), and an all-zero state of a
/// xoshiro stream (it then draws zeros forever). The episode sums of the vector env are finite.
void check_learner_state(const core::StateDict& sd, const std::string& path) {
  auto fail = [&](const std::string& name, const std::string& expected, const std::string& found) {
    throw ConfigError("'" + path + "': expected " + expected + " in checkpoint dataset '" + name +
                      "', found " + found);
  };
  auto contains = [](const std::string& name, const char* part) {
    return name.find(part) != std::string::npos;
  };
  for (const auto& [name, v] : sd.f64)
    if (name.rfind("learner/", 0) == 0 || name == "vec/episode_stats")
      for (size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
          fail(name, "finite values", std::to_string(v[i]) + " at index " + std::to_string(i));
  for (const auto& [name, v] : sd.f32)
    if (contains(name, "adam/v/") || (contains(name, "adam/") && name.size() >= 2 &&
                                      name.compare(name.size() - 2, 2, "/v") == 0))
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i] < 0)
          fail(name, "Adam second moments >= 0",
               std::to_string(v[i]) + " at index " + std::to_string(i));
  for (const auto& [name, v] : sd.i64) {
    if (contains(name, "adam/") && contains(name, "step"))
      for (int64_t x : v)
        if (x < 0) fail(name, "an Adam step count >= 0", std::to_string(x));
    if (name.rfind("rng/", 0) == 0 || name == "vec/rngs")
      for (size_t i = 0; i + 4 <= v.size(); i += 4)
        if (v[i] == 0 && v[i + 1] == 0 && v[i + 2] == 0 && v[i + 3] == 0)
          fail(name, "a random stream state that is not all zero",
               "four zero words at index " + std::to_string(i));
  }
}

}  // namespace

core::StateDict read_checkpoint(const std::string& path, std::string* resolved_toml) {
  Handle f = open_for_reading(path);
  const hid_t fid = f.get();
  if (H5Aexists(fid, "powerzoo_checkpoint") <= 0) {
    H5Eclear2(H5E_DEFAULT);
    throw ConfigError("'" + path +
                      "' is not a powerzoo checkpoint (no 'powerzoo_checkpoint' attribute)");
  }
  {
    // The attribute's value is the checkpoint format; another one is another powerzoo's layout.
    int64_t format = -1;
    Handle attr = checked(H5Aopen(fid, "powerzoo_checkpoint", H5P_DEFAULT), H5Aclose, path,
                          "open attribute", "powerzoo_checkpoint");
    // Read as an integer only when it is one: a string attribute failed inside HDF5 and a float
    // 1.5 was converted to format 1.
    Handle atype =
        checked(H5Aget_type(attr.get()), H5Tclose, path, "H5Aget_type", "powerzoo_checkpoint");
    Handle aspace =
        checked(H5Aget_space(attr.get()), H5Sclose, path, "H5Aget_space", "powerzoo_checkpoint");
    if (H5Tget_class(atype.get()) != H5T_INTEGER || H5Sget_simple_extent_npoints(aspace.get()) != 1)
      throw ConfigError("'" + path +
                        "': expected the root attribute 'powerzoo_checkpoint' to be one integer "
                        "(the checkpoint format, " +
                        std::to_string(kCheckpointFormat) + "), found " +
                        hdf5_type_name(atype.get(), aspace.get()));
    if (H5Aread(attr.get(), H5T_NATIVE_INT64, &format) < 0) fail_config(path, "read attribute");
    if (format != kCheckpointFormat)
      throw ConfigError("'" + path + "': expected checkpoint format " +
                        std::to_string(kCheckpointFormat) + ", found " + std::to_string(format) +
                        " (written by another powerzoo version)");
  }
  std::vector<std::string> names;
  auto visit = [](hid_t, const char* name, const H5O_info_t* info, void* data) -> herr_t {
    if (info->type == H5O_TYPE_DATASET)
      static_cast<std::vector<std::string>*>(data)->push_back(name);
    return 0;
  };
  if (H5Ovisit(fid, H5_INDEX_NAME, H5_ITER_INC, visit, &names) < 0) fail_config(path, "visit");

  for (const auto& name : names)
    for (const char* group : {"config", "counters", "data", "history", "learner", "rng", "vec"})
      if (name == group)  // eval read a `counters` dataset as "no counters" and went on
        throw ConfigError("'" + path + "': expected '" + name +
                          "' to be a group of datasets, found a dataset");
  core::StateDict sd;
  for (const auto& name : names) {
    Handle ds = open_dataset(fid, path, name);
    if (name == "config/resolved") {
      if (resolved_toml) {
        *resolved_toml = read_string_dataset(ds.get(), path, name);
        // An empty one read as a spec of defaults, and the learner layout then "differed".
        if (resolved_toml->find_first_not_of(" \t\r\n") == std::string::npos)
          throw ConfigError("'" + path +
                            "': expected the run's resolved spec in /config/resolved, "
                            "found an empty string");
      }
      continue;
    }
    Handle type = checked(H5Dget_type(ds.get()), H5Tclose, path, "H5Dget_type", name);
    H5T_class_t cls = H5Tget_class(type.get());
    size_t size = H5Tget_size(type.get());
    if (cls == H5T_FLOAT && size == 4) {
      // float32 entries are learner tensors (parameters, optimizer moments): never non-finite
      // in a checkpoint a run wrote (it stops before writing one); a NaN is a damaged file.
      sd.f32[name] = read_vector<float>(ds.get(), H5T_NATIVE_FLOAT, path, name);
      const auto& v = sd.f32[name];
      for (size_t i = 0; i < v.size(); ++i)
        if (!std::isfinite(v[i]))
          throw ConfigError("'" + path + "': expected finite values in checkpoint dataset '" +
                            name + "', found a non-finite value (" + std::to_string(v[i]) +
                            " at index " + std::to_string(i) + ")");
    } else if (cls == H5T_FLOAT && size == 8) {
      sd.f64[name] = read_vector<double>(ds.get(), H5T_NATIVE_DOUBLE, path, name);
    } else if (cls == H5T_INTEGER && size == 8 && H5Tget_sign(type.get()) == H5T_SGN_2) {
      sd.i64[name] = read_vector<int64_t>(ds.get(), H5T_NATIVE_INT64, path, name);
    } else if (cls == H5T_STRING) {
      sd.str[name] = read_string_dataset(ds.get(), path, name);
    } else {
      Handle space = checked(H5Dget_space(ds.get()), H5Sclose, path, "H5Dget_space", name);
      throw ConfigError("'" + path + "': checkpoint dataset '" + name +
                        "': expected float32, float64, int64 or string values, found " +
                        hdf5_type_name(type.get(), space.get()));
    }
  }
  if (resolved_toml && std::find(names.begin(), names.end(), "config/resolved") == names.end()) {
    throw ConfigError("'" + path + "': checkpoint has no /config/resolved");
  }
  check_learner_state(sd, path);
  return sd;
}

}  // namespace pz::io
