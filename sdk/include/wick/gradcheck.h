// wick/gradcheck.h - checking gradient formulas against finite differences.
/// \file
/// `gradcheck` compares the Jacobian computed by backward (and, with
/// `check_forward_ad`, by forward mode) with central finite differences, for
/// every input that requires grad. `gradgradcheck` does the same for the
/// gradient itself (the formulas' own derivatives, via create_graph).
/// Use float64 inputs: float32 is too coarse for the default tolerances.
///
///   auto f = [](const tensor_list& in) { return LinearFunction::apply(in[0], in[1], std::nullopt); };
///   bool ok = wick::autograd::gradcheck(f, {x, w}, {.eps = 1e-6, .atol = 1e-4});
///
/// On a mismatch it throws RuntimeError (or returns false when
/// `raise_exception` is off) naming the output and input index, the element,
/// and the numerical and analytical values.
#pragma once

#include <functional>

#include "wick/autograd.h"
#include "wick/export.h"

namespace wick::autograd {

/// Settings of gradcheck and gradgradcheck; the defaults are PyTorch's.
struct GradcheckOptions {
  double eps = 1e-6;   ///< finite-difference step
  double atol = 1e-5;  ///< absolute tolerance
  double rtol = 1e-3;  ///< relative tolerance (of the numerical value)
  bool check_backward_ad = true; ///< compare backward's Jacobian (default true)
  bool check_forward_ad = false; ///< compare forward mode's Jacobian too (default false)
  /// Backward must cope with undefined output gradients (treat them as zero).
  bool check_undefined_grad = true;
  bool raise_exception = true; ///< throw RuntimeError on a mismatch (default true); false: return false
};

/// A function under check: inputs to outputs.
using GradcheckFn = std::function<tensor_list(const tensor_list&)>;
/// A function under check with a single output.
using GradcheckFn1 = std::function<Tensor(const tensor_list&)>;

/// True when backward's (and with check_forward_ad, forward mode's) Jacobian of `fn` at `inputs` matches central finite differences within atol + rtol * |numerical|; on a mismatch RuntimeError, or false when `raise_exception` is off.
WICK_API bool gradcheck(const GradcheckFn& fn, const tensor_list& inputs, const GradcheckOptions& options = {});
/// gradcheck of a single-output function (see the tensor_list overload).
WICK_API bool gradcheck(const GradcheckFn1& fn, const tensor_list& inputs, const GradcheckOptions& options = {});
/// `grad_outputs`: the vectors to differentiate backward with (random when empty).
WICK_API bool gradgradcheck(const GradcheckFn& fn, const tensor_list& inputs, const tensor_list& grad_outputs = {},
                            const GradcheckOptions& options = {});
/// gradgradcheck of a single-output function (see the tensor_list overload).
WICK_API bool gradgradcheck(const GradcheckFn1& fn, const tensor_list& inputs, const tensor_list& grad_outputs = {},
                            const GradcheckOptions& options = {});

}  // namespace wick::autograd
