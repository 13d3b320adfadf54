// tests/support/test_paths.cpp - Note [Tests find their files from where they run].
/// \file
#include "tests/support/test_paths.h"

#include <cstdlib>
#include <filesystem>

// Boost.DLL's program_location with std::filesystem paths (header-only):
// the running program's file on any platform Boost.DLL supports.
#define BOOST_DLL_USE_STD_FS 1
#include <boost/dll/runtime_symbol_info.hpp>

namespace wick_test {

namespace fs = std::filesystem;

const std::string& build_dir() {
  static const std::string dir = [] {
    if (const char* env = std::getenv("WICK_TEST_BUILD_DIR"); env != nullptr && *env != '\0') return std::string(env);
    // <build>/bin/<test program>
    return boost::dll::program_location().parent_path().parent_path().string();
  }();
  return dir;
}

std::string plugin_dir() { return (fs::path(build_dir()) / "tests" / "plugins").string(); }
std::string reference_dir() { return (fs::path(build_dir()) / "tests" / "data" / "reference").string(); }
std::string cli_path() { return (fs::path(build_dir()) / "bin" / "wick").string(); }
// WICK_TEST_BACKEND_SUBDIR: the backends' directory relative to the build (lib/wick/backends).
std::string cpu_backend_path() {
  return (fs::path(build_dir()) / WICK_TEST_BACKEND_SUBDIR / "libwick_cpu.so").string();
}
std::string cuda_backend_path() {
  return (fs::path(build_dir()) / WICK_TEST_BACKEND_SUBDIR / "libwick_cuda.so").string();
}

}  // namespace wick_test
