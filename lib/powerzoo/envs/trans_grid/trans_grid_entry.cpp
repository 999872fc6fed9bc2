// Registers trans_grid: its [env] keys, its factory from a case and a demand profile, its data.
#include <cmath>

#include "powerzoo/core/error.hpp"
#include "powerzoo/data/profile_cache.hpp"
#include "powerzoo/envs/episode.hpp"
#include "powerzoo/envs/outages.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/envs/trans_grid/trans_grid.hpp"
#include "powerzoo/envs/trans_grid/trans_grid_baselines.hpp"
#include "powerzoo/grid/case/case_cache.hpp"

namespace pz::envs {
namespace {

std::shared_ptr<const Env> make_trans_grid(const BuildContext& ctx) {
  const core::ParamTable& e = ctx.params;
  TransGridParams p;
  p.grid_case = with_key(ctx, "case", [&] { return grid::cached_case(e.str("case")); });
  const data::Profile& prof = with_key(ctx, "profile", [&]() -> const data::Profile& {
    return data::cached_profile(e.str("profile"));
  });
  const double dt_hours = e.number("dt_hours");
  const int horizon = static_cast<int>(e.integer("horizon"));
  const double step_h = prof.step_seconds / 3600.0;
  if (std::abs(step_h - dt_hours) > 1e-9)
    throw core::ConfigError(ctx.at("dt_hours") + "[env] dt_hours: expected the profile's step of " +
                            core::format_number(step_h) + " h, found " +
                            core::format_number(dt_hours));
  const data::Split sp = with_key(ctx, "split", [&] { return data::split_by_name(ctx.split); });
  p.profile = prof.values;
  p.profile_mean = data::split_mean(prof, data::split_by_name("train"));
  // Too long a horizon for the split's data is the horizon's fault, not the profile's.
  p.episode_starts =
      with_key(ctx, "horizon", [&] { return data::episode_starts(prof, sp, horizon); });
  p.horizon = horizon;
  p.dt_hours = dt_hours;
  p.load_scale = e.number("load_scale");
  p.reward_scale = e.number("reward_scale");
  p.opf_dispatch = e.str("dispatch") == "dcopf";
  p.report_opf_gap = e.boolean("report_opf_gap");
  const std::string solver = e.str("solver");
  p.solver = solver == "acpf"    ? TransGridParams::Solver::kAcPf
             : solver == "acopf" ? TransGridParams::Solver::kAcOpf
                                 : TransGridParams::Solver::kDc;
  if (p.solver == TransGridParams::Solver::kAcOpf && p.opf_dispatch)
    throw core::ConfigError(ctx.at("solver") +
                            "[env] solver: \"acopf\" dispatches by the AC-OPF itself; expected "
                            "[env] dispatch = \"agent\" with it, found \"dcopf\"");
  p.enforce_q_lims = e.boolean("enforce_q_lims");
  p.vm_min = e.number("vm_min");
  p.vm_max = e.number("vm_max");
  if (p.vm_min > 0 && p.vm_max > 0 && p.vm_min > p.vm_max)
    throw core::ConfigError(ctx.at("vm_min") + "[env] vm_min: expected vm_min <= vm_max (" +
                            core::format_number(p.vm_max) + "), found " +
                            core::format_number(p.vm_min));
  p.outages = with_key(ctx, "outages", [&] { return outage_params_from(e); });
  // The network's own faults are the case's; an outage key's or a scenario row's are theirs.
  return with_key(ctx, "case", [&] { return std::make_shared<TransGrid>(std::move(p)); });
}

std::string describe_trans_grid_data(const core::ParamTable& e) {
  return data::describe_profile(e.str("profile"));
}

EnvEntry trans_grid_entry() {
  EnvEntry e;
  e.id = "trans_grid";
  e.description =
      "transmission dispatch (DC, or AC with solver = acpf/acopf): the agent sets every "
      "in-service generator's output; slack-bus units absorb the imbalance (and AC losses); costs "
      "thermal_overload, voltage_violation, power_balance, resource";
  e.params = concat(data_params("case5"), episode_params());
  e.params.push_back(core::choice_param(
      "dispatch", "agent", {"agent", "dcopf"},
      "agent: the policy dispatches; dcopf: the exact DC-OPF dispatches (action ignored)"));
  e.params.push_back(core::bool_param(
      "report_opf_gap", false,
      "also solve each step's DC-OPF; eval reports opf_gap = policy / OPF gen cost − 1"));
  e.params.push_back(core::choice_param(
      "solver", "dc", {"dc", "acpf", "acopf"},
      "physics of a step: dc (PTDF flows), acpf (Newton-Raphson AC power flow of the dispatch; "
      "observes |S| and Vm, costs MVA overloads and voltage-band violations), acopf (the AC-OPF "
      "dispatches, action ignored)"));
  e.params.push_back(core::bool_param(
      "enforce_q_lims", true,
      "acpf: PV-bus generators are held at their Q limits (their bus becomes PQ), as the "
      "reference's Newton-Raphson; the slack bus is unlimited"));
  auto band = [](const char* key, const char* doc) {
    return core::float_param(
        key, 0.0, [](double v) { return v == 0.0 || (v > 0.0 && v < 2.0); },
        "0 or a voltage in (0, 2) p.u.", doc);
  };
  e.params.push_back(band("vm_min", "AC modes: every bus's lower voltage limit (p.u.; 0 = VMIN)"));
  e.params.push_back(band("vm_max", "AC modes: every bus's upper voltage limit (p.u.; 0 = VMAX)"));
  // Outages apply in every mode: the agent's or the OPF's dispatch on the network without the out
  // elements, DC or AC (docs/outages.md).
  for (auto d : outage_params()) e.params.push_back(std::move(d));
  // Keys that have no effect in some configurations (refused when set there).
  for (auto& d : e.params) {
    if (d.key == "vm_min" || d.key == "vm_max") {
      d.applies = "solver = \"acpf\" or \"acopf\"";
      d.inapplicable = [](const core::ParamTable& t) -> std::string {
        return t.str("solver") == "dc" ? "only the AC solvers read it, found solver = \"dc\"" : "";
      };
    } else if (d.key == "enforce_q_lims") {
      d.applies = "solver = \"acpf\"";
      d.inapplicable = [](const core::ParamTable& t) -> std::string {
        return t.str("solver") == "acpf"
                   ? ""
                   : "only the AC power flow reads it, found solver = \"" + t.str("solver") + "\"";
      };
    } else if (d.key == "dispatch") {
      d.applies = "solver = \"dc\" or \"acpf\"";
      d.inapplicable = [](const core::ParamTable& t) -> std::string {
        return t.str("solver") == "acopf"
                   ? "the AC-OPF dispatches, found solver = \"acopf\" (the action is ignored)"
                   : "";
      };
    } else if (d.key == "report_opf_gap") {
      d.applies = "solver = \"dc\" or \"acpf\" with dispatch = \"agent\"";
      d.inapplicable = [](const core::ParamTable& t) -> std::string {
        if (t.str("solver") == "acopf")
          return "the AC-OPF dispatches, found solver = \"acopf\" (the gap is 0 by construction)";
        if (t.str("dispatch") == "dcopf")
          return "the DC-OPF dispatches, found dispatch = \"dcopf\" (the gap is 0 by "
                 "construction)";
        return "";
      };
    }
  }
  e.splits = {"train", "iid"};
  e.make = make_trans_grid;
  // The OPF and SCOPF dispatch as agent-mode actions (trans_grid_baselines.hpp).
  e.baselines = named_baselines({"dcopf", "scopf"}, "trans_grid", trans_grid_opf_baseline);
  e.describe_data = describe_trans_grid_data;
  e.default_env = true;  // the quickstart's env: a spec without [env] id builds it
  e.bench_specs = {"experiments/quickstart.toml", "experiments/case5_sac.toml"};
  return e;
}

const Registrar kRegistrar{trans_grid_entry()};

}  // namespace
}  // namespace pz::envs
