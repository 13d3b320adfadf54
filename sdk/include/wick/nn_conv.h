// wick/nn_conv.h - Conv1d/2d/3d, ConvTranspose1d/2d/3d and the pooling modules.
/// \file
///   nn::Conv2d conv(nn::Conv2dOptions(3, 8, 3).stride(1).padding("same").bias(false));
///   nn::MaxPool2d pool(nn::MaxPool2dOptions(2));      // stride defaults to kernel_size
///
/// Conv padding is D integers or "same" / "valid" (ValueError "Invalid
/// padding string 'x', should be one of {'valid', 'same'}"; "same" with a
/// stride other than 1 is a ValueError); padding_mode is "zeros",
/// "reflect", "replicate" or "circular" (the input is padded with F::pad
/// first). Weights start kaiming_uniform_(a=sqrt(5)) and biases
/// uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)), as in PyTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/nn_options.h"
#include "wick/tensor.h"

namespace wick::nn {

template <std::size_t D>
struct ConvOptions {
  ConvOptions(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  WICK_ARG(std::int64_t, in_channels);
  WICK_ARG(std::int64_t, out_channels);
  WICK_ARG(ExpandingArray<D>, kernel_size);
  WICK_ARG(ExpandingArray<D>, stride) = 1;
  WICK_ARG(ConvPadding<D>, padding) = 0;
  WICK_ARG(ExpandingArray<D>, dilation) = 1;
  WICK_ARG(std::int64_t, groups) = 1;
  WICK_ARG(bool, bias) = true;
  WICK_ARG(std::string, padding_mode) = "zeros";
};
using Conv1dOptions = ConvOptions<1>;
using Conv2dOptions = ConvOptions<2>;
using Conv3dOptions = ConvOptions<3>;

template <std::size_t D>
struct ConvTransposeOptions {
  ConvTransposeOptions(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  WICK_ARG(std::int64_t, in_channels);
  WICK_ARG(std::int64_t, out_channels);
  WICK_ARG(ExpandingArray<D>, kernel_size);
  WICK_ARG(ExpandingArray<D>, stride) = 1;
  WICK_ARG(ExpandingArray<D>, padding) = 0;
  WICK_ARG(ExpandingArray<D>, output_padding) = 0;
  WICK_ARG(std::int64_t, groups) = 1;
  WICK_ARG(bool, bias) = true;
  WICK_ARG(ExpandingArray<D>, dilation) = 1;
  /// Only "zeros" (ValueError otherwise, as in PyTorch).
  WICK_ARG(std::string, padding_mode) = "zeros";
};
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
using ConvTranspose3dOptions = ConvTransposeOptions<3>;

/// Declares ConvNd (weight (out, in / groups, *kernel)) and ConvTransposeNd
/// (weight (in, out / groups, *kernel)).
#define WICK_NN_CONV(Name, OptionsT)                          \
  class WICK_API Name##Impl : public Callable<Name##Impl> {   \
   public:                                                    \
    using Options = OptionsT;                                 \
    explicit Name##Impl(const OptionsT& options);             \
    void reset_parameters();                                  \
    Tensor forward(const Tensor& input);                      \
    [[nodiscard]] std::string extra_repr() const override;    \
    OptionsT options;                                         \
    Tensor weight, bias;                                      \
  };                                                          \
  WICK_MODULE(Name)

WICK_NN_CONV(Conv1d, Conv1dOptions);
WICK_NN_CONV(Conv2d, Conv2dOptions);
WICK_NN_CONV(Conv3d, Conv3dOptions);
WICK_NN_CONV(ConvTranspose1d, ConvTranspose1dOptions);
WICK_NN_CONV(ConvTranspose2d, ConvTranspose2dOptions);
WICK_NN_CONV(ConvTranspose3d, ConvTranspose3dOptions);
#undef WICK_NN_CONV

// --- pooling -------------------------------------------------------------------------

template <std::size_t D>
struct MaxPoolOptions {
  MaxPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT(implicit)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  WICK_ARG(ExpandingArray<D>, kernel_size);
  /// Defaults to kernel_size.
  WICK_ARG(ExpandingArray<D>, stride);
  WICK_ARG(ExpandingArray<D>, padding) = 0;
  WICK_ARG(ExpandingArray<D>, dilation) = 1;
  WICK_ARG(bool, ceil_mode) = false;
};
using MaxPool1dOptions = MaxPoolOptions<1>;
using MaxPool2dOptions = MaxPoolOptions<2>;
using MaxPool3dOptions = MaxPoolOptions<3>;

template <std::size_t D>
struct AvgPoolOptions {
  AvgPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT(implicit)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  WICK_ARG(ExpandingArray<D>, kernel_size);
  /// Defaults to kernel_size.
  WICK_ARG(ExpandingArray<D>, stride);
  WICK_ARG(ExpandingArray<D>, padding) = 0;
  WICK_ARG(bool, ceil_mode) = false;
  WICK_ARG(bool, count_include_pad) = true;
  /// Not for AvgPool1d.
  WICK_ARG(std::optional<std::int64_t>, divisor_override);
};
using AvgPool1dOptions = AvgPoolOptions<1>;
using AvgPool2dOptions = AvgPoolOptions<2>;
using AvgPool3dOptions = AvgPoolOptions<3>;

template <std::size_t D>
struct AdaptivePoolOptions {
  AdaptivePoolOptions(ExpandingArrayWithOptionalElem<D> output_size) : output_size_(output_size) {}  // NOLINT
  WICK_ARG(ExpandingArrayWithOptionalElem<D>, output_size);
};
using AdaptiveAvgPool1dOptions = AdaptivePoolOptions<1>;
using AdaptiveAvgPool2dOptions = AdaptivePoolOptions<2>;
using AdaptiveAvgPool3dOptions = AdaptivePoolOptions<3>;
using AdaptiveMaxPool1dOptions = AdaptivePoolOptions<1>;
using AdaptiveMaxPool2dOptions = AdaptivePoolOptions<2>;
using AdaptiveMaxPool3dOptions = AdaptivePoolOptions<3>;

/// Declares a pooling module: forward(input), and for the max pools
/// forward_with_indices(input) -> (output, indices).
#define WICK_NN_POOL(Name, OptionsT, Extra)                   \
  class WICK_API Name##Impl : public Callable<Name##Impl> {   \
   public:                                                    \
    using Options = OptionsT;                                 \
    explicit Name##Impl(const OptionsT& options);             \
    Tensor forward(const Tensor& input);                      \
    Extra [[nodiscard]] std::string extra_repr() const override; \
    OptionsT options;                                         \
  };                                                          \
  WICK_MODULE(Name)

#define WICK_NN_WITH_INDICES std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
WICK_NN_POOL(MaxPool1d, MaxPool1dOptions, WICK_NN_WITH_INDICES);
WICK_NN_POOL(MaxPool2d, MaxPool2dOptions, WICK_NN_WITH_INDICES);
WICK_NN_POOL(MaxPool3d, MaxPool3dOptions, WICK_NN_WITH_INDICES);
WICK_NN_POOL(AvgPool1d, AvgPool1dOptions, );
WICK_NN_POOL(AvgPool2d, AvgPool2dOptions, );
WICK_NN_POOL(AvgPool3d, AvgPool3dOptions, );
WICK_NN_POOL(AdaptiveAvgPool1d, AdaptiveAvgPool1dOptions, );
WICK_NN_POOL(AdaptiveAvgPool2d, AdaptiveAvgPool2dOptions, );
WICK_NN_POOL(AdaptiveAvgPool3d, AdaptiveAvgPool3dOptions, );
WICK_NN_POOL(AdaptiveMaxPool1d, AdaptiveMaxPool1dOptions, WICK_NN_WITH_INDICES);
WICK_NN_POOL(AdaptiveMaxPool2d, AdaptiveMaxPool2dOptions, WICK_NN_WITH_INDICES);
WICK_NN_POOL(AdaptiveMaxPool3d, AdaptiveMaxPool3dOptions, WICK_NN_WITH_INDICES);
#undef WICK_NN_WITH_INDICES
#undef WICK_NN_POOL

}  // namespace wick::nn
