// backends/cpu/nn_ops.cpp - softmax, log_softmax, the nn activations and nll_loss.
/// \file
/// The computations of operators whose meta functions
/// (dispatch/ops/meta_nn.cpp) checked the arguments and gave the output
/// (Note [Structured kernels] in wick/structured.h). Softmax views the
/// input as [outer, n, inner] (n along `dim`): the maximum along `dim` is
/// subtracted before exponentiating (Note [Softmax loops]). With inner > 1
/// the passes sweep contiguous row segments of a block of columns at a time
/// rather than striding down each column. The activations are float
/// elementwise functions. nll_loss views its input as [N, C, S] (S the
/// flattened extra dims) and its target as [N, S]; a target out of [0, C)
/// is found here, reading the data.
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <wick/meta_nn.h>
#include <wick/nn_functional.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"
#include "vector_math.h"

namespace wick::cpu {
namespace {

namespace nnf = wick::nn::functional;

template <typename T>
T nan_max(T a, T b) {
  return (b > a || std::isnan(b)) ? b : a;  // a NaN, once met, stays
}

// Note [Softmax loops]
// A row is three passes: the maximum, the sum of exp(x - max) (stored for
// softmax), then the scaling. The passes are `omp simd` loops, so exp is
// libmvec's vector exp (vector_math.h) and the maximum and sum are kept in
// one partial per lane; in the AVX2 copy that is 8 floats (the partial
// sums restart every kSumBlock elements and meet in double). The maximum
// skips NaN (x > max is false for it), and a NaN then reaches every output
// through the sum, as in PyTorch. Rows (or blocks of columns) are spread
// over threads once a call has kGrainSize elements.

constexpr std::int64_t kSumBlock = 1024;

template <bool kLog, typename T>
[[gnu::always_inline]] inline void softmax_row_body(const T* x, T* y, std::int64_t n) {
  T mx = -std::numeric_limits<T>::infinity();
#pragma omp simd reduction(max : mx)
  for (std::int64_t j = 0; j < n; ++j) mx = x[j] > mx ? x[j] : mx;
  // Blocks of kSumBlock lane-wise partial sums, added up in double: the
  // rounding error grows with the block, not with the row.
  double total = 0;
  for (std::int64_t j0 = 0; j0 < n; j0 += kSumBlock) {
    const std::int64_t j1 = std::min(n, j0 + kSumBlock);
    T sum = 0;
    if constexpr (kLog) {
#pragma omp simd reduction(+ : sum)
      for (std::int64_t j = j0; j < j1; ++j) sum += std::exp(x[j] - mx);
    } else {
#pragma omp simd reduction(+ : sum)
      for (std::int64_t j = j0; j < j1; ++j) {
        const T e = std::exp(x[j] - mx);
        y[j] = e;
        sum += e;
      }
    }
    total += static_cast<double>(sum);
  }
  if constexpr (kLog) {
    const T shift = mx + static_cast<T>(std::log(total));
#pragma omp simd
    for (std::int64_t j = 0; j < n; ++j) y[j] = x[j] - shift;
  } else {
    const T inv = static_cast<T>(1.0 / total);
#pragma omp simd
    for (std::int64_t j = 0; j < n; ++j) y[j] *= inv;
  }
}

// Columns [0, w) of a [n, inner] block (row stride `inner`), softmax along
// n for each column: the passes walk contiguous row segments, keeping one
// running maximum and (double) sum per column in mx and sum (w entries each).
template <bool kLog, typename T>
[[gnu::always_inline]] inline void softmax_columns_body(const T* x, T* y, std::int64_t n, std::int64_t inner,
                                                        std::int64_t w, T* mx, double* sum) {
  for (std::int64_t i = 0; i < w; ++i) {
    mx[i] = -std::numeric_limits<T>::infinity();
    sum[i] = 0;
  }
  for (std::int64_t j = 0; j < n; ++j) {
    const T* xr = x + j * inner;
#pragma omp simd
    for (std::int64_t i = 0; i < w; ++i) mx[i] = xr[i] > mx[i] ? xr[i] : mx[i];
  }
  for (std::int64_t j = 0; j < n; ++j) {
    const T* xr = x + j * inner;
    T* yr = y + j * inner;
#pragma omp simd
    for (std::int64_t i = 0; i < w; ++i) {
      const T e = std::exp(xr[i] - mx[i]);
      if constexpr (!kLog) yr[i] = e;
      sum[i] += static_cast<double>(e);
    }
  }
  // mx becomes the per-column shift (log) or scale (softmax).
  for (std::int64_t i = 0; i < w; ++i)
    mx[i] = kLog ? mx[i] + static_cast<T>(std::log(sum[i])) : static_cast<T>(1.0 / sum[i]);
  for (std::int64_t j = 0; j < n; ++j) {
    const T* xr = x + j * inner;
    T* yr = y + j * inner;
#pragma omp simd
    for (std::int64_t i = 0; i < w; ++i) {
      if constexpr (kLog) {
        yr[i] = xr[i] - mx[i];
      } else {
        yr[i] *= mx[i];
      }
    }
  }
}

template <bool kLog, typename T>
void softmax_row(const T* x, T* y, std::int64_t n) {
  softmax_row_body<kLog>(x, y, n);
}
template <bool kLog, typename T>
[[gnu::target("avx2,fma")]] void softmax_row_avx2(const T* x, T* y, std::int64_t n) {
  softmax_row_body<kLog>(x, y, n);
}
template <bool kLog, typename T>
void softmax_columns(const T* x, T* y, std::int64_t n, std::int64_t inner, std::int64_t w, T* mx, double* sum) {
  softmax_columns_body<kLog>(x, y, n, inner, w, mx, sum);
}
template <bool kLog, typename T>
[[gnu::target("avx2,fma")]] void softmax_columns_avx2(const T* x, T* y, std::int64_t n, std::int64_t inner,
                                                      std::int64_t w, T* mx, double* sum) {
  softmax_columns_body<kLog>(x, y, n, inner, w, mx, sum);
}

// Columns per task when softmax runs down columns (inner > 1).
constexpr std::int64_t kColumnBlock = 256;

template <bool kLog>
void softmax_along(const SoftmaxMeta& m, const Tensor& out, const Tensor& input, std::int64_t /*dim*/,
                   std::optional<ScalarType> /*dtype*/) {
  if (out.numel() == 0) return;
  const Widened wide(out);
  const Tensor x = as_dtype(Widened::in(input), wide.out().dtype()).contiguous();
  const std::int64_t outer = m.outer;
  const std::int64_t n = m.n;
  const std::int64_t inner = m.inner;
  const bool avx2 = cpu_has_avx2();
  visit_float(x.dtype(), kLog ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl", [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    T* py = static_cast<T*>(wide.out().data_ptr());
    if (inner == 1) {
      parallel_for(outer, std::max<std::int64_t>(1, kGrainSize / n), [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t o = begin; o < end; ++o) {
          if (avx2) {
            softmax_row_avx2<kLog>(px + o * n, py + o * n, n);
          } else {
            softmax_row<kLog>(px + o * n, py + o * n, n);
          }
        }
      });
      return;
    }
    // One task per (outer index, block of kColumnBlock columns).
    const std::int64_t blocks = (inner + kColumnBlock - 1) / kColumnBlock;
    const std::int64_t grain = std::max<std::int64_t>(1, kGrainSize / (n * std::min(inner, kColumnBlock)));
    parallel_for(outer * blocks, grain, [&](std::int64_t begin, std::int64_t end) {
      std::array<T, kColumnBlock> mx{};
      std::array<double, kColumnBlock> sum{};
      for (std::int64_t task = begin; task < end; ++task) {
        const std::int64_t o = task / blocks;
        const std::int64_t c0 = (task % blocks) * kColumnBlock;
        const std::int64_t base = o * n * inner + c0;
        const std::int64_t w = std::min(kColumnBlock, inner - c0);
        if (avx2) {
          softmax_columns_avx2<kLog>(px + base, py + base, n, inner, w, mx.data(), sum.data());
        } else {
          softmax_columns<kLog>(px + base, py + base, n, inner, w, mx.data(), sum.data());
        }
      }
    });
  });
  wide.finish();
}

