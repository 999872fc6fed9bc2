// The TSO task's synthetic daily shapes (PowerZooJax powerzoojax/tasks/tso.py): gross demand,
// wind, solar, net load.
#pragma once

namespace pz::data {

/// Synthetic gross-demand factor at hour t_h (hours from 00:00): 0.75 + 0.25·sin(2π(t_h−3)/24).
double synthetic_gross(double t_h);
/// Synthetic wind factor at hour t_h: 0.3 + 0.2·sin(2π(t_h−2)/24 + π).
double synthetic_wind(double t_h);
/// Synthetic solar factor at hour t_h: 0.4·max(cos(2π(t_h−12)/24), 0) while |t_h mod 24 − 12| < 6,
/// else 0.
double synthetic_solar(double t_h);
/// Net-load factor clip(gross_norm − 0.7·wind(t_h) − 0.5·solar(t_h), 0.05, 1), gross_norm being
/// gross demand over its peak (dimensionless).
double synthetic_net_load(double gross_norm, double t_h);

}  // namespace pz::data
