// wick/nn_misc.h - padding, pixel and channel shuffles, Fold/Unfold and the distance modules.
/// \file
///   nn::ReflectionPad2d pad(nn::ReflectionPad2dOptions({1, 0, 2, 1}));   // (left, right, top, bottom)
///   nn::ConstantPad1d cpad(nn::ConstantPad1dOptions(2, 3.5));
///   nn::PixelShuffle shuffle(2);
///
/// Padding takes one int (every side) or 2 * D ints, last dim first, as
/// F::pad does; each module prints as PyTorch 1.13 does.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>
#include <string>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/nn_options.h"
#include "wick/tensor.h"

namespace wick::nn {

template <std::size_t D>
/// ReflectionPad, ReplicationPad and ZeroPad2d's options: the padding of a D-dim module.
struct PadOptions {
  /// One integer (every side) or 2 * D integers, last dim first: (left, right, top, bottom, front, back); ValueError
  /// for another count.
  PadOptions(ExpandingArray<2 * D> padding) : padding_(padding) {}  // NOLINT(implicit)
  /// The 2 * D paddings, last dim first; negative values crop.
  WICK_ARG(ExpandingArray<2 * D>, padding);
};
template <std::size_t D>
/// ConstantPadNd's options: the padding of a D-dim module and the value written there.
struct ConstantPadOptions {
  /// One integer (every side) or 2 * D integers, last dim first; ValueError for another count. `value` fills the
  /// padding.
  ConstantPadOptions(ExpandingArray<2 * D> padding, double value) : padding_(padding), value_(value) {}
  /// The 2 * D paddings, last dim first; negative values crop.
  WICK_ARG(ExpandingArray<2 * D>, padding);
  /// The value written into the padding.
  WICK_ARG(double, value);
};

/// Declares a padding module over F::pad.
#define WICK_NN_PAD(Name, OptionsT)                          \
  using Name##Options = OptionsT;                            \
  class WICK_API Name##Impl : public Callable<Name##Impl> {  \
   public:                                                   \
    using Options = OptionsT;                                \
    explicit Name##Impl(const OptionsT& options);            \
    Tensor forward(const Tensor& input);                     \
    [[nodiscard]] std::string extra_repr() const override;   \
    OptionsT options;                                        \
  };                                                         \
  WICK_MODULE(Name)

/// ZeroPad2d: pads the last 2 dims with zeros (F::pad, mode "constant"); RuntimeError from F::pad for a padding the
/// input cannot take.
WICK_NN_PAD(ZeroPad2d, PadOptions<2>);
/// ConstantPad1d: pads the last dim with `value` (F::pad, mode "constant").
WICK_NN_PAD(ConstantPad1d, ConstantPadOptions<1>);
/// ConstantPad2d: pads the last 2 dims with `value` (F::pad, mode "constant").
WICK_NN_PAD(ConstantPad2d, ConstantPadOptions<2>);
/// ConstantPad3d: pads the last 3 dims with `value` (F::pad, mode "constant").
WICK_NN_PAD(ConstantPad3d, ConstantPadOptions<3>);
/// ReflectionPad1d: pads the last dim with its mirror image (F::pad, mode "reflect"); RuntimeError when a padding is
/// not smaller than the dim.
WICK_NN_PAD(ReflectionPad1d, PadOptions<1>);
/// ReflectionPad2d: pads the last 2 dims with their mirror image (F::pad, mode "reflect"); RuntimeError when a padding
/// is not smaller than its dim.
WICK_NN_PAD(ReflectionPad2d, PadOptions<2>);
/// ReflectionPad3d: pads the last 3 dims with their mirror image (F::pad, mode "reflect"); RuntimeError when a padding
/// is not smaller than its dim.
WICK_NN_PAD(ReflectionPad3d, PadOptions<3>);
/// ReplicationPad1d: pads the last dim by repeating its edge values (F::pad, mode "replicate").
WICK_NN_PAD(ReplicationPad1d, PadOptions<1>);
/// ReplicationPad2d: pads the last 2 dims by repeating their edge values (F::pad, mode "replicate").
WICK_NN_PAD(ReplicationPad2d, PadOptions<2>);
/// ReplicationPad3d: pads the last 3 dims by repeating their edge values (F::pad, mode "replicate").
WICK_NN_PAD(ReplicationPad3d, PadOptions<3>);
#undef WICK_NN_PAD

