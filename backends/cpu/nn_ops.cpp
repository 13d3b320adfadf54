// backends/cpu/nn_ops.cpp - softmax, log_softmax, the nn activations and nll_loss.
/// \file
/// Softmax views the input as [outer, n, inner] (n along `dim`): the
/// maximum along `dim` is subtracted before exponentiating (Note [Softmax
/// loops]). With inner > 1 the passes sweep contiguous row segments of a
/// block of columns at a time rather than striding down each column.
/// The activations are float-only elementwise functions (PyTorch refuses
/// integer inputs with its kernel's name). nll_loss views its input as
/// [N, C, S] (S the flattened extra dims) and its target as [N, S].
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <vector>

#include <wick/nn_functional.h>

#include "cpu_kernels.h"
#include "loops.h"
#include "vector_math.h"

namespace wick::cpu {
namespace {

namespace nnf = wick::nn::functional;

void check_float(const char* op, const char* kernel, ScalarType t) {
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"", kernel, "\" not implemented for '", type_title(t), "'");
}

// Calls fn(tag) with a float or double tag.
template <typename Fn>
void visit_float(ScalarType t, Fn&& fn) {
  if (t == ScalarType::kFloat32) {
    fn(float{});
  } else {
    fn(double{});
  }
}

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
Tensor softmax(const Tensor& input, std::int64_t dim, std::optional<ScalarType> dtype) {
  const char* op = kLog ? "torch.log_softmax" : "torch.softmax";
  const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(input.dim(), 1));
  Tensor x = as_dtype(input, dtype.value_or(input.dtype())).contiguous();
  check_float(op, kLog ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl", x.dtype());
  Tensor out = make_empty(x.sizes(), x.dtype(), x.device());
  if (x.numel() == 0) return out;
  std::int64_t outer = 1;
  std::int64_t inner = 1;
  const std::int64_t n = x.dim() == 0 ? 1 : x.sizes()[d];
  for (std::int64_t i = 0; i < x.dim(); ++i) {
    if (i < d) outer *= x.sizes()[i];
    if (i > d) inner *= x.sizes()[i];
  }
  const bool avx2 = cpu_has_avx2();
  visit_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    T* py = static_cast<T*>(out.data_ptr());
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
  return out;
}

// --- activations -------------------------------------------------------------------------------

template <typename Fn>
Tensor activation(const char* op, const char* kernel, const Tensor& self, bool inplace, Fn fn) {
  check_float(op, kernel, self.dtype());
  Tensor r = make_empty(self.sizes(), self.dtype(), self.device());
  visit_float(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    unary_loop<T, T>(r, self, [&](T v) { return static_cast<T>(fn(v)); });
  });
  if (!inplace) return r;
  Tensor s = self;
  s.copy_(r);
  return s;
}

Tensor leaky_relu(const Tensor& self, double slope, bool inplace) {
  return activation("torch.nn.functional.leaky_relu", "leaky_relu_cpu", self, inplace, [slope](auto v) {
    using T = decltype(v);
    return v > T(0) ? v : v * static_cast<T>(slope);
  });
}

Tensor elu(const Tensor& self, double alpha, bool inplace) {
  return activation("torch.nn.functional.elu", "elu_cpu", self, inplace, [alpha](auto v) {
    using T = decltype(v);
    return v > T(0) ? v : static_cast<T>(alpha) * std::expm1(v);
  });
}

Tensor gelu(const Tensor& self, std::string_view approximate) {
  const char* op = "torch.nn.functional.gelu";
  WICK_CHECK(approximate == "none" || approximate == "tanh", RuntimeError, op,
             ": approximate argument must be either none or tanh.");
  if (approximate == "tanh") {
    return activation(op, "GeluKernelImpl", self, false, [](auto v) {
      using T = decltype(v);
      const T beta = static_cast<T>(std::numbers::sqrt2 * std::numbers::inv_sqrtpi);  // sqrt(2 / pi)
      const T kappa = static_cast<T>(0.044715);
      return T(0.5) * v * (T(1) + std::tanh(beta * (v + kappa * v * v * v)));
    });
  }
  return activation(op, "GeluKernelImpl", self, false, [](auto v) {
    using T = decltype(v);
    return v * T(0.5) * (T(1) + std::erf(v * static_cast<T>(1.0 / std::numbers::sqrt2)));
  });
}

