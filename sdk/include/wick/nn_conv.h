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
/// ConvNd's options: channels, kernel_size, stride (1), padding (0), dilation (1), groups (1), bias (true),
/// padding_mode ("zeros").
struct ConvOptions {
  /// The input and output channels and the kernel size; the rest take their defaults.
  ConvOptions(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  /// Channels of the input (dim 1); must divide by groups (ValueError "in_channels must be divisible by groups").
  WICK_ARG(std::int64_t, in_channels);
  /// Channels of the output; must divide by groups (ValueError "out_channels must be divisible by groups").
  WICK_ARG(std::int64_t, out_channels);
  /// The size of the kernel, one value or D.
  WICK_ARG(ExpandingArray<D>, kernel_size);
  /// The step of the kernel (default 1); "same" padding needs 1 (ValueError).
  WICK_ARG(ExpandingArray<D>, stride) = 1;
  /// Integers (default 0) added on both sides of each spatial dim, or "same" / "valid" (ValueError for another text).
  WICK_ARG(ConvPadding<D>, padding) = 0;
  /// Spacing between kernel elements (default 1).
  WICK_ARG(ExpandingArray<D>, dilation) = 1;
  /// Number of blocked connections from input to output channels (default 1); not positive is a ValueError "groups must
  /// be a positive integer".
  WICK_ARG(std::int64_t, groups) = 1;
  /// Whether to learn an additive bias (default true); false leaves `bias` undefined.
  WICK_ARG(bool, bias) = true;
  /// "zeros" (default), "reflect", "replicate" or "circular"; another is a ValueError from the constructor.
  WICK_ARG(std::string, padding_mode) = "zeros";
};
/// Conv1d's options.
using Conv1dOptions = ConvOptions<1>;
/// Conv2d's options.
using Conv2dOptions = ConvOptions<2>;
/// Conv3d's options.
using Conv3dOptions = ConvOptions<3>;

template <std::size_t D>
/// ConvTransposeNd's options: channels, kernel_size, stride (1), padding (0), output_padding (0), groups (1), bias
/// (true), dilation (1), padding_mode ("zeros").
struct ConvTransposeOptions {
  /// The input and output channels and the kernel size; the rest take their defaults.
  ConvTransposeOptions(std::int64_t in_channels, std::int64_t out_channels, ExpandingArray<D> kernel_size)
      : in_channels_(in_channels), out_channels_(out_channels), kernel_size_(kernel_size) {}
  /// Channels of the input (dim 1); must divide by groups (ValueError "in_channels must be divisible by groups").
  WICK_ARG(std::int64_t, in_channels);
  /// Channels of the output; must divide by groups (ValueError "out_channels must be divisible by groups").
  WICK_ARG(std::int64_t, out_channels);
  /// The size of the kernel, one value or D.
  WICK_ARG(ExpandingArray<D>, kernel_size);
  /// The step of the kernel (default 1).
  WICK_ARG(ExpandingArray<D>, stride) = 1;
  /// dilation * (kernel_size - 1) - padding zeros are added on both sides of each spatial dim of the input (default 0).
  WICK_ARG(ExpandingArray<D>, padding) = 0;
  /// Extra size added to one side of each spatial dim of the output (default 0); must be smaller than stride or
  /// dilation (a RuntimeError from the functional otherwise).
  WICK_ARG(ExpandingArray<D>, output_padding) = 0;
  /// Number of blocked connections from input to output channels (default 1); not positive is a ValueError "groups must
  /// be a positive integer".
  WICK_ARG(std::int64_t, groups) = 1;
  /// Whether to learn an additive bias (default true); false leaves `bias` undefined.
  WICK_ARG(bool, bias) = true;
  /// Spacing between kernel elements (default 1).
  WICK_ARG(ExpandingArray<D>, dilation) = 1;
  /// Only "zeros" (ValueError otherwise, as in PyTorch).
  WICK_ARG(std::string, padding_mode) = "zeros";
};
/// ConvTranspose1d's options.
using ConvTranspose1dOptions = ConvTransposeOptions<1>;
/// ConvTranspose2d's options.
using ConvTranspose2dOptions = ConvTransposeOptions<2>;
/// ConvTranspose3d's options.
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

/// Conv1d over (N, C, L) or (C, L) inputs; the constructor raises ValueError for bad options, forward a RuntimeError
/// from F::conv1d for a mismatched input.
WICK_NN_CONV(Conv1d, Conv1dOptions);
/// Conv2d over (N, C, H, W) or (C, H, W) inputs; the constructor raises ValueError for bad options, forward a
/// RuntimeError from F::conv2d for a mismatched input.
WICK_NN_CONV(Conv2d, Conv2dOptions);
/// Conv3d over (N, C, D, H, W) or (C, D, H, W) inputs; the constructor raises ValueError for bad options, forward a
/// RuntimeError from F::conv3d for a mismatched input.
WICK_NN_CONV(Conv3d, Conv3dOptions);
/// ConvTranspose1d (F::conv_transpose1d); ValueError from the constructor for bad channels or groups, or a padding_mode
/// other than "zeros".
WICK_NN_CONV(ConvTranspose1d, ConvTranspose1dOptions);
/// ConvTranspose2d (F::conv_transpose2d); ValueError from the constructor for bad channels or groups, or a padding_mode
/// other than "zeros".
WICK_NN_CONV(ConvTranspose2d, ConvTranspose2dOptions);
/// ConvTranspose3d (F::conv_transpose3d); ValueError from the constructor for bad channels or groups, or a padding_mode
/// other than "zeros".
WICK_NN_CONV(ConvTranspose3d, ConvTranspose3dOptions);
#undef WICK_NN_CONV

// --- pooling -------------------------------------------------------------------------

template <std::size_t D>
/// MaxPoolNd's options: kernel_size, stride (default kernel_size), padding (0), dilation (1), ceil_mode (false).
struct MaxPoolOptions {
  /// The window size; stride starts equal to it.
  MaxPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT(implicit)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The size of the window.
  WICK_ARG(ExpandingArray<D>, kernel_size);
  /// Defaults to kernel_size.
  WICK_ARG(ExpandingArray<D>, stride);
  /// Implicit -inf padding on both sides (default 0); more than half the kernel is a RuntimeError from the functional.
  WICK_ARG(ExpandingArray<D>, padding) = 0;
  /// Spacing between window elements (default 1).
  WICK_ARG(ExpandingArray<D>, dilation) = 1;
  /// Round the output size up rather than down (default false).
  WICK_ARG(bool, ceil_mode) = false;
};
/// MaxPool1d's options.
using MaxPool1dOptions = MaxPoolOptions<1>;
/// MaxPool2d's options.
using MaxPool2dOptions = MaxPoolOptions<2>;
/// MaxPool3d's options.
using MaxPool3dOptions = MaxPoolOptions<3>;

template <std::size_t D>
/// AvgPoolNd's options: kernel_size, stride (default kernel_size), padding (0), ceil_mode (false), count_include_pad
/// (true), divisor_override.
struct AvgPoolOptions {
  /// The window size; stride starts equal to it.
  AvgPoolOptions(ExpandingArray<D> kernel_size)  // NOLINT(implicit)
      : kernel_size_(kernel_size), stride_(kernel_size) {}
  /// The size of the window.
  WICK_ARG(ExpandingArray<D>, kernel_size);
  /// Defaults to kernel_size.
  WICK_ARG(ExpandingArray<D>, stride);
  /// Implicit zero padding on both sides (default 0); more than half the kernel is a RuntimeError from the functional.
  WICK_ARG(ExpandingArray<D>, padding) = 0;
  /// Round the output size up rather than down (default false).
  WICK_ARG(bool, ceil_mode) = false;
  /// Whether the padding zeros count in the average's divisor (default true).
  WICK_ARG(bool, count_include_pad) = true;
  /// Not for AvgPool1d.
  WICK_ARG(std::optional<std::int64_t>, divisor_override);
};
/// AvgPool1d's options (divisor_override is ignored).
using AvgPool1dOptions = AvgPoolOptions<1>;
/// AvgPool2d's options.
using AvgPool2dOptions = AvgPoolOptions<2>;
/// AvgPool3d's options.
using AvgPool3dOptions = AvgPoolOptions<3>;

template <std::size_t D>
/// The adaptive pools' option: the output size, D values, each an integer or None (the input's size there).
struct AdaptivePoolOptions {
  /// The output size: one integer for every dim, or D values that may be std::nullopt.
  AdaptivePoolOptions(ExpandingArrayWithOptionalElem<D> output_size) : output_size_(output_size) {}  // NOLINT
  /// The output's spatial size; None entries keep the input's size.
  WICK_ARG(ExpandingArrayWithOptionalElem<D>, output_size);
};
/// AdaptiveAvgPool1d's options.
using AdaptiveAvgPool1dOptions = AdaptivePoolOptions<1>;
/// AdaptiveAvgPool2d's options.
using AdaptiveAvgPool2dOptions = AdaptivePoolOptions<2>;
/// AdaptiveAvgPool3d's options.
using AdaptiveAvgPool3dOptions = AdaptivePoolOptions<3>;
/// AdaptiveMaxPool1d's options.
using AdaptiveMaxPool1dOptions = AdaptivePoolOptions<1>;
/// AdaptiveMaxPool2d's options.
using AdaptiveMaxPool2dOptions = AdaptivePoolOptions<2>;
/// AdaptiveMaxPool3d's options.
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

/// The max pools' extra member: forward_with_indices(input) -> (output, indices of the maxima).
#define WICK_NN_WITH_INDICES std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
/// MaxPool1d: the max of each window over the last dim (F::max_pool1d); bad shapes or options are RuntimeErrors from
/// it.
WICK_NN_POOL(MaxPool1d, MaxPool1dOptions, WICK_NN_WITH_INDICES);
/// MaxPool2d: the max of each window over the last 2 dims (F::max_pool2d); bad shapes or options are RuntimeErrors from
/// it.
WICK_NN_POOL(MaxPool2d, MaxPool2dOptions, WICK_NN_WITH_INDICES);
/// MaxPool3d: the max of each window over the last 3 dims (F::max_pool3d); bad shapes or options are RuntimeErrors from
/// it.
WICK_NN_POOL(MaxPool3d, MaxPool3dOptions, WICK_NN_WITH_INDICES);
/// AvgPool1d: the mean of each window over the last dim (F::avg_pool1d); bad shapes or options are RuntimeErrors from
/// it.
WICK_NN_POOL(AvgPool1d, AvgPool1dOptions, );
/// AvgPool2d: the mean of each window over the last 2 dims (F::avg_pool2d); bad shapes or options are RuntimeErrors
/// from it.
WICK_NN_POOL(AvgPool2d, AvgPool2dOptions, );
/// AvgPool3d: the mean of each window over the last 3 dims (F::avg_pool3d); bad shapes or options are RuntimeErrors
/// from it.
WICK_NN_POOL(AvgPool3d, AvgPool3dOptions, );
/// AdaptiveAvgPool1d: means over windows chosen to give output_size (F::adaptive_avg_pool1d); ValueError for an input
/// of no dims.
WICK_NN_POOL(AdaptiveAvgPool1d, AdaptiveAvgPool1dOptions, );
/// AdaptiveAvgPool2d: means over windows chosen to give output_size (F::adaptive_avg_pool2d); ValueError for an input
/// of fewer than 2 dims.
WICK_NN_POOL(AdaptiveAvgPool2d, AdaptiveAvgPool2dOptions, );
/// AdaptiveAvgPool3d: means over windows chosen to give output_size (F::adaptive_avg_pool3d); ValueError for an input
/// of fewer than 3 dims.
WICK_NN_POOL(AdaptiveAvgPool3d, AdaptiveAvgPool3dOptions, );
/// AdaptiveMaxPool1d: maxima over windows chosen to give output_size (F::adaptive_max_pool1d); ValueError for an input
/// of no dims.
WICK_NN_POOL(AdaptiveMaxPool1d, AdaptiveMaxPool1dOptions, WICK_NN_WITH_INDICES);
/// AdaptiveMaxPool2d: maxima over windows chosen to give output_size (F::adaptive_max_pool2d); ValueError for an input
/// of fewer than 2 dims.
WICK_NN_POOL(AdaptiveMaxPool2d, AdaptiveMaxPool2dOptions, WICK_NN_WITH_INDICES);
/// AdaptiveMaxPool3d: maxima over windows chosen to give output_size (F::adaptive_max_pool3d); ValueError for an input
/// of fewer than 3 dims.
WICK_NN_POOL(AdaptiveMaxPool3d, AdaptiveMaxPool3dOptions, WICK_NN_WITH_INDICES);
#undef WICK_NN_WITH_INDICES
#undef WICK_NN_POOL

}  // namespace wick::nn
