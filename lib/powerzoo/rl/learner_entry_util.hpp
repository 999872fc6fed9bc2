// Pieces every learner entry uses: the bounded-action-box check of the spec and the multiply-adds
// of its networks for the bench.
#pragma once

#include <string>
#include <vector>

#include "powerzoo/rl/learner.hpp"

namespace pz::rl {

/// Refuses an env whose action box is not bounded (a policy that maps onto the box needs finite
/// bounds, high > low): throws core::ConfigError at ctx.where(key) with "<setting>: expected an
/// env with a bounded action box, found action d of <env> in [lo, hi]".
void check_bounded_action_box(const LearnerContext& ctx, const std::string& key,
                              const std::string& setting);

/// Multiply-adds of one forward pass of a sample through an MLP in -> hidden... -> out.
double mlp_macs(int in, const std::vector<int>& hidden, int out);
/// Multiply-adds of its first layer (the one without input gradients).
double mlp_first_layer_macs(int in, const std::vector<int>& hidden, int out);
/// The widest hidden layer (0 without one): the width of the dominant GEMM.
int widest_layer(const std::vector<int>& hidden);
/// "hidden 64 64" for the bench header.
std::string hidden_text(const std::vector<int>& hidden);

}  // namespace pz::rl
