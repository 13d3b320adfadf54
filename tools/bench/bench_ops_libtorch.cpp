// tools/bench/bench_ops_libtorch.cpp - the libtorch twins of bench_ops.cpp,
// built only when Debian's libtorch-dev is installed, run in the same binary.
/// \file
/// libtorch gets as many intra-op threads as wick's OpenMP loops use: left
/// to itself, Debian's libtorch runs one thread on this 2-core machine
/// (at::get_num_threads() == 1), which would compare two threads with one.
#include <benchmark/benchmark.h>
#include <omp.h>
#include <torch/torch.h>

namespace {

const bool g_same_threads = [] {
  at::set_num_threads(omp_get_max_threads());
  return true;
}();

void elementwise_counters(benchmark::State& state, int tensors) {
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4 * tensors);
}

void torch_add(benchmark::State& state) {
  at::Tensor a = torch::randn({state.range(0)});
  at::Tensor b = torch::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(at::add(a, b));
  elementwise_counters(state, 3);
}
BENCHMARK(torch_add)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void torch_mul(benchmark::State& state) {
  at::Tensor a = torch::randn({state.range(0)});
  at::Tensor b = torch::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(at::mul(a, b));
  elementwise_counters(state, 3);
}
BENCHMARK(torch_mul)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void torch_exp(benchmark::State& state) {
  at::Tensor a = torch::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(at::exp(a));
  elementwise_counters(state, 2);
}
BENCHMARK(torch_exp)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void torch_sum(benchmark::State& state) {
  at::Tensor a = torch::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(at::sum(a));
  elementwise_counters(state, 1);
}
BENCHMARK(torch_sum)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void torch_mean(benchmark::State& state) {
  at::Tensor a = torch::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(at::mean(a));
  elementwise_counters(state, 1);
}
BENCHMARK(torch_mean)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void torch_max(benchmark::State& state) {
  at::Tensor a = torch::randn({state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(at::max(a));
  elementwise_counters(state, 1);
}
BENCHMARK(torch_max)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void torch_mm(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  at::Tensor a = torch::randn({n, n});
  at::Tensor b = torch::randn({n, n});
  for (auto _ : state) benchmark::DoNotOptimize(at::mm(a, b));
  const double d = static_cast<double>(n);
  state.counters["flops"] = benchmark::Counter(2 * d * d * d, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(torch_mm)->Arg(256)->Arg(512)->Arg(1024)->Arg(2048)->UseRealTime();

void torch_mm_16bit(benchmark::State& state, at::ScalarType dtype) {
  const std::int64_t n = state.range(0);
  at::Tensor a = torch::randn({n, n}).to(dtype);
  at::Tensor b = torch::randn({n, n}).to(dtype);
  try {
    benchmark::DoNotOptimize(at::mm(a, b));
  } catch (const std::exception&) {  // PyTorch 1.13's CPU has no float16 mm
    state.SkipWithError("libtorch 1.13 has no CPU kernel for this dtype");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(at::mm(a, b));
  const double d = static_cast<double>(n);
  state.counters["flops"] = benchmark::Counter(2 * d * d * d, benchmark::Counter::kIsIterationInvariantRate);
}
void torch_mm_bf16(benchmark::State& state) { torch_mm_16bit(state, at::kBFloat16); }
void torch_mm_f16(benchmark::State& state) { torch_mm_16bit(state, at::kHalf); }
BENCHMARK(torch_mm_bf16)->Arg(64)->Arg(256)->Arg(512)->Arg(1024)->UseRealTime();
BENCHMARK(torch_mm_f16)->Arg(256)->Arg(512)->Arg(1024)->UseRealTime();

void torch_layer_norm(benchmark::State& state) {
  const std::int64_t cols = state.range(0);
  at::Tensor x = torch::randn({512, cols});
  at::Tensor w = torch::randn({cols});
  at::Tensor b = torch::randn({cols});
  for (auto _ : state) benchmark::DoNotOptimize(at::layer_norm(x, {cols}, w, b));
  state.SetBytesProcessed(state.iterations() * 512 * cols * 4 * 2);
}
BENCHMARK(torch_layer_norm)->Arg(1024)->UseRealTime();
void torch_batch_norm_eval(benchmark::State& state) {
  const std::int64_t c = state.range(0);
  at::Tensor x = torch::randn({8, c, 56, 56});
  at::Tensor mean = torch::randn({c});
  at::Tensor var = torch::randn({c}).abs() + 0.5;
  at::Tensor w = torch::randn({c});
  at::Tensor b = torch::randn({c});
  for (auto _ : state) {
    benchmark::DoNotOptimize(at::batch_norm(x, w, b, mean, var, /*training=*/false, 0.1, 1e-5, true));
  }
  state.SetBytesProcessed(state.iterations() * 8 * c * 56 * 56 * 4 * 2);
}
BENCHMARK(torch_batch_norm_eval)->Arg(64)->UseRealTime();

// The twins of bench_ops.cpp's (rows, 1024) benchmarks.
struct RowsInput {
  at::Tensor x, w, b, mean, var;
  explicit RowsInput(const benchmark::State& state) {
    const std::int64_t rows = state.range(0);
    const std::int64_t cols = state.range(1);
    x = torch::randn({rows, cols});
    w = torch::randn({cols});
    b = torch::randn({cols});
    mean = torch::randn({cols});
    var = torch::randn({cols}).abs() + 0.5;
  }
};
void rows_counters(benchmark::State& state) {
  state.SetBytesProcessed(state.iterations() * state.range(0) * state.range(1) * 4 * 2);
}
void torch_layer_norm_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) benchmark::DoNotOptimize(at::layer_norm(in.x, {state.range(1)}, in.w, in.b));
  rows_counters(state);
}
void torch_group_norm_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) benchmark::DoNotOptimize(at::group_norm(in.x, 32, in.w, in.b));
  rows_counters(state);
}
void torch_batch_norm_train_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(at::batch_norm(in.x, in.w, in.b, in.mean, in.var, /*training=*/true, 0.1, 1e-5, true));
  }
  rows_counters(state);
}
void torch_batch_norm_eval_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) {
    benchmark::DoNotOptimize(at::batch_norm(in.x, in.w, in.b, in.mean, in.var, /*training=*/false, 0.1, 1e-5, true));
  }
  rows_counters(state);
}
void torch_softmax_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) benchmark::DoNotOptimize(at::softmax(in.x, 1));
  rows_counters(state);
}
void torch_log_softmax_rows(benchmark::State& state) {
  RowsInput in(state);
  for (auto _ : state) benchmark::DoNotOptimize(at::log_softmax(in.x, 1));
  rows_counters(state);
}
void torch_cross_entropy_rows(benchmark::State& state) {
  RowsInput in(state);
  at::Tensor target = torch::randint(state.range(1), {state.range(0)});
  for (auto _ : state) benchmark::DoNotOptimize(torch::nn::functional::cross_entropy(in.x, target));
  rows_counters(state);
}
BENCHMARK(torch_layer_norm_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(torch_group_norm_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(torch_batch_norm_train_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(torch_batch_norm_eval_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(torch_softmax_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(torch_log_softmax_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
BENCHMARK(torch_cross_entropy_rows)->Args({512, 1024})->Args({8192, 1024})->UseRealTime();
void torch_conv2d(benchmark::State& state) {
  const std::int64_t c = state.range(0);
  const std::int64_t hw = state.range(1);
  at::Tensor x = torch::randn({8, c, hw, hw});
  at::Tensor w = torch::randn({c, c, 3, 3});
  at::Tensor b = torch::randn({c});
  for (auto _ : state) benchmark::DoNotOptimize(at::conv2d(x, w, b, 1, 1));
  const double cc = static_cast<double>(c);
  const double d = static_cast<double>(hw);
  state.counters["flops"] =
      benchmark::Counter(2 * 8 * cc * cc * 9 * d * d, benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(torch_conv2d)->Args({64, 56})->Args({128, 28})->Args({256, 14})->UseRealTime();

void torch_softmax(benchmark::State& state) {
  at::Tensor x = torch::randn({state.range(0)}).reshape({1000, -1});
  for (auto _ : state) benchmark::DoNotOptimize(at::softmax(x, 1));
  elementwise_counters(state, 2);
}
BENCHMARK(torch_softmax)->Arg(10000000)->UseRealTime();

void torch_cross_entropy(benchmark::State& state) {
  const std::int64_t classes = state.range(0);
  at::Tensor x = torch::randn({512, classes});
  at::Tensor target = torch::randint(classes, {512});
  for (auto _ : state) benchmark::DoNotOptimize(torch::nn::functional::cross_entropy(x, target));
  state.SetBytesProcessed(state.iterations() * 512 * classes * 4);
}
BENCHMARK(torch_cross_entropy)->Arg(1024)->UseRealTime();

}  // namespace
