// core/frontend/optim_util.h - small pieces the optimizers' update rules share.
/// \file
#pragma once

#include <string>

#include "wick/error.h"
#include "wick/ops.h"
#include "wick/optim.h"
#include "wick/value.h"

namespace wick::optim::detail {

/// A number as an operand of a tensor operation (keeps the tensor's dtype).
inline Tensor num(double v) { return wrap_scalar(v); }

/// The gradient an update uses: negated when maximizing, then plus
/// weight_decay * p (PyTorch applies them in that order).
inline Tensor decayed_grad(const Tensor& p, const Tensor& grad, bool maximize, double weight_decay) {
  Tensor g = maximize ? -grad : grad;
  if (weight_decay != 0) g = g.add(p, weight_decay);
  return g;
}

/// The state tensor `name`, created as zeros like `p` when missing.
inline Tensor& zeros_state(ParamState& st, const char* name, const Tensor& p) {
  if (!st.contains(name)) st.set(name, zeros_like(p));
  return st.at(name);
}

/// PyTorch's "Invalid <what>: <value>" check for an option that must be >= 0
/// (NaN fails too, as `not 0.0 <= x` does).
inline void check_non_negative(double v, const char* what) {
  WICK_CHECK(v >= 0.0, ValueError, "Invalid ", what, ": ", python_float_repr(v));
}

/// Adam's beta checks: 0 <= beta < 1.
inline void check_betas(const std::array<double, 2>& betas) {
  WICK_CHECK(betas[0] >= 0.0 && betas[0] < 1.0, ValueError,
             "Invalid beta parameter at index 0: ", python_float_repr(betas[0]));
  WICK_CHECK(betas[1] >= 0.0 && betas[1] < 1.0, ValueError,
             "Invalid beta parameter at index 1: ", python_float_repr(betas[1]));
}

}  // namespace wick::optim::detail
