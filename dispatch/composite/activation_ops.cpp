// dispatch/composite/activation_ops.cpp - the activations of torch.nn.functional composed from elementwise operators: hardtanh, relu6, softplus, softsign, mish, hardswish, hardsigmoid, celu, selu, threshold, tanhshrink, softshrink, hardshrink, glu, prelu, rrelu, gumbel_softmax.
/// \file
/// Each is PyTorch 1.13's definition written with differentiable operators,
/// so its gradients (both modes, and double backward) come from its parts.
/// `where` selects rather than multiplies, so that an infinity or NaN in the
/// branch not taken does not leak into the result. The `inplace=True` forms
/// write the result into the input, as F.relu does.
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;

// The result, or the input overwritten with it.
Tensor maybe_inplace(T input, const Tensor& result, bool inplace) {
  if (!inplace) return result;
  Tensor self = input;
  self.copy_(result);
  return self;
}

Tensor zero_like(T x) { return zeros({}, x.dtype(), x.device()); }

// PyTorch's CPU kernels of these activations are floating only:
// "softplus_cpu" not implemented for 'Long' (or 'ComplexFloat').
void check_dtype(const char* kernel, T x) {
  const ScalarType t = x.dtype();
  WICK_CHECK(!is_integral(t, true) && !is_complex(t), RuntimeError, "\"", kernel, "\" not implemented for '",
             type_title(t), "'");
}

// An integer input keeps its dtype: the limits are truncated to integers.
Tensor hardtanh_kernel(T input, double min_val, double max_val, bool inplace) {
  WICK_CHECK(min_val <= max_val, ValueError, "torch.nn.functional.hardtanh: min_val cannot be greater than max_val");
  const ScalarType t = input.dtype();
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, "Bool inputs not supported for hardtanh");
  if (is_integral(t, false)) {
    WICK_CHECK(t != ScalarType::kUInt8 || (std::trunc(min_val) >= 0 && std::trunc(max_val) >= 0), RuntimeError,
               "cannot do hardtanh on an unsigned type with negative limits");
    const Scalar low = scalar_in_dtype(Scalar(std::trunc(min_val)), t);
    const Scalar high = scalar_in_dtype(Scalar(std::trunc(max_val)), t);
    return maybe_inplace(input, clamp(input, low, high), inplace);
  }
  return maybe_inplace(input, clamp(input, Scalar(min_val), Scalar(max_val)), inplace);
}

Tensor relu6_kernel(T input, bool inplace) { return hardtanh_kernel(input, 0.0, 6.0, inplace); }

// log(1 + exp(beta x)) / beta, and x itself where beta x > threshold.
Tensor softplus_kernel(T input, double beta, double threshold) {
  check_dtype("softplus_cpu", input);
  const Tensor scaled = mul(input, beta);
  return where(gt(scaled, threshold), input, div(log1p(exp(scaled)), beta));
}

Tensor softsign_kernel(T input) { return div(input, add(abs(input), 1)); }

Tensor mish_kernel(T input, bool inplace) {
  check_dtype("mish_cpu", input);
  return maybe_inplace(input, mul(input, tanh(softplus_kernel(input, 1.0, 20.0))), inplace);
}

Tensor hardsigmoid_kernel(T input, bool inplace) {
  check_dtype("hardsigmoid_cpu", input);
  return maybe_inplace(input, div(clamp(add(input, 3), Scalar(0.0), Scalar(6.0)), 6), inplace);
}

Tensor hardswish_kernel(T input, bool inplace) {
  check_dtype("hardswish_cpu", input);
  return maybe_inplace(input, mul(input, div(clamp(add(input, 3), Scalar(0.0), Scalar(6.0)), 6)), inplace);
}

// max(0, x) + min(0, alpha (exp(x / alpha) - 1)).
Tensor celu_impl(const char* op, T input, double alpha) {
  check_dtype("elu_cpu", input);
  WICK_CHECK(alpha != 0.0, RuntimeError, op, ": ZeroDivisionError");
  return where(gt(input, 0), input, mul(expm1(div(input, alpha)), alpha));
}

Tensor f_celu(T input, double alpha, bool inplace) {
  return maybe_inplace(input, celu_impl("torch.nn.functional.celu", input, alpha), inplace);
}
Tensor torch_celu(T input, double alpha) { return celu_impl("torch.celu", input, alpha); }

