// A per-process, thread-safe cache of values loaded once per key (cases, profiles, data sets).
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace pz::core {

/// Values made once per key and shared for the life of the cache (usually a function-local
/// static, so for the life of the process). Envs built on many threads ask for the same case or
/// profile; each is parsed once.
template <class Value, class Key = std::string>
class Cache {
 public:
  /// The value of `key`, made by `make()` on the first call. `make` runs under the cache's lock,
  /// so a key is made once even when threads ask at the same time (and `make` must not ask this
  /// cache again); a `make` that throws stores nothing and the next call tries again. The
  /// reference stays valid as long as the cache (std::map never moves its elements).
  template <class Make>
  const Value& get(const Key& key, Make&& make) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = values_.find(key);
    if (it == values_.end()) it = values_.emplace(key, std::forward<Make>(make)()).first;
    return it->second;
  }

 private:
  std::mutex mu_;
  std::map<Key, Value> values_;
};

}  // namespace pz::core
