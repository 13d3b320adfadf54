// tools/wick/run_command.h - `wick run`, the launcher of distributed programs (Note [wick run]).
/// \file
#pragma once

#include <string>
#include <vector>

namespace wick::cli {

/// Runs `wick run ARGS...` (the arguments after "run"); returns the exit code.
int run_distributed(const std::vector<std::string>& args);

}  // namespace wick::cli
