// tests/support/test_paths.h - where a test finds the build's programs, plugins and data.
/// \file
/// Note [Tests find their files from where they run]
/// Nothing a test reads is named by an absolute path baked in at compile
/// time: a build copied to another checkout or machine (the GPU machine gets
/// one) still finds its files. Every path is relative to the build
/// directory, which is the parent of the running test program's `bin/`
/// (`WICK_TEST_BUILD_DIR` overrides it). The reference data is copied from
/// `tests/data/reference` into the build when the tests are built.
#pragma once

#include <string>

namespace wick_test {

/// The build directory (it holds bin/, lib/ and tests/).
[[nodiscard]] const std::string& build_dir();
/// The test plugins (tests/plugins/*.so of the build).
[[nodiscard]] std::string plugin_dir();
/// The reference data: PyTorch 1.13's lists and golden values.
[[nodiscard]] std::string reference_dir();
/// The `wick` program.
[[nodiscard]] std::string cli_path();
/// The CPU backend's library, and the CUDA backend's (whether or not it was
/// built: WICK_CUDA_BACKEND_BUILT says).
[[nodiscard]] std::string cpu_backend_path();
[[nodiscard]] std::string cuda_backend_path();

}  // namespace wick_test
