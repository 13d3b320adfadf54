// tools/wick/check_commands.h - `wick opcheck` and `wick test-backend` (private to the CLI).
/// \file
/// Each prints one line per operator and check (JSON with `as_json`) and
/// returns the exit code: 1 when any check failed.
#pragma once

#include <string>
#include <vector>

namespace wick::cli {

/// opcheck over `ops` (qualified or full names), every catalog operator
/// (`all`), or the operators a plugin file defines (`plugin`, loaded first).
int opcheck(const std::vector<std::string>& ops, bool all, const std::string& plugin, bool as_json);
/// Loads the backend plugin `file` and compares every kernel it registers
/// with the CPU's on the operators' samples.
int test_backend(const std::string& file, bool as_json);

}  // namespace wick::cli
