// Messages for StateDict entries a checkpoint loader needs and does not find.
#include "powerzoo/core/state_dict.hpp"

namespace pz::core {

std::string absent_entry(const StateDict& sd, const std::string& name, const char* expected_type) {
  const char* found = sd.f32.count(name)   ? "float32"
                      : sd.f64.count(name) ? "float64"
                      : sd.i64.count(name) ? "int64"
                      : sd.str.count(name) ? "string"
                                           : nullptr;
  if (!found) return "checkpoint: missing '" + name + "'";
  return "checkpoint: '" + name + "' is " + found + ", expected " + expected_type;
}

}  // namespace pz::core
