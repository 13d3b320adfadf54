// wick/nn_activation.h - every activation of torch.nn as a module (ReLU ... Softmax2d).
/// \file
///   nn::Sequential net(nn::Linear(4, 8), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
///                      nn::Linear(8, 3), nn::Softmax(1));
///
/// Each calls its functional (wick/nn_functional.h) and prints as PyTorch
/// 1.13 does (ReLU(), LeakyReLU(negative_slope=0.2), GELU(approximate='none')).
/// Modules without options (Sigmoid, Tanh, ...) are default-constructed.
/// Softplus and Threshold print integral values without ".0" (PyTorch
/// prints what it was given; its defaults are ints).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/nn_options.h"
#include "wick/tensor.h"

namespace wick::nn {

/// Options of the activations that only take `inplace`.
struct InplaceOptions {
  /// `inplace`: write the result into the input (default false).
  InplaceOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT(implicit)
  /// Whether to write the result into the input (default false).
  WICK_ARG(bool, inplace);
};
/// ReLU's options (inplace).
using ReLUOptions = InplaceOptions;
/// ReLU6's options (inplace).
using ReLU6Options = InplaceOptions;
/// SELU's options (inplace).
using SELUOptions = InplaceOptions;
/// SiLU's options (inplace).
using SiLUOptions = InplaceOptions;
/// Mish's options (inplace).
using MishOptions = InplaceOptions;
/// Hardswish's options (inplace).
using HardswishOptions = InplaceOptions;
/// Hardsigmoid's options (inplace).
using HardsigmoidOptions = InplaceOptions;

/// LeakyReLU's options: negative_slope (default 0.01) and inplace.
struct LeakyReLUOptions {
  /// The slope for negative inputs (default 0.01).
  WICK_ARG(double, negative_slope) = 0.01;
  /// Whether to write the result into the input (default false).
  WICK_ARG(bool, inplace) = false;
};
/// ELU's and CELU's options: alpha (default 1) and inplace.
struct ELUOptions {
  /// The alpha of alpha * (exp(x) - 1) for negative x (CELU: alpha * (exp(x / alpha) - 1)); default 1.
  WICK_ARG(double, alpha) = 1.0;
  /// Whether to write the result into the input (default false).
  WICK_ARG(bool, inplace) = false;
};
/// CELU's options (alpha, inplace).
using CELUOptions = ELUOptions;
/// RReLU's options: lower (default 1/8), upper (default 1/3) and inplace.
struct RReLUOptions {
  /// Lower bound of the random negative slope (default 1/8).
  WICK_ARG(double, lower) = 1.0 / 8.0;
  /// Upper bound of the random negative slope (default 1/3); in eval mode the slope is (lower + upper) / 2.
  WICK_ARG(double, upper) = 1.0 / 3.0;
  /// Whether to write the result into the input (default false).
  WICK_ARG(bool, inplace) = false;
};
/// Hardtanh's options: min_val (default -1), max_val (default 1) and inplace.
struct HardtanhOptions {
  /// The lower clamp (default -1).
  WICK_ARG(double, min_val) = -1.0;
  /// The upper clamp (default 1).
  WICK_ARG(double, max_val) = 1.0;
  /// Whether to write the result into the input (default false).
  WICK_ARG(bool, inplace) = false;
};
/// GELU's option: approximate, "none" (default) or "tanh".
struct GELUOptions {
  /// `approximate`: "none" (default, the exact erf form) or "tanh"; another is a RuntimeError from F::gelu at the call.
  GELUOptions(std::string approximate = "none") : approximate_(std::move(approximate)) {}  // NOLINT(implicit)
  /// `approximate` given as a string literal.
  GELUOptions(const char* approximate) : approximate_(approximate) {}                    // NOLINT(implicit)
  /// "none" or "tanh".
  WICK_ARG(std::string, approximate);
};
/// Softplus's options: beta (default 1) and threshold (default 20).
struct SoftplusOptions {
  /// The beta of log(1 + exp(beta * x)) / beta (default 1).
  WICK_ARG(double, beta) = 1.0;
  /// Above beta * x > threshold the result is x (default 20).
  WICK_ARG(double, threshold) = 20.0;
};
/// Softshrink's and Hardshrink's lambd.
struct ShrinkOptions {
  /// `lambda`, the shrink threshold (default 0.5).
  ShrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT(implicit)
  /// The shrink threshold lambd (default 0.5).
  WICK_ARG(double, lambda);
};
/// Softshrink's options (lambda).
using SoftshrinkOptions = ShrinkOptions;
/// Hardshrink's options (lambda).
using HardshrinkOptions = ShrinkOptions;
/// Threshold's options: threshold, value and inplace.
struct ThresholdOptions {
  /// Inputs not above `threshold` become `value`.
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  /// The threshold: inputs not above it are replaced.
  WICK_ARG(double, threshold);
  /// The value that replaces them.
  WICK_ARG(double, value);
  /// Whether to write the result into the input (default false).
  WICK_ARG(bool, inplace) = false;
};
/// GLU's option: the dim that is halved (default -1).
struct GLUOptions {
  /// `dim`: the dim split into halves (default -1).
  GLUOptions(std::int64_t dim = -1) : dim_(dim) {}  // NOLINT(implicit)
  /// The dim split into two halves a, b (a * sigmoid(b)); an odd size is a RuntimeError from F::glu.
  WICK_ARG(std::int64_t, dim);
};
/// Softmax's, LogSoftmax's and Softmin's dim (None: PyTorch's legacy choice,
/// 0 for 0-, 1- and 3-D inputs, else 1).
struct SoftmaxOptions {
  /// `dim` (None by default: the legacy choice).
  SoftmaxOptions(std::optional<std::int64_t> dim = std::nullopt) : dim_(dim) {}  // NOLINT(implicit)
  /// `dim` given as an integer.
  SoftmaxOptions(std::int64_t dim) : dim_(dim) {}                               // NOLINT(implicit)
  /// `dim` given as an int literal.
  SoftmaxOptions(int dim) : dim_(dim) {}                                        // NOLINT(implicit)
  /// The dim the softmax is taken over (None: 0 for 0-, 1- and 3-D inputs, else 1).
  WICK_ARG(std::optional<std::int64_t>, dim);
};
/// LogSoftmax's options (dim).
using LogSoftmaxOptions = SoftmaxOptions;
/// Softmin's options (dim).
using SoftminOptions = SoftmaxOptions;
/// PReLU's options: num_parameters (default 1) and init (default 0.25).
struct PReLUOptions {
  /// Number of learned slopes: 1, or the number of input channels (dim 1); must be positive (ValueError from the
  /// constructor).
  WICK_ARG(std::int64_t, num_parameters) = 1;
  /// The initial value of every slope (default 0.25).
  WICK_ARG(double, init) = 0.25;
};

/// Declares activation `Name` with options `OptionsT`.
#define WICK_NN_ACTIVATION(Name, OptionsT)                    \
  class WICK_API Name##Impl : public Callable<Name##Impl> {   \
   public:                                                    \
    using Options = OptionsT;                                 \
    explicit Name##Impl(const OptionsT& options = {});        \
    Tensor forward(const Tensor& input);                      \
    [[nodiscard]] std::string extra_repr() const override;    \
    OptionsT options;                                         \
  };                                                          \
  WICK_MODULE(Name)

