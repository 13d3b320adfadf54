// dispatch/ops/meta_conv.cpp - meta functions of the internal convolution and pooling operators (Note [Meta
// functions]).
/// \file
/// The `aten` operators behind torch.conv1d/conv2d and the pooling
/// functions (dispatch/composite/nn_conv_composite.cpp checks the user's
/// arguments with PyTorch's messages and calls these on batched 4-D
/// tensors). Here is everything that does not read data: the argument
/// checks, the convolution's geometry and the pooling windows (Note
/// [Pooling windows] in wick/meta_nn.h), computed once for every backend.
/// Every output is contiguous; the messages are the CPU backend's.
#include <algorithm>
#include <limits>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta_nn.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;

Device device_of(const char* op, std::initializer_list<const Tensor*> tensors) {
  return common_device(ArrayRef<const Tensor*>(tensors.begin(), tensors.size()), op);
}

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  WICK_CHECK(a.dtype() == b.dtype(), RuntimeError, op, ": expected scalar type ", type_title(a.dtype()), " but found ",
             type_title(b.dtype()));
}

// --- convolution -----------------------------------------------------------------------------------

void check_conv_float(const char* op, ScalarType t) {
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"slow_conv2d_cpu\" not implemented for '", type_title(t), "'");
}

// (in + 2 * p - d * (k - 1) - 1) / s + 1, with C's truncating division;
// RuntimeError naming `op` when a step leaves int64 (the sizes of the
// backwards are arguments, so anything may come).
I64 conv_output_size(const char* op, I64 in, I64 k, I64 s, I64 p, I64 d) {
  const I64 span =
      checked_sub(checked_add(in, checked_mul(p, 2, op), op), checked_mul(d, checked_sub(k, 1, op), op), op);
  return checked_sub(span, 1, op) / s + 1;
}

Conv2dMeta conv_geometry(const char* op, IntArrayRef input, IntArrayRef weight, IntArrayRef stride, IntArrayRef padding,
                         IntArrayRef dilation, I64 groups) {
  WICK_CHECK(
      input.size() == 4 && weight.size() == 4 && stride.size() == 2 && padding.size() == 2 && dilation.size() == 2,
      RuntimeError, op, ": expected 4-D input and weight and two-element stride, padding and dilation");
  Conv2dMeta g;
  g.n = input[0];
  g.c = input[1];
  g.h = input[2];
  g.w = input[3];
  g.o = weight[0];
  g.kh = weight[2];
  g.kw = weight[3];
  g.sh = stride[0];
  g.sw = stride[1];
  g.ph = padding[0];
  g.pw = padding[1];
  g.dh = dilation[0];
  g.dw = dilation[1];
  g.groups = groups;
  WICK_CHECK(groups > 0 && g.c % groups == 0 && g.o % groups == 0 && weight[1] == g.c / groups, RuntimeError, op,
             ": weight of shape ", format_shape(weight), " does not fit ", g.c, " input channels in ", groups,
             " groups");
  WICK_CHECK(g.sh > 0 && g.sw > 0 && g.dh > 0 && g.dw > 0 && g.ph >= 0 && g.pw >= 0, RuntimeError, op,
             ": stride and dilation must be positive and padding non-negative");
  g.oh = conv_output_size(op, g.h, g.kh, g.sh, g.ph, g.dh);
  g.ow = conv_output_size(op, g.w, g.kw, g.sw, g.pw, g.dw);
  WICK_CHECK(g.oh > 0 && g.ow > 0, RuntimeError, op, ": kernel size can't be greater than actual input size");
  return g;
}

// kInput: input_backward(grad, other = weight) into `size`, the input's
// sizes; else weight_backward(grad, other = input) into the weight's.
template <bool kInput>
Conv2dMeta conv_backward(const Tensor& grad, const Tensor& other, IntArrayRef size, IntArrayRef stride,
                         IntArrayRef padding, IntArrayRef dilation, I64 groups) {
  const char* op = kInput ? "aten.convolution2d_input_backward" : "aten.convolution2d_weight_backward";
  Conv2dMeta g = kInput ? conv_geometry(op, size, other.sizes(), stride, padding, dilation, groups)
                        : conv_geometry(op, other.sizes(), size, stride, padding, dilation, groups);
  WICK_CHECK(grad.sizes().equals(IntArrayRef{g.n, g.o, g.oh, g.ow}), RuntimeError, op, ": grad_output of shape ",
             format_shape(grad.sizes()), " does not match the convolution's output");
  check_same_dtype(op, grad, other);
  check_conv_float(op, grad.dtype());
  g.out = TensorMeta::contiguous(size, grad.dtype(), device_of(op, {&grad, &other}));
  return g;
}

// --- pooling -----------------------------------------------------------------------------------------

