// tools/bench/bench_conv_libtorch.cpp - the libtorch twins of bench_conv.cpp, built only with libtorch-dev.
/// \file
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "tools/bench/conv_shapes.h"

namespace {

enum class Direction { kForward, kInput, kWeight };

void run(benchmark::State& state, const bench::ConvShape& s, std::int64_t n, Direction direction, bool bf16) {
  torch::manual_seed(0);
  const at::ScalarType dtype = bf16 ? at::kBFloat16 : at::kFloat;
  const at::Tensor x = torch::randn({n, s.c, s.h, s.h}).to(dtype);
  const at::Tensor w = torch::randn({s.o, s.c, s.k, s.k}).to(dtype);
  const at::Tensor g = torch::randn({n, s.o, s.out(), s.out()}).to(dtype);
  const std::vector<std::int64_t> stride = {s.stride, s.stride};
  const std::vector<std::int64_t> pad = {s.pad, s.pad};
  const std::vector<std::int64_t> one = {1, 1};
  const std::vector<std::int64_t> zero = {0, 0};
  const std::array<bool, 3> want_input = {true, false, false};
  const std::array<bool, 3> want_weight = {false, true, false};
  const auto once = [&] {
    switch (direction) {
      case Direction::kForward:
        return at::conv2d(x, w, {}, stride, pad);
      case Direction::kInput:
        return std::get<0>(
            at::convolution_backward(g, x, w, c10::nullopt, stride, pad, one, false, zero, 1, want_input));
      case Direction::kWeight:
        break;
    }
    return std::get<1>(at::convolution_backward(g, x, w, c10::nullopt, stride, pad, one, false, zero, 1, want_weight));
  };
  benchmark::DoNotOptimize(once());  // untimed, as on wick's side
  for (auto _ : state) benchmark::DoNotOptimize(once());
  state.counters["flops"] = benchmark::Counter(s.flops(n), benchmark::Counter::kIsIterationInvariantRate);
}

const bool kRegistered = [] {
  const std::pair<const char*, Direction> directions[] = {
      {"conv_fwd", Direction::kForward},
      {"conv_bwd_input", Direction::kInput},
      {"conv_bwd_weight", Direction::kWeight}};
  for (const bool bf16 : {false, true})
    for (const auto& [label, direction] : directions)
      for (const bench::ConvShape& s : bench::conv_shapes())
        for (const std::int64_t n : bench::kConvBatches)
          benchmark::RegisterBenchmark(bench::conv_bench_name("torch", label, s, n, bf16).c_str(), run, s, n,
                                       direction, bf16)
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