Tensor silu(const Tensor& self, bool inplace) {
  return activation("torch.nn.functional.silu", "silu_cpu", self, inplace, [](auto v) {
    using T = decltype(v);
    return v / (T(1) + std::exp(-v));
  });
}

Tensor logsigmoid(const Tensor& self) {
  return activation("torch.nn.functional.logsigmoid", "log_sigmoid_cpu", self, false, [](auto v) {
    using T = decltype(v);
    return std::min(v, T(0)) - std::log1p(std::exp(-std::abs(v)));
  });
}

// --- nll_loss ----------------------------------------------------------------------------------

struct NllShape {
  std::int64_t n = 1, c = 1, s = 1;
};

NllShape check_nll(const char* op, const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight) {
  WICK_CHECK(input.dim() >= 1, ValueError, op, ": Expected 1 or more dimensions (got ", input.dim(), ")");
  WICK_CHECK(input.dim() == 1 || (target.dim() > 0 && input.sizes()[0] == target.sizes()[0]), ValueError, op,
             ": Expected input batch_size (", input.sizes()[0], ") to match target batch_size (",
             target.dim() == 0 ? 0 : target.sizes()[0], ").");
  NllShape sh;
  if (input.dim() <= 2) {
    WICK_CHECK(target.dim() <= 1, RuntimeError, op, ": 0D or 1D target tensor expected, multi-target not supported");
    const bool no_batch = input.dim() == 1 && target.dim() == 0;
    WICK_CHECK(no_batch || input.sizes()[0] == target.sizes()[0], RuntimeError, op,
               ": size mismatch (got input: ", format_shape(input.sizes()), ", target: ", format_shape(target.sizes()),
               ")");
    sh.n = input.dim() == 1 ? 1 : input.sizes()[0];
    sh.c = input.sizes()[input.dim() - 1];
  } else {
    DimVector want;
    want.push_back(input.sizes()[0]);
    for (std::int64_t i = 2; i < input.dim(); ++i) want.push_back(input.sizes()[i]);
    WICK_CHECK(target.sizes().equals(want), RuntimeError, op, ": Expected target size ", format_shape(want), ", got ",
               format_shape(target.sizes()));
    sh.n = input.sizes()[0];
    sh.c = input.sizes()[1];
    for (std::int64_t i = 2; i < input.dim(); ++i) sh.s *= input.sizes()[i];
  }
  WICK_CHECK(target.dtype() == ScalarType::kInt64, RuntimeError, op, ": expected scalar type Long but found ",
             type_title(target.dtype()));
  check_float(op, "nll_loss_out_frame", input.dtype());
  if (weight) {
    WICK_CHECK(weight->numel() == sh.c, RuntimeError, op, ": weight tensor should be defined either for all ", sh.c,
               " classes or no classes but got weight tensor of shape: ", format_shape(weight->sizes()));
    WICK_CHECK(weight->dtype() == input.dtype(), RuntimeError, op, ": expected scalar type ", type_title(input.dtype()),
               " but found ", type_title(weight->dtype()));
  }
  return sh;
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                std::optional<bool> size_average, std::int64_t ignore_index, std::optional<bool> reduce, std::string_view reduction) {
  const char* op = "torch.nn.functional.nll_loss";
  const nnf::Reduction red = nnf::resolve_reduction(op, size_average, reduce, reduction);
  const NllShape sh = check_nll(op, input, target, weight);
  Tensor x = input.contiguous();
  Tensor t = target.contiguous();
  std::optional<Tensor> w;
  if (weight) w = weight->contiguous();
  Tensor out = red == nnf::Reduction::kNone ? make_empty(target.sizes(), input.dtype(), input.device())
                                            : make_empty({}, input.dtype(), input.device());
  visit_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    const auto* pt = static_cast<const std::int64_t*>(t.data_ptr());
    const T* pw = w ? static_cast<const T*>(w->data_ptr()) : nullptr;
    T* po = static_cast<T*>(out.data_ptr());
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
  return out;
}

}  // namespace

void register_nn_ops(Library& torch, Library& functional) {
  torch.impl("softmax", &softmax<false>).impl("log_softmax", &softmax<true>);
  functional.impl("leaky_relu", &leaky_relu)
      .impl("elu", &elu)
      .impl("gelu", &gelu)
      .impl("silu", &silu)
      .impl("logsigmoid", &logsigmoid)
      .impl("nll_loss", &nll_loss);
}

}  // namespace wick::cpu