/// One integer option: PixelShuffle's upscale_factor, PixelUnshuffle's
/// downscale_factor, ChannelShuffle's groups.
struct PixelShuffleOptions {
  /// The factor r: (*, C * r^2, H, W) becomes (*, C, H * r, W * r).
  PixelShuffleOptions(std::int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT(implicit)
  /// The factor r by which H and W grow; RuntimeError from F::pixel_shuffle unless positive and C divisible by r^2.
  WICK_ARG(std::int64_t, upscale_factor);
};
/// PixelUnshuffle's option: the factor by which H and W shrink.
struct PixelUnshuffleOptions {
  /// The factor r: (*, C, H * r, W * r) becomes (*, C * r^2, H, W).
  PixelUnshuffleOptions(std::int64_t downscale_factor) : downscale_factor_(downscale_factor) {}  // NOLINT(implicit)
  /// The factor r by which H and W shrink; RuntimeError from F::pixel_unshuffle unless positive and dividing H and W.
  WICK_ARG(std::int64_t, downscale_factor);
};
/// ChannelShuffle's option: the number of groups the channels are split into.
struct ChannelShuffleOptions {
  /// The number of groups; the channels (dim 1) must divide by it.
  ChannelShuffleOptions(std::int64_t groups) : groups_(groups) {}  // NOLINT(implicit)
  /// The number of groups; RuntimeError from F::channel_shuffle unless positive and dividing the channels.
  WICK_ARG(std::int64_t, groups);
};
/// CosineSimilarity's options: dim (default 1) and eps (default 1e-8).
struct CosineSimilarityOptions {
  /// The dim along which the similarity is taken (default 1).
  WICK_ARG(std::int64_t, dim) = 1;
  /// Lower bound of each norm, against division by zero (default 1e-8).
  WICK_ARG(double, eps) = 1e-8;
};
/// PairwiseDistance's options: p (default 2), eps (default 1e-6) and keepdim (default false).
struct PairwiseDistanceOptions {
  /// The order of the norm (default 2).
  WICK_ARG(double, p) = 2.0;
  /// Added to the difference, against a zero norm's gradient (default 1e-6).
  WICK_ARG(double, eps) = 1e-6;
  /// Keep the reduced last dim with size 1 (default false).
  WICK_ARG(bool, keepdim) = false;
};
/// Unfold's options: kernel_size and dilation (default 1), padding (default 0), stride (default 1).
struct UnfoldOptions {
  /// The block size; the rest take their defaults.
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT(implicit)
  /// The (kH, kW) size of each block.
  WICK_ARG(ExpandingArray<2>, kernel_size);
  /// Spacing between a block's elements (default 1).
  WICK_ARG(ExpandingArray<2>, dilation) = 1;
  /// Zeros added on both sides of each spatial dim (default 0).
  WICK_ARG(ExpandingArray<2>, padding) = 0;
  /// Step between blocks (default 1).
  WICK_ARG(ExpandingArray<2>, stride) = 1;
};
/// Fold's options: output_size, kernel_size and dilation (default 1), padding (default 0), stride (default 1).
struct FoldOptions {
  /// The (H, W) of the output and the block size; the rest take their defaults.
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  /// The (H, W) of the output's spatial dims.
  WICK_ARG(ExpandingArray<2>, output_size);
  /// The (kH, kW) size of each block.
  WICK_ARG(ExpandingArray<2>, kernel_size);
  /// Spacing between a block's elements (default 1).
  WICK_ARG(ExpandingArray<2>, dilation) = 1;
  /// Zeros that were added on both sides of each spatial dim (default 0).
  WICK_ARG(ExpandingArray<2>, padding) = 0;
  /// Step between blocks (default 1).
  WICK_ARG(ExpandingArray<2>, stride) = 1;
};

/// Declares a module Name over one functional with one options struct, `forward` taking `Params`.
#define WICK_NN_MISC(Name, Params)                          \
  class WICK_API Name##Impl : public Callable<Name##Impl> { \
   public:                                                  \
    using Options = Name##Options;                          \
    explicit Name##Impl(const Name##Options& options);      \
    Tensor forward Params;                                  \
    [[nodiscard]] std::string extra_repr() const override;  \
    Name##Options options;                                  \
  };                                                        \
  WICK_MODULE(Name)

