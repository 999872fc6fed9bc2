// The DC-OPF of an energized case island by island: MATPOWER's rundcopf balances each bus, so
// each energized island balances its own load within its own units and lines. The transmission
// env's OPF under outages and `powerzoo grid dcopf` both solve through it, so an edited case
// gives one answer in both.
#pragma once

#include <memory>
#include <vector>

#include "powerzoo/grid/case/case.hpp"
#include "powerzoo/grid/dc/dcopf.hpp"

namespace pz::grid {

class IslandDcOpf {
 public:
  /// `energized`: a case as grid::energize returns it (one REF bus per energized island,
  /// de-energized buses of type 4). Builds one DcOpf per REF bus on the case with every bus of
  /// the other islands de-energized (their shunts dropped). Throws what DcOpf's constructor
  /// throws (core::ConfigError for missing gencost rows, zero reactance).
  explicit IslandDcOpf(const Case& energized);
  ~IslandDcOpf();
  IslandDcOpf(IslandDcOpf&&) noexcept;
  IslandDcOpf& operator=(IslandDcOpf&&) noexcept;

  /// Energized islands with a REF bus (0: no generator in service anywhere).
  int n_islands() const { return static_cast<int>(opf_.size()); }

  /// Solves each island for `bus_pd_mw` [n_bus] MW (loads of type-4 buses are not served and
  /// not counted). One island: that DcOpf's result as it is. Several: objective summed; every
  /// vector [n_bus], [n_gen], [n_branch] takes each island's entries (0 at de-energized rows);
  /// iterations summed. The first island that is not optimal is returned as it is. No energized
  /// island at all (no generator in service anywhere): kOptimal with nothing served, every vector
  /// 0 and objective 0 (every bus de-energized, its load not served, as MATPOWER's ext2int
  /// reads such a case; the caller reports the load as unserved).
  DcOpfResult solve(const std::vector<double>& bus_pd_mw);

 private:
  std::vector<std::unique_ptr<DcOpf>> opf_;
  std::vector<std::vector<char>> bus_in_;   ///< [island][n_bus]
  std::vector<int> gen_bus_, branch_from_;  ///< bus index of each gen / branch from-end
  int n_bus_ = 0;
};

}  // namespace pz::grid
