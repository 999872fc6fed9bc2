// Internal to the spec reader/writer: every non-[env] key declared once, bound to its Spec field.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "powerzoo/core/params.hpp"
#include "powerzoo/exp/spec/spec.hpp"

namespace pz::exp::detail {

/// One spec key: its section, its declaration (kind, check, doc; the default is the Spec field's
/// default), and where its value goes.
struct Field {
  std::string section;
  core::ParamDef def;
  std::function<core::ParamValue(const Spec&)> get;
  std::function<void(Spec&, const core::ParamValue&)> set;
};

/// Every key of every fixed section in canonical order, with the generic [env] keys (id, task,
/// split) in section "env". The env entry's own [env] keys come from the registry.
const std::vector<Field>& spec_fields();

/// Section names in canonical (to_toml) order; "sweep" is free-form.
const std::vector<std::string>& section_order();

}  // namespace pz::exp::detail
