// backends/cpu/unary_ops.cpp - elementwise unary kernels.
/// \file
/// Float functions (exp, log, sqrt, ...) of integer or bool tensors compute
/// in the default float dtype, as PyTorch does; neg, abs and relu keep the
/// dtype.
#include <cmath>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/loops.h"

namespace wick::cpu {
namespace {

template <typename Fn>
Tensor float_unary(const char* op, const Tensor& self, Fn fn) {
  const ScalarType t = is_floating(self.dtype()) ? self.dtype() : kDefaultFloat;
  Tensor x = as_dtype(self, t);
  Tensor r = make_empty(self.sizes(), t, self.device());
  if (t == ScalarType::kFloat32) {
    unary_loop<float, float>(r, x, [&](float v) { return static_cast<float>(fn(v)); });
  } else {
    unary_loop<double, double>(r, x, [&](double v) { return fn(v); });
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
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, "torch.relu: \"clamp_min_cpu\" not implemented for 'Bool'");
  return same_unary("torch.relu", self, [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) return v;
    }
    return v > T(0) ? v : T(0);
  });
}
Tensor exp(const Tensor& s) { return float_unary("torch.exp", s, [](auto v) { return std::exp(v); }); }
Tensor log(const Tensor& s) { return float_unary("torch.log", s, [](auto v) { return std::log(v); }); }
Tensor sqrt(const Tensor& s) { return float_unary("torch.sqrt", s, [](auto v) { return std::sqrt(v); }); }
Tensor sin(const Tensor& s) { return float_unary("torch.sin", s, [](auto v) { return std::sin(v); }); }
Tensor cos(const Tensor& s) { return float_unary("torch.cos", s, [](auto v) { return std::cos(v); }); }
Tensor tanh(const Tensor& s) { return float_unary("torch.tanh", s, [](auto v) { return std::tanh(v); }); }
Tensor sigmoid(const Tensor& s) {
  return float_unary("torch.sigmoid", s, [](auto v) {
    using T = decltype(v);
    return T(1) / (T(1) + std::exp(-v));
  });
}

}  // namespace

void register_unary_ops(Library& torch) {
  torch.impl("neg", &neg)
      .impl("abs", &abs)
      .impl("relu", &relu)
      .impl("exp", &exp)
      .impl("log", &log)
      .impl("sqrt", &sqrt)
      .impl("sin", &sin)
      .impl("cos", &cos)
      .impl("tanh", &tanh)
      .impl("sigmoid", &sigmoid);
}

}  // namespace wick::cpu
