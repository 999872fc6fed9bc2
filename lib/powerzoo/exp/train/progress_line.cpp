// Progress output of a training run: throttled terminal line, plain log lines, divergence warnings.
#include "powerzoo/exp/train/progress_line.hpp"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

namespace pz::exp {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// PPO's approx_kl per update is ~0.01–0.05; one whole nat means the policy jumped.
constexpr double kKlDiverged = 1.0;
// Critic loss this many times its lowest value so far (after a few iterations): the value
// targets ran away.
constexpr double kCriticGrowth = 1e4;
constexpr int kWarmupRows = 5;

std::string num(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const long v = static_cast<long>(s);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", v / 3600, (v / 60) % 60, v % 60);
  return buf;
}

ProgressLine::ProgressLine(bool tty, double log_every_seconds, long long total_steps,
                           std::string main_cost)
    : tty_(tty),
      log_every_(log_every_seconds),
      total_(total_steps),
      main_cost_(std::move(main_cost)),
      eval_return_(kNaN),
      eval_cost_(kNaN),
      train_return_(kNaN),
      actor_loss_(kNaN),
      approx_kl_(kNaN),
      min_critic_(kNaN) {}

double ProgressLine::metric(const std::map<std::string, double>& row, const std::string& key) {
  if (const auto it = row.find(key); it != row.end()) return it->second;
  double sum = 0;
  int n = 0;
  const std::string tail = "/" + key;
  for (const auto& [k, v] : row)
    if (k.size() > tail.size() && k.compare(k.size() - tail.size(), tail.size(), tail) == 0 &&
        std::isfinite(v))
      sum += v, ++n;
  return n ? sum / n : kNaN;
}

std::string ProgressLine::text(long long steps, double wall,
                               const std::map<std::string, double>& status) const {
  const double sps = steps / std::max(wall, 1e-9);
  char head[160];
  std::snprintf(head, sizeof head, "step %lld/%lld (%.0f%%) | %.0f steps/s | ETA %s", steps, total_,
                100.0 * steps / std::max(total_, 1LL), sps,
                format_duration(std::max(0.0, (total_ - steps) / std::max(sps, 1e-9))).c_str());
  std::string s = head;
  s += " | eval return " + num(eval_return_);
  if (!main_cost_.empty()) s += " | eval " + main_cost_ + " " + num(eval_cost_);
  s += " | train return " + num(train_return_);
  s += " | actor loss " + num(actor_loss_) + " | approx_kl " + num(approx_kl_);
  for (const auto& [k, v] : status) s += " | " + k + " " + num(v);
  return s;
}

void ProgressLine::check_divergence(long long steps, const std::map<std::string, double>& row) {
  const double kl = metric(row, "losses/approx_kl");
  if (!warned_kl_ && std::isfinite(kl) && kl > kKlDiverged) {
    warned_kl_ = true;
    end_line();
    std::cerr << "powerzoo run: warning: approx_kl " << kl << " at global step " << steps
              << " (above " << kKlDiverged
              << "): the policy changes too fast per update; a lower learning rate, "
                 "clip_eps or n_epochs would keep it stable"
              << std::endl;
  }
  const double critic = metric(row, "losses/critic");
  if (!std::isfinite(critic)) return;
  ++n_rows_;
  if (n_rows_ <= kWarmupRows) return;
  if (!std::isfinite(min_critic_) || critic < min_critic_) min_critic_ = std::max(critic, 1e-12);
  if (!warned_critic_ && critic > kCriticGrowth * min_critic_) {
    warned_critic_ = true;
    end_line();
    std::cerr << "powerzoo run: warning: critic loss " << critic << " at global step " << steps
              << " is " << critic / min_critic_
              << " times its lowest so far: the value estimates diverge (reward scale, "
                 "learning rate or gamma)"
              << std::endl;
  }
}

void ProgressLine::iteration(long long steps, double wall, const std::map<std::string, double>& row,
                             const std::map<std::string, double>& status) {
  if (const auto it = row.find("episode_return"); it != row.end() && std::isfinite(it->second))
    train_return_ = it->second;
  actor_loss_ = metric(row, "losses/actor");
  if (!std::isfinite(actor_loss_)) actor_loss_ = metric(row, "losses/actor_loss");  // SAC
  approx_kl_ = metric(row, "losses/approx_kl");
  check_divergence(steps, row);
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_print_).count();
  const bool last = steps >= total_;
  if (tty_) {
    if (printed_ && since < 1.0 && !last) return;
    std::printf("\r\033[K%s", text(steps, wall, status).c_str());
    std::fflush(stdout);
    line_open_ = true;
  } else {
    if (log_every_ <= 0 || (printed_ && since < log_every_ && !last)) return;
    std::printf("%s\n", text(steps, wall, status).c_str());
    std::fflush(stdout);
  }
  printed_ = true;
  last_print_ = now;
}

void ProgressLine::eval(const std::map<std::string, double>& row) {
  if (const auto it = row.find("return_mean"); it != row.end()) eval_return_ = it->second;
  if (!main_cost_.empty()) {
    const auto it = row.find("cost/" + main_cost_);
    eval_cost_ = it == row.end() ? kNaN : it->second;
  }
}

void ProgressLine::end_line() {
  if (!line_open_) return;
  std::printf("\r\033[K");
  std::fflush(stdout);
  line_open_ = false;
}

}  // namespace pz::exp
