// Pre-run validation report, buffer memory estimate and the generated key reference.
#include "powerzoo/exp/train/validate.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/envs/registry.hpp"
#include "powerzoo/exp/spec/learners.hpp"
#include "powerzoo/exp/train/train.hpp"
#include "powerzoo/io/toml_schema.hpp"
#include "powerzoo/rl/learner_registry.hpp"

namespace pz::exp {
namespace {

const char* kind_name(core::ParamKind k) {
  switch (k) {
    case core::ParamKind::kStr:
      return "string";
    case core::ParamKind::kChoice:
      return "choice";
    case core::ParamKind::kInt:
      return "integer";
    case core::ParamKind::kFloat:
      return "float";
    case core::ParamKind::kBool:
      return "bool";
    case core::ParamKind::kIntArray:
      return "integer array";
    case core::ParamKind::kStrArray:
      return "string array";
    case core::ParamKind::kFloatArray:
      return "float array";
    case core::ParamKind::kFloatTable:
      return "table of floats";
  }
  return "?";
}

// MemTotal / MemAvailable of /proc/meminfo in bytes (0 when unknown).
double meminfo(const std::string& key) {
  std::ifstream in("/proc/meminfo");
  std::string name;
  double kb = 0;
  std::string unit;
  while (in >> name >> kb >> unit)
    if (name == key + ":") return kb * 1024;
  return 0;
}

std::string mib(double bytes) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << bytes / (1024.0 * 1024.0) << " MiB";
  return o.str();
}

std::string range_text(const core::ParamDef& d) {
  if (d.kind == core::ParamKind::kStr && d.expected.empty()) return "";
  return d.expected_text();
}

}  // namespace

MemoryEstimate estimate_memory(const Spec& spec) {
  const auto env = make_learner_env(spec, spec.env.split, true);
  const envs::EnvSpec esp = env->spec();
  MemoryEstimate m;
  const rl::LearnerEntry& e = rl::learner_entry(spec.learner.algo);
  if (!e.memory) return m;
  const rl::LearnerMemory lm = e.memory(learner_context(spec, esp, spec.vec.n_envs),
                                        static_cast<int>(esp.cost_names.size()));
  m.rollout_bytes = lm.rollout_bytes;
  m.replay_bytes = lm.replay_bytes;
  return m;
}

std::string validate_spec(const Spec& spec) {
  validate_train(spec);
  std::ostringstream o;
  o << "spec: " << spec.source_path << " (" << spec.experiment.name << ", env "
    << (spec.env.task.empty() ? spec.env.id : "task " + spec.env.task) << ")\n";
  o << "envs built: train split '" << spec.env.split << "'";
  for (const auto& s : spec.eval.splits) o << ", eval split '" << s << "'";
  o << "\nlearner: " << spec.learner.algo << ", " << spec.vec.n_envs << " envs, "
    << spec.learner.total_steps << " steps\n";
  const MemoryEstimate m = estimate_memory(spec);
  const double total = meminfo("MemTotal"), avail = meminfo("MemAvailable");
  o << "memory: rollout " << mib(m.rollout_bytes) << ", replay " << mib(m.replay_bytes)
    << "; this machine has " << mib(avail) << " available of " << mib(total) << "\n";
  if (total > 0 && m.total() > total)
    throw core::ConfigError(
        spec.source_path + ": the buffers need about " + mib(m.total()) + " (rollout " +
        mib(m.rollout_bytes) + ", replay " + mib(m.replay_bytes) + "), more than this machine's " +
        mib(total) + "; lower vec.n_envs, learner.rollout_length or the learner's buffer size");
  if (avail > 0 && m.total() > 0.5 * avail)
    o << "warning: the buffers take more than half of the available memory\n";
  if (const std::string w = unused_settings_warning(spec); !w.empty())
    o << "warning: " << w << "\n";
  o << "ok: `powerzoo run` would start training with this spec\n";
  return o.str();
}