// scale (max(0, x) + min(0, alpha (exp(x) - 1))), PyTorch's constants.
Tensor selu_impl(T input) {
  check_dtype("elu_cpu", input);
  constexpr double kAlpha = 1.6732632423543772848170429916717;
  constexpr double kScale = 1.0507009873554804934193349852946;
  return mul(where(gt(input, 0), input, mul(expm1(input), kAlpha)), kScale);
}

Tensor f_selu(T input, bool inplace) { return maybe_inplace(input, selu_impl(input), inplace); }
Tensor torch_selu(T input) { return selu_impl(input); }

// x where x > threshold, else value.
Tensor threshold_impl(T input, const Scalar& threshold, const Scalar& value) {
  WICK_CHECK(input.dtype() != ScalarType::kBool && !is_complex(input.dtype()), RuntimeError,
             "\"threshold_cpu\" not implemented for '", type_title(input.dtype()), "'");
  return where(gt(input, threshold), input, full({}, value, input.dtype(), input.device()));
}

Tensor f_threshold(T input, double threshold, double value, bool inplace) {
  return maybe_inplace(input, threshold_impl(input, threshold, value), inplace);
}
Tensor torch_threshold(T input, const Scalar& threshold, const Scalar& value) {
  return threshold_impl(input, threshold, value);
}

Tensor tanhshrink_kernel(T input) { return sub(input, tanh(input)); }

// x - lambd above lambd, x + lambd below -lambd, 0 between.
Tensor softshrink_kernel(T input, double lambd) {
  check_dtype("softshrink_cpu", input);
  WICK_CHECK(lambd >= 0, RuntimeError, "torch.nn.functional.softshrink: lambda must be greater or equal to 0, but found to be ",
             lambd, ".");
  const Tensor zero = zero_like(input);
  return where(gt(input, lambd), sub(input, lambd), where(lt(input, -lambd), add(input, lambd), zero));
}

// x where |x| > lambd, else 0.
Tensor hardshrink_kernel(T input, const Scalar& lambd) {
  check_dtype("hardshrink_cpu", input);
  return where(gt(abs(input), lambd), input, zero_like(input));
}

// a * sigmoid(b) for the two halves a, b of input along dim.
Tensor glu_kernel(T input, std::int64_t dim) {
  const char* op = "torch.nn.functional.glu";
  check_dtype("glu_cpu", input);
  WICK_CHECK(input.dim() > 0, RuntimeError, op, ": glu does not support scalars because halving size must be even");
  const std::int64_t d = wrap_dim(dim, input.dim());
  const std::int64_t n = input.size(d);
  WICK_CHECK(n % 2 == 0, RuntimeError, op, ": Halving dimension must be even, but dimension ", d, " is size ", n);
  const std::int64_t half = n / 2;
  return mul(input.narrow(d, 0, half), sigmoid(input.narrow(d, half, half)));
}

// x where x >= 0, else weight * x, weight one value or one per channel (dim 1).
Tensor prelu_kernel(T input, T weight) {
  const char* op = "torch.prelu";
  check_dtype("prelu_cpu", input);
  const std::int64_t params = weight.numel();
  Tensor w = weight;
  if (params != 1) {
    WICK_CHECK(input.dim() >= 1, RuntimeError, op, ": Not allow zero-dim input tensor.");
    const std::int64_t channels = input.dim() >= 2 ? input.size(1) : 1;
    WICK_CHECK(params == channels, RuntimeError, op,
               ": Mismatch of parameter numbers and input channel size. Found parameter numbers = ", params,
               " and channel size = ", channels, ".");
    DimVector shape(static_cast<std::size_t>(input.dim()), 1);
    if (input.dim() >= 2) shape[1] = channels;
    w = weight.reshape(shape);
  } else {
    w = weight.reshape({});
  }
  return where(ge(input, 0), input, mul(w, input));
}


