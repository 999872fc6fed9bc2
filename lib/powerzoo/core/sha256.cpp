// SHA-256 through OpenSSL's EVP digest interface.
#include "powerzoo/core/sha256.hpp"

#include <openssl/evp.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <vector>

#include "powerzoo/core/error.hpp"
#include "powerzoo/core/paths.hpp"

namespace pz::core {
namespace {

struct CtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using Ctx = std::unique_ptr<EVP_MD_CTX, CtxFree>;

Ctx new_ctx() {
  Ctx c(EVP_MD_CTX_new());
  if (!c || EVP_DigestInit_ex(c.get(), EVP_sha256(), nullptr) != 1)
    throw RunError("SHA-256: OpenSSL could not start a digest");
  return c;
}

std::string finish(EVP_MD_CTX* c) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  if (EVP_DigestFinal_ex(c, md, &n) != 1) throw RunError("SHA-256: OpenSSL digest failed");
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < n; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  Ctx c = new_ctx();
  if (EVP_DigestUpdate(c.get(), data.data(), data.size()) != 1)
    throw RunError("SHA-256: OpenSSL digest failed");
  return finish(c.get());
}

std::string sha256_file(const std::string& path) {
  expect_regular_file(path, "a data file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": cannot read (" + std::strerror(errno) + ")");
  Ctx c = new_ctx();
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0 &&
        EVP_DigestUpdate(c.get(), buf.data(), static_cast<size_t>(in.gcount())) != 1)
      throw RunError("SHA-256: OpenSSL digest failed");
  }
  if (in.bad()) throw ConfigError(path + ": read error while hashing");
  return finish(c.get());
}

}  // namespace pz::core
