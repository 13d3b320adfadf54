// backends/cpu/unary_ops.cpp - elementwise unary kernels.
/// \file
/// The computation of the unary operators; their meta functions
/// (dispatch/ops/meta_elementwise.cpp) give the dtypes: float functions of
/// integers compute in the default float dtype, neg, abs, relu, sign and the
/// rounding functions keep the dtype, square of a bool is int64, clamp
/// promotes with its bounds.
#include <cmath>
#include <optional>

#include <wick/meta.h>
#include <wick/scalar_ops.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"
#include "vector_math.h"

namespace wick::cpu {
namespace {

using M = ElementwiseMeta;

// 1 / v; a complex one divided as PyTorch divides (scalar_ops::complex_divide).
template <typename T>
T reciprocal_of(T v) {
  if constexpr (is_complex_v<T>) {
    return scalar_ops::complex_divide(T(1), v);
  } else {
    return T(1) / v;
  }
}

// log2 of a complex number (the standard library has it for reals only).
template <typename T>
T log2_of(T v) {
  if constexpr (is_complex_v<T>) {
    return std::log(v) / std::log(typename T::value_type(2));
  } else {
    return std::log2(v);
  }
}

// exp, sin, ...: computed in the meta's floating (or complex) dtype; float16
// and bfloat16 compute in float32 and round the result.
template <std::uint32_t kSet = dtypes::kFloating, typename Fn>
void float_unary(const char* kernel, const M& m, const Tensor& r, const Tensor& self, Fn fn) {
  const Tensor x = as_dtype(self, m.compute);
  visit_dtype<kSet>(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      unary_loop<T, T, true>(r, x, [&](T v) { return static_cast<T>(fn(v)); });
    } else {
      unary_loop<T, T>(r, x, [&](T v) { return static_cast<T>(fn(compute_type_t<T>(v))); });
    }
  });
}

// neg, abs, ...: in the input's dtype (float16 and bfloat16 through float32).
template <std::uint32_t kSet = dtypes::kAll, typename Fn>
void same_unary(const char* kernel, const M& m, const Tensor& r, const Tensor& self, Fn fn) {
  const Tensor x = as_dtype(self, m.compute);
  visit_dtype<kSet>(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    unary_loop<T, T>(r, x, [&](T v) { return static_cast<T>(fn(compute_type_t<T>(v))); });
  });
}

}  // namespace

void neg(const M& m, const Tensor& r, const Tensor& self) {
  same_unary<dtypes::kAllAndComplex>("neg_cpu", m, r, self, [](auto v) {
    if constexpr (std::is_same_v<decltype(v), bool>) {
      return v;  // unreachable: refused by the meta function
    } else {
      return -v;
    }
  });
}
void abs(const M& m, const Tensor& r, const Tensor& self) {
  if (is_complex(self.dtype())) {  // |z|, a real result (the meta's output dtype)
    visit_dtype<dtypes::kComplex>(self.dtype(), "abs_cpu", [&](auto tag) {
      using T = decltype(tag);
      using R = typename T::value_type;
      unary_loop<R, T>(r, self, [](T v) { return std::abs(v); });
    });
    return;
  }
  same_unary("abs_cpu", m, r, self, [](auto v) { return scalar_ops::abs(v); });
}
void relu(const M& m, const Tensor& r, const Tensor& self) {
  same_unary("clamp_min_cpu", m, r, self, [](auto v) { return scalar_ops::relu(v); });
}

// kSet: the dtypes PyTorch's kernel has a loop for (complex or not).
#define WICK_FLOAT_UNARY(NAME, KERNEL, SET, EXPR)                   \
  void NAME(const M& m, const Tensor& r, const Tensor& self) {      \
    float_unary<SET>(KERNEL, m, r, self, [](auto v) { return EXPR; }); \
  }
