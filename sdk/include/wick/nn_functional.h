// wick/nn_functional.h - typed API of torch.nn.functional's activations, softmax, dropout, losses and norms.
/// \file
/// Typed calls of the catalog entries (no boxing), with PyTorch 1.13's
/// argument names and defaults:
///
///   namespace F = wick::nn::functional;
///   Tensor h = F::gelu(F::linear(x, w, b), "tanh");
///   Tensor loss = F::cross_entropy(h, target, std::nullopt, -100, "mean", /*label_smoothing=*/0.1);
///   Tensor p = wick::softmax(h, 1);                     // torch.softmax
///
/// Losses take `reduction` "mean", "sum" or "none" (ValueError naming any
/// other string). The deprecated size_average / reduce arguments exist in
/// the boxed API only.
#pragma once

#include <optional>
#include <tuple>
#include <string_view>

#include "wick/export.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick {

/// torch.softmax: exp(x - max) / sum(exp(x - max)) along `dim`, computed in
/// `dtype` when given (the input is converted first).
WICK_API Tensor softmax(const Tensor& input, std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
/// torch.log_softmax: x - max - log(sum(exp(x - max))) along `dim`.
WICK_API Tensor log_softmax(const Tensor& input, std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
/// torch.dropout: zeroes each element with probability p (default generator)
/// and scales the rest by 1/(1-p) when `train`; the input itself otherwise.
WICK_API Tensor dropout(const Tensor& input, double p, bool train);

/// torch.conv1d / torch.conv2d: cross-correlation of a batched (N, C, ...)
/// or unbatched (C, ...) input with weight (O, C/groups, k...). A list of
/// one value stands for every spatial dim.
WICK_API Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,
                       IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                       std::int64_t groups = 1);
WICK_API Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,
                       IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef dilation = 1,
                       std::int64_t groups = 1);
/// conv's padding='valid' (none) or 'same' (output as large as the input; stride 1 only).
enum class PaddingMode { kValid, kSame };
WICK_API Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       IntArrayRef stride, PaddingMode padding, IntArrayRef dilation = 1, std::int64_t groups = 1);
WICK_API Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       IntArrayRef stride, PaddingMode padding, IntArrayRef dilation = 1, std::int64_t groups = 1);
/// torch.max_pool2d: an empty stride means kernel_size.
WICK_API Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                           IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false);
WICK_API Tensor avg_pool1d(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride = {},
                           IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true);
/// Windows [floor(i*L/out), ceil((i+1)*L/out)).
WICK_API Tensor adaptive_avg_pool1d(const Tensor& input, IntArrayRef output_size);

}  // namespace wick

namespace wick::nn::functional {

/// The reduction a loss applies.
enum class Reduction { kNone, kMean, kSum };

/// The reduction named by `reduction` ("none", "mean", "sum"), or, when
/// `size_average` or `reduce` is given (not None), PyTorch's legacy rule:
/// reduce=False -> none, else size_average (default true) -> mean, else sum.
/// ValueError "<op>: foo is not a valid value for reduction".
[[nodiscard]] WICK_API Reduction resolve_reduction(const char* op, const Value& size_average, const Value& reduce,
                                                   std::string_view reduction);

/// input @ weight^T + bias.
WICK_API Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt);
WICK_API Tensor leaky_relu(const Tensor& input, double negative_slope = 0.01, bool inplace = false);
/// x if x > 0, else alpha * (exp(x) - 1).
WICK_API Tensor elu(const Tensor& input, double alpha = 1.0, bool inplace = false);
/// approximate: "none" (x * Phi(x) with erf) or "tanh"; RuntimeError otherwise.
WICK_API Tensor gelu(const Tensor& input, std::string_view approximate = "none");
/// x * sigmoid(x).
WICK_API Tensor silu(const Tensor& input, bool inplace = false);
/// log(sigmoid(x)), computed as min(x, 0) - log1p(exp(-|x|)).
WICK_API Tensor logsigmoid(const Tensor& input);
/// dim: PyTorch's implicit choice when absent (0 for 0-, 1- and 3-dim inputs, else 1).
WICK_API Tensor softmax(const Tensor& input, std::optional<std::int64_t> dim,
                        std::optional<ScalarType> dtype = std::nullopt);
WICK_API Tensor log_softmax(const Tensor& input, std::optional<std::int64_t> dim,
                            std::optional<ScalarType> dtype = std::nullopt);
