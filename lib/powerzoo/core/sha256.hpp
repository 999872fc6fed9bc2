// SHA-256 content hashes of input files (OpenSSL's libcrypto), as recorded in run files.
#pragma once

#include <string>
#include <string_view>

namespace pz::core {

/// Lower-case hex SHA-256 (64 characters) of `data` (FIPS 180-4, computed by OpenSSL's EVP API).
std::string sha256_hex(std::string_view data);

/// Lower-case hex SHA-256 of the content of `path`, read in 1 MiB blocks. Throws
/// core::ConfigError if the file cannot be read.
std::string sha256_file(const std::string& path);

}  // namespace pz::core
