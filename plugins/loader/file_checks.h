// plugins/loader/file_checks.h - what the loader checks in a plugin file before dlopen (private).
/// \file
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace wick::detail {

/// Refuses a file dlopen should not see: not ELF, not a shared library, for
/// another machine, or truncated (Note [Checking the ELF file first]).
/// Reads `file`; PluginError naming `path` (how the caller called it).
void check_elf_file(const std::string& file, const std::string& path);

/// The file that passed `check_trust`.
struct TrustedFile {
  /// Its canonical path: open this one, not the path as given, whose
  /// symlinks could change meanwhile.
  std::string path;
  /// Its SHA-256 when the allowlist was consulted, else empty.
  std::string sha256;
};

/// Refuses a file that other users could have changed, and one missing from
/// the allowlist (Note [Plugin trust]); `kind` names it in messages ("plugin
/// file", "library"). PluginError naming `path`; the decision is logged.
[[nodiscard]] TrustedFile check_trust(const std::string& path, const char* kind);

/// Up to `max` defined symbols of STB_GNU_UNIQUE binding in the ELF file's
/// dynamic symbol table (glibc never unloads a library that defines one a
/// lookup bound); empty when there are none or the file cannot be read.
[[nodiscard]] std::vector<std::string> unique_symbols(const std::string& file, std::size_t max);

}  // namespace wick::detail
