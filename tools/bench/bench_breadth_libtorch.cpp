// tools/bench/bench_breadth_libtorch.cpp - the libtorch twins of bench_breadth.cpp.
/// \file
/// The same shapes and calls through libtorch, with as many intra-op threads
/// as wick's OpenMP loops use (bench_ops_libtorch.cpp).
#include <benchmark/benchmark.h>
#include <omp.h>
#include <torch/torch.h>

namespace {

const bool g_same_threads = [] {
  at::set_num_threads(omp_get_max_threads());
  return true;
}();

void torch_sort_1e6(benchmark::State& state) {
  const at::Tensor x = torch::randn({1000000});
  benchmark::DoNotOptimize(at::sort(x));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(at::sort(x));
}
BENCHMARK(torch_sort_1e6)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_topk_1e6(benchmark::State& state) {
  const at::Tensor x = torch::randn({1000000});
  benchmark::DoNotOptimize(at::topk(x, 1000));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(at::topk(x, 1000));
}
BENCHMARK(torch_topk_1e6)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_index_select_1e6(benchmark::State& state) {
  const at::Tensor table = torch::randn({1000000, 16});
  const at::Tensor rows = torch::randint(1000000, {1000000});
  benchmark::DoNotOptimize(at::index_select(table, 0, rows));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(at::index_select(table, 0, rows));
}
BENCHMARK(torch_index_select_1e6)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_solve_512(benchmark::State& state) {
  const at::Tensor a = torch::randn({512, 512}, torch::kFloat64);
  const at::Tensor b = torch::randn({512, 512}, torch::kFloat64);
  benchmark::DoNotOptimize(at::linalg_solve(a, b));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(at::linalg_solve(a, b));
}
BENCHMARK(torch_solve_512)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_svd_512(benchmark::State& state) {
  const at::Tensor a = torch::randn({512, 512}, torch::kFloat64);
  benchmark::DoNotOptimize(at::linalg_svd(a, false));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(at::linalg_svd(a, false));
}
BENCHMARK(torch_svd_512)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_rfft_2p20(benchmark::State& state) {
  const at::Tensor x = torch::randn({int64_t{1} << 20});
  benchmark::DoNotOptimize(at::fft_rfft(x));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(at::fft_rfft(x));
}
BENCHMARK(torch_rfft_2p20)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_rfft_prime(benchmark::State& state) {
  const at::Tensor x = torch::randn({(int64_t{1} << 20) + 7});
  benchmark::DoNotOptimize(at::fft_rfft(x));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(at::fft_rfft(x));
}
BENCHMARK(torch_rfft_prime)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_interpolate_bilinear(benchmark::State& state) {
  const at::Tensor x = torch::randn({8, 64, 128, 128});
  namespace F = torch::nn::functional;
  const auto options = F::InterpolateFuncOptions().size(std::vector<int64_t>{256, 256}).mode(torch::kBilinear).align_corners(false);
  benchmark::DoNotOptimize(F::interpolate(x, options));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(F::interpolate(x, options));
}
BENCHMARK(torch_interpolate_bilinear)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_interpolate_bilinear_backward(benchmark::State& state) {
  const at::Tensor x = torch::randn({8, 64, 128, 128}).requires_grad_();
  const at::Tensor g = torch::randn({8, 64, 256, 256});
  namespace F = torch::nn::functional;
  const auto options = F::InterpolateFuncOptions().size(std::vector<int64_t>{256, 256}).mode(torch::kBilinear).align_corners(false);
  auto step = [&] { return torch::autograd::grad({F::interpolate(x, options)}, {x}, {g})[0]; };
  benchmark::DoNotOptimize(step());  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(step());
}
BENCHMARK(torch_interpolate_bilinear_backward)->UseRealTime()->Unit(benchmark::kMillisecond);

void torch_conv_transpose2d_dcgan(benchmark::State& state) {
  const at::Tensor x = torch::randn({16, 256, 8, 8});
  const at::Tensor w = torch::randn({256, 128, 4, 4});
  benchmark::DoNotOptimize(at::conv_transpose2d(x, w, {}, 2, 1));  // warm-up, untimed (tools/bench/README.md, "Warm-up")
  for (auto _ : state) benchmark::DoNotOptimize(at::conv_transpose2d(x, w, {}, 2, 1));
}
BENCHMARK(torch_conv_transpose2d_dcgan)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
