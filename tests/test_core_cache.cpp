// core::Cache: a value is made once per key, shared, and a failed make stores nothing.
#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "powerzoo/core/cache.hpp"

using pz::core::Cache;

TEST_SUITE("core_cache") {
  TEST_CASE("each key is made once and its value is shared") {
    Cache<std::string> cache;
    int made = 0;
    auto make = [&](const std::string& s) {
      return [&made, s] {
        ++made;
        return s + "!";
      };
    };
    const std::string& a = cache.get("a", make("a"));
    CHECK(a == "a!");
    CHECK(&cache.get("a", make("other")) == &a);
    CHECK(cache.get("b", make("b")) == "b!");
    CHECK(made == 2);
    CHECK(&cache.get("a", make("a")) == &a);  // a new key does not move an old value
  }

  TEST_CASE("a make that throws stores nothing; the next call makes the value") {
    Cache<int, int> cache;
    CHECK_THROWS_AS(cache.get(1, []() -> int { throw std::runtime_error("bad file"); }),
                    std::runtime_error);
    CHECK(cache.get(1, [] { return 7; }) == 7);
    CHECK(cache.get(1, [] { return 8; }) == 7);
  }

  TEST_CASE("threads asking for the same key at once make it once") {
    Cache<std::vector<int>, int> cache;
    std::atomic<int> made{0};
    std::vector<const std::vector<int>*> seen(8, nullptr);
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        seen[t] = &cache.get(3, [&] {
          ++made;
          return std::vector<int>(1000, 3);
        });
      });
    for (auto& th : threads) th.join();
    CHECK(made == 1);
    for (const auto* p : seen) CHECK(p == seen[0]);
  }
}
