// [log] levels and percentile reductions of the train and eval rows (the seed trainer's
// LoggingLevel flags and logging_percentiles).
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pz::exp {

/// The [log] level a train column belongs to: "losses" (losses/actor, critic, entropy, total,
/// regularization, cost_critic, SAC's actor_loss, q_loss, alpha_loss), "actor_extra"
/// (losses/approx_kl, losses/clipping_fraction, policy/*, sac/alpha), "critic_extra"
/// (losses/critic_R^2, sac/q_mean), "grad_norm", "weights" (weights/*), "throughput"
/// (throughput/*); "" for columns recorded at every level (global_step, wall_time, episode and
/// rollout columns, λ, safety estimates). Multi-agent group/<name>/<column> takes <column>'s.
std::string metric_level(std::string_view column);

/// `row` without the columns whose level is not in `levels`.
std::map<std::string, double> filter_levels(const std::map<std::string, double>& row,
                                            const std::vector<std::string>& levels);

/// The q-th percentile (q in [0, 100]) of `x` with linear interpolation between order
/// statistics (numpy's default); NaN for an empty x.
double percentile(std::vector<double> x, double q);

/// "p25", "p2.5": the column suffix of percentile q.
std::string percentile_name(double q);

/// Adds `prefix` + percentile_name(q) + `suffix` = percentile(x, q) for each q.
void add_percentiles(std::map<std::string, double>& row, const std::string& prefix,
                     const std::string& suffix, const std::vector<double>& x,
                     const std::vector<double>& qs);

/// weights/mean, weights/std, weights/abs_max over every element of `params` (all trainable
/// parameters as one vector, as the seed trainer), and weights/p<q> for each q.
void add_weight_stats(std::map<std::string, double>& row,
                      const std::vector<std::span<const float>>& params,
                      const std::vector<double>& qs);

}  // namespace pz::exp
