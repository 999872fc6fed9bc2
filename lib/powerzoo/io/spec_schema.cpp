// The spec key schema (DESIGN.md §3) and the TOML formatting shared by reader and writer.
#include "powerzoo/io/spec_schema.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "powerzoo/io/spec.hpp"

namespace pz::io::detail {

/// Every section and key of DESIGN.md §3, in canonical (to_toml) order.
const std::vector<SectionDef>& schema() {
  static const std::vector<SectionDef> kSchema = {
      {"experiment", {{"name", Kind::kStr}, {"seed", Kind::kInt}, {"out_dir", Kind::kStr}}},
      {"env",
       {{"id", Kind::kStr},
        {"task", Kind::kStr},
        {"case", Kind::kStr},
        {"profile", Kind::kStr},
        {"split", Kind::kStr},
        {"horizon", Kind::kInt},
        {"dt_hours", Kind::kFloat},
        {"load_scale", Kind::kFloat},
        {"reward_scale", Kind::kFloat},
        {"dispatch", Kind::kStr},
        {"report_opf_gap", Kind::kBool}}},
      {"vec", {{"n_envs", Kind::kInt}, {"threads", Kind::kInt}}},
      {"ppo",
       {{"total_steps", Kind::kInt},
        {"rollout_length", Kind::kInt},
        {"n_epochs", Kind::kInt},
        {"n_minibatches", Kind::kInt},
        {"learning_rate", Kind::kFloat},
        {"gamma", Kind::kFloat},
        {"gae_lambda", Kind::kFloat},
        {"clip_range", Kind::kFloat},
        {"entropy_coef", Kind::kFloat},
        {"critic_loss_weight", Kind::kFloat},
        {"max_grad_norm", Kind::kFloat},
        {"weight_decay", Kind::kFloat},
        {"adam_eps", Kind::kFloat},
        {"hidden", Kind::kIntArray},
        {"init_log_std", Kind::kFloat},
        {"normalize_obs", Kind::kBool},
        {"normalize_advantages", Kind::kBool},
        {"normalize_rewards", Kind::kBool},
        {"truncation", Kind::kStr},
        {"squash", Kind::kStr},
        {"algo", Kind::kStr},
        {"lambda_lr", Kind::kFloat},
        {"lambda_init", Kind::kFloat},
        {"log_lambda_max", Kind::kFloat},
        {"cost_gamma", Kind::kFloat},
        {"dual", Kind::kStr},
        {"pid_kp", Kind::kFloat},
        {"pid_ki", Kind::kFloat},
        {"pid_kd", Kind::kFloat},
        {"saute_unsafe_reward", Kind::kFloat}}},
      {"reward", {{"penalty", Kind::kFloatTable}}},
      {"safety",
       {{"constraints", Kind::kStrArray},
        {"thresholds", Kind::kFloatArray},
        {"cost_scale", Kind::kFloatArray}}},
      {"eval",
       {{"every_steps", Kind::kInt}, {"n_episodes", Kind::kInt}, {"splits", Kind::kStrArray}}},
      {"output",
       {{"trajectories", Kind::kStr},
        {"checkpoint_every_steps", Kind::kInt},
        {"keep_checkpoints", Kind::kInt}}},
      {"sweep", {}},
  };
  return kSchema;
}

const SectionDef* find_section(std::string_view name) {
  for (const auto& s : schema()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

const KeyDef* find_key(const SectionDef& sec, std::string_view key) {
  for (const auto& k : sec.keys) {
    if (key == k.key) return &k;
  }
  return nullptr;
}

std::vector<std::string> section_names() {
  std::vector<std::string> out;
  for (const auto& s : schema()) out.emplace_back(s.name);
  return out;
}

std::vector<std::string> key_names(const SectionDef& sec) {
  std::vector<std::string> out;
  for (const auto& k : sec.keys) out.emplace_back(k.key);
  return out;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

/// Shortest round-trip decimal form of a double that TOML reads back as a float.
std::string format_double(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  // Shortest round-trip text; plain decimal notation unless scientific is clearly shorter.
  char buf[400];
  auto res = std::to_chars(buf, buf + sizeof(buf), x);
  std::string s(buf, res.ptr);
  auto fixed = std::to_chars(buf, buf + sizeof(buf), x, std::chars_format::fixed);
  if (fixed.ec == std::errc() && static_cast<size_t>(fixed.ptr - buf) <= s.size() + 3) {
    s.assign(buf, fixed.ptr);
  }
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

/// TOML basic string with escapes (UTF-8 passes through unchanged).
std::string quote(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04X", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

/// A key as written in TOML: bare if possible, quoted otherwise.
std::string toml_key(std::string_view k) {
  bool bare = !k.empty() && std::all_of(k.begin(), k.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-';
  });
  return bare ? std::string(k) : quote(k);
}

}  // namespace pz::io::detail

namespace pz::io {
namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                                          std::tolower(static_cast<unsigned char>(b[j - 1]))
                                      ? 0
                                      : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
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

}  // namespace pz::io
