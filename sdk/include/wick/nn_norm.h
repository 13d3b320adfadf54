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

/// BatchNorm's options: num_features, eps (1e-5), momentum (0.1), affine (true), track_running_stats (true).
struct BatchNormOptions {
  /// `num_features`, C of the (N, C, ...) input; the rest take their defaults.
  BatchNormOptions(std::int64_t num_features) : num_features_(num_features) {}  // NOLINT(implicit)
  /// C, the number of features (channels) of the input.
  WICK_ARG(std::int64_t, num_features);
  /// Added to the variance for stability (default 1e-5).
  WICK_ARG(double, eps) = 1e-5;
  /// None: a cumulative moving average.
  WICK_ARG(std::optional<double>, momentum) = 0.1;
  /// Whether to learn a per-feature weight and bias (default true).
  WICK_ARG(bool, affine) = true;
  /// Whether to keep running_mean and running_var and use them in eval mode (default true).
  WICK_ARG(bool, track_running_stats) = true;
};
/// BatchNorm1d's options.
using BatchNorm1dOptions = BatchNormOptions;
/// BatchNorm2d's options.
using BatchNorm2dOptions = BatchNormOptions;
/// BatchNorm3d's options.
using BatchNorm3dOptions = BatchNormOptions;

/// InstanceNorm's options: num_features, eps (1e-5), momentum (0.1), affine (false), track_running_stats (false).
struct InstanceNormOptions {
  /// `num_features`, C of the (N, C, ...) input; the rest take their defaults.
  InstanceNormOptions(std::int64_t num_features) : num_features_(num_features) {}  // NOLINT(implicit)
  /// C, the number of features (channels) of the input.
  WICK_ARG(std::int64_t, num_features);
  /// Added to the variance for stability (default 1e-5).
  WICK_ARG(double, eps) = 1e-5;
  /// The weight of a new batch in the running statistics (default 0.1).
  WICK_ARG(double, momentum) = 0.1;
  /// Whether to learn a per-feature weight and bias (default false); then the input's channels must equal num_features
  /// (ValueError at forward).
  WICK_ARG(bool, affine) = false;
  /// Whether to keep running statistics and use them in eval mode (default false).
  WICK_ARG(bool, track_running_stats) = false;
};
/// InstanceNorm1d's options.
using InstanceNorm1dOptions = InstanceNormOptions;
/// InstanceNorm2d's options.
using InstanceNorm2dOptions = InstanceNormOptions;
/// InstanceNorm3d's options.
using InstanceNorm3dOptions = InstanceNormOptions;

/// What BatchNorm and InstanceNorm share: the parameters, the buffers and their reset.
class WICK_API NormBase {
 public:
  /// Zeroes running_mean and num_batches_tracked, fills running_var with ones.
  void reset_running_stats();
  /// The learnable (num_features) scale, ones at first; undefined without affine.
  Tensor weight, bias, running_mean, running_var, num_batches_tracked;

 protected:
  /// Registers weight, bias (with affine) and running_mean, running_var, num_batches_tracked (with track_running_stats)
  /// on `m`, undefined otherwise.
  void register_norm(Module& m, std::int64_t num_features, bool affine, bool track_running_stats);
  /// Resets the running statistics, then sets weight to ones and bias to zeros when they exist.
  void reset_norm_parameters();
};

/// \var NormBase::bias
/// The learnable (num_features) shift, zeros at first; undefined without affine.

/// \var NormBase::running_mean
/// The (num_features) running mean, zeros at first; undefined without track_running_stats.

/// \var NormBase::running_var
/// The (num_features) running variance, ones at first; undefined without track_running_stats.

/// \var NormBase::num_batches_tracked
/// The number of training batches seen (an int64 scalar); undefined without track_running_stats.

/// Declares a BatchNorm or InstanceNorm module `Name` with options `OptionsT`, over NormBase.
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

/// BatchNorm1d over (N, C) or (N, C, L) inputs (F::batch_norm); ValueError "expected 2D or 3D input (got 4D input)" for
/// another rank.
WICK_NN_NORM(BatchNorm1d, BatchNormOptions);
/// BatchNorm2d over (N, C, H, W) inputs (F::batch_norm); ValueError "expected 4D input (got 3D input)" for another
/// rank.
WICK_NN_NORM(BatchNorm2d, BatchNormOptions);
/// BatchNorm3d over (N, C, D, H, W) inputs (F::batch_norm); ValueError "expected 5D input (got 4D input)" for another
/// rank.
WICK_NN_NORM(BatchNorm3d, BatchNormOptions);
/// InstanceNorm1d: each (instance, channel) of an (N, C, L) or (C, L) input normalised over L (F::instance_norm);
/// ValueError for another rank.
WICK_NN_NORM(InstanceNorm1d, InstanceNormOptions);
/// InstanceNorm2d: each (instance, channel) of an (N, C, H, W) or (C, H, W) input normalised over H, W; ValueError for
/// another rank.
WICK_NN_NORM(InstanceNorm2d, InstanceNormOptions);
/// InstanceNorm3d: each (instance, channel) of an (N, C, D, H, W) or (C, D, H, W) input normalised over D, H, W;
/// ValueError for another rank.
WICK_NN_NORM(InstanceNorm3d, InstanceNormOptions);
#undef WICK_NN_NORM