constexpr std::uint32_t kF = dtypes::kFloating;
constexpr std::uint32_t kFC = dtypes::kFloatingAndComplex;
WICK_FLOAT_UNARY(exp, "exp_vml_cpu", kFC, std::exp(v))
WICK_FLOAT_UNARY(exp2, "exp2_cpu", kF, std::exp2(v))
WICK_FLOAT_UNARY(expm1, "expm1_vml_cpu", kF, std::expm1(v))
WICK_FLOAT_UNARY(log, "log_vml_cpu", kFC, std::log(v))
WICK_FLOAT_UNARY(log2, "log2_vml_cpu", kFC, log2_of(v))
WICK_FLOAT_UNARY(log10, "log10_vml_cpu", kFC, std::log10(v))
WICK_FLOAT_UNARY(log1p, "log1p_vml_cpu", kF, std::log1p(v))
WICK_FLOAT_UNARY(sqrt, "sqrt_vml_cpu", kFC, std::sqrt(v))
WICK_FLOAT_UNARY(rsqrt, "rsqrt_cpu", kFC, decltype(v)(1) / std::sqrt(v))
WICK_FLOAT_UNARY(sin, "sin_vml_cpu", kFC, std::sin(v))
WICK_FLOAT_UNARY(cos, "cos_vml_cpu", kFC, std::cos(v))
WICK_FLOAT_UNARY(tan, "tan_vml_cpu", kFC, std::tan(v))
WICK_FLOAT_UNARY(asin, "asin_vml_cpu", kFC, std::asin(v))
WICK_FLOAT_UNARY(acos, "acos_vml_cpu", kFC, std::acos(v))
WICK_FLOAT_UNARY(atan, "atan_vml_cpu", kFC, std::atan(v))
WICK_FLOAT_UNARY(sinh, "sinh_vml_cpu", kFC, std::sinh(v))
WICK_FLOAT_UNARY(cosh, "cosh_vml_cpu", kFC, std::cosh(v))
WICK_FLOAT_UNARY(tanh, "tanh_vml_cpu", kFC, std::tanh(v))
WICK_FLOAT_UNARY(erf, "erf_vml_cpu", kF, std::erf(v))
WICK_FLOAT_UNARY(erfc, "erfc_vml_cpu", kF, std::erfc(v))
WICK_FLOAT_UNARY(acosh, "acosh_cpu", kFC, std::acosh(v))
WICK_FLOAT_UNARY(asinh, "asinh_cpu", kFC, std::asinh(v))
WICK_FLOAT_UNARY(atanh, "atanh_cpu", kFC, std::atanh(v))
WICK_FLOAT_UNARY(reciprocal, "reciprocal_cpu", kFC, reciprocal_of(v))
WICK_FLOAT_UNARY(sigmoid, "sigmoid_cpu", kFC, decltype(v)(1) / (decltype(v)(1) + std::exp(-v)))
#undef WICK_FLOAT_UNARY

namespace {

// floor, ceil, round (half to even, as PyTorch) and trunc: integers are
// already whole (a copy; bools are refused by the meta function).
template <typename Fn>
void rounding(const char* kernel, const M& m, const Tensor& r, const Tensor& self, Fn fn) {
  if (!is_floating(m.compute)) {
    Tensor out = r;
    out.copy_(self);
    return;
  }
  float_unary(kernel, m, r, self, fn);
}

}  // namespace

void floor(const M& m, const Tensor& r, const Tensor& s) {
  rounding("floor_cpu", m, r, s, [](auto v) { return std::floor(v); });
}
void ceil(const M& m, const Tensor& r, const Tensor& s) {
  rounding("ceil_cpu", m, r, s, [](auto v) { return std::ceil(v); });
}
void round(const M& m, const Tensor& r, const Tensor& s) {
  rounding("round_cpu", m, r, s, [](auto v) { return std::nearbyint(v); });
}
void trunc(const M& m, const Tensor& r, const Tensor& s) {
  rounding("trunc_cpu", m, r, s, [](auto v) { return std::trunc(v); });
}
// Floating dtypes only (the meta function refuses the others); inf - inf is nan, as PyTorch.
void frac(const M& m, const Tensor& r, const Tensor& s) {
  float_unary("frac_cpu", m, r, s, [](auto v) { return v - std::trunc(v); });
}

// -1, 0 or 1 in the input's dtype (0 for NaN, as PyTorch 1.13 prints it).
void sign(const M& m, const Tensor& r, const Tensor& self) {
  same_unary("sign_cpu", m, r, self, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) {
      return v;
    } else {
      return static_cast<T>((T(0) < v) - (v < T(0)));
    }
  });
}

// Integers and bools only (the meta function refuses floating dtypes).
void bitwise_not(const M& m, const Tensor& r, const Tensor& self) {
  same_unary("bitwise_not_cpu", m, r, self, [](auto v) {
    if constexpr (is_floating_v<decltype(v)>) {
      return v;  // unreachable
    } else {
      return scalar_ops::bitwise_not(v);
    }
  });
}

void logical_not(const M& m, const Tensor& r, const Tensor& self) {
  visit_dtype<dtypes::kAllAndComplex>(m.compute, "logical_not_cpu", [&](auto tag) {
    using T = decltype(tag);
    unary_loop<bool, T>(r, self, [](T v) { return !(v != T(0)); });  // NaN is true, so its not is false
  });
}

// square of a bool is int64 (the meta's compute dtype).
void square(const M& m, const Tensor& r, const Tensor& self) {
  same_unary<dtypes::kAllAndComplex>("square_cpu", m, r, self, [](auto v) {
    if constexpr (std::is_same_v<decltype(v), bool>) {
      return v;  // unreachable: bools compute in int64
    } else {
      return v * v;
    }
  });
}

// clamp(self, min, max) = min(max(self, min), max): NaN stays NaN.
void clamp(const M& m, const Tensor& r, const Tensor& self, const std::optional<Scalar>& lo,
           const std::optional<Scalar>& hi) {
  const Tensor x = as_dtype(self, m.compute);
  visit_dtype(m.compute, "clamp_cpu", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const std::optional<T> l = lo ? std::optional<T>(lo->to<T>()) : std::nullopt;
      const std::optional<T> h = hi ? std::optional<T>(hi->to<T>()) : std::nullopt;
      unary_loop<T, T>(r, x, [&](T v) {
        if constexpr (is_floating_v<T>) {
          if (std::isnan(v)) return v;
        }
        if (l && v < *l) v = *l;
        if (h && v > *h) v = *h;
        return v;
      });
    }
  });
}

}  // namespace wick::cpu
