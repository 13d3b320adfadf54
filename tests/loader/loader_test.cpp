// tests/loader/loader_test.cpp - the loader against real plugin files, good and broken.
/// \file
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/version.h"

namespace wick {
namespace {

std::string plugin_path(const std::string& stem) {
  return std::string(WICK_TEST_PLUGIN_DIR) + "/libwick_test_" + stem + ".so";
}

std::string load_error(const std::string& path) {
  try {
    load_plugin(path);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "loaded";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

TEST(Loader, DefaultDirectoriesLoadTheCpuBackend) {
  init();
  auto plugins = loaded_plugins();
  auto it = std::find_if(plugins.begin(), plugins.end(), [](const PluginInfo& p) { return p.name == "cpu"; });
  ASSERT_NE(it, plugins.end());
  EXPECT_EQ(it->kind, "backend");
  EXPECT_TRUE(contains(it->path, "wick/backends/libwick_cpu.so")) << it->path;
  EXPECT_EQ(std::filesystem::canonical(it->path), std::filesystem::canonical(WICK_CPU_BACKEND_PATH));
  EXPECT_TRUE(plugin_errors().empty());
}

TEST(Loader, GoodPluginLoadsAndUnloadsCleanly) {
  init();
  PluginInfo info = load_plugin(plugin_path("good"));
  EXPECT_EQ(info.name, "test_good");
  EXPECT_EQ(info.version, "1.2.3");
  Value r = call("testplug.twice", {ones({2})});
  EXPECT_EQ(r.to_tensor().sum().item<double>(), 4.0);
  auto rows = dispatch_table("testplug.twice");
  ASSERT_EQ(rows.size(), 3u);  // the Autograd and Override fallbacks, and the plugin's CPU kernel
  EXPECT_EQ(rows[0].source, "fallback");
  EXPECT_EQ(rows[1].source, "fallback");
  EXPECT_EQ(rows[2].key, DispatchKey::kCPU);
  EXPECT_EQ(rows[2].provider, "test_good");
  // A second plugin of the same name is refused.
  EXPECT_TRUE(contains(load_error(plugin_path("good")), "a plugin named 'test_good' is already loaded"));
  unload_plugin("test_good");
  EXPECT_FALSE(try_find_op("testplug.twice").has_value());
  EXPECT_THROW(unload_plugin("test_good"), PluginError);
  // Reloading works.
  load_plugin(plugin_path("good"));
  EXPECT_TRUE(try_find_op("testplug.twice").has_value());
  unload_plugin("test_good");
}

TEST(Loader, ThrowingInitIsRolledBack) {
  init();
  std::string m = load_error(plugin_path("throwing_init"));
  EXPECT_TRUE(contains(m, "deliberate failure in init")) << m;
  EXPECT_TRUE(contains(m, "rolled back")) << m;
  EXPECT_TRUE(contains(m, "libwick_test_throwing_init.so")) << m;
  EXPECT_FALSE(try_find_op("testthrow.f").has_value());
  // The host goes on.
  EXPECT_EQ(neg(ones({1})).item<double>(), -1.0);
}

TEST(Loader, ConflictNamesBothPluginsAndRollsBack) {
  init();
  std::string m = load_error(plugin_path("conflict"));
  EXPECT_TRUE(contains(m, "conflicting kernels for torch.neg at CPU")) << m;
  EXPECT_TRUE(contains(m, "cpu (unary_ops.cpp:")) << m;
  EXPECT_TRUE(contains(m, "test_conflict (conflict.cpp:")) << m;
  EXPECT_FALSE(try_find_op("testconflict.g").has_value());
  EXPECT_EQ(neg(ones({1})).item<double>(), -1.0);
}

TEST(Loader, BrokenFilesGetOneSpecificMessageEach) {
  init();
  EXPECT_TRUE(contains(load_error(plugin_path("bad_abi")), "plugin ABI version 99, this host supports " WICK_STR(WICK_PLUGIN_ABI_VERSION)));
  EXPECT_TRUE(contains(load_error(plugin_path("bad_fingerprint")), "ABI fingerprint mismatch"));
  EXPECT_TRUE(contains(load_error(plugin_path("no_entry")), "no entry point 'wick_plugin_descriptor' (is this a wick plugin?)"));
  EXPECT_TRUE(contains(load_error("/nonexistent/libx.so"), "no such plugin file"));
  auto garbage = std::filesystem::temp_directory_path() / "wick_loader_test_garbage.so";
  {
    std::ofstream f(garbage);
    f << "this is not an ELF file";
  }
  std::string m = load_error(garbage.string());
  EXPECT_TRUE(contains(m, "cannot load as a shared library")) << m;
  EXPECT_TRUE(contains(m, garbage.string())) << m;
  std::filesystem::remove(garbage);
  EXPECT_EQ(add(ones({1}), ones({1})).item<double>(), 2.0);
}

}  // namespace
}  // namespace wick
