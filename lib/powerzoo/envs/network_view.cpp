// NetworkView of a MATPOWER case and the trace-vector copy helper.
#include "powerzoo/envs/network_view.hpp"

#include <algorithm>

namespace pz::envs {

NetworkView network_view(const grid::Case& c, const std::vector<int>& rows) {
  NetworkView v;
  v.case_name = c.name;
  for (const auto& b : c.bus) v.bus_id.push_back(b.id);
  auto add = [&](const grid::Branch& br) {
    v.branch_from.push_back(br.from);
    v.branch_to.push_back(br.to);
    v.branch_rate_mva.push_back(static_cast<float>(br.rate_a_mva));
  };
  if (rows.empty())
    for (const auto& br : c.branch) add(br);
  else
    for (int r : rows) add(c.branch[r]);
  return v;
}

int trace_vector_width(const EnvSpec& spec) {
  int n = 0;
  for (const auto& t : spec.trace_vectors) n += t.size;
  return n;
}

int put_trace(std::span<float> out, int offset, std::span<const double> values, int size) {
  const size_t n = std::min(values.size(), static_cast<size_t>(std::max(size, 0)));
  for (size_t i = 0; i < n && offset + i < out.size(); ++i)
    out[offset + i] = static_cast<float>(values[i]);
  return offset + size;
}

}  // namespace pz::envs
