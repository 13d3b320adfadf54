// core/frontend/nn_activation.cpp - the activation modules: one functional call and PyTorch's extra_repr each.
/// \file
#include "wick/nn_activation.h"

#include <cmath>

#include "core/frontend/nn_repr.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick::nn {

namespace F = wick::nn::functional;
using detail::py;

namespace {

// ", inplace=True" when set: how most activations print inplace.
std::string inplace_suffix(bool inplace) { return inplace ? ", inplace=True" : ""; }

// A number as PyTorch prints an int-valued default: 20 rather than 20.0.
std::string py_number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  return py(v);
}

}  // namespace

#define WICK_NN_ACTIVATION_DEFINE(Name, call, repr)                                       \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {}            \
  Tensor Name##Impl::forward(const Tensor& input) { return call; }                        \
  std::string Name##Impl::extra_repr() const { return repr; }

#define WICK_NN_INPLACE_ONLY_REPR (options.inplace() ? "inplace=True" : "")

WICK_NN_ACTIVATION_DEFINE(ReLU, F::relu(input, options.inplace()), WICK_NN_INPLACE_ONLY_REPR)
WICK_NN_ACTIVATION_DEFINE(ReLU6, F::relu6(input, options.inplace()), WICK_NN_INPLACE_ONLY_REPR)
WICK_NN_ACTIVATION_DEFINE(SELU, F::selu(input, options.inplace()), WICK_NN_INPLACE_ONLY_REPR)
WICK_NN_ACTIVATION_DEFINE(SiLU, F::silu(input, options.inplace()), WICK_NN_INPLACE_ONLY_REPR)
WICK_NN_ACTIVATION_DEFINE(Mish, F::mish(input, options.inplace()), WICK_NN_INPLACE_ONLY_REPR)
WICK_NN_ACTIVATION_DEFINE(Hardswish, F::hardswish(input, options.inplace()), "")
WICK_NN_ACTIVATION_DEFINE(Hardsigmoid, F::hardsigmoid(input, options.inplace()), "")
WICK_NN_ACTIVATION_DEFINE(LeakyReLU, F::leaky_relu(input, options.negative_slope(), options.inplace()),
                          "negative_slope=" + py(options.negative_slope()) + inplace_suffix(options.inplace()))
WICK_NN_ACTIVATION_DEFINE(ELU, F::elu(input, options.alpha(), options.inplace()),
                          "alpha=" + py(options.alpha()) + inplace_suffix(options.inplace()))
WICK_NN_ACTIVATION_DEFINE(CELU, F::celu(input, options.alpha(), options.inplace()),
                          "alpha=" + py(options.alpha()) + inplace_suffix(options.inplace()))
WICK_NN_ACTIVATION_DEFINE(RReLU,
                          F::rrelu(input, options.lower(), options.upper(), is_training(), options.inplace()),
                          "lower=" + py(options.lower()) + ", upper=" + py(options.upper()) +
                              inplace_suffix(options.inplace()))
WICK_NN_ACTIVATION_DEFINE(Hardtanh, F::hardtanh(input, options.min_val(), options.max_val(), options.inplace()),
                          "min_val=" + py(options.min_val()) + ", max_val=" + py(options.max_val()) +
                              inplace_suffix(options.inplace()))
WICK_NN_ACTIVATION_DEFINE(GELU, F::gelu(input, options.approximate()), "approximate='" + options.approximate() + "'")
WICK_NN_ACTIVATION_DEFINE(Softplus, F::softplus(input, options.beta(), options.threshold()),
                          "beta=" + py_number(options.beta()) + ", threshold=" + py_number(options.threshold()))
WICK_NN_ACTIVATION_DEFINE(Softshrink, F::softshrink(input, options.lambda()), py(options.lambda()))
WICK_NN_ACTIVATION_DEFINE(Hardshrink, F::hardshrink(input, options.lambda()), py(options.lambda()))
WICK_NN_ACTIVATION_DEFINE(GLU, F::glu(input, options.dim()), "dim=" + py(options.dim()))
WICK_NN_ACTIVATION_DEFINE(Softmax, F::softmax(input, options.dim()), "dim=" + py(options.dim()))
WICK_NN_ACTIVATION_DEFINE(LogSoftmax, F::log_softmax(input, options.dim()), "dim=" + py(options.dim()))
WICK_NN_ACTIVATION_DEFINE(Softmin, F::softmin(input, options.dim()), "dim=" + py(options.dim()))
#undef WICK_NN_INPLACE_ONLY_REPR
#undef WICK_NN_ACTIVATION_DEFINE

Tensor SigmoidImpl::forward(const Tensor& input) { return sigmoid(input); }
Tensor TanhImpl::forward(const Tensor& input) { return tanh(input); }
Tensor SoftsignImpl::forward(const Tensor& input) { return F::softsign(input); }
Tensor TanhshrinkImpl::forward(const Tensor& input) { return F::tanhshrink(input); }
Tensor LogSigmoidImpl::forward(const Tensor& input) { return F::logsigmoid(input); }

Tensor Softmax2dImpl::forward(const Tensor& input) {
  WICK_CHECK(input.dim() == 3 || input.dim() == 4, AssertionError,
             "Softmax2d: expected input to be 3D or 4D, got ", input.dim(), "D instead");
  return F::softmax(input, -3);
}

ThresholdImpl::ThresholdImpl(const ThresholdOptions& opts) : options(opts) {}

Tensor ThresholdImpl::forward(const Tensor& input) {
  return F::threshold(input, options.threshold(), options.value(), options.inplace());
}

std::string ThresholdImpl::extra_repr() const {
  return "threshold=" + py_number(options.threshold()) + ", value=" + py_number(options.value()) +
         inplace_suffix(options.inplace());
}

PReLUImpl::PReLUImpl(const PReLUOptions& opts) : options(opts) {
  WICK_CHECK(options.num_parameters() > 0, ValueError, "PReLU: num_parameters must be positive, got ",
             options.num_parameters());
  weight = register_parameter("weight", empty({options.num_parameters()}));
  reset_parameters();
}

void PReLUImpl::reset_parameters() { init::constant_(weight, options.init()); }

Tensor PReLUImpl::forward(const Tensor& input) { return F::prelu(input, weight); }

std::string PReLUImpl::extra_repr() const { return "num_parameters=" + py(options.num_parameters()); }

}  // namespace wick::nn
