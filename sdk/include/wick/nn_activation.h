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
  InplaceOptions(bool inplace = false) : inplace_(inplace) {}  // NOLINT(implicit)
  WICK_ARG(bool, inplace);
};
using ReLUOptions = InplaceOptions;
using ReLU6Options = InplaceOptions;
using SELUOptions = InplaceOptions;
using SiLUOptions = InplaceOptions;
using MishOptions = InplaceOptions;
using HardswishOptions = InplaceOptions;
using HardsigmoidOptions = InplaceOptions;

struct LeakyReLUOptions {
  WICK_ARG(double, negative_slope) = 0.01;
  WICK_ARG(bool, inplace) = false;
};
struct ELUOptions {
  WICK_ARG(double, alpha) = 1.0;
  WICK_ARG(bool, inplace) = false;
};
using CELUOptions = ELUOptions;
struct RReLUOptions {
  WICK_ARG(double, lower) = 1.0 / 8.0;
  WICK_ARG(double, upper) = 1.0 / 3.0;
  WICK_ARG(bool, inplace) = false;
};
struct HardtanhOptions {
  WICK_ARG(double, min_val) = -1.0;
  WICK_ARG(double, max_val) = 1.0;
  WICK_ARG(bool, inplace) = false;
};
struct GELUOptions {
  GELUOptions(std::string approximate = "none") : approximate_(std::move(approximate)) {}  // NOLINT(implicit)
  GELUOptions(const char* approximate) : approximate_(approximate) {}                    // NOLINT(implicit)
  /// "none" or "tanh".
  WICK_ARG(std::string, approximate);
};
struct SoftplusOptions {
  WICK_ARG(double, beta) = 1.0;
  WICK_ARG(double, threshold) = 20.0;
};
/// Softshrink's and Hardshrink's lambd.
struct ShrinkOptions {
  ShrinkOptions(double lambda = 0.5) : lambda_(lambda) {}  // NOLINT(implicit)
  WICK_ARG(double, lambda);
};
using SoftshrinkOptions = ShrinkOptions;
using HardshrinkOptions = ShrinkOptions;
struct ThresholdOptions {
  ThresholdOptions(double threshold, double value) : threshold_(threshold), value_(value) {}
  WICK_ARG(double, threshold);
  WICK_ARG(double, value);
  WICK_ARG(bool, inplace) = false;
};
struct GLUOptions {
  GLUOptions(std::int64_t dim = -1) : dim_(dim) {}  // NOLINT(implicit)
  WICK_ARG(std::int64_t, dim);
};
/// Softmax's, LogSoftmax's and Softmin's dim (None: PyTorch's legacy choice,
/// 0 for 0-, 1- and 3-D inputs, else 1).
struct SoftmaxOptions {
  SoftmaxOptions(std::optional<std::int64_t> dim = std::nullopt) : dim_(dim) {}  // NOLINT(implicit)
  SoftmaxOptions(std::int64_t dim) : dim_(dim) {}                               // NOLINT(implicit)
  SoftmaxOptions(int dim) : dim_(dim) {}                                        // NOLINT(implicit)
  WICK_ARG(std::optional<std::int64_t>, dim);
};
using LogSoftmaxOptions = SoftmaxOptions;
using SoftminOptions = SoftmaxOptions;
struct PReLUOptions {
  WICK_ARG(std::int64_t, num_parameters) = 1;
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

WICK_NN_ACTIVATION(ReLU, ReLUOptions);
WICK_NN_ACTIVATION(ReLU6, ReLU6Options);
WICK_NN_ACTIVATION(SELU, SELUOptions);
WICK_NN_ACTIVATION(SiLU, SiLUOptions);
WICK_NN_ACTIVATION(Mish, MishOptions);
WICK_NN_ACTIVATION(Hardswish, HardswishOptions);
WICK_NN_ACTIVATION(Hardsigmoid, HardsigmoidOptions);
WICK_NN_ACTIVATION(LeakyReLU, LeakyReLUOptions);
WICK_NN_ACTIVATION(ELU, ELUOptions);
WICK_NN_ACTIVATION(CELU, CELUOptions);
WICK_NN_ACTIVATION(RReLU, RReLUOptions);
WICK_NN_ACTIVATION(Hardtanh, HardtanhOptions);
WICK_NN_ACTIVATION(GELU, GELUOptions);
WICK_NN_ACTIVATION(Softplus, SoftplusOptions);
WICK_NN_ACTIVATION(Softshrink, SoftshrinkOptions);
WICK_NN_ACTIVATION(Hardshrink, HardshrinkOptions);
WICK_NN_ACTIVATION(GLU, GLUOptions);
WICK_NN_ACTIVATION(Softmax, SoftmaxOptions);
WICK_NN_ACTIVATION(LogSoftmax, LogSoftmaxOptions);
WICK_NN_ACTIVATION(Softmin, SoftminOptions);
WICK_NN_SIMPLE_ACTIVATION(Sigmoid);
WICK_NN_SIMPLE_ACTIVATION(Tanh);
WICK_NN_SIMPLE_ACTIVATION(Softsign);
WICK_NN_SIMPLE_ACTIVATION(Tanhshrink);
WICK_NN_SIMPLE_ACTIVATION(LogSigmoid);
/// Softmax over the channels of a (C, H, W) or (N, C, H, W) input.
WICK_NN_SIMPLE_ACTIVATION(Softmax2d);
#undef WICK_NN_SIMPLE_ACTIVATION
#undef WICK_NN_ACTIVATION

/// x where x > threshold, else value.
class WICK_API ThresholdImpl : public Callable<ThresholdImpl> {
 public:
  using Options = ThresholdOptions;
  explicit ThresholdImpl(const ThresholdOptions& options);
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  ThresholdOptions options;
};
WICK_MODULE(Threshold);

/// max(0, x) + weight * min(0, x); weight (num_parameters) starts at `init`.
class WICK_API PReLUImpl : public Callable<PReLUImpl> {
 public:
  using Options = PReLUOptions;
  explicit PReLUImpl(const PReLUOptions& options = {});
  void reset_parameters();
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  PReLUOptions options;
  Tensor weight;
};
WICK_MODULE(PReLU);

}  // namespace wick::nn
