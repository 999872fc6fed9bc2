// The NetworkView and trace-vector helpers grid envs share (buses and branches for pictures).
#pragma once

#include <span>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::envs {

/// The buses of `c` and its branch rows `rows` (every row when empty), with their RATE_A.
NetworkView network_view(const grid::Case& c, const std::vector<int>& rows = {});

/// Σ sizes of spec.trace_vectors: the length of Env::write_trace's output.
int trace_vector_width(const EnvSpec& spec);

/// Copies the first `size` of `values` into out[offset, offset + size) as float (entries past
/// values.size() stay as they are: a state restored without them traces zeros); returns
/// offset + size.
int put_trace(std::span<float> out, int offset, std::span<const double> values, int size);

}  // namespace pz::envs
