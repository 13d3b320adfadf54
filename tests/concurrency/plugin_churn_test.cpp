// tests/concurrency/plugin_churn_test.cpp - plugins load and unload while other threads dispatch.
/// \file
/// Built into the normal suite and, on its own, into the `tsan` preset's
/// binary (ctest label `tsan`), where ThreadSanitizer watches every access.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/override.h"
#include "tests/support/test_paths.h"

namespace wick {
namespace {

std::string plugin_path(const std::string& stem) {
  return wick_test::plugin_dir() + "/libwick_test_" + stem + ".so";
}

TEST(PluginChurn, LoadAndUnloadWhileOtherThreadsDispatch) {
  init();
  std::atomic<bool> stop{false};
  std::atomic<long> calls{0};
  std::atomic<long> wrong{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 3; ++w) {
    workers.emplace_back([&, w] {
      Tensor x = ones({4});
      while (!stop.load(std::memory_order_relaxed)) {
        // Typed and boxed calls of operators no plugin in the churn touches,
        // lookups by name, and the catalog listing that the loads change.
        double v = 0;
        if (w == 0) v = add(x, x).sum().item<double>();
        if (w == 1) v = call("torch.mul", {x, 2}).to_tensor().sum().item<double>();
        if (w == 2) {
          v = 8;
          (void)try_find_op("testplug.twice");  // appears and disappears
          (void)get_overridable_functions();
          (void)find_type("TestTypedSub");
        }
        if (v != 8) wrong.fetch_add(1, std::memory_order_relaxed);
        calls.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  while (calls.load() < 10) std::this_thread::yield();
  for (int round = 0; round < 100; ++round) {
    load_plugin(plugin_path("good"));
    load_plugin(plugin_path("typed"));
    EXPECT_THROW(load_plugin(plugin_path("throwing_init")), PluginError);  // rolled back each time
    EXPECT_THROW(load_plugin(plugin_path("conflict")), PluginError);
    EXPECT_EQ(call("testplug.twice", {ones({2})}).to_tensor().sum().item<double>(), 4.0);
    unload_plugin("test_typed");
    unload_plugin("test_good");
  }
  stop = true;
  for (auto& t : workers) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(calls.load(), 0);
  EXPECT_FALSE(try_find_op("testplug.twice").has_value());
}

}  // namespace
}  // namespace wick
