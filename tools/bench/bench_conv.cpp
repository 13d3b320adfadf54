// tools/bench/bench_conv.cpp - convolution layers of ResNet-50 and DCGAN: forward and both backwards, float32.
/// \file
/// `wick_conv_fwd/<layer>/<batch>` is torch.conv2d (`wick_conv_fwd_bf16/...` in bfloat16); `wick_conv_bwd_input`
/// and `wick_conv_bwd_weight` are the internal operators autograd calls for
/// the two gradients (aten.convolution2d_input_backward / _weight_backward).
/// The twins in bench_conv_libtorch.cpp call at::conv2d and
/// at::convolution_backward with one output asked for. The layers are
/// tools/bench/conv_shapes.h's; `flops` counts the multiply-adds twice.
///
/// WICK_BENCH_MKLDNN=0 in the environment turns oneDNN off for the whole
/// wick_bench process (backends::set_mkldnn_enabled(false)): convolutions
/// then take im2col + GEMM, for a before/after comparison in one build.
/// WICK_BENCH_WINOGRAD=0 turns Winograd off (backends::set_mkldnn_winograd),
/// WICK_BENCH_SMALL_IM2COL=0 lets oneDNN take the small convolutions too
/// (backends::set_mkldnn_small_on_im2col).
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string_view>

#include "tools/bench/conv_shapes.h"
#include "wick/backends.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace {

using wick::IntArrayRef;
using wick::Tensor;
using Backward = Tensor(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef,
                        std::int64_t);

enum class Direction { kForward, kInput, kWeight };

void run(benchmark::State& state, const bench::ConvShape& s, std::int64_t n, Direction direction, bool bf16) {
  wick::init();
  wick::manual_seed(0);
  const wick::ScalarType dtype = bf16 ? wick::ScalarType::kBFloat16 : wick::ScalarType::kFloat32;
  const Tensor x = wick::randn({n, s.c, s.h, s.h}).to(dtype);
  const Tensor w = wick::randn({s.o, s.c, s.k, s.k}).to(dtype);
  const Tensor g = wick::randn({n, s.o, s.out(), s.out()}).to(dtype);
  const std::int64_t stride[] = {s.stride, s.stride};
  const std::int64_t pad[] = {s.pad, s.pad};
  const std::int64_t one[] = {1, 1};
  static const auto input_backward = wick::find_op("aten.convolution2d_input_backward").typed<Backward>();
  static const auto weight_backward = wick::find_op("aten.convolution2d_weight_backward").typed<Backward>();
  const auto once = [&] {
    switch (direction) {
      case Direction::kForward:
        return wick::conv2d(x, w, std::nullopt, stride, pad);
      case Direction::kInput:
        return input_backward.call(g, w, x.sizes(), stride, pad, one, 1);
      case Direction::kWeight:
        break;
    }
    return weight_backward.call(g, x, w.sizes(), stride, pad, one, 1);
  };
  // One call untimed, as on libtorch's side: the first builds and JIT-compiles
  // oneDNN's primitive and faults in fresh memory (tools/bench/README.md, "Warm-up").
  benchmark::DoNotOptimize(once());
  for (auto _ : state) benchmark::DoNotOptimize(once());
  state.counters["flops"] = benchmark::Counter(s.flops(n), benchmark::Counter::kIsIterationInvariantRate);
}

const bool kRegistered = [] {
  if (const char* env = std::getenv("WICK_BENCH_MKLDNN"); env != nullptr && std::string_view(env) == "0")
    wick::backends::set_mkldnn_enabled(false);
  if (const char* env = std::getenv("WICK_BENCH_WINOGRAD"); env != nullptr && std::string_view(env) == "0")
    wick::backends::set_mkldnn_winograd(false);
  if (const char* env = std::getenv("WICK_BENCH_SMALL_IM2COL"); env != nullptr && std::string_view(env) == "0")
    wick::backends::set_mkldnn_small_on_im2col(false);
  const std::pair<const char*, Direction> directions[] = {
      {"conv_fwd", Direction::kForward},
      {"conv_bwd_input", Direction::kInput},
      {"conv_bwd_weight", Direction::kWeight}};
  for (const bool bf16 : {false, true})
    for (const auto& [label, direction] : directions)
      for (const bench::ConvShape& s : bench::conv_shapes())
        for (const std::int64_t n : bench::kConvBatches)
          benchmark::RegisterBenchmark(bench::conv_bench_name("wick", label, s, n, bf16).c_str(), run, s, n,
                                       direction, bf16)
              ->UseRealTime()
              ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
