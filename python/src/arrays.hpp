// numpy <-> C++ conversions of the Python module: copies out of the vector env's buffers, and the
// checks of arrays coming in (shape, dtype, finiteness) that raise ValueError naming what was
// expected and what was found.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

namespace pz::py {

namespace pyb = pybind11;

/// A new float32 / bool / float64 / int32 numpy array of `shape` holding a copy of `data`.
pyb::array_t<float> f32_array(const float* data, std::vector<pyb::ssize_t> shape);
pyb::array_t<bool> bool_array(const uint8_t* data, std::vector<pyb::ssize_t> shape);
pyb::array_t<double> f64_array(const double* data, std::vector<pyb::ssize_t> shape);
pyb::array_t<int32_t> i32_array(const int32_t* data, std::vector<pyb::ssize_t> shape);

/// `obj` as a C-contiguous float32 array of exactly `shape` with finite values. Throws
/// pybind11::value_error naming `what`, the expected and the found shape or dtype, or the index
/// and value of the first non-finite entry.
pyb::array_t<float> finite_f32(pyb::handle obj, const std::vector<pyb::ssize_t>& shape,
                               const std::string& what);

/// "[2, 5]"
std::string shape_text(const std::vector<pyb::ssize_t>& shape);

}  // namespace pz::py
