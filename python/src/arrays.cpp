// numpy conversions.
#include "arrays.hpp"

#include <cmath>
#include <cstring>
#include <sstream>

namespace pz::py {

namespace {

template <typename T>
pyb::array_t<T> copy_array(const T* data, std::vector<pyb::ssize_t> shape) {
  pyb::array_t<T> a(shape);
  const size_t n = static_cast<size_t>(a.size());
  if (n > 0) std::memcpy(a.mutable_data(), data, n * sizeof(T));
  return a;
}

}  // namespace

pyb::array_t<float> f32_array(const float* data, std::vector<pyb::ssize_t> shape) {
  return copy_array(data, std::move(shape));
}
pyb::array_t<double> f64_array(const double* data, std::vector<pyb::ssize_t> shape) {
  return copy_array(data, std::move(shape));
}
pyb::array_t<int32_t> i32_array(const int32_t* data, std::vector<pyb::ssize_t> shape) {
  return copy_array(data, std::move(shape));
}
pyb::array_t<bool> bool_array(const uint8_t* data, std::vector<pyb::ssize_t> shape) {
  pyb::array_t<bool> a(shape);
  bool* out = a.mutable_data();
  for (pyb::ssize_t i = 0; i < a.size(); ++i) out[i] = data[i] != 0;
  return a;
}

std::string shape_text(const std::vector<pyb::ssize_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

pyb::array_t<float> finite_f32(pyb::handle obj, const std::vector<pyb::ssize_t>& shape,
                               const std::string& what) {
  const std::string want = "an array of shape " + shape_text(shape) + " of real numbers";
  if (obj.is_none()) throw pyb::value_error(what + ": expected " + want + ", found None");
  pyb::array arr = pyb::array::ensure(obj);
  if (!arr) {
    PyErr_Clear();
    throw pyb::value_error(what + ": expected " + want + ", found a " +
                           std::string(pyb::str(pyb::type::handle_of(obj).attr("__name__"))) +
                           " that numpy cannot read as an array");
  }
  const char kind = arr.dtype().kind();
  if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
    throw pyb::value_error(what + ": expected " + want + ", found dtype " +
                           std::string(pyb::str(arr.dtype())));
  std::vector<pyb::ssize_t> found(arr.shape(), arr.shape() + arr.ndim());
  if (found != shape)
    throw pyb::value_error(what + ": expected shape " + shape_text(shape) + ", found shape " +
                           shape_text(found));
  auto f = pyb::array_t<float, pyb::array::c_style | pyb::array::forcecast>::ensure(arr);
  if (!f) {
    PyErr_Clear();
    throw pyb::value_error(what + ": expected " + want + ", found dtype " +
                           std::string(pyb::str(arr.dtype())) +
                           " that does not convert to float32");
  }
  const float* p = f.data();
  for (pyb::ssize_t i = 0; i < f.size(); ++i) {
    if (std::isfinite(p[i])) continue;
    std::vector<pyb::ssize_t> idx(shape.size());
    pyb::ssize_t rem = i;
    for (size_t d = shape.size(); d-- > 0;) {
      idx[d] = shape[d] > 0 ? rem % shape[d] : 0;
      rem = shape[d] > 0 ? rem / shape[d] : 0;
    }
    std::ostringstream v;
    v << p[i];
    throw pyb::value_error(
        what + ": expected finite numbers, found " + v.str() + " at index " + shape_text(idx) +
        (kind == 'f' && std::isinf(p[i]) ? " (after conversion to float32)" : ""));
  }
  return f;
}

}  // namespace pz::py
