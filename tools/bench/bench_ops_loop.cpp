// tools/bench/bench_ops_loop.cpp - the practical limit for the elementwise and reduction benchmarks: plain OpenMP
// loops.
/// \file
/// `loop_X/N` is the loop a programmer would write by hand over the same
/// float arrays as `wick_X/N`: `#pragma omp parallel for simd`, compiled
/// with the CPU backend's flags (AVX2 and FMA, -fno-math-errno, libmvec's
/// vector expf, declared below as the backend declares it), into an output
/// allocated once. It gets the backend's serial cutoff (kGrainSize), so at
/// 10^3 elements it compares loops, not thread start-up. The ratio table
/// prints wick / loop (below 1: wick is faster).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

// glibc declares expf's SIMD variants only under -ffast-math; a programmer
// who wants libmvec's 8-wide expf without it declares them so.
extern "C" {
#pragma omp declare simd notinbranch
float expf(float) noexcept;  // NOLINT(readability-identifier-naming): libc's name
}

namespace {

constexpr std::int64_t kSerialBelow = 32768;  // backends/cpu/loops.h, Note [Grain size]

std::vector<float> random_vector(std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> dist;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = dist(gen);
  return v;
}

void elementwise_counters(benchmark::State& state, int arrays) {
  state.SetBytesProcessed(state.iterations() * state.range(0) * 4 * arrays);
}

[[gnu::target("avx2,fma")]] void add_loop(const float* a, const float* b, float* c, std::int64_t n) {
#pragma omp parallel for simd if (n >= kSerialBelow)
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}

[[gnu::target("avx2,fma")]] void mul_loop(const float* a, const float* b, float* c, std::int64_t n) {
#pragma omp parallel for simd if (n >= kSerialBelow)
  for (std::int64_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
}

[[gnu::target("avx2,fma")]] void exp_loop(const float* a, float* c, std::int64_t n) {
#pragma omp parallel for simd if (n >= kSerialBelow)
  for (std::int64_t i = 0; i < n; ++i) c[i] = expf(a[i]);
}

[[gnu::target("avx2,fma")]] float sum_loop(const float* a, std::int64_t n) {
  float s = 0;
#pragma omp parallel for simd reduction(+ : s) if (n >= kSerialBelow)
  for (std::int64_t i = 0; i < n; ++i) s += a[i];
  return s;
}

[[gnu::target("avx2,fma")]] float max_loop(const float* a, std::int64_t n) {
  float m = a[0];
#pragma omp parallel for simd reduction(max : m) if (n >= kSerialBelow)
  for (std::int64_t i = 0; i < n; ++i) m = a[i] > m ? a[i] : m;
  return m;
}

void loop_add(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::vector<float> a = random_vector(n, 1);
  const std::vector<float> b = random_vector(n, 2);
  std::vector<float> c(a.size());
  for (auto _ : state) {
    add_loop(a.data(), b.data(), c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  elementwise_counters(state, 3);
}
BENCHMARK(loop_add)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void loop_mul(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::vector<float> a = random_vector(n, 1);
  const std::vector<float> b = random_vector(n, 2);
  std::vector<float> c(a.size());
  for (auto _ : state) {
    mul_loop(a.data(), b.data(), c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  elementwise_counters(state, 3);
}
BENCHMARK(loop_mul)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void loop_exp(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::vector<float> a = random_vector(n, 1);
  std::vector<float> c(a.size());
  for (auto _ : state) {
    exp_loop(a.data(), c.data(), n);
    benchmark::DoNotOptimize(c.data());
  }
  elementwise_counters(state, 2);
}
BENCHMARK(loop_exp)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

void loop_sum(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::vector<float> a = random_vector(n, 1);
  for (auto _ : state) benchmark::DoNotOptimize(sum_loop(a.data(), n));
  elementwise_counters(state, 1);
}
BENCHMARK(loop_sum)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

// mean is the sum divided by the count: the same loop.
void loop_mean(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::vector<float> a = random_vector(n, 1);
  for (auto _ : state) benchmark::DoNotOptimize(sum_loop(a.data(), n) / static_cast<float>(n));
  elementwise_counters(state, 1);
}
BENCHMARK(loop_mean)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

// The maximum, ignoring NaN (there are none in the data); wick's and
// libtorch's propagate it, which costs a compare per element more.
void loop_max(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::vector<float> a = random_vector(n, 1);
  for (auto _ : state) benchmark::DoNotOptimize(max_loop(a.data(), n));
  elementwise_counters(state, 1);
}
BENCHMARK(loop_max)->Arg(1000)->Arg(100000)->Arg(10000000)->UseRealTime();

}  // namespace
