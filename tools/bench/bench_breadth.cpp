// tools/bench/bench_breadth.cpp - the operator-breadth benchmarks: sort, topk, index_select, solve, svd, rfft, interpolate, conv_transpose2d.
/// \file
/// The shapes the breadth issue names (tools/bench/README.md): sort and topk
/// of 10^6 floats, index_select of 10^6 rows of a [10^6, 16] table, solve and
/// svd of 512 x 512, rfft of 2^20 floats (and of a prime length near it,
/// 2^20 + 7, which both sides compute with Bluestein's algorithm), bilinear interpolation of an 8 x 64 x 128 x 128 batch to
/// 256 x 256 (and its forward and backward), and a DCGAN generator layer (ConvTranspose2d(256, 128, 4, 2,
/// 1) on 16 x 256 x 8 x 8). bench_breadth_libtorch.cpp has the libtorch twin
/// of each; the README's figures run each side in its own process
/// (`--benchmark_filter=wick_...`, then `torch_...`), so that neither's
/// threads wait on the other's.
#include <benchmark/benchmark.h>

#include <wick/autograd.h>
#include <wick/loader.h>
#include <wick/ops.h>

namespace {

void wick_sort_1e6(benchmark::State& state) {
  wick::init();
  const wick::Tensor x = wick::randn({1000000});
  benchmark::DoNotOptimize(wick::sort(x));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::sort(x));
}
BENCHMARK(wick_sort_1e6)->UseRealTime()->Unit(benchmark::kMillisecond);

void wick_topk_1e6(benchmark::State& state) {
  wick::init();
  const wick::Tensor x = wick::randn({1000000});
  benchmark::DoNotOptimize(wick::topk(x, 1000));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::topk(x, 1000));
}
BENCHMARK(wick_topk_1e6)->UseRealTime()->Unit(benchmark::kMillisecond);

void wick_index_select_1e6(benchmark::State& state) {
  wick::init();
  const wick::Tensor table = wick::randn({1000000, 16});
  const wick::Tensor rows = wick::randint(1000000, {1000000});
  benchmark::DoNotOptimize(wick::index_select(table, 0, rows));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::index_select(table, 0, rows));
}
BENCHMARK(wick_index_select_1e6)->UseRealTime()->Unit(benchmark::kMillisecond);

void wick_solve_512(benchmark::State& state) {
  wick::init();
  const wick::Tensor a = wick::randn({512, 512}, wick::ScalarType::kFloat64);
  const wick::Tensor b = wick::randn({512, 512}, wick::ScalarType::kFloat64);
  benchmark::DoNotOptimize(wick::linalg::solve(a, b));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::linalg::solve(a, b));
}
BENCHMARK(wick_solve_512)->UseRealTime()->Unit(benchmark::kMillisecond);

void wick_svd_512(benchmark::State& state) {
  wick::init();
  const wick::Tensor a = wick::randn({512, 512}, wick::ScalarType::kFloat64);
  benchmark::DoNotOptimize(wick::linalg::svd(a, false));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::linalg::svd(a, false));
}
BENCHMARK(wick_svd_512)->UseRealTime()->Unit(benchmark::kMillisecond);

void wick_rfft_2p20(benchmark::State& state) {
  wick::init();
  const wick::Tensor x = wick::randn({std::int64_t{1} << 20});
  benchmark::DoNotOptimize(wick::fft::rfft(x));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::fft::rfft(x));
}
BENCHMARK(wick_rfft_2p20)->UseRealTime()->Unit(benchmark::kMillisecond);

void wick_rfft_prime(benchmark::State& state) {
  wick::init();
  const wick::Tensor x = wick::randn({(std::int64_t{1} << 20) + 7});
  benchmark::DoNotOptimize(wick::fft::rfft(x));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::fft::rfft(x));
}
BENCHMARK(wick_rfft_prime)->UseRealTime()->Unit(benchmark::kMillisecond);

void wick_interpolate_bilinear(benchmark::State& state) {
  wick::init();
  const wick::Tensor x = wick::randn({8, 64, 128, 128});
  const wick::Value size(std::vector<std::int64_t>{256, 256});
  benchmark::DoNotOptimize(wick::nn::functional::interpolate(x, size, {}, "bilinear", false));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::nn::functional::interpolate(x, size, {}, "bilinear", false));
}
BENCHMARK(wick_interpolate_bilinear)->UseRealTime()->Unit(benchmark::kMillisecond);

// The gradient too: the input's gradient of a bilinear upsampling (UNet's decoder, FPN).
void wick_interpolate_bilinear_backward(benchmark::State& state) {
  wick::init();
  const wick::Tensor x = wick::randn({8, 64, 128, 128}).requires_grad_();
  const wick::Tensor g = wick::randn({8, 64, 256, 256});
  const wick::Value size(std::vector<std::int64_t>{256, 256});
  auto step = [&] {
    const wick::Tensor y = wick::nn::functional::interpolate(x, size, {}, "bilinear", false);
    return wick::autograd::grad({y}, {x}, {g})[0];
  };
  benchmark::DoNotOptimize(step());  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(step());
}
BENCHMARK(wick_interpolate_bilinear_backward)->UseRealTime()->Unit(benchmark::kMillisecond);

void wick_conv_transpose2d_dcgan(benchmark::State& state) {
  wick::init();
  const wick::Tensor x = wick::randn({16, 256, 8, 8});
  const wick::Tensor w = wick::randn({256, 128, 4, 4});
  benchmark::DoNotOptimize(wick::conv_transpose2d(x, w, std::nullopt, 2, 1));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(wick::conv_transpose2d(x, w, std::nullopt, 2, 1));
}
BENCHMARK(wick_conv_transpose2d_dcgan)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