// F.rrelu / torch.rrelu: in training, each element x <= 0 is multiplied by
// its own slope, uniform in [lower, upper) from the default generator, drawn
// in memory order for those elements only, as PyTorch's CPU kernel draws
// them (a 53-bit double times the range plus lower, then rounded to the
// computation type); elsewhere the slope is 1. In evaluation it is
// leaky_relu with the mean slope. The slopes are a constant of the product,
// so the gradient is the slope, as PyTorch's.
Tensor rrelu_impl(T input, double lower, double upper, bool training) {
  if (!training) {
    check_dtype("leaky_relu_cpu", input);
    return nn::functional::leaky_relu(input, (lower + upper) / 2);
  }
  WICK_CHECK(lower <= upper, RuntimeError, "Lower bound should be less than or equal to the upper bound");
  const ScalarType t = input.dtype();
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || t == ScalarType::kBFloat16, RuntimeError,
             "\"rrelu_with_noise_out_cpu\" not implemented for '", type_title(t), "'");
  const ScalarType opmath = t == ScalarType::kFloat64 ? ScalarType::kFloat64 : ScalarType::kFloat32;
  if (input.device().is_meta()) return mul(input, wrap_scalar(Scalar(1.0)));  // shapes only
  const Tensor flat = input.detach().contiguous().to(Device()).to(ScalarType::kFloat64).reshape({-1});
  const double* x = flat.data_ptr<double>();
  std::vector<double> slopes(static_cast<std::size_t>(flat.numel()), 1.0);
  std::vector<double> draws;
  std::int64_t negatives = 0;
  for (std::int64_t i = 0; i < flat.numel(); ++i) negatives += x[i] <= 0 ? 1 : 0;
  draws.resize(static_cast<std::size_t>(negatives));
  default_generator().uniform(draws.data(), negatives, 0.0, 1.0);
  const double range = upper - lower;
  std::size_t next = 0;
  for (std::int64_t i = 0; i < flat.numel(); ++i) {
    if (x[i] <= 0) {
      const double scaled = draws[next++] * range;
      slopes[static_cast<std::size_t>(i)] = scaled + lower;
    }
  }
  const Tensor noise = tensor(Value(slopes), ScalarType::kFloat64, input.device()).to(opmath).reshape(input.sizes());
  return mul(input.to(opmath), noise).to(t);
}

Tensor torch_rrelu(T input, double lower, double upper, bool training) {
  return rrelu_impl(input, lower, upper, training);
}

Tensor f_rrelu(T input, double lower, double upper, bool training, bool inplace) {
  return maybe_inplace(input, rrelu_impl(input, lower, upper, training), inplace);
}

// F.gumbel_softmax: softmax((logits + g) / tau) with Gumbel noise g =
// -log(E), E exponential(1) drawn by exponential_ (so PyTorch's numbers
// after manual_seed); `hard` returns the one-hot of its argmax with the soft
// result's gradient (y_hard - y_soft.detach() + y_soft).
Tensor gumbel_softmax_kernel(T logits, double tau, bool hard, double /*eps: unused, as in PyTorch*/,
                             std::int64_t dim) {
  Tensor noise = empty(logits.sizes(), logits.dtype(), logits.device());
  {
    NoGradGuard no_grad;
    noise.exponential_();
  }
  const Tensor gumbels = neg(log(noise));
  const Tensor soft = softmax(div(add(logits, gumbels), wrap_scalar(Scalar(tau))), dim);
  if (!hard) return soft;
  const Tensor index = std::get<1>(max(soft, dim, true));
  const Tensor one_hot = scatter(zeros_like(logits), dim, index, Scalar(1.0));
  return add(sub(one_hot, soft.detach()), soft);
}

}  // namespace

void register_activation_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("hardtanh", &hardtanh_kernel)
      .impl("relu6", &relu6_kernel)
      .impl("softplus", &softplus_kernel)
      .impl("softsign", &softsign_kernel)
      .impl("mish", &mish_kernel)
      .impl("hardswish", &hardswish_kernel)
      .impl("hardsigmoid", &hardsigmoid_kernel)
      .impl("celu", &f_celu)
      .impl("selu", &f_selu)
      .impl("threshold", &f_threshold)
      .impl("tanhshrink", &tanhshrink_kernel)
      .impl("softshrink", &softshrink_kernel)
      .impl("glu", &glu_kernel)
      .impl("rrelu", &f_rrelu)
      .impl("gumbel_softmax", &gumbel_softmax_kernel);
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("celu", &torch_celu)
      .impl("selu", &torch_selu)
      .impl("threshold", &torch_threshold)
      .impl("hardshrink", &hardshrink_kernel)
      .impl("prelu", &prelu_kernel)
      .impl("rrelu", &torch_rrelu);
  out.push_back(std::move(functional));
  out.push_back(std::move(torch));
}

}  // namespace wick
