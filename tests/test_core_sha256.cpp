// core::sha256_hex / sha256_file against the FIPS 180-4 example vectors.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/sha256.hpp"
#include "test_util.hpp"

TEST_SUITE("core_sha256") {
  TEST_CASE("FIPS 180-4 example messages") {
    CHECK(pz::core::sha256_hex("") ==
          "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(pz::core::sha256_hex("abc") ==
          "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    CHECK(pz::core::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  }

  TEST_CASE("a file hashes as its content, across the 1 MiB read blocks") {
    const auto d = pz::test::tmp_dir("pz_sha", "file");
    std::string big(3 * (1 << 20) + 17, '\0');
    for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131) % 251);
    std::ofstream(d / "big.bin", std::ios::binary) << big;
    CHECK(pz::core::sha256_file((d / "big.bin").string()) == pz::core::sha256_hex(big));
    // One million 'a' (the third FIPS example).
    std::ofstream(d / "a.txt", std::ios::binary) << std::string(1000000, 'a');
    CHECK(pz::core::sha256_file((d / "a.txt").string()) ==
          "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    CHECK_THROWS_AS(pz::core::sha256_file((d / "none").string()), pz::core::ConfigError);
  }
}
