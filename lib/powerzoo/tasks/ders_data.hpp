// The DERs task's data: AEMO NSW1 demand days as the feeder's load shape, each paired with the
// synthetic GB PV capacity factors of the same calendar day, split every 4th day to iid
// (data/README.md, docs/deviations.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "powerzoo/data/aemo_feeders.hpp"
#include "powerzoo/data/capacity_factors.hpp"

namespace pz::tasks {

/// The paired days of one split, concatenated in date order: day k is steps [48k, 48k + 48).
struct DersDays {
  std::vector<double> load;        ///< load shape: demand / the year's peak demand (max 1)
  std::vector<double> pv;          ///< PV shape: capacity factor / the year's peak (max 1)
  std::vector<int64_t> starts;     ///< 48k for every day k
  std::vector<std::string> dates;  ///< local (load) date of each day, "YYYY-MM-DD"
};

struct DersData {
  std::string load_path, pv_path;
  DersDays train, iid;
  double load_peak = 0;  ///< peak of the mean-1 load shape over the kept days
  double pv_peak = 0;    ///< peak capacity factor over the kept days' PV windows
};

/// Pairs the load days of `load` (one region; market days from 00:00 local time) with `pv`:
/// the first 365 market days are kept (so each month and day occurs once), market day d with
/// local date D is `iid` when d ≡ 0 (mod 4) and `train` otherwise (the DSO rule), and D's PV
/// window is the 48 intervals from 00:00 UTC of the day with D's month and day in the PV
/// series' first year. Both shapes are divided by their peak over the kept days. Throws
/// core::ConfigError (naming pv.path) if the PV series does not cover a paired day.
DersData pair_ders_days(const data::AemoFeeders& load, const data::CapacityFactors& pv);

/// The bundled data (data/profiles/aemo_operational_demand_30min.csv, NSW1; and
/// data/profiles/gb_solar_synthetic_30min.csv), loaded and paired once per process.
const DersData& ders_data();

}  // namespace pz::tasks
