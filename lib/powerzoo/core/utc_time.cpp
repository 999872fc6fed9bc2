// UTC time formatting (gmtime_r + strftime).
#include "powerzoo/core/utc_time.hpp"

#include <ctime>

namespace pz::core {

std::string utc_now(const char* fmt) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  const size_t n = std::strftime(buf, sizeof buf, fmt, &tm);
  return std::string(buf, n);
}

}  // namespace pz::core
