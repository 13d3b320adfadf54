// backends/cpu/unary_ops.cpp - elementwise unary kernels.
/// \file
/// Float functions (exp, log, sqrt, ...) of integer or bool tensors compute
/// in the default float dtype, as PyTorch does; neg, abs, relu, sign and the
/// rounding functions keep the dtype (rounding an integer is a copy, a bool
/// is refused); square of a bool is int64; clamp promotes with its bounds.
#include <cmath>
#include <optional>

#include "cpu_kernels.h"
#include "loops.h"
#include "vector_math.h"

namespace wick::cpu {
namespace {

template <typename Fn>
Tensor float_unary(const char* op, const Tensor& self, Fn fn) {
  const ScalarType t = is_floating(self.dtype()) ? self.dtype() : kDefaultFloat;
  Tensor x = as_dtype(self, t);
  Tensor r = make_empty(self.sizes(), t, self.device());
  if (t == ScalarType::kFloat32) {
    unary_loop<float, float, true>(r, x, [&](float v) { return static_cast<float>(fn(v)); });
  } else {
    unary_loop<double, double, true>(r, x, [&](double v) { return fn(v); });
  }
  (void)op;
  return r;
}

template <typename Fn>
Tensor same_unary(const char* op, const Tensor& self, Fn fn) {
  Tensor r = make_empty(self.sizes(), self.dtype(), self.device());
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    unary_loop<T, T>(r, self, [&](T v) { return static_cast<T>(fn(v)); });
  });
  return r;
}

Tensor neg(const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError,
             "torch.neg: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
             "a mask, use the `~` or `logical_not()` operator instead.");
  return same_unary("torch.neg", self, [](auto v) {
    if constexpr (std::is_same_v<decltype(v), bool>) {
      return v;  // unreachable: rejected above
    } else {
      return -v;
    }
  });
}
Tensor abs(const Tensor& self) {
  if (self.dtype() == ScalarType::kBool) return self.clone();
  return same_unary("torch.abs", self, [](auto v) {
    if constexpr (std::is_same_v<decltype(v), bool>) {
      return v;
    } else {
      return v < 0 ? -v : v;
    }
  });
}
Tensor relu(const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError,
             "torch.relu: \"clamp_min_cpu\" not implemented for 'Bool'");
  return same_unary("torch.relu", self, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) return v;
    }
    return v > T(0) ? v : T(0);
  });
}
Tensor exp(const Tensor& s) {
  return float_unary("torch.exp", s, [](auto v) { return std::exp(v); });
}
Tensor exp2(const Tensor& s) {
  return float_unary("torch.exp2", s, [](auto v) { return std::exp2(v); });
}
Tensor expm1(const Tensor& s) {
  return float_unary("torch.expm1", s, [](auto v) { return std::expm1(v); });
}
Tensor log(const Tensor& s) {
  return float_unary("torch.log", s, [](auto v) { return std::log(v); });
}
Tensor log2(const Tensor& s) {
  return float_unary("torch.log2", s, [](auto v) { return std::log2(v); });
}
Tensor log10(const Tensor& s) {
  return float_unary("torch.log10", s, [](auto v) { return std::log10(v); });
}
Tensor log1p(const Tensor& s) {
  return float_unary("torch.log1p", s, [](auto v) { return std::log1p(v); });
}
Tensor sqrt(const Tensor& s) {
  return float_unary("torch.sqrt", s, [](auto v) { return std::sqrt(v); });
}
Tensor rsqrt(const Tensor& s) {
  return float_unary("torch.rsqrt", s, [](auto v) { return decltype(v)(1) / std::sqrt(v); });
}
Tensor sin(const Tensor& s) {
  return float_unary("torch.sin", s, [](auto v) { return std::sin(v); });
}
Tensor cos(const Tensor& s) {
  return float_unary("torch.cos", s, [](auto v) { return std::cos(v); });
}
Tensor tan(const Tensor& s) {
  return float_unary("torch.tan", s, [](auto v) { return std::tan(v); });
}
Tensor asin(const Tensor& s) {
  return float_unary("torch.asin", s, [](auto v) { return std::asin(v); });
}
Tensor acos(const Tensor& s) {
  return float_unary("torch.acos", s, [](auto v) { return std::acos(v); });
}
Tensor atan(const Tensor& s) {
  return float_unary("torch.atan", s, [](auto v) { return std::atan(v); });
}
Tensor sinh(const Tensor& s) {
  return float_unary("torch.sinh", s, [](auto v) { return std::sinh(v); });
}
Tensor cosh(const Tensor& s) {
  return float_unary("torch.cosh", s, [](auto v) { return std::cosh(v); });
}
Tensor tanh(const Tensor& s) {
  return float_unary("torch.tanh", s, [](auto v) { return std::tanh(v); });
}
Tensor erf(const Tensor& s) {
  return float_unary("torch.erf", s, [](auto v) { return std::erf(v); });
}
Tensor reciprocal(const Tensor& s) {
  return float_unary("torch.reciprocal", s, [](auto v) { return decltype(v)(1) / v; });
}
Tensor sigmoid(const Tensor& s) {
  return float_unary("torch.sigmoid", s, [](auto v) {
    using T = decltype(v);
    return T(1) / (T(1) + std::exp(-v));
  });
}

