// backends/cpu/norm_ops.cpp - the CPU kernels of layer_norm, native_batch_norm and native_group_norm.
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
///
/// native_batch_norm: Note [batch_norm on the CPU]; native_group_norm:
/// Note [group_norm on the CPU].
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
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
template <typename A = float, typename R = A, typename F>
[[gnu::always_inline]] inline R lane_sum(F term, std::int64_t n) {
  constexpr std::int64_t kLanes = 32;
  A lanes[kLanes] = {};
  const std::int64_t body = n - n % kLanes;
  for (std::int64_t j = 0; j < body; j += kLanes) {
    for (std::int64_t k = 0; k < kLanes; ++k) lanes[k] += term(j + k);
  }
  double s = 0;
  for (std::int64_t j = body; j < n; ++j) s += static_cast<double>(term(j));
  for (const A l : lanes) s += static_cast<double>(l);
  return static_cast<R>(s);
}

[[gnu::always_inline]] inline void layer_norm_row(const float* xr, const float* w, const float* b, float* yr,
                                                  std::int64_t n, double eps) {
  const float shift = xr[0];
  const double mean =
      static_cast<double>(shift) +
      static_cast<double>(lane_sum([&](std::int64_t j) { return xr[j] - shift; }, n)) / static_cast<double>(n);
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

// Note [batch_norm on the CPU]
// native_batch_norm views its input as [n, c, s] (contiguous, s the
// product of the dims after the channel). Training sweeps it twice for the
// statistics and once for the output; evaluation once.
// - The statistics are two-pass: the mean, then the sum of squared
//   deviations from it, so a large common offset does not cancel the
//   variance away; per channel in double. With s > 1 each (batch, channel)
//   plane is a contiguous row, summed in 32 lanes of the input's type (the
//   mean split in two, as in Note [layer_norm in float]) and added up in
//   double; the planes are split over the threads. With s == 1 (an [n, c]
//   input) the channels are columns: each thread takes a band of columns
//   and walks down the rows, accumulating in double.
// - The output is x * alpha + beta, with alpha = invstd * weight and beta =
//   bias - mean * alpha per channel in the input's type, as PyTorch's CPU
//   kernel computes it, rounded once (a fused multiply-add) where the CPU
//   has FMA and twice where it has not, as PyTorch's vector code does.
// - The running statistics (training, when given) become (1 - momentum) *
//   running + momentum * batch, the batch variance unbiased by
//   n*s / (n*s - 1), in double.

// Sum over each plane p in [p0, p1) of x (mean == nullptr) or of
// (x - mean[p % c])^2, into out[p].
template <typename T>
[[gnu::always_inline]] inline void plane_sums(const T* x, std::int64_t p0, std::int64_t p1, std::int64_t s,
                                              std::int64_t c, const double* mean, double* out) {
  for (std::int64_t p = p0; p < p1; ++p) {
    const T* xr = x + p * s;
    if (mean == nullptr) {
      out[p] = lane_sum<T, double>([&](std::int64_t j) { return xr[j]; }, s);
      continue;
    }
    const double m = mean[p % c];
    const auto hi = static_cast<T>(m);
    const auto lo = static_cast<T>(m - static_cast<double>(hi));
    out[p] = lane_sum<T, double>(
        [&](std::int64_t j) {
          const T d = (xr[j] - hi) - lo;
          return d * d;
        },
        s);
  }
}

// Column sums over the n rows of an [n, c] input, columns [c0, c1), of x or
// of (x - mean)^2, added into out[c0, c1).
template <typename T>
[[gnu::always_inline]] inline void column_sums(const T* x, std::int64_t n, std::int64_t c, std::int64_t c0,
                                               std::int64_t c1, const double* mean, double* out) {
  double* acc = out + c0;
  const std::int64_t w = c1 - c0;
  for (std::int64_t i = 0; i < n; ++i) {
    const T* xr = x + i * c + c0;
    if (mean == nullptr) {
#pragma omp simd
      for (std::int64_t j = 0; j < w; ++j) acc[j] += static_cast<double>(xr[j]);
    } else {
      const double* m = mean + c0;
#pragma omp simd
      for (std::int64_t j = 0; j < w; ++j) {
        const double d = static_cast<double>(xr[j]) - m[j];
        acc[j] += d * d;
      }
    }
  }
}

// y = x * a + b, rounded once when kFma.
template <bool kFma, typename T>
[[gnu::always_inline]] inline T scale_shift(T x, T a, T b) {
  if constexpr (kFma) {
    return std::fma(x, a, b);
  } else {
    return x * a + b;
  }
}

// The output rows [r0, r1): planes of s (s > 1, one alpha per plane) or
// rows of c (s == 1, alpha per column).
template <bool kFma, typename T>
[[gnu::always_inline]] inline void batch_norm_apply(const T* x, T* y, std::int64_t r0, std::int64_t r1, std::int64_t s,
                                                    std::int64_t c, const T* alpha, const T* beta) {
  if (s == 1) {
    for (std::int64_t i = r0; i < r1; ++i) {
      const T* xr = x + i * c;
      T* yr = y + i * c;
#pragma omp simd
      for (std::int64_t j = 0; j < c; ++j) yr[j] = scale_shift<kFma>(xr[j], alpha[j], beta[j]);
    }
    return;
  }
  for (std::int64_t p = r0; p < r1; ++p) {
    const T a = alpha[p % c];
    const T b = beta[p % c];
    const T* xr = x + p * s;
    T* yr = y + p * s;
#pragma omp simd
    for (std::int64_t j = 0; j < s; ++j) yr[j] = scale_shift<kFma>(xr[j], a, b);
  }
}

// The same sweeps compiled for the baseline and for AVX2 + FMA (Note [Vector code paths]).
template <typename T>
void batch_norm_sums(const T* x, std::int64_t r0, std::int64_t r1, std::int64_t n, std::int64_t s, std::int64_t c,
                     const double* mean, double* out) {
  if (s == 1) {
    column_sums(x, n, c, r0, r1, mean, out);
  } else {
    plane_sums(x, r0, r1, s, c, mean, out);
  }
}
template <typename T>
[[gnu::target("avx2,fma")]] void batch_norm_sums_avx2(const T* x, std::int64_t r0, std::int64_t r1, std::int64_t n,
                                                      std::int64_t s, std::int64_t c, const double* mean, double* out) {
  if (s == 1) {
    column_sums(x, n, c, r0, r1, mean, out);
  } else {
    plane_sums(x, r0, r1, s, c, mean, out);
  }
}
template <typename T>
void batch_norm_apply_run(const T* x, T* y, std::int64_t r0, std::int64_t r1, std::int64_t s, std::int64_t c,
                          const T* alpha, const T* beta) {
  batch_norm_apply<false>(x, y, r0, r1, s, c, alpha, beta);
}
template <typename T>
[[gnu::target("avx2,fma")]] void batch_norm_apply_avx2(const T* x, T* y, std::int64_t r0, std::int64_t r1,
                                                       std::int64_t s, std::int64_t c, const T* alpha, const T* beta) {
  batch_norm_apply<true>(x, y, r0, r1, s, c, alpha, beta);
}

// Per channel sums of x (mean == nullptr) or of (x - mean)^2: out has c
// elements. s == 1: bands of columns; else the n * c planes, then their
// sums per channel.
template <typename T>
std::vector<double> channel_sums(const T* x, std::int64_t n, std::int64_t c, std::int64_t s, const double* mean) {
  const bool avx2 = cpu_has_avx2();
  const bool columns = s == 1;
  const std::int64_t units = columns ? c : n * c;  // n * c * s fits (the meta function checked numel)
  std::vector<double> partial(static_cast<std::size_t>(units), 0.0);
  const std::int64_t grain = std::max<std::int64_t>(1, kGrainSize / (columns ? n : s));
  parallel_for(units, grain, [&](std::int64_t r0, std::int64_t r1) {
    if (avx2) {
      batch_norm_sums_avx2(x, r0, r1, n, s, c, mean, partial.data());
    } else {
      batch_norm_sums(x, r0, r1, n, s, c, mean, partial.data());
    }
  });
  if (columns) return partial;
  std::vector<double> sums(static_cast<std::size_t>(c), 0.0);
  for (std::int64_t p = 0; p < units; ++p)
    sums[static_cast<std::size_t>(p % c)] += partial[static_cast<std::size_t>(p)];
  return sums;
}

// An optional per-channel tensor as doubles (empty when absent).
std::vector<double> doubles(const std::optional<Tensor>& t) {
  if (!t) return {};
  const Tensor d = t->to(ScalarType::kFloat64).contiguous();
  std::vector<double> v(static_cast<std::size_t>(d.numel()));
  std::copy_n(d.data_ptr<double>(), v.size(), v.begin());
  return v;
}

// Writes doubles into `dst` (any floating dtype, numel == v.size()).
void write_doubles(const Tensor& dst, const std::vector<double>& v) {
  Tensor d = make_empty(IntArrayRef(static_cast<std::int64_t>(v.size())), ScalarType::kFloat64);
  std::copy(v.begin(), v.end(), d.data_ptr<double>());
  Tensor out = dst;
  out.copy_(d.reshape(dst.sizes()));
}

// The backward's per-channel sums, over units [r0, r1) (planes or column
// bands as in channel_sums): sum_g += g and sum_gx += g * (x - mean).
template <typename T>
[[gnu::always_inline]] inline void backward_sums(const T* g, const T* x, std::int64_t r0, std::int64_t r1,
                                                 std::int64_t n, std::int64_t s, std::int64_t c, const double* mean,
                                                 double* sum_g, double* sum_gx) {
  if (s == 1) {
    for (std::int64_t i = 0; i < n; ++i) {
      const T* gr = g + i * c;
      const T* xr = x + i * c;
#pragma omp simd
      for (std::int64_t j = r0; j < r1; ++j) {
        const auto gj = static_cast<double>(gr[j]);
        sum_g[j] += gj;
        sum_gx[j] += gj * (static_cast<double>(xr[j]) - mean[j]);
      }
    }
    return;
  }
  for (std::int64_t p = r0; p < r1; ++p) {
    const T* gr = g + p * s;
    const T* xr = x + p * s;
    const double m = mean[p % c];
    const auto hi = static_cast<T>(m);
    const auto lo = static_cast<T>(m - static_cast<double>(hi));
    sum_g[p] = lane_sum<T, double>([&](std::int64_t j) { return gr[j]; }, s);
    sum_gx[p] = lane_sum<T, double>([&](std::int64_t j) { return gr[j] * ((xr[j] - hi) - lo); }, s);
  }
}

// The input's gradient over rows [r0, r1) (planes of s, or rows of c when
// s == 1): gx = k1 * ((g - mg) - (x - mean) * k2) per channel (training),
// or g * k1 (evaluation: k2 == nullptr).
template <typename T>
[[gnu::always_inline]] inline void backward_apply(const T* g, const T* x, T* gx, std::int64_t r0, std::int64_t r1,
                                                  std::int64_t s, std::int64_t c, const T* k1, const T* mg,
                                                  const T* mean_hi, const T* mean_lo, const T* k2) {
  if (s == 1) {
    for (std::int64_t i = r0; i < r1; ++i) {
      const T* gr = g + i * c;
      const T* xr = x + i * c;
      T* out = gx + i * c;
      if (k2 == nullptr) {
#pragma omp simd
        for (std::int64_t j = 0; j < c; ++j) out[j] = gr[j] * k1[j];
        continue;
      }
#pragma omp simd
      for (std::int64_t j = 0; j < c; ++j) {
        out[j] = k1[j] * ((gr[j] - mg[j]) - ((xr[j] - mean_hi[j]) - mean_lo[j]) * k2[j]);
      }
    }
    return;
  }
  for (std::int64_t p = r0; p < r1; ++p) {
    const std::int64_t ch = p % c;
    const T* gr = g + p * s;
    const T* xr = x + p * s;
    T* out = gx + p * s;
    if (k2 == nullptr) {
      const T a = k1[ch];
#pragma omp simd
      for (std::int64_t j = 0; j < s; ++j) out[j] = gr[j] * a;
      continue;
    }
    const T a = k1[ch];
    const T b = mg[ch];
    const T hi = mean_hi[ch];
    const T lo = mean_lo[ch];
    const T k = k2[ch];
#pragma omp simd
    for (std::int64_t j = 0; j < s; ++j) out[j] = a * ((gr[j] - b) - ((xr[j] - hi) - lo) * k);
  }
}

template <typename T>
void backward_sums_run(const T* g, const T* x, std::int64_t r0, std::int64_t r1, std::int64_t n, std::int64_t s,
                       std::int64_t c, const double* mean, double* sum_g, double* sum_gx) {
  backward_sums(g, x, r0, r1, n, s, c, mean, sum_g, sum_gx);
}
template <typename T>
[[gnu::target("avx2,fma")]] void backward_sums_avx2(const T* g, const T* x, std::int64_t r0, std::int64_t r1,
                                                    std::int64_t n, std::int64_t s, std::int64_t c, const double* mean,
                                                    double* sum_g, double* sum_gx) {
  backward_sums(g, x, r0, r1, n, s, c, mean, sum_g, sum_gx);
}
template <typename T>
void backward_apply_run(const T* g, const T* x, T* gx, std::int64_t r0, std::int64_t r1, std::int64_t s, std::int64_t c,
                        const T* k1, const T* mg, const T* mean_hi, const T* mean_lo, const T* k2) {
  backward_apply(g, x, gx, r0, r1, s, c, k1, mg, mean_hi, mean_lo, k2);
}
template <typename T>
[[gnu::target("avx2,fma")]] void backward_apply_avx2(const T* g, const T* x, T* gx, std::int64_t r0, std::int64_t r1,
                                                     std::int64_t s, std::int64_t c, const T* k1, const T* mg,
                                                     const T* mean_hi, const T* mean_lo, const T* k2) {
  backward_apply(g, x, gx, r0, r1, s, c, k1, mg, mean_hi, mean_lo, k2);
}

// Note [group_norm on the CPU]
// native_group_norm reads its input as [n, c, s]: the group g of sample i
// is the contiguous block of d = (c / groups) * s values from channel
// g * c / groups on. Each block is one unit of work (the blocks are split
// over the threads): its mean and the sum of squared deviations from it in
// 32 lanes of the input's type (the mean split in two floats, as in Note
// [layer_norm in float]), while the block stays in cache, then the output
// as x * alpha + beta per channel, alpha = rstd * weight and beta = bias -
// mean * alpha, rounded once where the CPU has FMA.
template <bool kFma, typename T>
[[gnu::always_inline]] inline void group_norm_blocks(const T* x, const T* w, const T* b, T* y, T* means, T* rstds,
                                                     std::int64_t b0, std::int64_t b1, std::int64_t groups,
                                                     std::int64_t per_group, std::int64_t s, double eps, T* alpha,
                                                     T* beta) {
  const std::int64_t d = per_group * s;
  for (std::int64_t blk = b0; blk < b1; ++blk) {
    const T* xb = x + blk * d;
    T* yb = y + blk * d;
    const double mean = lane_sum<T, double>([&](std::int64_t j) { return xb[j]; }, d) / static_cast<double>(d);
    const auto hi = static_cast<T>(mean);
    const auto lo = static_cast<T>(mean - static_cast<double>(hi));
    const double ss = lane_sum<T, double>(
        [&](std::int64_t j) {
          const T dev = (xb[j] - hi) - lo;
          return dev * dev;
        },
        d);
    const auto rstd = static_cast<T>(1.0 / std::sqrt(ss / static_cast<double>(d) + eps));
    means[blk] = static_cast<T>(mean);
    rstds[blk] = rstd;
    const std::int64_t c0 = (blk % groups) * per_group;
    for (std::int64_t k = 0; k < per_group; ++k) {
      alpha[k] = w == nullptr ? rstd : rstd * w[c0 + k];
      beta[k] = (b == nullptr ? T(0) : b[c0 + k]) - hi * alpha[k] - lo * alpha[k];
    }
    if (s == 1) {
#pragma omp simd
      for (std::int64_t k = 0; k < per_group; ++k) yb[k] = scale_shift<kFma>(xb[k], alpha[k], beta[k]);
      continue;
    }
    for (std::int64_t k = 0; k < per_group; ++k) {
      const T a = alpha[k];
      const T bb = beta[k];
      const T* xr = xb + k * s;
      T* yr = yb + k * s;
#pragma omp simd
      for (std::int64_t j = 0; j < s; ++j) yr[j] = scale_shift<kFma>(xr[j], a, bb);
    }
  }
}
template <typename T>
void group_norm_run(const T* x, const T* w, const T* b, T* y, T* means, T* rstds, std::int64_t b0, std::int64_t b1,
                    std::int64_t groups, std::int64_t per_group, std::int64_t s, double eps, T* alpha, T* beta) {
  group_norm_blocks<false>(x, w, b, y, means, rstds, b0, b1, groups, per_group, s, eps, alpha, beta);
}
template <typename T>
[[gnu::target("avx2,fma")]] void group_norm_run_avx2(const T* x, const T* w, const T* b, T* y, T* means, T* rstds,
                                                     std::int64_t b0, std::int64_t b1, std::int64_t groups,
                                                     std::int64_t per_group, std::int64_t s, double eps, T* alpha,
                                                     T* beta) {
  group_norm_blocks<true>(x, w, b, y, means, rstds, b0, b1, groups, per_group, s, eps, alpha, beta);
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

void native_batch_norm(const BatchNormMeta& meta, const std::array<Tensor, 3>& outs, const Tensor& input,
                       const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                       const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                       bool training, double momentum, double eps) {
  const std::int64_t n = meta.n;
  const std::int64_t c = meta.c;
  const std::int64_t s = meta.s;
  if (input.numel() == 0) {
    // No values: NaN statistics, as the mean of nothing; the running ones stay.
    if (training && c > 0) {
      for (int k = 1; k <= 2; ++k) write_doubles(outs[k], std::vector<double>(static_cast<std::size_t>(c), NAN));
    }
    return;
  }
  const Widened wide(outs[0]);
  const Tensor x = Widened::in(input).contiguous();
  const std::int64_t count = n * s;
  std::vector<double> mean;
  std::vector<double> var;
  visit_float(x.dtype(), "batch_norm", [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data_ptr<T>();
    if (training) {
      mean = channel_sums(xp, n, c, s, nullptr);
      for (double& v : mean) v /= static_cast<double>(count);
      var = channel_sums(xp, n, c, s, mean.data());
      for (double& v : var) v /= static_cast<double>(count);
    } else {
      mean = doubles(running_mean);
      var = doubles(running_var);
    }
    const std::vector<double> w = doubles(weight);
    const std::vector<double> b = doubles(bias);
    std::vector<T> alpha(static_cast<std::size_t>(c));
    std::vector<T> beta(static_cast<std::size_t>(c));
    for (std::size_t k = 0; k < alpha.size(); ++k) {
      const auto invstd = static_cast<T>(1.0 / std::sqrt(var[k] + eps));
      alpha[k] = w.empty() ? invstd : invstd * static_cast<T>(w[k]);
      beta[k] = (b.empty() ? T(0) : static_cast<T>(b[k])) - static_cast<T>(mean[k]) * alpha[k];
    }
    T* yp = wide.out().data_ptr<T>();
    const bool avx2 = cpu_has_avx2();
    const std::int64_t rows = s == 1 ? n : n * c;
    parallel_for(rows, std::max<std::int64_t>(1, kGrainSize / (s == 1 ? c : s)), [&](std::int64_t r0, std::int64_t r1) {
      if (avx2) {
        batch_norm_apply_avx2(xp, yp, r0, r1, s, c, alpha.data(), beta.data());
      } else {
        batch_norm_apply_run(xp, yp, r0, r1, s, c, alpha.data(), beta.data());
      }
    });
  });
  wide.finish();
  if (!training) return;
  std::vector<double> invstd(var.size());
  for (std::size_t k = 0; k < var.size(); ++k) invstd[k] = 1.0 / std::sqrt(var[k] + eps);
  write_doubles(outs[1], mean);
  write_doubles(outs[2], invstd);
  const double keep = 1.0 - momentum;
  if (running_mean) {
    std::vector<double> r = doubles(running_mean);
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = keep * r[k] + momentum * mean[k];
    write_doubles(*running_mean, r);
  }
  if (running_var) {
    // n*s == 1: the variance 0 times 1/0, NaN, as in PyTorch.
    const double unbias = static_cast<double>(count) / static_cast<double>(count - 1);
    std::vector<double> r = doubles(running_var);
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = keep * r[k] + momentum * var[k] * unbias;
    write_doubles(*running_var, r);
  }
}

void native_batch_norm_backward(const BatchNormMeta& meta, const std::array<Tensor, 3>& outs, const Tensor& grad_out,
                                const Tensor& input, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                                const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
                                bool train, double eps, bool input_grad) {
  const std::int64_t n = meta.n;
  const std::int64_t c = meta.c;
  const std::int64_t s = meta.s;
  const auto channels = static_cast<std::size_t>(c);
  if (input.numel() == 0) {
    write_doubles(outs[1], std::vector<double>(channels, 0.0));
    write_doubles(outs[2], std::vector<double>(channels, 0.0));
    return;
  }
  const std::vector<double> mean = doubles(train ? save_mean : running_mean);
  std::vector<double> invstd = doubles(train ? save_invstd : running_var);
  if (!train) {
    for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
  }
  const std::vector<double> w = doubles(weight);
  const Tensor x = Widened::in(input).contiguous();
  const Tensor g = Widened::in(grad_out).contiguous();
  const std::int64_t count = n * s;
  const bool avx2 = cpu_has_avx2();
  std::vector<double> sum_g(channels, 0.0);
  std::vector<double> sum_gx(channels, 0.0);
  visit_float(x.dtype(), "batch_norm_backward", [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data_ptr<T>();
    const T* gp = g.data_ptr<T>();
    // The sums: per column band (s == 1) or per plane, then per channel.
    const bool columns = s == 1;
    const std::int64_t units = columns ? c : n * c;
    std::vector<double> pg(columns ? 0 : static_cast<std::size_t>(units));
    std::vector<double> pgx(columns ? 0 : static_cast<std::size_t>(units));
    double* out_g = columns ? sum_g.data() : pg.data();
    double* out_gx = columns ? sum_gx.data() : pgx.data();
    parallel_for(units, std::max<std::int64_t>(1, kGrainSize / (columns ? n : s)),
                 [&](std::int64_t r0, std::int64_t r1) {
                   if (avx2) {
                     backward_sums_avx2(gp, xp, r0, r1, n, s, c, mean.data(), out_g, out_gx);
                   } else {
                     backward_sums_run(gp, xp, r0, r1, n, s, c, mean.data(), out_g, out_gx);
                   }
                 });
    for (std::size_t p = 0; p < pg.size(); ++p) {
      sum_g[p % channels] += pg[p];
      sum_gx[p % channels] += pgx[p];
    }
    if (!input_grad) return;
    const Widened wide(outs[0]);
    std::vector<T> k1(channels);
    std::vector<T> mg(channels);
    std::vector<T> hi(channels);
    std::vector<T> lo(channels);
    std::vector<T> k2(channels);
    for (std::size_t k = 0; k < channels; ++k) {
      const double scale = invstd[k] * (w.empty() ? 1.0 : w[k]);
      k1[k] = static_cast<T>(scale);
      mg[k] = static_cast<T>(sum_g[k] / static_cast<double>(count));
      hi[k] = static_cast<T>(mean[k]);
      lo[k] = static_cast<T>(mean[k] - static_cast<double>(hi[k]));
      k2[k] = static_cast<T>(invstd[k] * invstd[k] * sum_gx[k] / static_cast<double>(count));
    }
    T* gxp = wide.out().data_ptr<T>();
    const T* k2p = train ? k2.data() : nullptr;
    const std::int64_t rows = columns ? n : n * c;
    parallel_for(rows, std::max<std::int64_t>(1, kGrainSize / (columns ? c : s)),
                 [&](std::int64_t r0, std::int64_t r1) {
                   if (avx2) {
                     backward_apply_avx2(gp, xp, gxp, r0, r1, s, c, k1.data(), mg.data(), hi.data(), lo.data(), k2p);
                   } else {
                     backward_apply_run(gp, xp, gxp, r0, r1, s, c, k1.data(), mg.data(), hi.data(), lo.data(), k2p);
                   }
                 });
    wide.finish();
  });
  // weight's gradient: sum(g * xhat) = invstd * sum(g * (x - mean)); bias's: sum(g).
  for (std::size_t k = 0; k < channels; ++k) sum_gx[k] *= invstd[k];
  write_doubles(outs[1], sum_gx);
  write_doubles(outs[2], sum_g);
}

void native_group_norm(const GroupNormMeta& meta, const std::array<Tensor, 3>& outs, const Tensor& input,
                       const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, std::int64_t /*N*/,
                       std::int64_t /*C*/, std::int64_t /*HxW*/, std::int64_t /*group*/, double eps) {
  const std::int64_t blocks = outs[1].numel();  // n * groups
  if (blocks == 0) return;
  if (input.numel() == 0) {
    // Groups of no values: NaN statistics, as the mean of nothing.
    for (int k = 1; k <= 2; ++k) {
      Tensor o = outs[k];
      o.fill_(Scalar(NAN));
    }
    return;
  }
  const std::int64_t per_group = meta.c / meta.groups;
  const Widened wide(outs[0]);
  const Widened wide_mean(outs[1]);
  const Widened wide_rstd(outs[2]);
  const Tensor x = Widened::in(input).contiguous();
  std::optional<Tensor> w;
  std::optional<Tensor> b;
  if (weight) w = Widened::in(*weight).contiguous();
  if (bias) b = Widened::in(*bias).contiguous();
  visit_float(x.dtype(), "GroupNormKernelImpl", [&](auto tag) {
    using T = decltype(tag);
    const T* xp = x.data_ptr<T>();
    const T* wp = w ? w->data_ptr<T>() : nullptr;
    const T* bp = b ? b->data_ptr<T>() : nullptr;
    T* yp = wide.out().data_ptr<T>();
    T* mp = wide_mean.out().data_ptr<T>();
    T* rp = wide_rstd.out().data_ptr<T>();
    const bool avx2 = cpu_has_avx2();
    const std::int64_t d = input.numel() / blocks;
    parallel_for(blocks, std::max<std::int64_t>(1, kGrainSize / d), [&](std::int64_t b0, std::int64_t b1) {
      std::vector<T> alpha(static_cast<std::size_t>(per_group));
      std::vector<T> beta(static_cast<std::size_t>(per_group));
      if (avx2) {
        group_norm_run_avx2(xp, wp, bp, yp, mp, rp, b0, b1, meta.groups, per_group, meta.s, eps, alpha.data(),
                            beta.data());
      } else {
        group_norm_run(xp, wp, bp, yp, mp, rp, b0, b1, meta.groups, per_group, meta.s, eps, alpha.data(), beta.data());
      }
    });
  });
  wide.finish();
  wide_mean.finish();
  wide_rstd.finish();
}

}  // namespace wick::cpu
