// tools/bench/bench_autograd.cpp - a small autograd graph, forward + backward:
// ((x * 2) + 1).sum() on 16 elements, with built-in formulas and with a
// custom Function for the affine part. libtorch twins: bench_libtorch.cpp.
/// \file
#include <benchmark/benchmark.h>

#include "wick/autograd.h"
#include "wick/autograd_function.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace {

using wick::Tensor;
using wick::autograd::AutogradContext;
using wick::autograd::tensor_list;

// y = x * 2 + 1 in one node.
struct Affine : wick::autograd::Function<Affine> {
  static Tensor forward(AutogradContext*, Tensor x) { return x * 2 + 1; }
  static tensor_list backward(AutogradContext*, tensor_list g) { return {g[0] * 2}; }
};

Tensor leaf16() {
  wick::init();
  return wick::randn({16}).requires_grad_();
}

void wick_autograd_small_graph(benchmark::State& state) {
  Tensor x = leaf16();
  for (auto _ : state) {
    Tensor y = ((x * 2) + 1).sum();
    y.backward();
  }
  benchmark::DoNotOptimize(x.grad());
}
BENCHMARK(wick_autograd_small_graph);

void wick_autograd_custom_function(benchmark::State& state) {
  Tensor x = leaf16();
  for (auto _ : state) {
    Tensor y = Affine::apply(x).sum();
    y.backward();
  }
  benchmark::DoNotOptimize(x.grad());
}
BENCHMARK(wick_autograd_custom_function);

}  // namespace