// floor, ceil, round (half to even, as PyTorch) and trunc: integers are
// already whole (a copy), bools are refused with PyTorch's message.
template <typename Fn>
Tensor rounding(const char* op, const char* kernel, const Tensor& self, Fn fn) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"", kernel, "\" not implemented for 'Bool'");
  if (!is_floating(self.dtype())) return self.clone();
  return float_unary(op, self, fn);
}
Tensor floor(const Tensor& s) {
  return rounding("torch.floor", "floor_vml_cpu", s, [](auto v) { return std::floor(v); });
}
Tensor ceil(const Tensor& s) {
  return rounding("torch.ceil", "ceil_vml_cpu", s, [](auto v) { return std::ceil(v); });
}
Tensor round(const Tensor& s) {
  return rounding("torch.round", "round_vml_cpu", s, [](auto v) { return std::nearbyint(v); });
}
Tensor trunc(const Tensor& s) {
  return rounding("torch.trunc", "trunc_vml_cpu", s, [](auto v) { return std::trunc(v); });
}

// -1, 0 or 1 in the input's dtype (0 for NaN, as PyTorch 1.13 prints it).
Tensor sign(const Tensor& self) {
  return same_unary("torch.sign", self, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, bool>) {
      return v;
    } else {
      return static_cast<T>((T(0) < v) - (v < T(0)));
    }
  });
}

Tensor logical_not(const Tensor& self) {
  Tensor r = make_empty(self.sizes(), ScalarType::kBool, self.device());
  visit_dtype(self.dtype(), "torch.logical_not", [&](auto tag) {
    using T = decltype(tag);
    unary_loop<bool, T>(r, self, [](T v) { return !(v != T(0)); });  // NaN is true, so its not is false
  });
  return r;
}

Tensor square(const Tensor& self) {
  const Tensor x = self.dtype() == ScalarType::kBool ? as_dtype(self, ScalarType::kInt64) : self;
  return same_unary("torch.square", x, [](auto v) {
    if constexpr (std::is_same_v<decltype(v), bool>) {
      return v;  // unreachable: bools became int64
    } else {
      return v * v;
    }
  });
}

// clamp(self, min, max) = min(max(self, min), max): NaN stays NaN; the
// result dtype is self's promoted with the bounds, as wrapped numbers.
Tensor clamp(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  WICK_CHECK(lo.has_value() || hi.has_value(), RuntimeError,
             "torch.clamp: At least one of 'min' or 'max' must not be None");
  ScalarType t = self.dtype();
  for (const auto& b : {lo, hi}) {
    if (!b) continue;
    if (b->is_floating() && !is_floating(t)) t = kDefaultFloat;
    if (b->is_integral() && !b->is_bool() && t == ScalarType::kBool) t = ScalarType::kInt64;
  }
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, "torch.clamp: \"clamp_cpu\" not implemented for 'Bool'");
  Tensor x = as_dtype(self, t);
  Tensor r = make_empty(self.sizes(), t, self.device());
  visit_dtype(t, "torch.clamp", [&](auto tag) {
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
  return r;
}

}  // namespace

void register_unary_ops(Library& torch) {
  torch.impl("neg", &neg).impl("abs", &abs).impl("relu", &relu).impl("sign", &sign).impl("square", &square);
  torch.impl("exp", &exp).impl("exp2", &exp2).impl("expm1", &expm1);
  torch.impl("log", &log).impl("log2", &log2).impl("log10", &log10).impl("log1p", &log1p);
  torch.impl("sqrt", &sqrt).impl("rsqrt", &rsqrt).impl("reciprocal", &reciprocal);
  torch.impl("sin", &sin).impl("cos", &cos).impl("tan", &tan);
  torch.impl("asin", &asin).impl("acos", &acos).impl("atan", &atan);
  torch.impl("sinh", &sinh).impl("cosh", &cosh).impl("tanh", &tanh);
  torch.impl("erf", &erf).impl("sigmoid", &sigmoid);
  torch.impl("floor", &floor).impl("ceil", &ceil).impl("round", &round).impl("trunc", &trunc);
  torch.impl("clamp", &clamp).impl("logical_not", &logical_not);
}

}  // namespace wick::cpu
