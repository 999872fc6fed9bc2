// What a run prints while it trains: one refreshing line on a terminal (about once a second), a
// plain line every few seconds elsewhere (SLURM logs, pipes), and divergence warnings.
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace pz::exp {

/// "H:MM:SS" of a duration in seconds ("?" when negative or not finite).
std::string format_duration(double seconds);

class ProgressLine {
 public:
  /// tty: redraw one line at most once a second; otherwise a plain line every `log_every_seconds`
  /// (<= 0: none). `total_steps` for the percentage and ETA; `main_cost` is the cost channel shown
  /// ("" = none).
  ProgressLine(bool tty, double log_every_seconds, long long total_steps, std::string main_cost);

  /// After each train row (keys as in /metrics/train; the learner's status appended). Prints when
  /// due, and warns once on stderr when approx_kl or the critic loss diverge.
  void iteration(long long steps, double wall_seconds, const std::map<std::string, double>& row,
                 const std::map<std::string, double>& status);
  /// After each evaluation (keys as in /metrics/eval).
  void eval(const std::map<std::string, double>& row);
  /// Ends the terminal line (before other output).
  void end_line();

  /// The line's text (no newline).
  std::string text(long long steps, double wall_seconds,
                   const std::map<std::string, double>& status) const;

  /// "losses/approx_kl" of a row, or the mean over the per-group keys ending in "/<key>" (IPPO's
  /// "battery/losses/approx_kl"); NaN when there is none.
  static double metric(const std::map<std::string, double>& row, const std::string& key);

 private:
  void check_divergence(long long steps, const std::map<std::string, double>& row);

  bool tty_;
  double log_every_;
  long long total_;
  std::string main_cost_;
  std::chrono::steady_clock::time_point last_print_;
  bool printed_ = false, line_open_ = false;
  double eval_return_, eval_cost_, train_return_, actor_loss_, approx_kl_;
  double min_critic_;
  int n_rows_ = 0;
  bool warned_kl_ = false, warned_critic_ = false;
};

}  // namespace pz::exp