/// ValueError when p is outside [0, 1].
WICK_API Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);

WICK_API Tensor mse_loss(const Tensor& input, const Tensor& target, std::string_view reduction = "mean");
WICK_API Tensor l1_loss(const Tensor& input, const Tensor& target, std::string_view reduction = "mean");
/// input: (C), (N, C) or (N, C, d1, ...) log-probabilities; target: int64
/// class indices of shape (), (N) or (N, d1, ...).
WICK_API Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight = std::nullopt,
                         std::int64_t ignore_index = -100, std::string_view reduction = "mean");
/// target: int64 class indices (as nll_loss) or class probabilities of the
/// input's shape.
WICK_API Tensor cross_entropy(const Tensor& input, const Tensor& target,
                              const std::optional<Tensor>& weight = std::nullopt, std::int64_t ignore_index = -100,
                              std::string_view reduction = "mean", double label_smoothing = 0.0);
/// input: probabilities in [0, 1]; the logs are clamped at -100 as PyTorch does.
WICK_API Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                                     const std::optional<Tensor>& weight = std::nullopt,
                                     std::string_view reduction = "mean");
WICK_API Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target,
                                                 const std::optional<Tensor>& weight = std::nullopt,
                                                 std::string_view reduction = "mean",
                                                 const std::optional<Tensor>& pos_weight = std::nullopt);

/// Normalises over the trailing `normalized_shape` dims: (x - mean) /
/// sqrt(var + eps) * weight + bias (biased variance); weight and bias have
/// the shape `normalized_shape`.
WICK_API Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                           const std::optional<Tensor>& weight = std::nullopt,
                           const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
/// input (N, C, ...): normalises each channel. training: over the batch's
/// statistics, updating running_mean / running_var in place (momentum, the
/// unbiased variance) when given; otherwise with the running statistics.
WICK_API Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& running_mean,
                           const std::optional<Tensor>& running_var, const std::optional<Tensor>& weight = std::nullopt,
                           const std::optional<Tensor>& bias = std::nullopt, bool training = false,
                           double momentum = 0.1, double eps = 1e-5);
/// input (N, C, ...): normalises each of num_groups groups of C/num_groups channels.
WICK_API Tensor group_norm(const Tensor& input, std::int64_t num_groups,
                           const std::optional<Tensor>& weight = std::nullopt,
                           const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
/// Rows of `weight` (2-D) picked by int64/int32 `input`; the padding_idx
/// row gets no gradient. (max_norm, scale_grad_by_freq and sparse exist
/// in the boxed API, which refuses them with NotImplementedError.)
WICK_API Tensor embedding(const Tensor& input, const Tensor& weight,
                          std::optional<std::int64_t> padding_idx = std::nullopt);
/// pad: (before, after) pairs from the last dim backwards; negative crops.
/// mode: "constant" (value, default 0), "reflect" or "replicate".
WICK_API Tensor pad(const Tensor& input, IntArrayRef pad, std::string_view mode = "constant",
                    std::optional<double> value = std::nullopt);
using wick::adaptive_avg_pool1d;
using wick::avg_pool1d;
using wick::conv1d;
using wick::conv2d;

/// Max pooling over (N, C, H, W) or (C, H, W); stride std::nullopt means
/// kernel_size. A NaN in a window wins.
WICK_API Tensor max_pool2d(const Tensor& input, IntArrayRef kernel_size,
                           std::optional<IntArrayRef> stride = std::nullopt, IntArrayRef padding = 0,
                           IntArrayRef dilation = 1, bool ceil_mode = false);
/// max_pool2d and the flat (h * W + w) index of each maximum in its plane.
WICK_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef kernel_size,
                                                            std::optional<IntArrayRef> stride = std::nullopt,
                                                            IntArrayRef padding = 0, IntArrayRef dilation = 1,
                                                            bool ceil_mode = false);
/// divisor_override replaces the window's element count.
WICK_API Tensor avg_pool2d(const Tensor& input, IntArrayRef kernel_size,
                           std::optional<IntArrayRef> stride = std::nullopt, IntArrayRef padding = 0,
                           bool ceil_mode = false, bool count_include_pad = true,
                           std::optional<std::int64_t> divisor_override = std::nullopt);
/// Windows [floor(i*H/out), ceil((i+1)*H/out)) in each dim.
WICK_API Tensor adaptive_avg_pool2d(const Tensor& input, IntArrayRef output_size);

}  // namespace wick::nn::functional
