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
struct PadOptions {
  PadOptions(ExpandingArray<2 * D> padding) : padding_(padding) {}  // NOLINT(implicit)
  WICK_ARG(ExpandingArray<2 * D>, padding);
};
template <std::size_t D>
struct ConstantPadOptions {
  ConstantPadOptions(ExpandingArray<2 * D> padding, double value) : padding_(padding), value_(value) {}
  WICK_ARG(ExpandingArray<2 * D>, padding);
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

WICK_NN_PAD(ZeroPad2d, PadOptions<2>);
WICK_NN_PAD(ConstantPad1d, ConstantPadOptions<1>);
WICK_NN_PAD(ConstantPad2d, ConstantPadOptions<2>);
WICK_NN_PAD(ConstantPad3d, ConstantPadOptions<3>);
WICK_NN_PAD(ReflectionPad1d, PadOptions<1>);
WICK_NN_PAD(ReflectionPad2d, PadOptions<2>);
WICK_NN_PAD(ReflectionPad3d, PadOptions<3>);
WICK_NN_PAD(ReplicationPad1d, PadOptions<1>);
WICK_NN_PAD(ReplicationPad2d, PadOptions<2>);
WICK_NN_PAD(ReplicationPad3d, PadOptions<3>);
#undef WICK_NN_PAD

/// One integer option: PixelShuffle's upscale_factor, PixelUnshuffle's
/// downscale_factor, ChannelShuffle's groups.
struct PixelShuffleOptions {
  PixelShuffleOptions(std::int64_t upscale_factor) : upscale_factor_(upscale_factor) {}  // NOLINT(implicit)
  WICK_ARG(std::int64_t, upscale_factor);
};
struct PixelUnshuffleOptions {
  PixelUnshuffleOptions(std::int64_t downscale_factor) : downscale_factor_(downscale_factor) {}  // NOLINT(implicit)
  WICK_ARG(std::int64_t, downscale_factor);
};
struct ChannelShuffleOptions {
  ChannelShuffleOptions(std::int64_t groups) : groups_(groups) {}  // NOLINT(implicit)
  WICK_ARG(std::int64_t, groups);
};
struct CosineSimilarityOptions {
  WICK_ARG(std::int64_t, dim) = 1;
  WICK_ARG(double, eps) = 1e-8;
};
struct PairwiseDistanceOptions {
  WICK_ARG(double, p) = 2.0;
  WICK_ARG(double, eps) = 1e-6;
  WICK_ARG(bool, keepdim) = false;
};
struct UnfoldOptions {
  UnfoldOptions(ExpandingArray<2> kernel_size) : kernel_size_(kernel_size) {}  // NOLINT(implicit)
  WICK_ARG(ExpandingArray<2>, kernel_size);
  WICK_ARG(ExpandingArray<2>, dilation) = 1;
  WICK_ARG(ExpandingArray<2>, padding) = 0;
  WICK_ARG(ExpandingArray<2>, stride) = 1;
};
struct FoldOptions {
  FoldOptions(ExpandingArray<2> output_size, ExpandingArray<2> kernel_size)
      : output_size_(output_size), kernel_size_(kernel_size) {}
  WICK_ARG(ExpandingArray<2>, output_size);
  WICK_ARG(ExpandingArray<2>, kernel_size);
  WICK_ARG(ExpandingArray<2>, dilation) = 1;
  WICK_ARG(ExpandingArray<2>, padding) = 0;
  WICK_ARG(ExpandingArray<2>, stride) = 1;
};

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

WICK_NN_MISC(PixelShuffle, (const Tensor& input));
WICK_NN_MISC(PixelUnshuffle, (const Tensor& input));
WICK_NN_MISC(ChannelShuffle, (const Tensor& input));
WICK_NN_MISC(Unfold, (const Tensor& input));
WICK_NN_MISC(Fold, (const Tensor& input));
#undef WICK_NN_MISC

/// cosine_similarity(x1, x2, dim, eps); prints CosineSimilarity().
class WICK_API CosineSimilarityImpl : public Callable<CosineSimilarityImpl> {
 public:
  using Options = CosineSimilarityOptions;
  explicit CosineSimilarityImpl(const CosineSimilarityOptions& options = {});
  Tensor forward(const Tensor& x1, const Tensor& x2);
  CosineSimilarityOptions options;
};
WICK_MODULE(CosineSimilarity);

/// pairwise_distance(x1, x2, p, eps, keepdim); prints PairwiseDistance().
class WICK_API PairwiseDistanceImpl : public Callable<PairwiseDistanceImpl> {
 public:
  using Options = PairwiseDistanceOptions;
  explicit PairwiseDistanceImpl(const PairwiseDistanceOptions& options = {});
  Tensor forward(const Tensor& x1, const Tensor& x2);
  PairwiseDistanceOptions options;
};
WICK_MODULE(PairwiseDistance);

struct UpsampleOptions {
  /// The output's spatial size: one value for every dim, or one per dim.
  WICK_ARG(std::optional<std::vector<std::int64_t>>, size);
  /// The scale of every spatial dim (one value), or one per dim.
  WICK_ARG(std::optional<std::vector<double>>, scale_factor);
  /// "nearest", "linear", "bilinear", "bicubic" or "trilinear".
  WICK_ARG(std::string, mode) = "nearest";
  WICK_ARG(std::optional<bool>, align_corners);
};
/// UpsamplingNearest2d's and UpsamplingBilinear2d's options (their mode is fixed).
struct UpsamplingOptions {
  WICK_ARG(std::optional<std::vector<std::int64_t>>, size);
  WICK_ARG(std::optional<std::vector<double>>, scale_factor);
};

/// F::interpolate; prints size or scale_factor as PyTorch does (one value unbracketed).
class WICK_API UpsampleImpl : public Callable<UpsampleImpl> {
 public:
  using Options = UpsampleOptions;
  explicit UpsampleImpl(const UpsampleOptions& options = {});
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  UpsampleOptions options;
};
WICK_MODULE(Upsample);

/// Upsample with mode "nearest".
class WICK_API UpsamplingNearest2dImpl : public UpsampleImpl {
 public:
  explicit UpsamplingNearest2dImpl(const UpsamplingOptions& options = {});
};
WICK_MODULE(UpsamplingNearest2d);

/// Upsample with mode "bilinear" and align_corners.
class WICK_API UpsamplingBilinear2dImpl : public UpsampleImpl {
 public:
  explicit UpsamplingBilinear2dImpl(const UpsamplingOptions& options = {});
};
WICK_MODULE(UpsamplingBilinear2d);

template <std::size_t D>
struct LPPoolOptions {
  LPPoolOptions(double norm_type, ExpandingArray<D> kernel_size) : norm_type_(norm_type), kernel_size_(kernel_size) {}
  WICK_ARG(double, norm_type);
  WICK_ARG(ExpandingArray<D>, kernel_size);
  /// None: kernel_size (printed None, as PyTorch prints it).
  WICK_ARG(std::optional<ExpandingArray<D>>, stride);
  WICK_ARG(bool, ceil_mode) = false;
};
using LPPool1dOptions = LPPoolOptions<1>;
using LPPool2dOptions = LPPoolOptions<2>;

/// (sum of x^p over each window)^(1/p).
class WICK_API LPPool1dImpl : public Callable<LPPool1dImpl> {
 public:
  using Options = LPPool1dOptions;
  explicit LPPool1dImpl(const LPPool1dOptions& options);
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  LPPool1dOptions options;
};
WICK_MODULE(LPPool1d);

class WICK_API LPPool2dImpl : public Callable<LPPool2dImpl> {
 public:
  using Options = LPPool2dOptions;
  explicit LPPool2dImpl(const LPPool2dOptions& options);
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  LPPool2dOptions options;
};
WICK_MODULE(LPPool2d);

}  // namespace wick::nn
