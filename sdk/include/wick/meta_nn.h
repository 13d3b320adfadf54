// wick/meta_nn.h - meta results of the nn operators: softmax, activations, nll_loss, the norms, convolution, pooling.
/// \file
/// What the meta functions of dispatch/ops/nn.ops and internal.ops tell
/// the backends' impls besides the output's geometry (Note [Meta functions]
/// in wick/meta.h): the rows a softmax or layer_norm runs over, the
/// convolution's geometry, the pooling windows. The meta functions are in
/// dispatch/ops/meta_nn.cpp and meta_conv.cpp; their declarations are
/// generated (wick/gen/torch_meta.h).
///
///   // a CPU impl of aten.avg_pool2d: the windows come from the meta result
///   void avg_pool2d(const wick::Pool2dMeta& m, const Tensor& out, const Tensor& self, ...) {
///     for (std::int64_t y = 0; y < m.rows.out; ++y) {
///       const wick::PoolWindow win = wick::meta::pool_window(m.rows, y);  // [start, end), count
///       ...
///
/// Note [Pooling windows]
/// A pooling output element reads a window that is the product of one
/// input range per spatial dim, so a `PoolDim` (sizes, kernel, stride,
/// padding, dilation, kind) and `meta::pool_window` describe every window;
/// the meta function computes the output sizes (PyTorch's rule, ceil_mode
/// included, in 128 bits: kernel sizes up to 2**63 - 1 are accepted) and
/// checks them once for every backend. Backends tabulate the windows only
/// when there is something to pool (a non-empty input and output: an empty
/// batch may ask for an output of 2**63 - 1 columns).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "wick/export.h"
#include "wick/meta.h"

