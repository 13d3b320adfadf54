// plugins/loader/file_checks.h - what the loader checks in a plugin file before dlopen (private).
/// \file
#pragma once

#include <string>

namespace wick::detail {

/// Refuses a file dlopen should not see: not ELF, not a shared library, for
/// another machine, or truncated (Note [Checking the ELF file first]).
/// Reads `file`; PluginError naming `path` (how the caller called it).
void check_elf_file(const std::string& file, const std::string& path);

/// Refuses a file that other users could have changed, and one missing from
/// the allowlist (Note [Plugin trust]). PluginError naming the file; the
/// decision is logged. Returns the canonical path that was checked: open
/// that one, not `path`, whose symlinks could change meanwhile.
[[nodiscard]] std::string check_trust(const std::string& path);

}  // namespace wick::detail