std::string key_reference(const std::string& env_entry_id, const std::string& section,
                          bool markdown) {
  const auto schema = spec_schema(env_entry_id);
  std::vector<std::string> names;
  for (const auto& sec : schema) names.push_back(sec.name);
  if (!section.empty() && std::find(names.begin(), names.end(), section) == names.end()) {
    const std::string dym = core::did_you_mean(section, names);
    throw core::ConfigError("expected a spec section, found '" + core::echo(section) + "'" +
                            (dym.empty() ? "" : " (did you mean '" + dym + "'?)"));
  }
  std::ostringstream o;
  for (const auto& sec : schema) {
    if (!section.empty() && sec.name != section) continue;
    const rl::LearnerSection* ls = rl::find_learner_section(sec.name);
    const std::string readers = ls ? rl::learners_reading(sec.name) : "";
    if (markdown) {
      o << "### [" << sec.name << "]\n\n";
      if (sec.free_form) o << "Free-form: any keys, see `powerzoo sweep --help`.\n\n";
      if (ls)
        o << ls->doc << ". Read by `[learner] algo` = " << readers
          << "; set with another learner it is refused.\n\n";
      if (sec.name == "learner") {
        o << "Registered learners (`algo`):\n\n";
        for (const rl::LearnerEntry* e : rl::registered_learners()) {
          std::string reads;
          for (const auto& r : e->sections) reads += (reads.empty() ? "[" : ", [") + r + "]";
          o << "- `" << e->name << "`: " << e->description << "; reads " << reads << "\n";
        }
        o << "\n";
      }
      if (sec.keys.empty()) continue;
      o << "| key | kind | default | expected | description |\n|---|---|---|---|---|\n";
      for (const auto& d : sec.keys) {
        std::string def = io::toml_value(d.kind, d.def), rng = range_text(d);
        for (std::string* s : {&def, &rng})  // '|' would end the table cell
          for (size_t p = 0; (p = s->find('|', p)) != std::string::npos; p += 2) s->insert(p, "\\");
        o << "| `" << d.key << "` | " << kind_name(d.kind) << " | `" << def << "` | " << rng
          << " | " << d.doc << (d.applies.empty() ? "" : " Applies with " + d.applies + ".")
          << " |\n";
      }
      o << "\n";
    } else {
      o << "[" << sec.name << "]"
        << (sec.free_form ? "  (free-form: see `powerzoo sweep --help`)" : "");
      if (ls) o << "  (" << ls->doc << "; read by [learner] algo = " << readers << ")";
      o << "\n";
      if (sec.name == "learner")
        for (const rl::LearnerEntry* e : rl::registered_learners()) {
          std::string reads;
          for (const auto& r : e->sections) reads += (reads.empty() ? "[" : ", [") + r + "]";
          o << "  learner " << e->name << ": " << e->description << "; reads " << reads << "\n";
        }
      for (const auto& d : sec.keys) {
        o << "  " << sec.name << "." << d.key << "  (" << kind_name(d.kind) << ")  default "
          << io::toml_value(d.kind, d.def);
        if (const std::string r = range_text(d); !r.empty()) o << "  expected " << r;
        o << "\n      " << d.doc << (d.applies.empty() ? "" : " (applies with " + d.applies + ")")
          << "\n";
      }
    }
  }
  return o.str();
}

std::string spec_reference_markdown() {
  std::ostringstream o;
  o << "# Spec reference\n\n"
    << "Generated from the spec schema by `powerzoo keys --markdown` (a test compares this file "
       "with it, so it is current). Every key is optional; the default is what a spec that "
       "leaves the key out gets. `powerzoo config SPEC` prints a spec with every default filled "
       "in, `powerzoo validate SPEC` checks it as `run` would.\n\n"
    << "## Sections (default env)\n\n"
    << key_reference("", "", true);
  for (const auto& list : {envs::registered_envs(), envs::registered_tasks()})
    for (const auto* e : list) {
      o << "## [env] of " << (e->is_task ? "task " : "env ") << "`" << e->id << "`\n\n";
      std::string t = key_reference(e->id, "env", true);
      t.erase(0, t.find('\n') + 2);  // the section heading is this one
      o << t;
    }
  return o.str();
}

}  // namespace pz::exp
