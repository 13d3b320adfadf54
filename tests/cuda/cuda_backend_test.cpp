// tests/cuda/cuda_backend_test.cpp - the CUDA backend on a machine without a GPU or driver.
/// \file
/// What CI checks of the CUDA backend without a GPU: the plugin is found in
/// the backend directory and loads, logs that it found no device, registers
/// nothing (no kernel, no runtime, no allocator), and the host goes on.
/// Skipped where a device is present (tests/cuda/cuda_ops_test.cpp runs
/// there) and where the backend is not built.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "plugins/loader/digest.h"
#include "wick/cuda.h"
#include "wick/loader.h"
#include "wick/log.h"
#include "wick/ops.h"
#include "tests/support/test_paths.h"

namespace wick {
namespace {

class CudaWithoutDevice : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef WICK_CUDA_BACKEND_BUILT
    GTEST_SKIP() << "the CUDA backend is not built (WICK_WITH_CUDA, or no CUDA toolkit at configure time)";
#else
    init();
    if (cuda::is_available()) GTEST_SKIP() << "a CUDA device is present: the no-device path is not taken";
#endif
  }
};

#ifdef WICK_CUDA_BACKEND_BUILT
const PluginInfo* find_loaded(const std::vector<PluginInfo>& all, const std::string& name) {
  auto it = std::find_if(all.begin(), all.end(), [&](const PluginInfo& p) { return p.name == name; });
  return it == all.end() ? nullptr : &*it;
}
#endif

TEST_F(CudaWithoutDevice, LoadsRegistersNothingAndTheHostGoesOn) {
#ifdef WICK_CUDA_BACKEND_BUILT
  const std::vector<PluginInfo> all = loaded_plugins();
  const PluginInfo* p = find_loaded(all, "cuda");
  ASSERT_NE(p, nullptr) << "the CUDA backend was not loaded from the backend directory";
  EXPECT_EQ(p->kind, "backend");
  EXPECT_TRUE(p->registrations.kernels.empty());
  EXPECT_TRUE(p->registrations.operators.empty());
  for (const PluginLoadError& e : plugin_errors()) EXPECT_EQ(e.path.find("cuda"), std::string::npos) << e.message;
  EXPECT_EQ(device_runtime(DeviceType::kCUDA), nullptr);
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_THROW((void)ones({2}).cuda(), RuntimeError);
  EXPECT_THROW(cuda::synchronize(), RuntimeError);
  // CPU work is unaffected.
  EXPECT_EQ(add(ones({2}), ones({2})).sum().item<double>(), 4.0);

  // Loaded again, it says why it registers nothing.
  unload_plugin("cuda");
  std::string logged;
  const logging::Level was = logging::level();
  logging::set_level(logging::Level::kInfo);
  {
    const logging::ScopedSink sink([&](logging::Level, std::string_view m) { logged += std::string(m) + "\n"; });
    const PluginInfo again = load_plugin(wick_test::cuda_backend_path(), "backend");
    EXPECT_TRUE(again.registrations.kernels.empty());
  }
  logging::set_level(was);
  EXPECT_NE(logged.find("cuda: found no CUDA device"), std::string::npos) << logged;
#endif
}

// Issue 17, item 6: the kernel library goes through the loader's checks.
// The backend checks it before it looks for a device, so an allowlist that
// lists libwick_cuda.so but not cuda/libwick_cuda_kernels.so refuses the
// backend on this host too, naming the kernel library.
TEST_F(CudaWithoutDevice, AnAllowlistWithoutTheKernelLibraryRefusesTheBackend) {
#ifdef WICK_CUDA_BACKEND_BUILT
  namespace fs = std::filesystem;
  const std::string backend = fs::canonical(wick_test::cuda_backend_path()).string();
  const std::string kernels = (fs::path(backend).parent_path() / "cuda" / "libwick_cuda_kernels.so").string();
  ASSERT_TRUE(fs::exists(kernels)) << kernels;
  const fs::path dir = fs::temp_directory_path() / ("wick_cuda_allowlist_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::permissions(dir, fs::perms::group_write | fs::perms::others_write, fs::perm_options::remove);
  const fs::path list = dir / "allowlist";
  auto digest = [](const std::string& file) { return detail::sha256_file_hex(file) + "  " + file + "\n"; };
  const std::string backend_line = digest(backend);
  (void)unload_plugin("cuda");
  ::setenv("WICK_PLUGIN_ALLOWLIST", list.c_str(), 1);
  std::ofstream(list) << backend_line;
  std::string refused;
  try {
    (void)load_plugin(backend, "backend");
  } catch (const PluginError& e) {
    refused = e.what();
  }
  EXPECT_NE(
      refused.find("init of plugin 'cuda' failed: " + kernels + ": refused: not on the allowlist " + list.string()),
      std::string::npos)
      << refused;
  std::ofstream(list) << backend_line << digest(kernels);
  EXPECT_EQ(load_plugin(backend, "backend").name, "cuda");
  ::unsetenv("WICK_PLUGIN_ALLOWLIST");
  fs::remove_all(dir);
#endif
}

}  // namespace
}  // namespace wick
