// `powerzoo bench` rows for outage steps: µs per env step of the DC envs with the network intact,
// with one branch held out and with a new single-branch set every step (issue 36: a single branch
// outage should cost at most twice a normal step).
#pragma once

#include <string>
#include <vector>

namespace pz::exp {

/// One env configuration the outage rows time: a bundled spec (relative to the source dir) with
/// overrides, and two in-service branches of its case (1-based rows of mpc.branch) whose single
/// outages do not island the network.
struct OutageBenchCase {
  std::string name;                    ///< row label, e.g. "trans_grid_dcopf_case118"
  std::string spec;                    ///< relative to the source dir
  std::vector<std::string> overrides;  ///< key=value, as on the command line
  int branch_a = 0, branch_b = 0;      ///< held: a out; swap: a, b, a, b, ... out
};

/// The fixed rows: trans_grid DC agent dispatch (case118), trans_grid DC-OPF dispatch (case118,
/// case5), the TSO task (unit_commitment, case118) and the GenCos task (gencos_market, case5).
std::vector<OutageBenchCase> outage_bench_cases();

/// The scenario file (CSV, docs/outages.md) of a `horizon`-step episode: "held" takes branch a out
/// at step 0 for the whole episode; "swap" takes a out at step 0 and then alternates a and b every
/// step (a new single-branch set each step: one row brings the previous branch back, one takes the
/// other out). Throws core::ConfigError for another scenario name or horizon < 1.
std::string outage_schedule_csv(const std::string& scenario, int horizon, int a, int b);

struct OutageBenchResult {
  OutageBenchCase row;
  int n_envs = 0, vector_steps = 0;  ///< timed steps: n_envs × vector_steps env steps, 1 thread
  double intact_us = 0, held_us = 0, swap_us = 0;  ///< wall µs per env step
  double held_ratio() const { return held_us / intact_us; }
  double swap_ratio() const { return swap_us / intact_us; }
};

/// Times the row's env three ways (no outage file; the held schedule; the swap schedule, written
/// to a temporary file and removed): n_envs envs on one thread, one episode of warm-up, then
/// `vector_steps` vector steps of fixed random actions (the same seeds in every run, so the work
/// is the same from run to run; only the wall time varies with the machine's load); the three
/// alternate over 3 rounds and each time is the median of its rounds. Throws
/// core::ConfigError if a branch of the row is out of range, out of service or islands.
OutageBenchResult bench_outages(const OutageBenchCase& row, int n_envs, int vector_steps);

/// Rows as a fixed-width table (µs per step and the ratio to intact).
std::string outage_bench_table(const std::vector<OutageBenchResult>& rows);

/// Rows as a JSON array text: per row "name", "spec", "overrides", "branch_a", "branch_b",
/// "n_envs", "vector_steps", "intact_us", "held_us", "swap_us", "held_ratio", "swap_ratio".
std::string outage_bench_json(const std::vector<OutageBenchResult>& rows);

}  // namespace pz::exp
