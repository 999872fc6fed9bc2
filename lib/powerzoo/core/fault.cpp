// Fault injection points (tests only; see fault.hpp).
#include "powerzoo/core/fault.hpp"

#include <signal.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

namespace pz::core {
namespace {

struct Target {
  std::string site;
  long count = 0;
};

const Target& target() {
  static const Target t = [] {
    Target out;
    const char* v = std::getenv("POWERZOO_FAULT_INJECT");
    if (!v) return out;
    const char* colon = std::strrchr(v, ':');
    if (!colon) return out;
    out.site.assign(v, colon);
    out.count = std::atol(colon + 1);
    return out;
  }();
  return t;
}

}  // namespace

void fault_point(const char* site) {
  const Target& t = target();
  if (t.count <= 0 || t.site != site) return;
  static std::atomic<long> hits{0};
  if (hits.fetch_add(1) + 1 == t.count) ::raise(SIGKILL);
}

}  // namespace pz::core
