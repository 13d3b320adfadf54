// plugins/loader/sha256.h - SHA-256 of a file, for the plugin allowlist (private to the loader).
/// \file
/// None of wick's dependencies offers SHA-256 (Boost has only SHA-1), so this
/// is FIPS 180-4 written out; tests check it against the standard vectors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace wick::detail {

/// The lowercase hex SHA-256 digest of `data`.
[[nodiscard]] std::string sha256_hex(std::string_view data);
/// The lowercase hex SHA-256 digest of the file's bytes; PluginError when it cannot be read.
[[nodiscard]] std::string sha256_file_hex(const std::string& path);

}  // namespace wick::detail