// [N, C, H, W], each size as an allocation would accept it: the backwards
// take the input's size as an argument (the fuzzer passed [-2, INT64_MIN, ...]).
void check_pool_shape(const char* op, IntArrayRef sizes) {
  WICK_CHECK(sizes.size() == 4, RuntimeError, op, ": expected a 4-D input, got ", format_shape(sizes));
  for (const I64 s : sizes) WICK_CHECK(s >= 0, RuntimeError, op, ": invalid input size ", format_shape(sizes));
  // N * C counts the planes even when H or W is 0.
  (void)checked_numel(sizes);
  (void)checked_mul(sizes[0], sizes[1], op);
}

void check_pool_args(const char* op, IntArrayRef k, IntArrayRef s, IntArrayRef p, IntArrayRef d) {
  WICK_CHECK(k.size() == 2 && s.size() == 2 && p.size() == 2 && d.size() == 2, RuntimeError, op,
             ": kernel_size, stride, padding and dilation must have two elements");
  WICK_CHECK(k[0] > 0 && k[1] > 0, RuntimeError, op, ": kernel size should be greater than zero, but got kH: ", k[0],
             " kW: ", k[1]);
  WICK_CHECK(s[0] > 0 && s[1] > 0, RuntimeError, op, ": stride should be greater than zero, but got dH: ", s[0],
             " dW: ", s[1]);
  WICK_CHECK(d[0] > 0 && d[1] > 0, RuntimeError, op,
             ": dilation should be greater than zero, but got dilationH: ", d[0], " dilationW: ", d[1]);
  const std::size_t bad = p[0] > k[0] / 2 ? 0 : 1;
  WICK_CHECK(p[0] >= 0 && p[1] >= 0 && p[0] <= k[0] / 2 && p[1] <= k[1] / 2, RuntimeError, op,
             ": pad should be at most half of kernel size, but got pad=", p[bad], " and kernel_size=", k[bad]);
}

void check_output(const char* op, IntArrayRef input_size, I64 oh, I64 ow) {
  const I64 c = input_size[1];
  WICK_CHECK(oh >= 1 && ow >= 1, RuntimeError, op, ": Given input size: (", c, "x", input_size[2], "x", input_size[3],
             "). Calculated output size: (", c, "x", oh, "x", ow, "). Output size is too small");
}

void check_pool_dtype(const char* op, const char* kernel, ScalarType t, bool allow_long) {
  WICK_CHECK(is_floating(t) || (allow_long && t == ScalarType::kInt64), RuntimeError, op, ": \"", kernel,
             "\" not implemented for '", type_title(t), "'");
}

// Average pooling (plain or adaptive) of `src` (kForward), or its adjoint
// from the gradient `src` into `input_size`, over windows `rows` x `cols`.
template <bool kForward>
Pool2dMeta window_pool(const char* op, const char* kernel, const Tensor& src, IntArrayRef input_size,
                       const PoolDim& rows, const PoolDim& cols, std::optional<I64> divisor_override) {
  check_output(op, input_size, rows.out, cols.out);
  WICK_CHECK(!divisor_override || *divisor_override != 0, RuntimeError, op, ": divisor must be not zero");
  const I64 out_sizes[] = {input_size[0], input_size[1], rows.out, cols.out};
  if (!kForward)
    WICK_CHECK(src.sizes().equals(out_sizes), RuntimeError, op, ": grad_output of shape ", format_shape(src.sizes()),
               " does not match the pooling's output");
  const Device device = device_of(op, {&src});
  check_pool_dtype(op, kernel, src.dtype(), kForward && rows.kind == PoolKind::kAverage);
  Pool2dMeta m;
  m.out = TensorMeta::contiguous(kForward ? IntArrayRef(out_sizes) : input_size, src.dtype(), device);
  m.planes = checked_mul(input_size[0], input_size[1], op);
  m.rows = rows;
  m.cols = cols;
  m.divisor_override = divisor_override;
  return m;
}

template <bool kForward>
Pool2dMeta avg_pool(const Tensor& src, IntArrayRef input_size, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil,
                    bool count_include_pad, std::optional<I64> divisor_override) {
  const char* op = kForward ? "torch.nn.functional.avg_pool2d" : "aten.avg_pool2d_backward";
  const I64 one[] = {1, 1};
  check_pool_args(op, k, s, p, one);
  check_pool_shape(op, input_size);
  auto dim = [&](std::size_t i) {
    const I64 in = input_size[2 + i];
    return PoolDim{
        in, meta::pooled_size(op, in, k[i], s[i], p[i], 1, ceil), k[i], s[i], p[i], 1, PoolKind::kAverage, count_include_pad};
  };
  return window_pool<kForward>(op, "avg_pool2d", src, input_size, dim(0), dim(1), divisor_override);
}

