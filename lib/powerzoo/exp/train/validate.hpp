// `powerzoo validate` and `powerzoo keys`: everything a run checks before it writes, a memory
// estimate of its buffers, and the key reference generated from the spec schema.
#pragma once

#include <string>

#include "powerzoo/exp/spec/spec.hpp"

namespace pz::exp {

/// Bytes a run holds in its largest buffers (estimates: float32 storage).
struct MemoryEstimate {
  double rollout_bytes = 0;  ///< on-policy rollout: n_envs x rollout_length transitions
  double replay_bytes = 0;   ///< SAC replay ring: sac.buffer_size transitions
  double total() const { return rollout_bytes + replay_bytes; }
};

/// Everything train() checks before it writes (validate_train: envs of every split, learner,
/// safety channels, batching), then the memory estimate against the machine's memory
/// (/proc/meminfo). Returns a report (one line per check). Writes nothing. Throws
/// core::ConfigError as `run` would, and when the buffers exceed the machine's total memory.
std::string validate_spec(const Spec& spec);

/// The buffers of `spec` for the env it builds.
MemoryEstimate estimate_memory(const Spec& spec);

/// Every key of the schema of `env_entry_id` ("" = the default env): per section, key, kind,
/// default, range and doc. `section` "" = all; markdown = a Markdown table per section.
/// Throws core::ConfigError for an unknown section or entry.
std::string key_reference(const std::string& env_entry_id, const std::string& section,
                          bool markdown);

/// docs/spec-reference.md: the keys of the default env, then the [env] keys of every
/// registered env and task.
std::string spec_reference_markdown();

}  // namespace pz::exp
