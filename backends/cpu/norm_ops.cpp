// backends/cpu/norm_ops.cpp - layer_norm's CPU kernel.
/// \file
/// layer_norm views its input as [M, N] rows, N the product of
/// `normalized_shape`. float64 rows: the mean and variance come from one
/// pass of sums around a shift (the row's first element), so a large common
/// offset does not cancel away the variance:
///   d = x - x0, mean = x0 + sum(d)/N, var = (sum(d^2) - sum(d)^2/N) / N;
/// the second pass writes (x - mean) * rstd * weight + bias. float32 rows
/// (and float16 and bfloat16, widened to float32): Note [layer_norm in float].
/// The checks and the [M, N] view are the meta function's
/// (dispatch/ops/meta_nn.cpp).
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include <wick/meta_nn.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

// One row: its mean and 1/sqrt(var + eps), in double (the float64 path).
[[gnu::always_inline]] inline std::pair<double, double> row_moments(const double* x, std::int64_t n, double eps) {
  const double shift = x[0];
  // Eight independent lanes, so the compiler can vectorise the sums.
  constexpr std::int64_t kLanes = 8;
  double l1[kLanes] = {};
  double l2[kLanes] = {};
  const std::int64_t body = n - n % kLanes;
  for (std::int64_t j = 0; j < body; j += kLanes) {
    for (std::int64_t k = 0; k < kLanes; ++k) {
      const double d = x[j + k] - shift;
      l1[k] += d;
      l2[k] += d * d;
    }
  }
  double s1 = 0;
  double s2 = 0;
  for (std::int64_t j = body; j < n; ++j) {
    const double d = x[j] - shift;
    s1 += d;
    s2 += d * d;
  }
  for (std::int64_t k = 0; k < kLanes; ++k) {
    s1 += l1[k];
    s2 += l2[k];
  }
  const double nn = static_cast<double>(n);
  const double var = std::max((s2 - s1 * s1 / nn) / nn, 0.0);
  return {shift + s1 / nn, 1.0 / std::sqrt(var + eps)};
}

[[gnu::always_inline]] inline void layer_norm_row(const double* xr, const double* w, const double* b, double* yr,
                                                  std::int64_t n, double eps) {
  const auto [mean, rstd] = row_moments(xr, n, eps);
  for (std::int64_t j = 0; j < n; ++j) {
    double y = (xr[j] - mean) * rstd;
    if (w != nullptr) y *= w[j];
    if (b != nullptr) y += b[j];
    yr[j] = y;
  }
}

// Note [layer_norm in float]
// float32 rows are normalised in float arithmetic, 32 lanes wide, in three
// sweeps of the row (which stays in L1): the sum of x - x[0], the sum of
// squared deviations from the mean (two passes, so no cancellation), and
// the output. The mean is kept as two floats, hi + lo (a float and what it
// rounded away), and x - mean is computed as (x - hi) - lo: x - hi is exact
// near the mean, so a large common offset loses no more than the double
// arithmetic this replaced, at a quarter of its cost per element.
template <typename F>
[[gnu::always_inline]] inline float lane_sum(F term, std::int64_t n) {
  constexpr std::int64_t kLanes = 32;
  float lanes[kLanes] = {};
  const std::int64_t body = n - n % kLanes;
  for (std::int64_t j = 0; j < body; j += kLanes) {
    for (std::int64_t k = 0; k < kLanes; ++k) lanes[k] += term(j + k);
  }
  double s = 0;
  for (std::int64_t j = body; j < n; ++j) s += static_cast<double>(term(j));
  for (const float l : lanes) s += static_cast<double>(l);
  return static_cast<float>(s);
}

[[gnu::always_inline]] inline void layer_norm_row(const float* xr, const float* w, const float* b, float* yr,
                                                  std::int64_t n, double eps) {
  const float shift = xr[0];
  const double mean = static_cast<double>(shift) +
                      static_cast<double>(lane_sum([&](std::int64_t j) { return xr[j] - shift; }, n)) /
                          static_cast<double>(n);
  const auto hi = static_cast<float>(mean);
  const auto lo = static_cast<float>(mean - static_cast<double>(hi));
  const float s2 = lane_sum(
      [&](std::int64_t j) {
        const float d = (xr[j] - hi) - lo;
        return d * d;
      },
      n);
  const auto rstd = static_cast<float>(1.0 / std::sqrt(static_cast<double>(s2) / static_cast<double>(n) + eps));
  if (w != nullptr && b != nullptr) {  // the common case, in one sweep
    for (std::int64_t j = 0; j < n; ++j) yr[j] = ((xr[j] - hi) - lo) * rstd * w[j] + b[j];
    return;
  }
  for (std::int64_t j = 0; j < n; ++j) {
    float y = ((xr[j] - hi) - lo) * rstd;
    if (w != nullptr) y *= w[j];
    if (b != nullptr) y += b[j];
    yr[j] = y;
  }
}

// The same rows compiled for the baseline and for AVX2 + FMA (Note [Vector code paths]).
template <typename T>
void layer_norm_run(const T* x, const T* w, const T* b, T* y, std::int64_t r0, std::int64_t r1, std::int64_t n,
                    double eps) {
  for (std::int64_t i = r0; i < r1; ++i) layer_norm_row(x + i * n, w, b, y + i * n, n, eps);
}
template <typename T>
[[gnu::target("avx2,fma")]] void layer_norm_run_avx2(const T* x, const T* w, const T* b, T* y, std::int64_t r0,
                                                     std::int64_t r1, std::int64_t n, double eps) {
  for (std::int64_t i = r0; i < r1; ++i) layer_norm_row(x + i * n, w, b, y + i * n, n, eps);
}

template <typename T>
void layer_norm_rows(const T* x, const T* w, const T* b, T* y, std::int64_t m, std::int64_t n, double eps) {
  const bool avx2 = cpu_has_avx2();
  parallel_for(m, std::max<std::int64_t>(1, kGrainSize / n), [&](std::int64_t r0, std::int64_t r1) {
    if (avx2) {
      layer_norm_run_avx2(x, w, b, y, r0, r1, n, eps);
    } else {
      layer_norm_run(x, w, b, y, r0, r1, n, eps);
    }
  });
}

}  // namespace

void layer_norm(const LayerNormMeta& meta, const Tensor& out, const Tensor& input, IntArrayRef /*normalized_shape*/,
                const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps) {
  const std::int64_t m = meta.m;
  const std::int64_t n = meta.n;
  if (m == 0 || n == 0) return;
  const Widened wide(out);
  Tensor x = Widened::in(input).contiguous();
  std::optional<Tensor> w;
  std::optional<Tensor> b;
  if (weight) w = Widened::in(*weight).contiguous();
  if (bias) b = Widened::in(*bias).contiguous();
  visit_float(x.dtype(), "LayerNormKernelImpl", [&](auto tag) {
    using T = decltype(tag);
    layer_norm_rows<T>(x.data_ptr<T>(), w ? w->data_ptr<T>() : nullptr, b ? b->data_ptr<T>() : nullptr,
                       wide.out().data_ptr<T>(), m, n, eps);
  });
  wide.finish();
}

}  // namespace wick::cpu
