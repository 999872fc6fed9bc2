// Migration of stored specs of the layout before [learner] (docs/spec-reference.md): generic
// over the learner registry, so no learner is named here.
#include "powerzoo/exp/spec/spec_migrate.hpp"

#include <toml++/toml.h>

#include <map>
#include <sstream>

#include "powerzoo/core/echo.hpp"
#include "powerzoo/core/error.hpp"
#include "powerzoo/rl/learner_registry.hpp"

namespace pz::exp {

std::string migrate_stored_spec(const std::string& text, const std::string& what) {
  toml::table doc;
  try {
    doc = toml::parse(text);
  } catch (const toml::parse_error&) {
    return text;  // not TOML: parse_spec says so, with the line
  }
  const toml::table* old_ppo = doc["ppo"].as_table();
  if (!old_ppo || doc.contains("learner")) return text;
  if (!old_ppo->contains("algo") && !old_ppo->contains("total_steps") &&
      !old_ppo->contains("rollout_length"))
    return text;
  const toml::table ppo = *old_ppo;
  std::string algo = rl::default_learner();
  if (auto a = ppo["algo"].value<std::string>()) algo = *a;
  const rl::LearnerEntry* entry = rl::find_learner(algo);
  if (!entry)
    throw core::ConfigError(what + ": stored spec of an earlier version with [ppo] algo = \"" +
                            core::echo(algo) + "\", which this version does not have");
  toml::table learner;
  learner.insert("algo", algo);
  for (const char* k : {"total_steps", "rollout_length"})
    if (const toml::node* n = ppo.get(k)) learner.insert(k, *n);
  std::map<std::string, toml::table> old;
  for (const rl::LearnerSection* s : rl::registered_learner_sections()) {
    if (const toml::table* t = doc[s->name].as_table()) old[s->name] = *t;
    doc.erase(s->name);
  }
  doc.insert("learner", learner);
  for (const auto& name : entry->sections) {
    const rl::LearnerSection* s = rl::find_learner_section(name);
    toml::table t;
    for (const auto& d : s->keys) {
      const toml::node* n = nullptr;
      if (auto it = old.find(name); it != old.end() && name != "ppo") n = it->second.get(d.key);
      if (!n) n = ppo.get(d.key);
      if (!n) n = ppo.get(name + "_" + d.key);
      if (n) t.insert(d.key, *n);
    }
    doc.insert(name, t);
  }
  std::ostringstream o;
  o << doc;
  return o.str();
}

}  // namespace pz::exp
