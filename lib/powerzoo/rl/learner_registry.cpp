// The learner registry: sections and entries added by static Registrars in each learner
// family's own .cpp (function-local statics, so the order of static initialization across
// files does not matter; the library is an object library, so no registrar is dropped).
#include "powerzoo/rl/learner_registry.hpp"

#include <map>
#include <mutex>

#include "powerzoo/core/did_you_mean.hpp"
#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"

namespace pz::rl {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, LearnerSection> sections;
  std::map<std::string, LearnerEntry> entries;
};

Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

std::string LearnerContext::where(const std::string& dotted) const {
  if (auto it = spec_where.find(dotted); it != spec_where.end()) return it->second;
  return spec_file.empty() ? std::string() : spec_file + ": ";
}

const core::ParamTable& LearnerContext::section(const std::string& name) const {
  static const core::ParamTable kEmpty;
  auto it = sections.find(name);
  return it == sections.end() ? kEmpty : it->second;
}

void register_learner_section(LearnerSection section) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const std::string name = section.name;
  if (!r.sections.emplace(name, std::move(section)).second)
    throw core::ConfigError("learner section [" + name + "] is registered twice");
}

void register_learner_entry(LearnerEntry entry) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  const std::string name = entry.name;
  if (!r.entries.emplace(name, std::move(entry)).second)
    throw core::ConfigError("learner '" + name + "' is registered twice");
}

const LearnerEntry* find_learner(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.entries.find(name);
  return it == r.entries.end() ? nullptr : &it->second;
}

const LearnerSection* find_learner_section(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.sections.find(name);
  return it == r.sections.end() ? nullptr : &it->second;
}

std::vector<std::string> learner_names() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> out;
  for (const auto& [n, _] : r.entries) out.push_back(n);
  return out;
}

const LearnerEntry& learner_entry(const std::string& name) {
  if (const LearnerEntry* e = find_learner(name)) {
    for (const auto& s : e->sections)
      if (!find_learner_section(s))
        throw core::ConfigError("learner '" + name + "' reads section [" + s +
                                "], which no learner family registers");
    return *e;
  }
  const auto names = learner_names();
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  const std::string dym = core::did_you_mean(name, names);
  throw core::ConfigError("expected a registered learner (" + known + "), found '" +
                          core::echo(name) + "'" +
                          (dym.empty() ? "" : " (did you mean '" + dym + "'?)"));
}

std::vector<const LearnerEntry*> registered_learners() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<const LearnerEntry*> out;
  for (const auto& [_, e] : r.entries) out.push_back(&e);
  return out;
}

std::vector<const LearnerSection*> registered_learner_sections() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<const LearnerSection*> out;
  for (const auto& [_, s] : r.sections) out.push_back(&s);
  return out;
}

std::string learner_metric_level(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (const auto& [_, e] : r.entries)
    if (auto it = e.metric_levels.find(name); it != e.metric_levels.end()) return it->second;
  return "";
}

std::string learners_reading(const std::string& section) {
  std::string out;
  for (const LearnerEntry* e : registered_learners())
    for (const auto& s : e->sections)
      if (s == section) out += (out.empty() ? "" : ", ") + e->name;
  return out;
}

std::string default_learner() {
  // PPO is the default learner of the project (README); any other registration leaves it.
  const auto names = learner_names();
  for (const auto& n : names)
    if (n == "ppo") return n;
  return names.empty() ? std::string() : names.front();
}

std::unique_ptr<Learner> make_learner(const std::string& name, const LearnerContext& ctx_in,
                                      core::Rng& init_rng) {
  const LearnerEntry& e = learner_entry(name);
  if (!e.multi_agent && ctx_in.agents.size() > 1)
    throw core::ConfigError(name + " is a single-agent learner; the env has " +
                            std::to_string(ctx_in.agents.size()) + " agents");
  if (e.multi_agent && ctx_in.agents.size() < 2)
    throw core::ConfigError("[learner] algo = \"" + name +
                            "\" is a multi-agent learner; expected an env with agents, found a "
                            "single-agent env");
  LearnerContext ctx = ctx_in;
  ctx.algo = name;
  for (const auto& s : e.sections) {
    const core::ParamTable given = ctx.section(s);
    core::ParamTable full = core::ParamTable::defaults(find_learner_section(s)->keys);
    for (const auto& [k, v] : given.items()) full.set(k, v);
    ctx.sections[s] = full;
  }
  return e.make(ctx, init_rng);
}

}  // namespace pz::rl
