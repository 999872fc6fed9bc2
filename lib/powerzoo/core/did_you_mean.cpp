// "Did you mean": the closest known name to a misspelt key, section, channel or command.
#include "powerzoo/core/did_you_mean.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <string_view>

namespace pz::core {
namespace {

/// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
/// two adjacent letters ("acfp" is one edit from "acpf"), case-insensitive.
size_t edit_distance(std::string_view a, std::string_view b) {
  auto eq = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  };
  std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] =
          std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (eq(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && eq(a[i - 1], b[j - 2]) && eq(a[i - 2], b[j - 1]))
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// True if every character of `word` appears in `cand` in order ("lr" in "learning_rate").
bool is_subsequence(std::string_view word, std::string_view cand) {
  size_t j = 0;
  for (char c : cand) {
    if (j < word.size() && std::tolower(static_cast<unsigned char>(c)) ==
                               std::tolower(static_cast<unsigned char>(word[j]))) {
      ++j;
    }
  }
  return j == word.size();
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  if (word.empty() || candidates.empty()) return "";
  // Names other RL libraries use for the same settings.
  static const std::map<std::string, std::string> kAliases = {{"lr", "learning_rate"},
                                                              {"ent_coef", "entropy_coef"},
                                                              {"vf_coef", "critic_loss_weight"},
                                                              {"n_steps", "rollout_length"},
                                                              {"num_envs", "n_envs"},
                                                              {"num_steps", "rollout_length"},
                                                              {"clip_coef", "clip_range"},
                                                              {"update_epochs", "n_epochs"},
                                                              {"num_minibatches", "n_minibatches"},
                                                              {"lam", "gae_lambda"},
                                                              {"total_timesteps", "total_steps"}};
  // Dotted words ("ppo.lr") map their last component through the alias table.
  std::string head, tail = word;
  if (auto dot = word.rfind('.'); dot != std::string::npos) {
    head = word.substr(0, dot + 1);
    tail = word.substr(dot + 1);
  }
  if (auto it = kAliases.find(tail); it != kAliases.end()) {
    std::string target = head + it->second;
    if (std::find(candidates.begin(), candidates.end(), target) != candidates.end()) return target;
  }
  // 1. Closest by edit distance within a tolerance that grows with the word's length.
  size_t tol = word.size() <= 4 ? 1 : word.size() <= 8 ? 2 : 3;
  std::string best;
  size_t best_d = std::numeric_limits<size_t>::max();
  for (const auto& c : candidates) {
    size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  if (best_d <= tol && best_d < std::max(word.size(), best.size())) return best;
  // 2. An abbreviation: same first letter and a subsequence ("lr" -> "learning_rate").
  std::string abbrev;
  if (tail.size() >= 2) {
    for (const auto& c : candidates) {
      std::string_view ct = c;
      if (!head.empty()) {
        if (c.rfind(head, 0) != 0) continue;
        ct = ct.substr(head.size());
      }
      if (!ct.empty() &&
          std::tolower(static_cast<unsigned char>(ct[0])) ==
              std::tolower(static_cast<unsigned char>(tail[0])) &&
          is_subsequence(tail, ct) && (abbrev.empty() || c.size() < abbrev.size())) {
        abbrev = c;
      }
    }
  }
  return abbrev;
}

}  // namespace pz::core
