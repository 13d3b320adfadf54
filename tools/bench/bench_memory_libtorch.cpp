// tools/bench/bench_memory_libtorch.cpp - the libtorch twin of bench_memory.cpp, built with libtorch-dev only.
/// \file
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <algorithm>
#include <vector>

#include "peak_memory.h"

namespace {

void torch_mlp_peak(benchmark::State& state) {
  torch::manual_seed(0);
  const std::int64_t batch = state.range(0);
  const std::vector<std::int64_t> widths = {1024, 1024, 1024, 1024, 10};
  std::vector<at::Tensor> weights;
  std::vector<at::Tensor> biases;
  for (std::size_t i = 0; i + 1 < widths.size(); ++i) {
    weights.push_back((torch::randn({widths[i + 1], widths[i]}) * 0.03).requires_grad_());
    biases.push_back(torch::zeros({widths[i + 1]}).requires_grad_());
  }
  const at::Tensor x = torch::randn({batch, widths[0]});
  long peak = 0;
  for (auto _ : state) {
    for (std::size_t i = 0; i < weights.size(); ++i) {
      weights[i].mutable_grad() = at::Tensor();
      biases[i].mutable_grad() = at::Tensor();
    }
    peak = std::max(peak, wick_bench::peak_growth([&] {
      at::Tensor h = x;
      for (std::size_t i = 0; i < weights.size(); ++i) {
        h = torch::nn::functional::linear(h, weights[i], biases[i]);
        if (i + 1 < weights.size()) h = torch::relu(h);
      }
      h.sum().backward();
    }));
  }
  state.counters["peak_MiB"] = static_cast<double>(peak) / (1 << 20);
}
BENCHMARK(torch_mlp_peak)->Arg(256)->Iterations(5)->UseRealTime();

}  // namespace
