// tests/dispatch/dispatcher_test.cpp - keys, tables, typed and boxed calls,
// fallbacks, fallthrough, redispatch, RAII registration and concurrency.
/// \file
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/library.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

// Kernels registered for the op itself (not the per-key fallbacks, such as
// the Autograd fallback every operator has).
std::size_t own_kernels(std::string_view op) {
  std::size_t n = 0;
  for (const auto& row : dispatch_table(op)) n += row.source != "fallback";
  return n;
}


using TensorFn = Tensor(const Tensor&);

// A fresh namespace per test keeps registrations scoped.
struct TestOps {
  explicit TestOps(const char* ns) : defs(ns) { defs.def("f(Tensor self) -> Tensor"); }
  Library defs;
};

Tensor tag_tensor(double v) { return full({1}, v, ScalarType::kFloat64); }
Tensor cpu_kernel(const Tensor&) { return tag_tensor(1); }
Tensor override_kernel(const Tensor&) { return tag_tensor(2); }

double tag(const Tensor& t) { return t.item<double>(); }

TEST(DispatchKeySet, PriorityIsBitPosition) {
  DispatchKeySet ks = DispatchKeySet(DispatchKey::kCPU).add(DispatchKey::kAutograd).add(DispatchKey::kOverride);
  EXPECT_EQ(ks.highest(), DispatchKey::kAutograd);
  EXPECT_EQ(ks.below(DispatchKey::kAutograd).highest(), DispatchKey::kOverride);
  EXPECT_EQ(next_keys(next_keys(ks)).highest(), DispatchKey::kCPU);
  EXPECT_TRUE(ks.has_backend());
  EXPECT_FALSE(ks.remove(DispatchKey::kCPU).has_backend());
  EXPECT_EQ(dispatch_key_name(DispatchKey::kOverride), "Override");
  EXPECT_EQ(parse_dispatch_key("Autograd"), DispatchKey::kAutograd);
  EXPECT_THROW((void)parse_dispatch_key("Nope"), ValueError);
}

TEST(Dispatcher, TypedAndBoxedCallsReachTheSameKernel) {
  init();
  TestOps ops("t_same");
  Library cpu("t_same", DispatchKey::kCPU);
  cpu.impl("f", &cpu_kernel);
  auto op = find_op("t_same.f");
  EXPECT_EQ(tag(op.typed<TensorFn>().call(ones({1}))), 1);
  Stack stack{Value(ones({1}))};
  op.call_boxed(stack);
  ASSERT_EQ(stack.size(), 1u);
  EXPECT_EQ(tag(stack[0].to_tensor()), 1);
  EXPECT_EQ(tag(call("t_same.f", {ones({1})}).to_tensor()), 1);
}

struct CountingBoxed final : BoxedFunctor {
  std::atomic<int> calls{0};
  std::string last_op;
  Tensor result = tag_tensor(7);  // made up front: the functor must not dispatch
  void operator()(const OperatorHandle& op, DispatchKeySet, Stack& stack) override {
    ++calls;
    last_op = op.name();
    stack.clear();
    stack.emplace_back(result);
  }
};

TEST(Dispatcher, BoxedKernelServesTypedCalls) {
  init();
  TestOps ops("t_boxed");
  auto k = std::make_shared<CountingBoxed>();
  Library cpu("t_boxed", DispatchKey::kCPU);
  cpu.impl_boxed("f", k);
  EXPECT_EQ(tag(find_op("t_boxed.f").typed<TensorFn>().call(ones({1}))), 7);
  EXPECT_EQ(k->calls.load(), 1);
}

TEST(Dispatcher, HigherKeyWinsAndExcludeGuardSkipsIt) {
  init();
  TestOps ops("t_prio");
  Library cpu("t_prio", DispatchKey::kCPU);
  cpu.impl("f", &cpu_kernel);
  Library ov("t_prio", DispatchKey::kOverride);
  ov.impl("f", &override_kernel);
  auto op = find_op("t_prio.f").typed<TensorFn>();
  // A plain CPU tensor has no Override key: CPU runs.
  EXPECT_EQ(tag(op.call(ones({1}))), 1);
  {
    IncludeDispatchKeyGuard include(DispatchKey::kOverride);
    EXPECT_EQ(tag(op.call(ones({1}))), 2);
    DisableOverrideGuard off;
    EXPECT_EQ(tag(op.call(ones({1}))), 1);
  }
}

