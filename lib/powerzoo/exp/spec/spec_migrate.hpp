// Stored specs of the layout before [learner] (run.h5 /config/resolved, checkpoints, sweep
// manifests written by earlier versions) turned into the current layout.
#pragma once

#include <string>

namespace pz::exp {

/// A resolved spec of the previous layout ([ppo] algo, total_steps and rollout_length; the duals
/// and Sauté's reward in [ppo]; SAC's network keys in [ppo]; every learner table written) in
/// the current layout: [learner] gets algo, total_steps and rollout_length; each section the
/// learner reads gets its keys from the old table of that name, else from old [ppo] (same key,
/// or <section>_<key>); the learner sections it does not read are dropped. Text already in the
/// current layout (no [ppo] algo, total_steps or rollout_length) is returned unchanged. Text that
/// is not TOML is returned unchanged (parse_spec reports it). Throws core::ConfigError (prefixed by
/// `what`) for a learner this version does not have.
std::string migrate_stored_spec(const std::string& text, const std::string& what);

}  // namespace pz::exp