/// LayerNorm's options: normalized_shape, eps (1e-5) and elementwise_affine (true).
struct LayerNormOptions {
  /// The trailing shape to normalise over; the rest take their defaults.
  LayerNormOptions(std::vector<std::int64_t> normalized_shape)  // NOLINT(implicit)
      : normalized_shape_(std::move(normalized_shape)) {}
  /// The trailing dims normalised over; the input's last dims must equal it (a RuntimeError from F::layer_norm
  /// otherwise).
  WICK_ARG(std::vector<std::int64_t>, normalized_shape);
  /// Added to the variance for stability (default 1e-5).
  WICK_ARG(double, eps) = 1e-5;
  /// Whether to learn a weight and bias of normalized_shape (default true).
  WICK_ARG(bool, elementwise_affine) = true;
};

/// Normalises over the trailing normalized_shape dims; weight ones, bias zeros.
class WICK_API LayerNormImpl : public Callable<LayerNormImpl> {
 public:
  /// The options type, LayerNormOptions.
  using Options = LayerNormOptions;
  /// Registers weight and bias (of normalized_shape; undefined without elementwise_affine) and initialises them.
  explicit LayerNormImpl(const LayerNormOptions& options);
  /// Sets weight to ones and bias to zeros when they exist.
  void reset_parameters();
  /// F::layer_norm(input, normalized_shape, weight, bias, eps); a shape mismatch is a RuntimeError from it.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  LayerNormOptions options;
  /// The learnable scale of normalized_shape, ones at first; undefined without elementwise_affine.
  Tensor weight, bias;  ///< The learnable shift of normalized_shape (zeros); undefined without elementwise_affine.
};
/// The holder of LayerNormImpl: nn::LayerNorm(nn::LayerNormOptions({4})).
WICK_MODULE(LayerNorm);

/// GroupNorm's options: num_groups, num_channels, eps (1e-5) and affine (true).
struct GroupNormOptions {
  /// Split `num_channels` channels into `num_groups` groups; the rest take their defaults.
  GroupNormOptions(std::int64_t num_groups, std::int64_t num_channels)
      : num_groups_(num_groups), num_channels_(num_channels) {}
  /// Number of groups; must be positive and divide num_channels (ValueError from the constructor).
  WICK_ARG(std::int64_t, num_groups);
  /// C, the number of channels of the input.
  WICK_ARG(std::int64_t, num_channels);
  /// Added to the variance for stability (default 1e-5).
  WICK_ARG(double, eps) = 1e-5;
  /// Whether to learn a per-channel weight and bias (default true).
  WICK_ARG(bool, affine) = true;
};

/// Normalises each group of channels; ValueError "num_channels must be divisible by num_groups".
class WICK_API GroupNormImpl : public Callable<GroupNormImpl> {
 public:
  /// The options type, GroupNormOptions.
  using Options = GroupNormOptions;
  /// Registers weight and bias (num_channels; undefined without affine) and initialises them; ValueError "num_channels
  /// must be divisible by num_groups".
  explicit GroupNormImpl(const GroupNormOptions& options);
  /// Sets weight to ones and bias to zeros when they exist.
  void reset_parameters();
  /// F::group_norm(input, num_groups, weight, bias, eps) over an (N, C, *) input; a channel count that does not match
  /// is a RuntimeError from it.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  GroupNormOptions options;
  /// The learnable (num_channels) scale, ones at first; undefined without affine.
  Tensor weight, bias;  ///< The learnable (num_channels) shift, zeros at first; undefined without affine.
};
/// The holder of GroupNormImpl: nn::GroupNorm(nn::GroupNormOptions(2, 4)).
WICK_MODULE(GroupNorm);

/// LocalResponseNorm's options: size, alpha (1e-4), beta (0.75) and k (1).
struct LocalResponseNormOptions {
  /// `size`, the number of neighbouring channels; the rest take their defaults.
  LocalResponseNormOptions(std::int64_t size) : size_(size) {}  // NOLINT(implicit)
  /// Number of neighbouring channels summed over; not positive is a ValueError at forward.
  WICK_ARG(std::int64_t, size);
  /// Multiplicative factor (default 1e-4).
  WICK_ARG(double, alpha) = 1e-4;
  /// Exponent (default 0.75).
  WICK_ARG(double, beta) = 0.75;
  /// Additive factor (default 1).
  WICK_ARG(double, k) = 1.0;
};

/// F::local_response_norm.
class WICK_API LocalResponseNormImpl : public Callable<LocalResponseNormImpl> {
 public:
  /// The options type, LocalResponseNormOptions.
  using Options = LocalResponseNormOptions;
  /// Keeps the options; nothing is checked until forward.
  explicit LocalResponseNormImpl(const LocalResponseNormOptions& options);
  /// F::local_response_norm(input, size, alpha, beta, k) across channels of an input of 3 or more dims; fewer is a
  /// ValueError from it.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  LocalResponseNormOptions options;
};
/// The holder of LocalResponseNormImpl: nn::LocalResponseNorm(2).
WICK_MODULE(LocalResponseNorm);

}  // namespace wick::nn
