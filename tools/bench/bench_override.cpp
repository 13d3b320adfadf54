// tools/bench/bench_override.cpp - what the __torch_function__ protocol costs: nothing when no
// argument overrides, and the handler call (plus the protocol's bookkeeping) when one does.
/// \file
/// Pairs (compare within the pair, not with libtorch):
///   override_typed_plain          typed no-op call, plain tensor (the protocol is absent)
///   override_has_torch_function   the check wick::call (or a plugin entry point) makes, 3 plain args
///   override_has_torch_function_1arg  the same, 1 plain tensor
///   override_boxed_plain          wick::call of a no-op with a plain tensor
///   override_boxed_one_handler    the same call with a tensor-like whose handler returns at once
#include <benchmark/benchmark.h>

#include <memory>

#include "wick/library.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/override.h"

namespace {

wick::Tensor noop_kernel(const wick::Tensor& self) { return self; }

class Cheap final : public wick::TensorLike {
 public:
  Cheap() : TensorLike("BenchCheap") {}
};

struct OverrideBench {
  OverrideBench() {
    wick::init();
    defs.def("noop(Tensor self) -> Tensor");
    cpu.impl("noop", &noop_kernel);
    // The handler does no work of its own: it returns a prepared value.
    defs.register_type({.name = "BenchCheap", .handler = [this](const wick::TorchFunctionCall&) { return answer; }});
    answer = wick::Value(wick::ones({1}));
  }
  wick::Library defs{"bench_override"};
  wick::Library cpu{"bench_override", wick::DispatchKey::kCPU};
  wick::Value answer;
};

OverrideBench& bench() {
  static OverrideBench b;
  return b;
}

void wick_override_typed_plain(benchmark::State& state) {
  bench();
  auto op = wick::find_op("bench_override.noop").typed<wick::Tensor(const wick::Tensor&)>();
  wick::Tensor x = wick::ones({1});
  for (auto _ : state) benchmark::DoNotOptimize(op.call(x));
}
BENCHMARK(wick_override_typed_plain);

// The check wick::call makes on its arguments (and a plugin entry point
// should make): two plain tensors and a number, as in torch.add(x, y, alpha=2).
void wick_override_has_torch_function(benchmark::State& state) {
  bench();
  std::vector<wick::Value> args{wick::Value(wick::ones({1})), wick::Value(wick::ones({1})), wick::Value(2)};
  for (auto _ : state) {
    benchmark::DoNotOptimize(args.data());
    benchmark::DoNotOptimize(wick::has_torch_function(args));
  }
}
BENCHMARK(wick_override_has_torch_function);

// The same for the one-tensor call of the boxed benchmarks below.
void wick_override_has_torch_function_1arg(benchmark::State& state) {
  bench();
  std::vector<wick::Value> args{wick::Value(wick::ones({1}))};
  for (auto _ : state) {
    benchmark::DoNotOptimize(args.data());
    benchmark::DoNotOptimize(wick::has_torch_function(args));
  }
}
BENCHMARK(wick_override_has_torch_function_1arg);

void wick_override_boxed_plain(benchmark::State& state) {
  bench();
  wick::Value x(wick::ones({1}));
  for (auto _ : state) benchmark::DoNotOptimize(wick::call("bench_override.noop", {x}));
}
BENCHMARK(wick_override_boxed_plain);

void wick_override_boxed_one_handler(benchmark::State& state) {
  bench();
  wick::Value x(std::shared_ptr<wick::Object>(std::make_shared<Cheap>()));
  for (auto _ : state) benchmark::DoNotOptimize(wick::call("bench_override.noop", {x}));
}
BENCHMARK(wick_override_boxed_one_handler);

}  // namespace
