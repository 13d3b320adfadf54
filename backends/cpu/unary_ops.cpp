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

// exp, sin, ...: computed in the meta's floating dtype.
template <typename Fn>
void float_unary(const M& m, const Tensor& r, const Tensor& self, Fn fn) {
  const Tensor x = as_dtype(self, m.compute);
  if (m.compute == ScalarType::kFloat32) {
    unary_loop<float, float, true>(r, x, [&](float v) { return static_cast<float>(fn(v)); });
  } else {
    unary_loop<double, double, true>(r, x, [&](double v) { return fn(v); });
  }
}

// neg, abs, ...: in the input's dtype.
template <typename Fn>
void same_unary(const char* op, const M& m, const Tensor& r, const Tensor& self, Fn fn) {
  const Tensor x = as_dtype(self, m.compute);
  visit_dtype(m.compute, op, [&](auto tag) {
    using T = decltype(tag);
    unary_loop<T, T>(r, x, [&](T v) { return static_cast<T>(fn(v)); });
  });
}

}  // namespace

void neg(const M& m, const Tensor& r, const Tensor& self) {
  same_unary("torch.neg", m, r, self, [](auto v) {
    if constexpr (std::is_same_v<decltype(v), bool>) {
      return v;  // unreachable: refused by the meta function
    } else {
      return -v;
    }
  });
}
void abs(const M& m, const Tensor& r, const Tensor& self) {
  same_unary("torch.abs", m, r, self, [](auto v) { return scalar_ops::abs(v); });
}
void relu(const M& m, const Tensor& r, const Tensor& self) {
  same_unary("torch.relu", m, r, self, [](auto v) { return scalar_ops::relu(v); });
}

#define WICK_FLOAT_UNARY(NAME, EXPR)                           \
  void NAME(const M& m, const Tensor& r, const Tensor& self) { \
    float_unary(m, r, self, [](auto v) { return EXPR; });      \
  }
WICK_FLOAT_UNARY(exp, std::exp(v))
WICK_FLOAT_UNARY(exp2, std::exp2(v))
WICK_FLOAT_UNARY(expm1, std::expm1(v))
WICK_FLOAT_UNARY(log, std::log(v))
WICK_FLOAT_UNARY(log2, std::log2(v))
WICK_FLOAT_UNARY(log10, std::log10(v))
WICK_FLOAT_UNARY(log1p, std::log1p(v))
WICK_FLOAT_UNARY(sqrt, std::sqrt(v))
WICK_FLOAT_UNARY(rsqrt, decltype(v)(1) / std::sqrt(v))
WICK_FLOAT_UNARY(sin, std::sin(v))
WICK_FLOAT_UNARY(cos, std::cos(v))
WICK_FLOAT_UNARY(tan, std::tan(v))
WICK_FLOAT_UNARY(asin, std::asin(v))
WICK_FLOAT_UNARY(acos, std::acos(v))
WICK_FLOAT_UNARY(atan, std::atan(v))
WICK_FLOAT_UNARY(sinh, std::sinh(v))
WICK_FLOAT_UNARY(cosh, std::cosh(v))
WICK_FLOAT_UNARY(tanh, std::tanh(v))
WICK_FLOAT_UNARY(erf, std::erf(v))
WICK_FLOAT_UNARY(reciprocal, decltype(v)(1) / v)
WICK_FLOAT_UNARY(sigmoid, decltype(v)(1) / (decltype(v)(1) + std::exp(-v)))
#undef WICK_FLOAT_UNARY

namespace {

// floor, ceil, round (half to even, as PyTorch) and trunc: integers are
// already whole (a copy; bools are refused by the meta function).
template <typename Fn>
void rounding(const M& m, const Tensor& r, const Tensor& self, Fn fn) {
  if (!is_floating(m.compute)) {
    Tensor out = r;
    out.copy_(self);
    return;
  }
  float_unary(m, r, self, fn);
}

}  // namespace

void floor(const M& m, const Tensor& r, const Tensor& s) {
  rounding(m, r, s, [](auto v) { return std::floor(v); });
}
void ceil(const M& m, const Tensor& r, const Tensor& s) {
  rounding(m, r, s, [](auto v) { return std::ceil(v); });
}
void round(const M& m, const Tensor& r, const Tensor& s) {
  rounding(m, r, s, [](auto v) { return std::nearbyint(v); });
}
void trunc(const M& m, const Tensor& r, const Tensor& s) {
  rounding(m, r, s, [](auto v) { return std::trunc(v); });
}
// Floating dtypes only (the meta function refuses the others); inf - inf is nan, as PyTorch.
void frac(const M& m, const Tensor& r, const Tensor& s) {
  float_unary(m, r, s, [](auto v) { return v - std::trunc(v); });
}

// -1, 0 or 1 in the input's dtype (0 for NaN, as PyTorch 1.13 prints it).
void sign(const M& m, const Tensor& r, const Tensor& self) {
  same_unary("torch.sign", m, r, self, [](auto v) {
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
  same_unary("torch.bitwise_not", m, r, self, [](auto v) {
    if constexpr (std::is_floating_point_v<decltype(v)>) {
      return v;  // unreachable
    } else {
      return scalar_ops::bitwise_not(v);
    }
  });
}

void logical_not(const M& m, const Tensor& r, const Tensor& self) {
  visit_dtype(m.compute, "torch.logical_not", [&](auto tag) {
    using T = decltype(tag);
    unary_loop<bool, T>(r, self, [](T v) { return !(v != T(0)); });  // NaN is true, so its not is false
  });
}

// square of a bool is int64 (the meta's compute dtype).
void square(const M& m, const Tensor& r, const Tensor& self) {
  same_unary("torch.square", m, r, self, [](auto v) {
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
  visit_dtype(m.compute, "torch.clamp", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const std::optional<T> l = lo ? std::optional<T>(lo->to<T>()) : std::nullopt;
      const std::optional<T> h = hi ? std::optional<T>(hi->to<T>()) : std::nullopt;
      unary_loop<T, T>(r, x, [&](T v) {
        if constexpr (std::is_floating_point_v<T>) {
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
