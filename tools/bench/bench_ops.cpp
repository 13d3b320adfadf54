// tools/bench/bench_ops.cpp - CPU operator throughput: elementwise, reductions, GEMM, conv2d.
/// \file
/// Each `wick_X/N` has a libtorch twin `torch_X/N` in bench_ops_libtorch.cpp
/// (same shapes, same dtype, outputs allocated per call as user code does),
/// and GEMM also has `blas_mm/N`, a raw cblas_sgemm into a preallocated
/// matrix: the ceiling wick's mm should reach. Throughput is reported as
/// bytes or FLOPs per second; the ratio table compares times.
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <vector>

#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace {

wick::Tensor random_floats(std::int64_t n) {
  wick::init();
  return wick::randn({n});
}

void elementwise_counters(benchmark::State& state, int tensors) {
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4 * tensors);
}

void wick_add(benchmark::State& state) {
  wick::Tensor a = random_floats(state.range(0));
  wick::Tensor b = random_floats(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(wick::add(a, b));
  elementwise_counters(state, 3);
}
BENCHMARK(wick_add)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void wick_mul(benchmark::State& state) {
  wick::Tensor a = random_floats(state.range(0));
  wick::Tensor b = random_floats(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(wick::mul(a, b));
  elementwise_counters(state, 3);
}
BENCHMARK(wick_mul)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void wick_exp(benchmark::State& state) {
  wick::Tensor a = random_floats(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(wick::exp(a));
  elementwise_counters(state, 2);
}
BENCHMARK(wick_exp)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void wick_sum(benchmark::State& state) {
  wick::Tensor a = random_floats(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(wick::sum(a));
  elementwise_counters(state, 1);
}
BENCHMARK(wick_sum)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void wick_mean(benchmark::State& state) {
  wick::Tensor a = random_floats(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(wick::mean(a));
  elementwise_counters(state, 1);
}
BENCHMARK(wick_mean)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void wick_max(benchmark::State& state) {
  wick::Tensor a = random_floats(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(wick::max(a));
  elementwise_counters(state, 1);
}
BENCHMARK(wick_max)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void gemm_counters(benchmark::State& state) {
  const double n = static_cast<double>(state.range(0));
  state.counters["flops"] = benchmark::Counter(2 * n * n * n, benchmark::Counter::kIsIterationInvariantRate);
}

void wick_mm(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  wick::init();
  wick::Tensor a = wick::randn({n, n});
  wick::Tensor b = wick::randn({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(wick::mm(a, b));
  gemm_counters(state);
}
BENCHMARK(wick_mm)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime();

// 16-bit matrix products (Note [16-bit matrix products]): converted to
// float32, sgemm, rounded back. Compare with wick_mm (float32) and with
// libtorch's twins (its own bfloat16 kernel; it has no float16 CPU mm).
void mm_16bit(benchmark::State& state, wick::ScalarType dtype) {
  const std::int64_t n = state.range(0);
  wick::init();
  wick::Tensor a = wick::randn({n, n}).to(dtype);
  wick::Tensor b = wick::randn({n, n}).to(dtype);
  for (auto _ : state) benchmark::DoNotOptimize(wick::mm(a, b));
  gemm_counters(state);
}
void wick_mm_bf16(benchmark::State& state) { mm_16bit(state, wick::ScalarType::kBFloat16); }
void wick_mm_f16(benchmark::State& state) { mm_16bit(state, wick::ScalarType::kFloat16); }
BENCHMARK(wick_mm_bf16)->Arg(64)->Arg(256)->Arg(512)->Arg(1024)->UseRealTime();
BENCHMARK(wick_mm_f16)->Arg(256)->Arg(512)->Arg(1024)->UseRealTime();

// The ceiling: OpenBLAS's sgemm on the same data, output preallocated.
void blas_mm(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<float> a(static_cast<std::size_t>(n) * n, 0.5f);
  std::vector<float> b(a.size(), 0.25f);
  std::vector<float> c(a.size());
  for (auto _ : state) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n, 0.0f, c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  gemm_counters(state);
}
BENCHMARK(blas_mm)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime();

// softmax over the last dim of 10^7 floats, as 1000 rows of 10^4.
void wick_softmax(benchmark::State& state) {
  wick::Tensor x = random_floats(state.range(0)).reshape({1000, -1});
  for (auto _ : state) benchmark::DoNotOptimize(wick::softmax(x, 1));
  elementwise_counters(state, 2);
}
BENCHMARK(wick_softmax)->Arg(10000000)->UseRealTime();

// cross_entropy of (512, 1024) logits against class indices, mean reduction.
void wick_cross_entropy(benchmark::State& state) {
  const std::int64_t classes = state.range(0);
  wick::Tensor x = random_floats(512 * classes).reshape({512, classes});
  wick::Tensor target = wick::randint(classes, {512});
  for (auto _ : state) benchmark::DoNotOptimize(wick::nn::functional::cross_entropy(x, target));
  state.SetBytesProcessed(state.iterations() * 512 * classes * 4);
}
BENCHMARK(wick_cross_entropy)->Arg(1024)->UseRealTime();

// layer_norm over the rows of a (512, 1024) float32 matrix, with weight and bias.
void wick_layer_norm(benchmark::State& state) {
  const std::int64_t cols = state.range(0);
  wick::Tensor x = random_floats(512 * cols).reshape({512, cols});
  wick::Tensor w = random_floats(cols);
  wick::Tensor b = random_floats(cols);
  for (auto _ : state) benchmark::DoNotOptimize(wick::nn::functional::layer_norm(x, cols, w, b));
  state.SetBytesProcessed(state.iterations() * 512 * cols * 4 * 2);
}
BENCHMARK(wick_layer_norm)->Arg(1024)->UseRealTime();

// batch_norm in evaluation mode (running statistics) over a ResNet-like
// (8, C, 56, 56) float32 activation, with weight and bias.
void wick_batch_norm_eval(benchmark::State& state) {
  const std::int64_t c = state.range(0);
  wick::Tensor x = random_floats(8 * c * 56 * 56).reshape({8, c, 56, 56});
  wick::Tensor mean = random_floats(c);
  wick::Tensor var = wick::add(wick::abs(random_floats(c)), 0.5);
  wick::Tensor w = random_floats(c);
  wick::Tensor b = random_floats(c);
  for (auto _ : state) {
    benchmark::DoNotOptimize(wick::batch_norm(x, w, b, mean, var, /*training=*/false, 0.1, 1e-5, true));
  }
  state.SetBytesProcessed(state.iterations() * 8 * c * 56 * 56 * 4 * 2);
}
BENCHMARK(wick_batch_norm_eval)->Arg(64)->UseRealTime();

// The normalisations and softmaxes over (rows, 1024) float32, rows 512 and
// 8192 (tools/bench/README.md, "Training steps and normalisation"): the
// rows are layer_norm's and the softmaxes', the samples of batch_norm (C =
// 1024 channels, training and eval) and group_norm (32 groups of 32).
struct RowsInput {
  wick::Tensor x, w, b, mean, var;
  explicit RowsInput(const benchmark::State& state) {
    const std::int64_t rows = state.range(0);
    const std::int64_t cols = state.range(1);
    x = random_floats(rows * cols).reshape({rows, cols});
    w = random_floats(cols);
    b = random_floats(cols);
    mean = random_floats(cols);
    var = wick::add(wick::abs(random_floats(cols)), 0.5);
  }
};
void rows_counters(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * state.range(0) * state.range(1) * 4 * 2);
}
void wick_layer_norm_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) benchmark::DoNotOptimize(wick::nn::functional::layer_norm(in.x, state.range(1), in.w, in.b));
  rows_counters(state);
}
void wick_group_norm_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) benchmark::DoNotOptimize(wick::nn::functional::group_norm(in.x, 32, in.w, in.b));
  rows_counters(state);
}
void wick_batch_norm_train_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(wick::batch_norm(in.x, in.w, in.b, in.mean, in.var, /*training=*/true, 0.1, 1e-5, true));
  }
  rows_counters(state);
}
void wick_batch_norm_eval_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(wick::batch_norm(in.x, in.w, in.b, in.mean, in.var, /*training=*/false, 0.1, 1e-5, true));
  }
  rows_counters(state);
}
void wick_softmax_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) benchmark::DoNotOptimize(wick::softmax(in.x, 1));
  rows_counters(state);
}
void wick_log_softmax_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) benchmark::DoNotOptimize(wick::log_softmax(in.x, 1));
  rows_counters(state);
}
void wick_cross_entropy_rows(benchmark::State& state) {
  RowsInput in(state);
  wick::Tensor target = wick::randint(state.range(1), {state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(wick::nn::functional::cross_entropy(in.x, target));
  rows_counters(state);
}
BENCHMARK(wick_layer_norm_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(wick_group_norm_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(wick_batch_norm_train_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(wick_batch_norm_eval_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(wick_softmax_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(wick_log_softmax_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(wick_cross_entropy_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();

// conv2d/C/HW: ResNet-like 3x3 convolutions, batch 8, C -> C channels, padding 1.
void conv_counters(benchmark::State& state) {
  const double c = static_cast<double>(state.range(0));
  const double hw = static_cast<double>(state.range(1));
  state.counters["flops"] =
      benchmark::Counter(2 * 8 * c * c * 9 * hw * hw, benchmark::Counter::kIsIterationInvariantRate);
}

void wick_conv2d(benchmark::State& state) {
  const std::int64_t c = state.range(0);
  const std::int64_t hw = state.range(1);
  wick::init();
  wick::Tensor x = wick::randn({8, c, hw, hw});
  wick::Tensor w = wick::randn({c, c, 3, 3});
  wick::Tensor b = wick::randn({c});
  for (auto _ : state) benchmark::DoNotOptimize(wick::conv2d(x, w, b, 1, 1));
  conv_counters(state);
}
BENCHMARK(wick_conv2d)->Args({64, 56})->Args({128, 28})->Args({256, 14})->UseRealTime();

}  // namespace