Tensor redispatching_kernel(DispatchKeySet ks, const Tensor& x) {
  static const auto op = find_op("t_redis.f").typed<TensorFn>();
  Tensor below = op.redispatch(next_keys(ks), x);
  return tag_tensor(tag(below) + 10);
}

TEST(Dispatcher, RedispatchGoesBelowTheCurrentKey) {
  init();
  TestOps ops("t_redis");
  Library cpu("t_redis", DispatchKey::kCPU);
  cpu.impl("f", &cpu_kernel);
  Library ag("t_redis", DispatchKey::kAutograd);
  ag.impl("f", &redispatching_kernel);
  IncludeDispatchKeyGuard include(DispatchKey::kAutograd);
  EXPECT_EQ(tag(find_op("t_redis.f").typed<TensorFn>().call(ones({1}))), 11);
}

TEST(Dispatcher, FallthroughAndBoxedFallback) {
  init();
  TestOps ops("t_fall");
  Library cpu("t_fall", DispatchKey::kCPU);
  cpu.impl("f", &cpu_kernel);
  Library ag("t_fall", DispatchKey::kAutograd);
  ag.impl_fallthrough("f");
  IncludeDispatchKeyGuard include(DispatchKey::kAutograd);
  auto op = find_op("t_fall.f").typed<TensorFn>();
  EXPECT_EQ(tag(op.call(ones({1}))), 1);  // Autograd falls through to CPU

  // A per-key boxed fallback catches every operator without its own kernel.
  TestOps other("t_fall2");
  Library cpu2("t_fall2", DispatchKey::kCPU);
  cpu2.impl("f", &cpu_kernel);
  auto fb = std::make_shared<CountingBoxed>();
  auto op2 = find_op("t_fall2.f").typed<TensorFn>();
  Tensor x = ones({1});
  Tensor r;
  // (A free key: the last plugin-backend slot, which no backend has claimed.)
  constexpr DispatchKey kFree = DispatchKey::kLastPluginBackend;
  {
    Library fallback("_", kFree);
    fallback.fallback(fb);
    IncludeDispatchKeyGuard ov(kFree);
    r = op2.call(x);
  }
  EXPECT_EQ(tag(r), 7);
  EXPECT_EQ(fb->last_op, "t_fall2.f");
  // Gone with its Library: the call has no kernel for that key any more.
  IncludeDispatchKeyGuard ov(kFree);
  EXPECT_THROW((void)op2.call(x), NotImplementedError);
}

TEST(Dispatcher, ConflictNamesBothSidesAndReplaceRestores) {
  init();
  TestOps ops("t_conf");
  Library a("t_conf", DispatchKey::kCPU, "plugin_a");
  a.impl("f", &cpu_kernel);
  Library b("t_conf", DispatchKey::kCPU, "plugin_b");
  try {
    b.impl("f", &override_kernel);
    FAIL() << "expected a conflict";
  } catch (const PluginError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("plugin_a (dispatcher_test.cpp:"), std::string::npos) << m;
    EXPECT_NE(m.find("plugin_b (dispatcher_test.cpp:"), std::string::npos) << m;
    EXPECT_NE(m.find("t_conf.f"), std::string::npos) << m;
  }
  auto op = find_op("t_conf.f").typed<TensorFn>();
  EXPECT_EQ(tag(op.call(ones({1}))), 1);
  {
    Library c("t_conf", DispatchKey::kCPU, "plugin_c");
    c.impl("f", &override_kernel, /*replace=*/true);
    EXPECT_EQ(tag(op.call(ones({1}))), 2);
  }
  EXPECT_EQ(tag(op.call(ones({1}))), 1);  // the replaced kernel is back
}

TEST(Dispatcher, LibraryDestructionRemovesExactlyItsRegistrations) {
  init();
  {
    TestOps ops("t_raii");
    Library cpu("t_raii", DispatchKey::kCPU);
    cpu.impl("f", &cpu_kernel);
    EXPECT_TRUE(try_find_op("t_raii.f").has_value());
    EXPECT_EQ(own_kernels("t_raii.f"), 1u);
  }
  EXPECT_FALSE(try_find_op("t_raii.f").has_value());
  // The op can be defined again afterwards.
  TestOps again("t_raii");
  EXPECT_TRUE(try_find_op("t_raii.f").has_value());
  EXPECT_EQ(own_kernels("t_raii.f"), 0u);
}

