// tests/support/test_paths.cpp - Note [Tests find their files from where they run].
/// \file
#include "tests/support/test_paths.h"

#include <cstdlib>
#include <filesystem>

namespace wick_test {

const std::string& build_dir() {
  static const std::string dir = [] {
    if (const char* env = std::getenv("WICK_TEST_BUILD_DIR"); env != nullptr && *env != '\0') return std::string(env);
    // <build>/bin/<test program>
    return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path().string();
  }();
  return dir;
}

std::string plugin_dir() { return build_dir() + "/tests/plugins"; }
std::string reference_dir() { return build_dir() + "/tests/data/reference"; }
std::string cli_path() { return build_dir() + "/bin/wick"; }
// WICK_TEST_BACKEND_SUBDIR: the backends' directory relative to the build (lib/wick/backends).
std::string cpu_backend_path() { return build_dir() + "/" WICK_TEST_BACKEND_SUBDIR "/libwick_cpu.so"; }
std::string cuda_backend_path() { return build_dir() + "/" WICK_TEST_BACKEND_SUBDIR "/libwick_cuda.so"; }

}  // namespace wick_test
