// AC solver timings for `powerzoo bench --only acpf,acopf`: cold (fresh solver, MATPOWER's start)
// and warm (kept solver, drifting loads, started from the previous solution) solves.
#include <chrono>
#include <optional>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/rng.hpp"
#include "powerzoo/exp/bench/bench.hpp"
#include "powerzoo/grid/ac/acopf.hpp"
#include "powerzoo/grid/ac/acpf.hpp"
#include "powerzoo/grid/case/case.hpp"

namespace pz::exp {

namespace {

using Clock = std::chrono::steady_clock;

double us_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

/// Loads of `c` scaled by 1 ± 2 % (one factor for the whole system), into pd / qd.
void drift(const grid::Case& c, core::Rng& rng, std::vector<double>& pd, std::vector<double>& qd) {
  const double f = 1.0 + 0.02 * (2 * rng.uniform() - 1);
  for (size_t b = 0; b < c.bus.size(); ++b) {
    pd[b] = c.bus[b].pd_mw * f;
    qd[b] = c.bus[b].qd_mvar * f;
  }
}

}  // namespace

AcBenchResult bench_acpf(const std::string& name, int reps) {
  const grid::Case c = grid::load_case(grid::resolve_case_path(name));
  AcBenchResult out{name, 0, 0, 0, 0, 0, reps};
  std::vector<double> build, cold, warm;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    std::optional<grid::AcPowerFlow> pf(std::in_place, c);
    build.push_back(us_since(t0));
    t0 = Clock::now();
    const grid::AcPfResult r = pf->solve();
    cold.push_back(us_since(t0));
    if (!r.success) throw core::RunError("bench: " + name + ": AC power flow did not converge");
    out.cold_iters += r.iterations;
  }
  grid::AcPowerFlow kept(c);
  grid::AcPfResult prev = kept.solve(), r;
  core::Rng rng(5, 5);
  std::vector<double> pd(c.bus.size()), qd(c.bus.size());
  for (int i = 0; i < reps; ++i) {
    drift(c, rng, pd, qd);
    grid::AcPfInput in;
    in.bus_pd_mw = pd;
    in.bus_qd_mvar = qd;
    in.vm0_pu = prev.bus_vm_pu;
    in.va0_deg = prev.bus_va_deg;
    const auto t0 = Clock::now();
    kept.solve_into(in, {}, r);
    warm.push_back(us_since(t0));
    if (!r.success)
      throw core::RunError("bench: " + name + ": warm AC power flow did not converge");
    out.warm_iters += r.iterations;
    std::swap(prev, r);
  }
  out.build_us = median(build);
  out.cold_us = median(cold);
  out.warm_us = median(warm);
  out.cold_iters /= reps;
  out.warm_iters /= reps;
  return out;
}

AcBenchResult bench_acopf(const std::string& name, int reps) {
  const grid::Case c = grid::load_case(grid::resolve_case_path(name));
  AcBenchResult out{name, 0, 0, 0, 0, 0, reps};
  std::vector<double> build, cold, warm;
  for (int i = 0; i < reps; ++i) {
    auto t0 = Clock::now();
    std::optional<grid::AcOpf> opf(std::in_place, c);
    build.push_back(us_since(t0));
    t0 = Clock::now();
    const grid::AcOpfResult r = opf->solve();
    cold.push_back(us_since(t0));
    if (!r.ok())
      throw core::RunError("bench: " + name + ": AC-OPF not optimal (" + r.message + ")");
    out.cold_iters += r.iterations;
  }
  grid::AcOpf kept(c);
  kept.solve();
  core::Rng rng(5, 5);
  std::vector<double> pd(c.bus.size()), qd(c.bus.size());
  grid::AcOpfResult r;
  for (int i = 0; i < reps; ++i) {
    drift(c, rng, pd, qd);
    const auto t0 = Clock::now();
    kept.solve_into(pd, qd, {}, r);
    warm.push_back(us_since(t0));
    if (!r.ok())
      throw core::RunError("bench: " + name + ": warm AC-OPF not optimal (" + r.message + ")");
    out.warm_iters += r.iterations;
  }
  out.build_us = median(build);
  out.cold_us = median(cold);
  out.warm_us = median(warm);
  out.cold_iters /= reps;
  out.warm_iters /= reps;
  return out;
}

}  // namespace pz::exp
