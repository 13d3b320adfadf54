// plugins/loader/digest.h - SHA-256 of a file, for the plugin allowlist (private to the loader).
/// \file
/// Computed by nettle (Debian's nettle-dev), a maintained implementation
/// that uses the CPU's SHA instructions where there are some; tests check it
/// against the FIPS 180-4 vectors.
#pragma once

#include <string>
#include <string_view>

namespace wick::detail {

/// The lowercase hex SHA-256 digest of `data`.
[[nodiscard]] std::string sha256_hex(std::string_view data);
/// The lowercase hex SHA-256 digest of the file's bytes; PluginError naming
/// the file when it cannot be read.
[[nodiscard]] std::string sha256_file_hex(const std::string& path);

}  // namespace wick::detail
