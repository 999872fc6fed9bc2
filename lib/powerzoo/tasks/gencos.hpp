// GenCos task (PowerZooJax powerzoojax/tasks/gencos.py and benchmarks/gencos/configs;
// docs/tasks/gencos.md): five bidding generator companies on case5 with GB demand mapped onto the
// load buses, and its baselines.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "powerzoo/envs/env.hpp"
#include "powerzoo/envs/gencos_market.hpp"
#include "powerzoo/envs/registry.hpp"

namespace pz::tasks {

/// PowerZooJax's GenCos load mapping (load_gencos_profiles in tasks/gencos.py) of a demand series
/// `mw` (MW, the split's window; non-finite entries dropped): min–max normalized over the window,
/// mapped to d_min + n·(d_max − d_min) per load bus [D] and clipped to [d_min, d_max], times
/// `mult`, then each row's total projected into [sum_pmin + 1, sum_pmax − 1] (a low row rescaled
/// with its own mix, or the d_max mix if its total is ≈ 0; a high row scaled down). Returns [T × D]
/// row-major, MW. Throws core::ConfigError if `mw` has fewer than 2 finite values or d_min/d_max
/// differ in size.
std::vector<double> gencos_bus_loads(const std::vector<double>& mw,
                                     const std::vector<double>& d_min,
                                     const std::vector<double>& d_max, double mult, double sum_pmin,
                                     double sum_pmax);

/// The GenCos market env of the spec (task "gencos" or id "gencos_market") on `split`: train,
/// iid, demand_shift (iid, loads ×1.10) or renewable_shock (iid, loads ×1.05). Throws
/// core::ConfigError naming the key for a case without the five units at buses 1, 1, 3, 4, 5 and
/// load buses 2, 3, 4, a profile with another step than dt_hours, or an unknown split.
std::shared_ptr<const envs::Env> make_gencos_env(const envs::BuildContext& ctx);

/// GenCos baselines (fixed bids for every agent): "truthful" and "no_control" (a = −1, offer =
/// base), "uniform_mid" (a = 0, offer = (1 + max_markup/2)·base), "max_markup" (a = +1, offer =
/// (1 + max_markup)·base). nullopt for another name or env.
std::optional<envs::PolicyFn> gencos_baseline(const std::string& name,
                                              std::shared_ptr<const envs::Env> env);

}  // namespace pz::tasks
