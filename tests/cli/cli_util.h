// tests/cli/cli_util.h - running the built `wick` from a test.
/// \file
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>
#include "tests/support/test_paths.h"

namespace wick::cli_test {

struct Result {
  int code = -1;
  std::string out;  // stdout, and stderr unless left out
};

/// `arg` quoted for sh.
inline std::string quote(const std::string& arg) {
  std::string q = "'";
  for (char c : arg) {
    if (c == '\'') {
      q += "'\\''";
    } else {
      q += c;
    }
  }
  return q + "'";
}

/// Runs `binary args` through sh with WICK_PLUGIN_PATH unset, then the
/// `env` assignments ("NAME=value ...", already quoted) applied.
inline Result run(const std::string& args, const std::string& binary = wick_test::cli_path(), bool merge_stderr = true,
                  const std::string& log_level = "error", const std::string& env = "") {
  std::string cmd = "env -u WICK_PLUGIN_PATH WICK_LOG_LEVEL=" + log_level + " " + env + " " + quote(binary) + " " +
                    args + (merge_stderr ? " 2>&1" : " 2>/dev/null");
  Result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace wick::cli_test
