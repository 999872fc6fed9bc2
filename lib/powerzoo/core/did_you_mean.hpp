// "Did you mean": the closest known name to a misspelt key, section, channel or command.
#pragma once

#include <string>
#include <vector>

namespace pz::core {

/// Closest candidate to `word` ("" if nothing is close): aliases other RL libraries use (lr,
/// ent_coef, num_envs, ...), then edit distance within a length-dependent tolerance, then an
/// abbreviation (same first letter, subsequence). Case-insensitive. Dotted words compare whole.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace pz::core
