#include "powerzoo/core/format.hpp"

#include <charconv>

namespace pz::core {

std::string format_number(double x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string format_number(double x, int significant_digits) {
  return format_printf("%.*g", significant_digits, x);
}

}  // namespace pz::core
