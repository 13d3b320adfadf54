// wick/nn_norm.h - BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm and LocalResponseNorm.
/// \file
///   nn::BatchNorm2d bn(nn::BatchNorm2dOptions(16).momentum(std::nullopt));   // cumulative average
///   bn->eval();                                  // now normalises with running_mean / running_var
///
/// BatchNorm registers weight and bias (ones, zeros; absent without affine)
/// and the buffers running_mean, running_var and num_batches_tracked
/// (absent without track_running_stats), so state_dict keys match
/// PyTorch's. In training mode it normalises with the batch's statistics
/// and updates the running ones (momentum, or 1 / num_batches_tracked when
/// momentum is None); in eval mode it uses the running ones. A wrong input
/// rank is a ValueError "expected 4D input (got 3D input)".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/nn_options.h"
#include "wick/tensor.h"

namespace wick::nn {

struct BatchNormOptions {
  BatchNormOptions(std::int64_t num_features) : num_features_(num_features) {}  // NOLINT(implicit)
  WICK_ARG(std::int64_t, num_features);
  WICK_ARG(double, eps) = 1e-5;
  /// None: a cumulative moving average.
  WICK_ARG(std::optional<double>, momentum) = 0.1;
  WICK_ARG(bool, affine) = true;
  WICK_ARG(bool, track_running_stats) = true;
};
using BatchNorm1dOptions = BatchNormOptions;
using BatchNorm2dOptions = BatchNormOptions;
using BatchNorm3dOptions = BatchNormOptions;

struct InstanceNormOptions {
  InstanceNormOptions(std::int64_t num_features) : num_features_(num_features) {}  // NOLINT(implicit)
  WICK_ARG(std::int64_t, num_features);
  WICK_ARG(double, eps) = 1e-5;
  WICK_ARG(double, momentum) = 0.1;
  WICK_ARG(bool, affine) = false;
  WICK_ARG(bool, track_running_stats) = false;
};
using InstanceNorm1dOptions = InstanceNormOptions;
using InstanceNorm2dOptions = InstanceNormOptions;
using InstanceNorm3dOptions = InstanceNormOptions;

/// What BatchNorm and InstanceNorm share: the parameters, the buffers and their reset.
class WICK_API NormBase {
 public:
  /// Zeroes running_mean and num_batches_tracked, fills running_var with ones.
  void reset_running_stats();
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 protected:
  void register_norm(Module& m, std::int64_t num_features, bool affine, bool track_running_stats);
  void reset_norm_parameters();
};

#define WICK_NN_NORM(Name, OptionsT)                                         \
  class WICK_API Name##Impl : public Callable<Name##Impl>, public NormBase { \
   public:                                                                   \
    using Options = OptionsT;                                                \
    explicit Name##Impl(const OptionsT& options);                            \
    void reset_parameters();                                                 \
    Tensor forward(const Tensor& input);                                     \
    [[nodiscard]] std::string extra_repr() const override;                   \
    OptionsT options;                                                        \
  };                                                                         \
  WICK_MODULE(Name)

WICK_NN_NORM(BatchNorm1d, BatchNormOptions);
WICK_NN_NORM(BatchNorm2d, BatchNormOptions);
WICK_NN_NORM(BatchNorm3d, BatchNormOptions);
WICK_NN_NORM(InstanceNorm1d, InstanceNormOptions);
WICK_NN_NORM(InstanceNorm2d, InstanceNormOptions);
WICK_NN_NORM(InstanceNorm3d, InstanceNormOptions);
#undef WICK_NN_NORM

struct LayerNormOptions {
  LayerNormOptions(std::vector<std::int64_t> normalized_shape)  // NOLINT(implicit)
      : normalized_shape_(std::move(normalized_shape)) {}
  WICK_ARG(std::vector<std::int64_t>, normalized_shape);
  WICK_ARG(double, eps) = 1e-5;
  WICK_ARG(bool, elementwise_affine) = true;
};

/// Normalises over the trailing normalized_shape dims; weight ones, bias zeros.
class WICK_API LayerNormImpl : public Callable<LayerNormImpl> {
 public:
  using Options = LayerNormOptions;
  explicit LayerNormImpl(const LayerNormOptions& options);
  void reset_parameters();
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  LayerNormOptions options;
  Tensor weight, bias;
};
WICK_MODULE(LayerNorm);

struct GroupNormOptions {
  GroupNormOptions(std::int64_t num_groups, std::int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  WICK_ARG(std::int64_t, num_groups);
  WICK_ARG(std::int64_t, num_channels);
  WICK_ARG(double, eps) = 1e-5;
  WICK_ARG(bool, affine) = true;
};

/// Normalises each group of channels; ValueError "num_channels must be divisible by num_groups".
class WICK_API GroupNormImpl : public Callable<GroupNormImpl> {
 public:
  using Options = GroupNormOptions;
  explicit GroupNormImpl(const GroupNormOptions& options);
  void reset_parameters();
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  GroupNormOptions options;
  Tensor weight, bias;
};
WICK_MODULE(GroupNorm);

struct LocalResponseNormOptions {
  LocalResponseNormOptions(std::int64_t size) : size_(size) {}  // NOLINT(implicit)
  WICK_ARG(std::int64_t, size);
  WICK_ARG(double, alpha) = 1e-4;
  WICK_ARG(double, beta) = 0.75;
  WICK_ARG(double, k) = 1.0;
};

/// F::local_response_norm.
class WICK_API LocalResponseNormImpl : public Callable<LocalResponseNormImpl> {
 public:
  using Options = LocalResponseNormOptions;
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options);
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  LocalResponseNormOptions options;
};
WICK_MODULE(LocalResponseNorm);

}  // namespace wick::nn