/// PixelShuffle: F::pixel_shuffle(input, upscale_factor); RuntimeError for an input of fewer than 3 dims or channels
/// not divisible by r^2.
WICK_NN_MISC(PixelShuffle, (const Tensor& input));
/// PixelUnshuffle: F::pixel_unshuffle(input, downscale_factor); RuntimeError for an input of fewer than 3 dims or H, W
/// not divisible by r.
WICK_NN_MISC(PixelUnshuffle, (const Tensor& input));
/// ChannelShuffle: F::channel_shuffle(input, groups); RuntimeError for an input of fewer than 3 dims or channels not
/// divisible by groups.
WICK_NN_MISC(ChannelShuffle, (const Tensor& input));
/// Unfold: F::unfold, the sliding (kH, kW) blocks of a (N, C, H, W) input as columns (N, C * kH * kW, L); RuntimeError
/// for bad shapes or options.
WICK_NN_MISC(Unfold, (const Tensor& input));
/// Fold: F::fold, sums columns (N, C * kH * kW, L) back into (N, C, H, W); RuntimeError when L does not match
/// output_size.
WICK_NN_MISC(Fold, (const Tensor& input));
#undef WICK_NN_MISC

/// cosine_similarity(x1, x2, dim, eps); prints CosineSimilarity().
class WICK_API CosineSimilarityImpl : public Callable<CosineSimilarityImpl> {
 public:
  /// The options type, CosineSimilarityOptions.
  using Options = CosineSimilarityOptions;
  /// Keeps the options; nothing is checked until forward.
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {});
  /// The cosine of the angle between x1 and x2 along `dim` (broadcast); RuntimeError from F::cosine_similarity for
  /// shapes that do not broadcast.
  Tensor forward(const Tensor& x1, const Tensor& x2);
  /// The options the module was built with.
  CosineSimilarityOptions options;
};
/// The holder of CosineSimilarityImpl: nn::CosineSimilarity().
WICK_MODULE(CosineSimilarity);

/// pairwise_distance(x1, x2, p, eps, keepdim); prints PairwiseDistance().
class WICK_API PairwiseDistanceImpl : public Callable<PairwiseDistanceImpl> {
 public:
  /// The options type, PairwiseDistanceOptions.
  using Options = PairwiseDistanceOptions;
  /// Keeps the options; nothing is checked until forward.
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {});
  /// The p-norm of x1 - x2 + eps along the last dim (broadcast); RuntimeError from F::pairwise_distance for shapes that
  /// do not broadcast.
  Tensor forward(const Tensor& x1, const Tensor& x2);
  /// The options the module was built with.
  PairwiseDistanceOptions options;
};
/// The holder of PairwiseDistanceImpl: nn::PairwiseDistance().
WICK_MODULE(PairwiseDistance);

/// Upsample's options: exactly one of size and scale_factor, mode (default "nearest") and align_corners.
struct UpsampleOptions {
  /// The output's spatial size: one value for every dim, or one per dim.
  WICK_ARG(std::optional<std::vector<std::int64_t>>, size);
  /// The scale of every spatial dim (one value), or one per dim.
  WICK_ARG(std::optional<std::vector<double>>, scale_factor);
  /// "nearest", "linear", "bilinear", "bicubic" or "trilinear".
  WICK_ARG(std::string, mode) = "nearest";
  /// For the linear modes: whether the corner pixels of input and output line up (None: false; a ValueError from
  /// F::interpolate when set with mode "nearest").
  WICK_ARG(std::optional<bool>, align_corners);
};
/// UpsamplingNearest2d's and UpsamplingBilinear2d's options (their mode is fixed).
struct UpsamplingOptions {
  /// The output's spatial size: one value for every dim, or one per dim.
  WICK_ARG(std::optional<std::vector<std::int64_t>>, size);
  /// The scale of every spatial dim (one value), or one per dim.
  WICK_ARG(std::optional<std::vector<double>>, scale_factor);
};

