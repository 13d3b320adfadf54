// tools/bench/bench_memory.cpp - peak memory of a forward and backward pass of a 4-layer MLP.
/// \file
/// `wick_mlp_peak/256` (and its libtorch twin `torch_mlp_peak/256` in
/// bench_memory_libtorch.cpp): a batch of 256 through four float32 Linear
/// layers (1024 -> 1024 -> 1024 -> 1024 -> 10, ReLU between), the sum of
/// the outputs, backward into the weights. The counter `peak_MiB` is how far
/// resident memory rose during one step over where it started, after the
/// CPU allocator's cache was emptied (tools/bench/peak_memory.h); the
/// weights and the input exist before the step and are not counted.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "peak_memory.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/storage.h"

namespace {

void wick_mlp_peak(benchmark::State& state) {
  wick::init();
  wick::manual_seed(0);
  const std::int64_t batch = state.range(0);
  const std::vector<std::int64_t> widths = {1024, 1024, 1024, 1024, 10};
  std::vector<wick::Tensor> weights;
  std::vector<wick::Tensor> biases;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    weights.push_back(wick::mul(wick::randn({widths[i + 1], widths[i]}), wick::wrap_scalar(0.03)).requires_grad_());
    biases.push_back(wick::zeros({widths[i + 1]}).requires_grad_());
  }
  const wick::Tensor x = wick::randn({batch, widths[0]});
  long peak = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < weights.size(); ++i) {
      weights[i].mutable_grad() = wick::Tensor();
      biases[i].mutable_grad() = wick::Tensor();
    }
    wick::empty_cpu_cache();
    peak = std::max(peak, wick_bench::peak_growth([&] {
      wick::Tensor h = x;
      for (std::size_t i = 0; i < weights.size(); ++i) {
        h = wick::nn::functional::linear(h, weights[i], biases[i]);
        if (i + 1 < weights.size()) h = wick::relu(h);
      }
      h.sum().backward();
    }));
  }
  state.counters["peak_MiB"] = static_cast<double>(peak) / (1 << 20);
}
BENCHMARK(wick_mlp_peak)->Arg(256)->Iterations(5)->UseRealTime();

}  // namespace