// An empty output_size gives an empty result (PyTorch allows it), and the
// backward of one a zero gradient.
template <bool kForward>
Pool2dMeta adaptive_pool(const Tensor& src, IntArrayRef input_size, IntArrayRef output_size) {
  const char* op = kForward ? "torch.nn.functional.adaptive_avg_pool2d" : "aten.adaptive_avg_pool2d_backward";
  check_pool_shape(op, input_size);
  WICK_CHECK(output_size.size() == 2 && output_size[0] >= 0 && output_size[1] >= 0, RuntimeError, op,
             ": output_size must be 2 non-negative sizes");
  for (std::size_t d = 2; d < 4; ++d)
    WICK_CHECK(input_size[d] > 0, RuntimeError, op,
               ": Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
               format_shape(input_size), " with dimension ", d - 1, " being empty");
  const PoolDim rows{input_size[2], output_size[0], 1, 1, 0, 1, PoolKind::kAdaptive, true};
  const PoolDim cols{input_size[3], output_size[1], 1, 1, 0, 1, PoolKind::kAdaptive, true};
  if (rows.out != 0 && cols.out != 0)
    return window_pool<kForward>(op, "adaptive_avg_pool2d", src, input_size, rows, cols, std::nullopt);
  // An empty output: the checks window_pool makes, without its window table.
  const I64 out_sizes[] = {input_size[0], input_size[1], rows.out, cols.out};
  if (!kForward)
    WICK_CHECK(src.sizes().equals(out_sizes), RuntimeError, op, ": grad_output of shape ", format_shape(src.sizes()),
               " does not match the pooling's output");
  check_pool_dtype(op, "adaptive_avg_pool2d", src.dtype(), /*allow_long=*/false);
  Pool2dMeta m;
  m.out = TensorMeta::contiguous(kForward ? IntArrayRef(out_sizes) : input_size, src.dtype(), device_of(op, {&src}));
  m.planes = checked_mul(input_size[0], input_size[1], op);
  m.rows = rows;
  m.cols = cols;
  return m;
}

}  // namespace

namespace meta {

// PyTorch's pooling output size, with ceil_mode's rule that the last window
// must start inside the input or its left padding. Kernel size, stride and
// dilation may be anything up to INT64_MAX (the fuzzer's
// kernel_size=2**63-1), padding at most half the kernel: 2p - d(k - 1) is
// formed first, so that the span never overflows where the result fits. A
// window far longer than the input gives a negative size (check_output
// refuses it).
I64 pooled_size(const char* op, I64 in, I64 k, I64 s, I64 p, I64 d, bool ceil) {
  const I64 span = checked_add(checked_mul(p, 2, op) - checked_mul(d, k - 1, op), in - 1, op);  // both >= 0
  const I64 q = ceil ? ceil_div(span, s, op) : span / s - (span % s < 0 ? 1 : 0);               // rounded up or down
  I64 out = checked_add(q, 1, op);
  // (out - 1) * s >= in + p, without the product.
  if (ceil && q >= 0 && q >= ceil_div(checked_add(in, p, op), s, op)) --out;
  return out;
}

// Each window's ends lie within [-padding, in + padding] when the meta
// function accepted the geometry (pooled_size), so the sums below fit; they
// are formed as start + min(length, room) so that a kernel near INT64_MAX
// is never added to a start.
PoolWindow pool_window(const PoolDim& dim, std::int64_t o) {
  const char* what = "pool_window";
  PoolWindow w;
  switch (dim.kind) {
    case PoolKind::kAdaptive:
      w.start = mul_div_floor(o, dim.in, dim.out, what);
      w.end = mul_div_ceil(o + 1, dim.in, dim.out, what);
      w.count = w.end - w.start;
      break;
    case PoolKind::kAverage: {
      const I64 start = checked_sub(checked_mul(o, dim.stride, what), dim.padding, what);
      const I64 end = start + std::min(dim.kernel, checked_add(dim.in, dim.padding, what) - start);
      w.start = std::max<I64>(start, 0);
      w.end = std::min<I64>(end, dim.in);
      w.count = dim.count_include_pad ? end - start : w.end - w.start;
      break;
    }
    case PoolKind::kMax: {
      const I64 start = checked_sub(checked_mul(o, dim.stride, what), dim.padding, what);
      const I64 span = checked_add(checked_mul(dim.dilation, dim.kernel - 1, what), 1, what);
      w.end = start + std::min(span, dim.in - start);
      // The first tap inside: start + ceil(-start / d) * d, without the product.
      const I64 behind = start < 0 ? -start % dim.dilation : 0;
      w.start = start >= 0 ? start : behind == 0 ? 0 : dim.dilation - behind;
      break;
    }
  }
  return w;
}

}  // namespace meta
}  // namespace wick