/// Declares activation `Name` without options.
#define WICK_NN_SIMPLE_ACTIVATION(Name)                     \
  class WICK_API Name##Impl : public Callable<Name##Impl> { \
   public:                                                  \
    Tensor forward(const Tensor& input);                    \
  };                                                        \
  WICK_MODULE(Name)

/// ReLU: max(0, x) (F::relu).
WICK_NN_ACTIVATION(ReLU, ReLUOptions);
/// ReLU6: min(max(0, x), 6) (F::relu6).
WICK_NN_ACTIVATION(ReLU6, ReLU6Options);
/// SELU: scale * (max(0, x) + min(0, alpha * (exp(x) - 1))) with PyTorch's fixed alpha and scale (F::selu).
WICK_NN_ACTIVATION(SELU, SELUOptions);
/// SiLU: x * sigmoid(x) (F::silu).
WICK_NN_ACTIVATION(SiLU, SiLUOptions);
/// Mish: x * tanh(softplus(x)) (F::mish).
WICK_NN_ACTIVATION(Mish, MishOptions);
/// Hardswish: x * relu6(x + 3) / 6 (F::hardswish).
WICK_NN_ACTIVATION(Hardswish, HardswishOptions);
/// Hardsigmoid: relu6(x + 3) / 6 (F::hardsigmoid).
WICK_NN_ACTIVATION(Hardsigmoid, HardsigmoidOptions);
/// LeakyReLU: x for x >= 0, negative_slope * x below (F::leaky_relu).
WICK_NN_ACTIVATION(LeakyReLU, LeakyReLUOptions);
/// ELU: x for x > 0, alpha * (exp(x) - 1) below (F::elu).
WICK_NN_ACTIVATION(ELU, ELUOptions);
/// CELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (F::celu).
WICK_NN_ACTIVATION(CELU, CELUOptions);
/// RReLU: leaky ReLU with a slope drawn from uniform(lower, upper) per element while training, (lower + upper) / 2 in
/// eval (F::rrelu).
WICK_NN_ACTIVATION(RReLU, RReLUOptions);
/// Hardtanh: x clamped to [min_val, max_val] (F::hardtanh).
WICK_NN_ACTIVATION(Hardtanh, HardtanhOptions);
/// GELU: x * Phi(x), exact or with the tanh approximation (F::gelu).
WICK_NN_ACTIVATION(GELU, GELUOptions);
/// Softplus: log(1 + exp(beta * x)) / beta, x where beta * x > threshold (F::softplus).
WICK_NN_ACTIVATION(Softplus, SoftplusOptions);
/// Softshrink: x - lambda above lambda, x + lambda below -lambda, else 0 (F::softshrink).
WICK_NN_ACTIVATION(Softshrink, SoftshrinkOptions);
/// Hardshrink: x where |x| > lambda, else 0 (F::hardshrink).
WICK_NN_ACTIVATION(Hardshrink, HardshrinkOptions);
/// GLU: a * sigmoid(b) for the two halves of `dim` (F::glu); RuntimeError when that dim's size is odd.
WICK_NN_ACTIVATION(GLU, GLUOptions);
/// Softmax: exp(x) / sum(exp(x)) along dim (F::softmax); IndexError for a dim out of range.
WICK_NN_ACTIVATION(Softmax, SoftmaxOptions);
/// LogSoftmax: log(softmax(x)) along dim, computed stably (F::log_softmax).
WICK_NN_ACTIVATION(LogSoftmax, LogSoftmaxOptions);
/// Softmin: softmax(-x) along dim (F::softmin).
WICK_NN_ACTIVATION(Softmin, SoftminOptions);
/// Sigmoid: 1 / (1 + exp(-x)).
WICK_NN_SIMPLE_ACTIVATION(Sigmoid);
/// Tanh: the hyperbolic tangent.
WICK_NN_SIMPLE_ACTIVATION(Tanh);
/// Softsign: x / (1 + |x|) (F::softsign).
WICK_NN_SIMPLE_ACTIVATION(Softsign);
/// Tanhshrink: x - tanh(x) (F::tanhshrink).
WICK_NN_SIMPLE_ACTIVATION(Tanhshrink);
/// LogSigmoid: log(sigmoid(x)), computed stably (F::logsigmoid).
WICK_NN_SIMPLE_ACTIVATION(LogSigmoid);
/// Softmax over the channels of a (C, H, W) or (N, C, H, W) input.
WICK_NN_SIMPLE_ACTIVATION(Softmax2d);
#undef WICK_NN_SIMPLE_ACTIVATION
#undef WICK_NN_ACTIVATION

