#include "powerzoo/rl/learner_entry_util.hpp"

#include <algorithm>
#include <cmath>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/format.hpp"

namespace pz::rl {

void check_bounded_action_box(const LearnerContext& ctx, const std::string& key,
                              const std::string& setting) {
  for (int d = 0; d < ctx.act_dim; ++d) {
    const float lo = ctx.act_low.at(d), hi = ctx.act_high.at(d);
    if (std::isfinite(lo) && std::isfinite(hi) && hi > lo) continue;
    throw core::ConfigError(ctx.where(key) + setting +
                            ": expected an env with a bounded action box, found action " +
                            std::to_string(d) + " of " + ctx.env_id + " in [" +
                            core::format_number(lo, 6) + ", " + core::format_number(hi, 6) + "]");
  }
}

double mlp_macs(int in, const std::vector<int>& hidden, int out) {
  double m = 0;
  int prev = in;
  for (int h : hidden) m += static_cast<double>(prev) * h, prev = h;
  return m + static_cast<double>(prev) * out;
}

double mlp_first_layer_macs(int in, const std::vector<int>& hidden, int out) {
  return static_cast<double>(in) * (hidden.empty() ? out : hidden[0]);
}

int widest_layer(const std::vector<int>& hidden) {
  int w = 0;
  for (int h : hidden) w = std::max(w, h);
  return w;
}

std::string hidden_text(const std::vector<int>& hidden) {
  std::string s = "hidden";
  for (int h : hidden) s += " " + std::to_string(h);
  return s;
}

}  // namespace pz::rl