// --- the operators (namespace aten) ------------------------------------------------------------------

namespace aten::meta {

using wick::Conv2dMeta;
using wick::IntArrayRef;
using wick::MaxPool2dMeta;
using wick::Pool2dMeta;
using wick::Tensor;

Conv2dMeta convolution2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, std::int64_t groups) {
  const char* op = "aten.convolution2d";
  Conv2dMeta g = wick::conv_geometry(op, input.sizes(), weight.sizes(), stride, padding, dilation, groups);
  wick::check_same_dtype(op, input, weight);
  if (bias) wick::check_same_dtype(op, input, *bias);
  wick::check_conv_float(op, input.dtype());
  const Tensor none;
  const wick::Device device = wick::device_of(op, {&input, &weight, bias ? &*bias : &none});
  WICK_CHECK(!bias || bias->numel() == g.o, RuntimeError, op, ": expected a bias of ", g.o, " elements, got ",
             wick::format_shape(bias->sizes()));
  g.out = wick::TensorMeta::contiguous({g.n, g.o, g.oh, g.ow}, input.dtype(), device);
  return g;
}

Conv2dMeta convolution2d_input_backward(const Tensor& grad_output, const Tensor& weight, IntArrayRef input_size,
                                        IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                        std::int64_t groups) {
  return wick::conv_backward<true>(grad_output, weight, input_size, stride, padding, dilation, groups);
}

Conv2dMeta convolution2d_weight_backward(const Tensor& grad_output, const Tensor& input, IntArrayRef weight_size,
                                         IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                                         std::int64_t groups) {
  return wick::conv_backward<false>(grad_output, input, weight_size, stride, padding, dilation, groups);
}

Pool2dMeta avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,
                      bool ceil_mode, bool count_include_pad, std::optional<std::int64_t> divisor_override) {
  return wick::avg_pool<true>(self, self.sizes(), kernel_size, stride, padding, ceil_mode, count_include_pad,
                              divisor_override);
}

Pool2dMeta avg_pool2d_backward(const Tensor& grad_output, IntArrayRef input_size, IntArrayRef kernel_size,
                               IntArrayRef stride, IntArrayRef padding, bool ceil_mode, bool count_include_pad,
                               std::optional<std::int64_t> divisor_override) {
  return wick::avg_pool<false>(grad_output, input_size, kernel_size, stride, padding, ceil_mode, count_include_pad,
                               divisor_override);
}

Pool2dMeta adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  return wick::adaptive_pool<true>(self, self.sizes(), output_size);
}

// The output size is the gradient's (a gradient that is not 4-D stands for
// an empty output: a zero gradient, as before).
Pool2dMeta adaptive_avg_pool2d_backward(const Tensor& grad_output, IntArrayRef input_size) {
  const std::int64_t out[] = {grad_output.dim() == 4 ? grad_output.sizes()[2] : 0,
                              grad_output.dim() == 4 ? grad_output.sizes()[3] : 0};
  return wick::adaptive_pool<false>(grad_output, input_size, out);
}

MaxPool2dMeta max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride,
                                      IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  using wick::PoolDim;
  using wick::PoolKind;
  const char* op = "torch.nn.functional.max_pool2d";
  const IntArrayRef k = kernel_size;
  const IntArrayRef s = stride;
  const IntArrayRef p = padding;
  const IntArrayRef d = dilation;
  wick::check_pool_args(op, k, s, p, d);
  wick::check_pool_shape(op, self.sizes());
  const IntArrayRef sizes = self.sizes();
  MaxPool2dMeta m;
  m.rows = PoolDim{sizes[2],       wick::meta::pooled_size(op, sizes[2], k[0], s[0], p[0], d[0], ceil_mode),
                   k[0],           s[0],
                   p[0],           d[0],
                   PoolKind::kMax, false};
  m.cols = PoolDim{sizes[3],       wick::meta::pooled_size(op, sizes[3], k[1], s[1], p[1], d[1], ceil_mode),
                   k[1],           s[1],
                   p[1],           d[1],
                   PoolKind::kMax, false};
  wick::check_output(op, sizes, m.rows.out, m.cols.out);
  const wick::Device device = wick::device_of(op, {&self});
  wick::check_pool_dtype(op, "max_pool2d", self.dtype(), false);
  const std::int64_t out_sizes[] = {sizes[0], sizes[1], m.rows.out, m.cols.out};
  m.outs = {wick::TensorMeta::contiguous(out_sizes, self.dtype(), device),
            wick::TensorMeta::contiguous(out_sizes, wick::ScalarType::kInt64, device)};
  m.planes = wick::checked_mul(sizes[0], sizes[1], op);
  return m;
}

}  // namespace aten::meta