Tensor two_args(const Tensor& a, const Tensor&) { return a; }

TEST(Dispatcher, SignatureMismatchIsATypeError) {
  init();
  Library defs("t_sig");
  defs.def("g(Tensor self, Tensor other) -> Tensor");
  Library cpu("t_sig", DispatchKey::kCPU);
  cpu.impl("g", &two_args);
  EXPECT_THROW((void)find_op("t_sig.g").typed<TensorFn>(), TypeError);
  Library ov("t_sig", DispatchKey::kOverride);
  EXPECT_THROW(ov.impl("g", &cpu_kernel), TypeError);
}

TEST(Dispatcher, MissingKernelNamesOperatorKeyAndDirectories) {
  init();
  TestOps ops("t_missing");
  try {
    (void)find_op("t_missing.f").typed<TensorFn>().call(ones({1}));
    FAIL();
  } catch (const NotImplementedError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("t_missing.f"), std::string::npos);
    EXPECT_NE(m.find("dispatch key CPU"), std::string::npos);
    EXPECT_NE(m.find("wick/backends"), std::string::npos) << m;
  }
  EXPECT_THROW((void)find_op("t_missing.nope"), ValueError);
}

TEST(Dispatcher, CompositeFillsBackendsWithoutTheirOwnKernel) {
  init();
  TestOps ops("t_comp");
  Library comp("t_comp", DispatchKey::kCompositeImplicit);
  comp.impl("f", &override_kernel);
  auto op = find_op("t_comp.f").typed<TensorFn>();
  EXPECT_EQ(tag(op.call(ones({1}))), 2);
  Library cpu("t_comp", DispatchKey::kCPU);
  cpu.impl("f", &cpu_kernel);
  EXPECT_EQ(tag(op.call(ones({1}))), 1);
  auto rows = dispatch_table("t_comp.f");
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.back().source, "kernel");
}

TEST(Dispatcher, AliasesShareKernelsButOverrideAlone) {
  init();
  TestOps ops("t_alias");
  Library cpu("t_alias", DispatchKey::kCPU);
  cpu.impl("f", &cpu_kernel);
  Library methods("t_alias.Tensor");
  methods.alias("f", "t_alias.f").alias("__f__", "t_alias.f");
  auto alias = find_op("t_alias.Tensor.f").typed<TensorFn>();
  auto dunder = find_op("t_alias.Tensor.__f__").typed<TensorFn>();
  EXPECT_EQ(tag(alias.call(ones({1}))), 1);
  Library only_dunder("t_alias.Tensor", DispatchKey::kOverride);
  only_dunder.impl("__f__", &override_kernel);
  IncludeDispatchKeyGuard include(DispatchKey::kOverride);
  EXPECT_EQ(tag(dunder.call(ones({1}))), 2);
  EXPECT_EQ(tag(alias.call(ones({1}))), 1);
  EXPECT_EQ(tag(find_op("t_alias.f").typed<TensorFn>().call(ones({1}))), 1);
}