// --- activations -------------------------------------------------------------------------------

// out = fn(self), elementwise (the derived kernel copies `out` into self for inplace=True).
// float16 and bfloat16 compute in float32 and round once.
template <std::uint32_t kSet = dtypes::kFloating, typename Fn>
void activation(const char* kernel, const Tensor& out, const Tensor& self, Fn fn) {
  visit_dtype<kSet>(self.dtype(), kernel, [&](auto tag) {
    using T = decltype(tag);
    unary_loop<T, T>(out, self, [&](T v) { return static_cast<T>(fn(compute_type_t<T>(v))); });
  });
}

}  // namespace

void leaky_relu(const ActivationMeta&, const Tensor& out, const Tensor& self, double slope, bool /*inplace*/) {
  activation("leaky_relu_cpu", out, self, [slope](auto v) {
    using T = decltype(v);
    return v > T(0) ? v : v * static_cast<T>(slope);
  });
}

void elu(const ActivationMeta&, const Tensor& out, const Tensor& self, double alpha, bool /*inplace*/) {
  activation("elu_cpu", out, self, [alpha](auto v) {
    using T = decltype(v);
    return v > T(0) ? v : static_cast<T>(alpha) * std::expm1(v);
  });
}

void gelu(const ActivationMeta&, const Tensor& out, const Tensor& self, std::string_view approximate) {
  if (approximate == "tanh") {
    activation("GeluKernelImpl", out, self, [](auto v) {
      using T = decltype(v);
      const T beta = static_cast<T>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);  // sqrt(2 / pi)
      const T kappa = static_cast<T>(0.044715);
      return T(0.5) * v * (T(1) + std::tanh(beta * (v + kappa * v * v * v)));
    });
    return;
  }
  activation("GeluKernelImpl", out, self, [](auto v) {
    using T = decltype(v);
    return v * T(0.5) * (T(1) + std::erf(v * static_cast<T>(1.0 / std::numbers::sqrt2)));
  });
}