/// x where x > threshold, else value.
class WICK_API ThresholdImpl : public Callable<ThresholdImpl> {
 public:
  /// The options type, ThresholdOptions.
  using Options = ThresholdOptions;
  /// Keeps the options (there is no default: threshold and value are required).
  explicit ThresholdImpl(const ThresholdOptions& options);
  /// F::threshold(input, threshold, value, inplace).
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  ThresholdOptions options;
};
/// The holder of ThresholdImpl: nn::Threshold(nn::ThresholdOptions(0.1, 20)).
WICK_MODULE(Threshold);

/// max(0, x) + weight * min(0, x); weight (num_parameters) starts at `init`.
class WICK_API PReLUImpl : public Callable<PReLUImpl> {
 public:
  /// The options type, PReLUOptions.
  using Options = PReLUOptions;
  /// Registers weight (num_parameters) set to `init`; ValueError "PReLU: num_parameters must be positive, got N".
  explicit PReLUImpl(const PReLUOptions& options = {});
  /// Fills weight with options.init().
  void reset_parameters();
  /// F::prelu(input, weight); a num_parameters other than 1 that does not match the input's channels is a RuntimeError
  /// from F::prelu.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  PReLUOptions options;
  /// The learnable slopes (num_parameters).
  Tensor weight;
};
/// The holder of PReLUImpl: nn::PReLU().
WICK_MODULE(PReLU);

}  // namespace wick::nn