// Registration is safe while other threads dispatch: readers always see a
// complete table (old or new), never a torn one.
TEST(Dispatcher, RegistrationWhileDispatching) {
  init();
  TestOps ops("t_threads");
  Library cpu("t_threads", DispatchKey::kCPU);
  cpu.impl("f", &cpu_kernel);
  auto op = find_op("t_threads.f").typed<TensorFn>();
  std::atomic<bool> stop{false};
  std::atomic<long> bad{0};
  std::atomic<long> calls{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 2; ++i) {
    readers.emplace_back([&] {
      IncludeDispatchKeyGuard include(DispatchKey::kOverride);
      Tensor x = ones({1});
      while (!stop.load()) {
        const double v = tag(op.call(x));
        if (v != 1 && v != 2) ++bad;
        ++calls;
      }
    });
  }
  while (calls.load() == 0) std::this_thread::yield();  // readers are running
  for (int i = 0; i < 300; ++i) {
    Library ov("t_threads", DispatchKey::kOverride);
    ov.impl("f", &override_kernel);
    const long seen = calls.load();
    while (calls.load() == seen) std::this_thread::yield();  // interleave with readers
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(calls.load(), 0);
}

// A device a test registers itself, with host memory: its tensors carry the
// device's backend key and no backend has kernels for it.
class HostBackedAllocator final : public Allocator {
 public:
  void* allocate(std::size_t n) override { return n ? std::malloc(n) : nullptr; }
  void deallocate(void* p, std::size_t) noexcept override { std::free(p); }
};

TEST(Dispatcher, NeverFallsBackToALowerBackend) {
  init();
  static HostBackedAllocator alloc;
  const DeviceType dev = register_device_type("wicktestdev");
  set_allocator(dev, &alloc);
  Tensor x = make_empty({2}, ScalarType::kFloat32, Device(dev, 0));
  EXPECT_TRUE(x.key_set().has(backend_key(dev)));
  // Neither neg(x) nor x * 2 (a CPU wrapped number joins) may run the CPU kernel.
  try {
    (void)neg(x);
    FAIL();
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("dispatch key wicktestdev"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)call("torch.mul", {x, 2}), NotImplementedError);
  set_allocator(dev, nullptr);
}

TEST(Dispatcher, UnregisteringABoxedKernelWhileItIsCalled) {
  init();
  TestOps ops("t_boxed_threads");
  Library cpu("t_boxed_threads", DispatchKey::kCPU);
  cpu.impl("f", &cpu_kernel);
  auto op = find_op("t_boxed_threads.f").typed<TensorFn>();
  std::atomic<bool> stop{false};
  std::atomic<long> calls{0};
  std::thread reader([&] {
    IncludeDispatchKeyGuard include(DispatchKey::kOverride);
    Tensor x = ones({1});
    while (!stop.load()) {
      (void)op.call(x);
      ++calls;
    }
  });
  while (calls.load() == 0) std::this_thread::yield();
  for (int i = 0; i < 200; ++i) {
    Library ov("t_boxed_threads", DispatchKey::kOverride);
    ov.impl_boxed("f", std::make_shared<CountingBoxed>());  // freed only when retired tables are
    const long seen = calls.load();
    while (calls.load() == seen) std::this_thread::yield();
  }
  stop = true;
  reader.join();
  SUCCEED();  // under ASan, a freed functor called by a stale table would be reported
}

TEST(Dispatcher, AliasesGoAwayWithTheirTarget) {
  init();
  auto ops = std::make_unique<TestOps>("t_alias_gone");
  Library methods("t_alias_gone.Tensor");
  methods.alias("f", "t_alias_gone.f");
  EXPECT_TRUE(try_find_op("t_alias_gone.Tensor.f").has_value());
  ops.reset();
  EXPECT_FALSE(try_find_op("t_alias_gone.Tensor.f").has_value());
}

TEST(Catalog, ListingsSignaturesAndIgnored) {
  init();
  auto tensor_ns = overridable_functions("torch.Tensor");
  auto has = [](const std::vector<std::string>& v, const std::string& s) {
    return std::find(v.begin(), v.end(), s) != v.end();
  };
  EXPECT_TRUE(has(tensor_ns, "torch.Tensor.__add__"));
  EXPECT_TRUE(has(tensor_ns, "torch.Tensor.add"));
  EXPECT_FALSE(has(tensor_ns, "torch.add"));
  auto ignored = ignored_functions();
  EXPECT_TRUE(has(ignored, "torch.zeros"));
  EXPECT_FALSE(has(overridable_functions(), "torch.zeros"));
  EXPECT_EQ(python_signature("torch.add"), "(input, other, *, alpha=1, out=None)");
  EXPECT_EQ(python_signature("torch.mul"), "(input, other, *, out=None)");
  EXPECT_EQ(python_signature("torch.Tensor.add"), "(self, other, *, alpha=1)");
  EXPECT_GE(catalog_entries().size(), 30u);
  auto rows = dispatch_table("torch.add");
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows[0].key, DispatchKey::kAutograd);  // the built-in formula
  EXPECT_EQ(rows[0].provider, "host");
  EXPECT_EQ(rows.back().key, DispatchKey::kCPU);
  EXPECT_EQ(rows.back().provider, "cpu");
}

}  // namespace
}  // namespace wick