void silu(const ActivationMeta&, const Tensor& out, const Tensor& self, bool /*inplace*/) {
  activation<dtypes::kFloatingAndComplex>("silu_cpu", out, self, [](auto v) {
    using T = decltype(v);
    return v / (T(1) + std::exp(-v));
  });
}

void logsigmoid(const ActivationMeta&, const Tensor& out, const Tensor& self) {
  activation("log_sigmoid_cpu", out, self, [](auto v) {
    using T = decltype(v);
    return std::min(v, T(0)) - std::log1p(std::exp(-std::abs(v)));
  });
}

namespace {

// --- nll_loss ----------------------------------------------------------------------------------

}  // namespace

void nll_loss(const NllLossMeta& sh, const Tensor& out, const Tensor& input, const Tensor& target,
              const std::optional<Tensor>& weight, std::optional<bool> /*size_average*/, std::int64_t ignore_index,
              std::optional<bool> /*reduce*/, std::string_view /*reduction*/) {
  const char* op = "torch.nn.functional.nll_loss";
  const nnf::Reduction red = sh.reduction;
  const Widened wide(out);
  Tensor x = Widened::in(input).contiguous();
  Tensor t = target.contiguous();
  std::optional<Tensor> w;
  if (weight) w = Widened::in(*weight).contiguous();
  visit_float(x.dtype(), "nll_loss_out_frame", [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    const auto* pt = static_cast<const std::int64_t*>(t.data_ptr());
    const T* pw = w ? static_cast<const T*>(w->data_ptr()) : nullptr;
    T* po = static_cast<T*>(wide.out().data_ptr());
    double total = 0;
    double weight_sum = 0;
    for (std::int64_t i = 0; i < sh.n; ++i) {
      for (std::int64_t k = 0; k < sh.s; ++k) {
        const std::int64_t cls = pt[i * sh.s + k];
        T v = 0;
        if (cls != ignore_index) {
          WICK_CHECK(cls >= 0 && cls < sh.c, IndexError, op, ": Target ", cls, " is out of bounds.");
          const T wc = pw != nullptr ? pw[cls] : T(1);
          v = -wc * px[(i * sh.c + cls) * sh.s + k];
          weight_sum += static_cast<double>(wc);
        }
        if (red == nnf::Reduction::kNone) {
          po[i * sh.s + k] = v;
        } else {
          total += static_cast<double>(v);
        }
      }
    }
    if (red == nnf::Reduction::kSum) *po = static_cast<T>(total);
    if (red == nnf::Reduction::kMean) *po = static_cast<T>(total / weight_sum);  // 0/0: NaN, as PyTorch
  });
  wide.finish();
}

void softmax_rows(const SoftmaxMeta& m, const Tensor& out, const Tensor& input, std::int64_t dim,
                  std::optional<ScalarType> dtype, bool log) {
  log ? softmax_along<true>(m, out, input, dim, dtype) : softmax_along<false>(m, out, input, dim, dtype);
}

}  // namespace wick::cpu