/// F::interpolate; prints size or scale_factor as PyTorch does (one value unbracketed).
class WICK_API UpsampleImpl : public Callable<UpsampleImpl> {
 public:
  /// The options type, UpsampleOptions.
  using Options = UpsampleOptions;
  /// Keeps the options; ValueError "Upsample: give exactly one of size and scale_factor" unless exactly one is set.
  explicit UpsampleImpl(const UpsampleOptions& options = {});
  /// F::interpolate(input, size, scale_factor, mode, align_corners) over the dims after (N, C); errors are
  /// F::interpolate's (NotImplementedError for a mode that does not fit the input's rank).
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  UpsampleOptions options;
};
/// The holder of UpsampleImpl: nn::Upsample(nn::UpsampleOptions().scale_factor({2.0})).
WICK_MODULE(Upsample);

/// Upsample with mode "nearest".
class WICK_API UpsamplingNearest2dImpl : public UpsampleImpl {
 public:
  /// Upsample with mode "nearest" and the given size or scale_factor; ValueError unless exactly one is set.
  explicit UpsamplingNearest2dImpl(const UpsamplingOptions& options = {});
};
/// The holder of UpsamplingNearest2dImpl.
WICK_MODULE(UpsamplingNearest2d);

/// Upsample with mode "bilinear" and align_corners.
class WICK_API UpsamplingBilinear2dImpl : public UpsampleImpl {
 public:
  /// Upsample with mode "bilinear", align_corners true and the given size or scale_factor; ValueError unless exactly
  /// one is set.
  explicit UpsamplingBilinear2dImpl(const UpsamplingOptions& options = {});
};
/// The holder of UpsamplingBilinear2dImpl.
WICK_MODULE(UpsamplingBilinear2d);

template <std::size_t D>
/// LPPool1d's and LPPool2d's options: norm_type, kernel_size, stride (default kernel_size) and ceil_mode.
struct LPPoolOptions {
  /// The power p and the window size; stride defaults to the window.
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size) : norm_type_(norm_type), kernel_size_(kernel_size) {}
  /// The power p of the norm.
  WICK_ARG(double, norm_type);
  /// The size of each window.
  WICK_ARG(ExpandingArray<D>, kernel_size);
  /// None: kernel_size (printed None, as PyTorch prints it).
  WICK_ARG(std::optional<ExpandingArray<D>>, stride);
  /// Round the output size up rather than down (default false).
  WICK_ARG(bool, ceil_mode) = false;
};
/// LPPool1d's options.
using LPPool1dOptions = LPPoolOptions<1>;
/// LPPool2d's options.
using LPPool2dOptions = LPPoolOptions<2>;

/// (sum of x^p over each window)^(1/p).
class WICK_API LPPool1dImpl : public Callable<LPPool1dImpl> {
 public:
  /// The options type, LPPool1dOptions.
  using Options = LPPool1dOptions;
  /// Keeps the options; nothing is checked until forward.
  explicit LPPool1dImpl(const LPPool1dOptions& options);
  /// F::lp_pool1d over the last dim of a (N, C, L) or (C, L) input; RuntimeError from the pooling for bad shapes.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  LPPool1dOptions options;
};
/// The holder of LPPool1dImpl: nn::LPPool1d(nn::LPPool1dOptions(2, 3)).
WICK_MODULE(LPPool1d);

/// (sum of x^p over each window)^(1/p) over the last 2 dims.
class WICK_API LPPool2dImpl : public Callable<LPPool2dImpl> {
 public:
  /// The options type, LPPool2dOptions.
  using Options = LPPool2dOptions;
  /// Keeps the options; nothing is checked until forward.
  explicit LPPool2dImpl(const LPPool2dOptions& options);
  /// F::lp_pool2d over the last 2 dims of a (N, C, H, W) or (C, H, W) input; RuntimeError from the pooling for bad
  /// shapes.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  LPPool2dOptions options;
};
/// The holder of LPPool2dImpl: nn::LPPool2d(nn::LPPool2dOptions(2, 3)).
WICK_MODULE(LPPool2d);

}  // namespace wick::nn
