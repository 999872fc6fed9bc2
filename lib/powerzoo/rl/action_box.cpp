#include "powerzoo/rl/action_box.hpp"

#include <cmath>

#include "powerzoo/core/error.hpp"

namespace pz::rl {

void check_action_box(const std::string& learner, int act_dim, const std::vector<float>& low,
                      const std::vector<float>& high, const std::string& bounded_for) {
  if (low.size() != static_cast<size_t>(act_dim) || high.size() != low.size())
    throw core::ConfigError(learner + " action box: expected " + std::to_string(act_dim) +
                            " bounds, found " + std::to_string(low.size()) + " and " +
                            std::to_string(high.size()));
  if (bounded_for.empty()) return;
  for (size_t d = 0; d < low.size(); ++d)
    if (!(std::isfinite(low[d]) && std::isfinite(high[d]) && high[d] > low[d]))
      throw core::ConfigError(bounded_for + " needs a bounded action box; action " +
                              std::to_string(d) + " is [" + std::to_string(low[d]) + ", " +
                              std::to_string(high[d]) + "]");
}

}  // namespace pz::rl