namespace wick {

namespace nn::functional {
enum class Reduction;  // wick/nn_functional.h
}  // namespace nn::functional

/// torch.softmax / log_softmax: the input viewed as [outer, n, inner], n
/// along the (wrapped) `dim`; all three are 0 for an empty input.
struct SoftmaxMeta {
  TensorMeta out;        ///< the result's geometry (the input's shape, the requested or input dtype)
  std::int64_t dim = 0;  ///< the softmax dim, wrapped to [0, rank)
  std::int64_t outer = 0, /**< product of the sizes before dim */ n = 0, /**< size of dim */
      inner = 0;  ///< product of the sizes after dim
};

/// The float activations of torch.nn.functional (leaky_relu, elu, gelu,
/// silu, logsigmoid): the output has the input's shape and dtype.
/// `write_back` (inplace=True) asks the derived kernel to copy the result
/// into the input and return the input (Note [Structured kernels]).
struct ActivationMeta {
  TensorMeta out;           ///< the result's geometry: the input's shape and dtype
  bool write_back = false;  ///< inplace=True: copy the result into the input and return it
};

/// torch.nn.functional.nll_loss: the input viewed as [n, c, s] (s the
/// flattened extra dims) and the target as [n, s]; n * s is 0 for an
/// empty target.
struct NllLossMeta {
  TensorMeta out;                         ///< the loss: 0-dim for mean and sum, the target's shape for none
  nn::functional::Reduction reduction{};  ///< the `reduction` argument (none, mean, sum)
  std::int64_t n = 1, /**< batch size (1 for an unbatched input) */ c = 1, /**< number of classes */
      s = 1;  ///< product of the extra (spatial) dims, 1 when there are none
};

/// torch.nn.functional.layer_norm: m rows of n elements (n the product of
/// normalized_shape); both 0 for an empty input.
struct LayerNormMeta {
  TensorMeta out;  ///< the result's geometry: the input's shape and dtype
  std::int64_t m = 0, /**< number of rows normalized (product of the leading dims) */
      n = 0;          ///< elements per row (product of normalized_shape)
};

/// torch.native_batch_norm (and aten.native_batch_norm_backward): the
/// input viewed as [n, c, s] (s the product of the dims after the channel
/// one). native_batch_norm's `outs` are the output (the input's shape and
/// dtype), and the saved mean and 1/sqrt(var + eps): [c] in training, [0]
/// in evaluation, in the input's dtype; the backward's are the gradients of
/// the input, the weight and the bias.
struct BatchNormMeta {
  std::array<TensorMeta, 3> outs;  ///< the output, the saved mean and the saved invstd
  std::int64_t n = 0, /**< the batch size (dim 0) */ c = 0, /**< the channels (dim 1) */
      s = 1;  ///< the product of the remaining dims (1 when there are none)
};

/// torch.native_group_norm: the input read as [n, c, s] in `groups` groups
/// of c / groups channels; `outs` are the output (the input's shape and
/// dtype), and each group's mean and 1/sqrt(var + eps), [n, groups] in the
/// input's dtype.
struct GroupNormMeta {
  std::array<TensorMeta, 3> outs;  ///< the output, the groups' means and their invstd
  std::int64_t n = 0, /**< the batch size (N) */ c = 0, /**< the channels (C) */ s = 0, /**< values per channel */
      groups = 1;  ///< the number of groups
};

/// A 2-D convolution (aten.convolution2d and its two backwards): input
/// [n, c, h, w], weight [o, c / groups, kh, kw], output [n, o, oh, ow],
/// oh = (h + 2 * ph - dh * (kh - 1) - 1) / sh + 1 (and ow likewise). `out`
/// is the operator's result: the output, or the input's or the weight's
/// gradient.
struct Conv2dMeta {
  TensorMeta out;  ///< the operator's result: output, grad_input or grad_weight
  std::int64_t n = 0, /**< batch size */ c = 0, /**< input channels */ h = 0, /**< input height */
      w = 0;  ///< input width
  std::int64_t o = 0, /**< output channels */ kh = 0, /**< kernel height */ kw = 0;  ///< kernel width
  std::int64_t oh = 0, /**< output height */ ow = 0;  ///< output width
  std::int64_t sh = 1, /**< vertical stride */ sw = 1, /**< horizontal stride */ ph = 0, /**< vertical padding */
      pw = 0, /**< horizontal padding */ dh = 1, /**< vertical dilation */ dw = 1, /**< horizontal dilation */
      groups = 1;  ///< number of channel groups (c and o are multiples of it)
};

/// How a pooling picks its windows (Note [Pooling windows]).
enum class PoolKind : std::uint8_t {
  kAverage,   ///< [o*s - p, o*s - p + k), clipped to the padded input and then the input
  kAdaptive,  ///< [floor(o * in / out), ceil((o + 1) * in / out))
  kMax,       ///< taps o*s - p + j*d (j < k) that lie inside the input
};

/// One spatial dim of a pooling.
struct PoolDim {
  std::int64_t in = 0;   ///< input size
  std::int64_t out = 0;  ///< output size
  std::int64_t kernel = 1, /**< window size k (kAdaptive: unused) */ stride = 1, /**< step s between windows */
      padding = 0, /**< implicit padding p on both sides */ dilation = 1; ///< gap d between taps (kMax only)
  PoolKind kind = PoolKind::kAverage;  ///< how windows are picked
  bool count_include_pad = true;  ///< kAverage: padding counts in the divisor
};

/// The input range one output index reads along one dim.
struct PoolWindow {
  std::int64_t start = 0;  ///< the first index (kMax: the first tap inside the input)
  std::int64_t end = 0;    ///< one past the last index read (kMax: step `dilation` from start)
  std::int64_t count = 0;  ///< this dim's share of the average's divisor (0 for kMax)
};

/// Average and adaptive average pooling over [N, C, H, W] and their
/// backwards (`out` is then the input's gradient).
struct Pool2dMeta {
  TensorMeta out;           ///< the pooled output, or the input's gradient in a backward
  std::int64_t planes = 0;  ///< N * C
  PoolDim rows, /**< the H dim */ cols;  ///< the W dim
  std::optional<std::int64_t> divisor_override;  ///< avg_pool2d's divisor_override: divides every window's sum when set
};

/// aten.max_pool2d_with_indices: the maxima and the flat h * W + w index of
/// each in its plane (int64).
struct MaxPool2dMeta {
  std::array<TensorMeta, 2> outs;  ///< the maxima (input dtype) and their indices (int64), same shape
  std::int64_t planes = 0;  ///< N * C
  PoolDim rows, /**< the H dim */ cols;  ///< the W dim
};

namespace meta {

/// PyTorch's pooling output size along one dim: (in + 2p - d(k - 1) - 1) / s
/// + 1, rounded down, or up with ceil_mode (then the last window must start
/// inside the input or its left padding). Checked arithmetic: a window longer
/// than the input gives a size below 1, which the caller refuses.
[[nodiscard]] WICK_API std::int64_t pooled_size(const char* op, std::int64_t in, std::int64_t kernel,
                                                std::int64_t stride, std::int64_t padding, std::int64_t dilation,
                                                bool ceil_mode);

/// Window `o` (0 <= o < dim.out) of `dim`, for any kernel, stride and
/// padding the meta function accepted (Note [Checked size arithmetic]).
[[nodiscard]] WICK_API PoolWindow pool_window(const PoolDim& dim, std::int64_t o);

}  // namespace meta
}  // namespace wick
