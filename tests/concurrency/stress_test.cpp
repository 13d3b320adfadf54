// tests/concurrency/stress_test.cpp - four threads dispatch a mix of operators while a fifth loads and unloads plugins.
/// \file
/// Issue 7's load test. For a bounded time (WICK_STRESS_SECONDS, default 2)
/// four threads run, each in its own loop and each checking every result:
///   0. autograd: backward of exp(2x + 1).sum() through a small graph;
///   1. boxed calls by name: matmul, softmax, conv2d, a reduction;
///   2. tensor-likes: a tensor subclass whose handler defers to `super`,
///      mixed with plain tensors, and `wick::call` on a plain list;
///   3. double backward: autograd::grad of x^3 with create_graph, then again;
/// while a fifth thread loads two plugins, calls one, fails to load two
/// broken ones, and unloads both, round after round. Every thread must
/// finish (a watchdog fails the test after the time plus a minute rather
/// than let a deadlock hang ctest), no result may be wrong, and the test
/// prints the operations per second. Built into the normal suite and into
/// the `tsan` preset's binary, where ThreadSanitizer watches every access.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "wick/autograd.h"
#include "wick/dispatcher.h"
#include "wick/library.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/override.h"
#include "tests/support/test_paths.h"

namespace wick {
namespace {

std::string plugin_path(const std::string& stem) {
  return wick_test::plugin_dir() + "/libwick_test_" + stem + ".so";
}

double seconds_to_run() {
  const char* s = std::getenv("WICK_STRESS_SECONDS");
  return s != nullptr ? std::atof(s) : 2.0;
}

Tensor values(std::vector<double> v) {
  return tensor(Value::list(std::vector<Value>(v.begin(), v.end())), ScalarType::kFloat64);
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); }

// A subclass whose handler counts and defers to the default behaviour.
std::atomic<long> g_handled{0};
const TypeInfo& stress_type() {
  static auto* lib = new Library("stress_test");
  static const TypeInfo& type = lib->register_type({.name = "StressSub", .parent = "Tensor",
                                                    .handler = [](const TorchFunctionCall& c) {
                                                      g_handled.fetch_add(1, std::memory_order_relaxed);
                                                      return default_torch_function(c);
                                                    }});
  return type;
}

struct Counters {
  std::atomic<long> ops{0};
  std::atomic<long> wrong{0};
  void check(bool ok) {
    ops.fetch_add(1, std::memory_order_relaxed);
    if (!ok) wrong.fetch_add(1, std::memory_order_relaxed);
  }
};

// One iteration of worker w's mix.
void work(int w, Counters& c) {
  switch (w) {
    case 0: {  // d/dx sum(exp(2x + 1)) = 2 exp(2x + 1)
      Tensor x = values({-0.5, 0.25, 1.0}).requires_grad_();
      Tensor y = exp(add(mul(x, wrap_scalar(Scalar(2.0))), wrap_scalar(Scalar(1.0)))).sum();
      y.backward();
      c.check(close(x.grad().select(0, 1).item<double>(), 2 * std::exp(1.5)));
      break;
    }
    case 1: {
      Tensor a = values({1, 2, 3, 4}).reshape({2, 2});
      Tensor m = call("torch.matmul", {a, a}).to_tensor();
      c.check(m.select(0, 1).select(0, 1).item<double>() == 22.0);  // [[7, 10], [15, 22]]
      Tensor s = call("torch.softmax", {a, Value(std::int64_t{1})}).to_tensor();
      c.check(close(s.sum().item<double>(), 2.0));
      Tensor img = ones({1, 2, 4, 4}, ScalarType::kFloat64);
      Tensor k = ones({3, 2, 3, 3}, ScalarType::kFloat64);
      Tensor conv = call("torch.conv2d", {img, k}, {{"padding", Value(std::int64_t{1})}}).to_tensor();
      c.check(conv.select(0, 0).select(0, 2).select(0, 1).select(0, 1).item<double>() == 18.0);  // an inner pixel
      c.check(call("torch.amax", {a}).to_tensor().item<double>() == 4.0);
      break;
    }
    case 2: {
      Tensor sub = as_subclass(values({1, 2, 3}), &stress_type());
      Value r = call("torch.add", {sub, values({1, 1, 1})});
      c.check(type_of(r) == &stress_type() && r.to_tensor().sum().item<double>() == 9.0);
      bool refused = false;  // a list is not a tensor-like: a TypeError naming the argument
      try {
        (void)call("torch.mul", {Value::list({1, 2}), Value(2)});
      } catch (const TypeError& e) {
        refused = std::string(e.what()).find("input") != std::string::npos;
      }
      c.check(refused);
      Tensor plain = mul(sub, sub);  // the typed API runs the protocol too
      c.check(plain.sum().item<double>() == 14.0);
      break;
    }
    default: {  // d/dx x^3 = 3x^2, d2/dx2 = 6x
      Tensor x = values({1.5}).requires_grad_();
      Tensor y = mul(mul(x, x), x).sum();
      autograd::tensor_list g1 = autograd::grad({y}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true);
      autograd::tensor_list g2 = autograd::grad({g1[0].sum()}, {x});
      c.check(close(g1[0].item<double>(), 6.75) && close(g2[0].item<double>(), 9.0));
      break;
    }
  }
}

TEST(Stress, FourDispatchingThreadsAndPluginChurn) {
  init();
  (void)stress_type();
  const double budget = seconds_to_run();
  std::atomic<bool> stop{false};
  Counters counters;
  std::atomic<long> rounds{0};
  std::vector<std::future<void>> done;
  for (int w = 0; w < 4; ++w) {
    done.push_back(std::async(std::launch::async, [&, w] {
      while (!stop.load(std::memory_order_relaxed)) work(w, counters);
    }));
  }
  done.push_back(std::async(std::launch::async, [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      load_plugin(plugin_path("good"));
      load_plugin(plugin_path("typed"));
      EXPECT_THROW(load_plugin(plugin_path("throwing_init")), PluginError);
      EXPECT_THROW(load_plugin(plugin_path("conflict")), PluginError);
      counters.check(call("testplug.twice", {ones({2})}).to_tensor().sum().item<double>() == 4.0);
      unload_plugin("test_typed");
      unload_plugin("test_good");
      rounds.fetch_add(1, std::memory_order_relaxed);
    }
  }));
  const auto start = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(std::chrono::duration<double>(budget));
  stop = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (auto& f : done) {
    if (f.wait_until(deadline) != std::future_status::ready) {
      std::fprintf(stderr, "Stress: a thread did not stop within a minute of the end: deadlock\n");
      std::abort();  // a hang would otherwise outlive the test
    }
    f.get();  // rethrows a worker's exception as a test failure
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double rate = static_cast<double>(counters.ops.load()) / elapsed;
  std::printf("stress: %ld checked operations in %.1f s (%.0f per second), %ld plugin rounds, %ld handler calls\n",
              counters.ops.load(), elapsed, rate, rounds.load(), g_handled.load());
  RecordProperty("ops_per_second", static_cast<int>(rate));
  EXPECT_EQ(counters.wrong.load(), 0);
  EXPECT_GT(rounds.load(), 0);
  EXPECT_GT(g_handled.load(), 0);
  EXPECT_FALSE(try_find_op("testplug.twice").has_value());
}

}  // namespace
}  // namespace wick
