// dispatch/nn_conv_composite.cpp - torch.conv1d/conv2d and the pooling functions: argument checks and reshaping onto
// the aten 2-D kernels.
/// \file
/// The public entries check their arguments with PyTorch's messages, give
/// unbatched inputs a batch dim (removed again from the result), view 1-D
/// problems as 2-D ones of height 1, and call the internal `aten.*`
/// operators, whose Autograd kernels hold the formulas
/// (dispatch/autograd_conv.cpp). padding='same' with an odd total padding
/// pads one extra zero on the right/bottom (a recorded cat), as PyTorch.
#include <string>

#include "dispatch/composite/composite.h"
#include "dispatch/composite/pool_passes.h"
#include "wick/checked.h"
#include "wick/dispatcher.h"
#include "wick/library.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using Ints = DimVector;

template <typename Sig>
TypedOperatorHandle<Sig> typed(const char* name) {
  return find_op(name).typed<Sig>();
}

// A list argument of `n` values: one value stands for all of them.
Ints expand(const char* op, const char* name, IntArrayRef v, std::size_t n) {
  WICK_CHECK(v.size() == n || v.size() == 1, RuntimeError, op, ": expected ", name,
             " to be a single integer value or a list of ", n, " values to match the convolution dimensions, but got ",
             name, "=", format_shape(v));
  Ints out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(v.size() == 1 ? v[0] : v[i]);
  return out;
}

// --- convolution -------------------------------------------------------------------------------

Tensor pad_right(const Tensor& x, std::int64_t dim) {
  DimVector sizes(x.sizes());
  sizes[static_cast<std::size_t>(dim)] = 1;
  return cat({x, zeros(sizes, x.dtype(), x.device())}, dim);
}

// Convolution of integer tensors, which PyTorch's CPU computes (slowly) and
// the GEMM backends do not: a sum over the kernel's positions of the strided
// input window times that position's weights (an integer matmul), per group.
// The arguments are checked by conv_nd; x is 4-D (N, C, H, W).
Tensor integer_conv2d(T x, T weight, OptTensor bias, IntArrayRef stride, IntArrayRef pad, IntArrayRef dilation,
                      std::int64_t groups) {
  const char* op = "torch.conv2d";
  // PyTorch's CUDA has no integer convolution: its refusal, before any work.
  if (x.device().type() == DeviceType::kCUDA) throw_not_implemented_for("slow_conv2d_cuda", x.dtype());
  WICK_CHECK(x.dtype() != ScalarType::kBool, RuntimeError, op, ": \"slow_conv2d_cpu\" not implemented for 'Bool'");
  const std::int64_t n = x.sizes()[0];
  const std::int64_t cg = weight.sizes()[1];
  const std::int64_t og = weight.sizes()[0] / groups;
  const Tensor xp = pad[0] == 0 && pad[1] == 0 ? x : constant_pad_nd(x, {pad[1], pad[1], pad[0], pad[0]}, 0);
  std::int64_t out_size[2];
  for (std::size_t i = 0; i < 2; ++i) {
    const std::int64_t span = checked_mul(dilation[i], weight.sizes()[2 + i] - 1, op);
    out_size[i] = checked_add(checked_sub(checked_sub(xp.sizes()[2 + i], span, op), 1, op) / stride[i], 1, op);
  }
  // Input positions k * dilation + stride * [0, out): the window of kernel position k along a dim.
  const auto window = [&](std::size_t dim, std::int64_t k) {
    const std::int64_t start = checked_mul(k, dilation[dim], op);
    const std::int64_t end = checked_add(checked_mul(stride[dim], out_size[dim] - 1, op), start + 1, op);
    return arange(start, end, stride[dim], ScalarType::kInt64, x.device());
  };
  std::vector<Tensor> parts;
  for (std::int64_t g = 0; g < groups; ++g) {
    const Tensor xg = narrow(xp, 1, checked_mul(g, cg, op), cg);
    const Tensor wg = narrow(weight, 0, checked_mul(g, og, op), og);
    Tensor acc = zeros({n, out_size[0], out_size[1], og}, x.dtype(), x.device());
    for (std::int64_t i = 0; i < weight.sizes()[2]; ++i) {
      const Tensor window_rows = index_select(xg, 2, window(0, i));
      for (std::int64_t j = 0; j < weight.sizes()[3]; ++j) {
        const Tensor taps = index_select(window_rows, 3, window(1, j)).permute({0, 2, 3, 1});  // (N, Ho, Wo, C/g)
        acc = add(acc, matmul(taps, select(select(wg, 3, j), 2, i).t()));
      }
    }
    parts.push_back(acc.permute({0, 3, 1, 2}));
  }
  Tensor out = groups == 1 ? parts[0].contiguous() : cat(parts, 1);
  if (bias) out = add(out, reshape(*bias, {1, bias->sizes()[0], 1, 1}));
  return out;
}

// Note [Convolution in three dims]
// conv3d is one conv2d: each output depth's kD input planes are gathered
// (index_select along the depth) into channels, ordered (group, kd, channel)
// so that the groups stay contiguous, and the weight's (C/g, kD) dims are
// merged the same way (kd before channel). The gathered input is kD times
// the padded input's size; the gradients come from index_select's.
template <typename Run>
Tensor conv3d_as_2d(const char* op, const Run& run, T x, T weight, OptTensor bias, const Ints& stride, const Ints& pad,
                    const Ints& dilation, std::int64_t groups) {
  const std::int64_t n = x.sizes()[0];
  const std::int64_t c = x.sizes()[1];
  const std::int64_t k = weight.sizes()[0];
  const std::int64_t kd = weight.sizes()[2];
  Tensor xp = x;
  if (pad[0] != 0) {
    const std::int64_t depth_pad[] = {0, 0, 0, 0, pad[0], pad[0]};
    xp = nn::functional::pad(x, IntArrayRef(depth_pad, 6));
  }
  const std::int64_t reach = checked_mul(dilation[0], kd - 1, op);
  const std::int64_t span = checked_sub(xp.sizes()[2], checked_add(reach, 1, op), op);
  const std::int64_t od = checked_add(span / stride[0], 1, op);
  std::vector<std::int64_t> planes;
  for (std::int64_t o = 0; o < od; ++o)
    for (std::int64_t j = 0; j < kd; ++j)
      planes.push_back(checked_add(checked_mul(o, stride[0], op), checked_mul(j, dilation[0], op), op));
  const Tensor index = tensor(Value(planes), ScalarType::kInt64, x.device());
  const std::int64_t cg = c / groups;
  const std::int64_t h = xp.sizes()[3];
  const std::int64_t w = xp.sizes()[4];
  const std::int64_t split[] = {n, groups, cg, od, kd, h, w};
  const std::int64_t order[] = {0, 3, 1, 4, 2, 5, 6};
  const std::int64_t merged[] = {checked_mul(n, od, op), checked_mul(c, kd, op), h, w};
  const Tensor columns = index_select(xp, 2, index).reshape(IntArrayRef(split, 7)).permute(IntArrayRef(order, 7))
                             .reshape(IntArrayRef(merged, 4));
  const std::int64_t wshape[] = {k, checked_mul(cg, kd, op), weight.sizes()[3], weight.sizes()[4]};
  const std::int64_t worder[] = {0, 2, 1, 3, 4};
  const Tensor w2 = weight.permute(IntArrayRef(worder, 5)).reshape(IntArrayRef(wshape, 4));
  const std::int64_t s2[] = {stride[1], stride[2]};
  const std::int64_t p2[] = {pad[1], pad[2]};
  const std::int64_t d2[] = {dilation[1], dilation[2]};
  const Tensor y = run(columns, w2, bias, IntArrayRef(s2, 2), IntArrayRef(p2, 2), IntArrayRef(d2, 2), groups);
  const std::int64_t back[] = {n, od, k, y.sizes()[2], y.sizes()[3]};
  const std::int64_t to_ncdhw[] = {0, 2, 1, 3, 4};
  return y.reshape(IntArrayRef(back, 5)).permute(IntArrayRef(to_ncdhw, 5)).contiguous();
}

// spatial: 1, 2 or 3. Returns the result of input (batched or not) conv weight.
Tensor conv_nd(const char* op, std::size_t spatial, T input, T weight, OptTensor bias, IntArrayRef stride_arg,
               const Value& padding, IntArrayRef dilation_arg, std::int64_t groups) {
  const auto dims = static_cast<std::int64_t>(spatial);
  const bool batched = input.dim() == dims + 2;
  WICK_CHECK(batched || input.dim() == dims + 1, RuntimeError, op, ": Expected ", dims + 1, "D (unbatched) or ",
             dims + 2, "D (batched) input to ", spatial == 1 ? "conv1d" : spatial == 2 ? "conv2d" : "conv3d",
             ", but got input of size: ", format_shape(input.sizes()));
  Tensor x = batched ? input : input.unsqueeze(0);
  WICK_CHECK(weight.dim() == dims + 2, RuntimeError, op, ": Expected ", weight.dim(), "-dimensional input for ",
             weight.dim(), "-dimensional weight ", format_shape(weight.sizes()), ", but got ", x.dim(),
             "-dimensional input of size ", format_shape(x.sizes()), " instead");
  Ints stride = expand(op, "stride", stride_arg, spatial);
  Ints dilation = expand(op, "dilation", dilation_arg, spatial);
  for (std::int64_t s : stride) WICK_CHECK(s > 0, RuntimeError, op, ": non-positive stride is not supported");
  for (std::int64_t d : dilation) WICK_CHECK(d > 0, RuntimeError, op, ": non-positive dilation is not supported");
  WICK_CHECK(groups > 0, RuntimeError, op, ": non-positive groups is not supported");
  WICK_CHECK(x.dtype() == weight.dtype(), RuntimeError, op, ": Input type (", legacy_type_name(x.dtype(), x.device()),
             ") and weight type (", legacy_type_name(weight.dtype(), weight.device()), ") should be the same");
  const std::int64_t channels = x.sizes()[1];
  WICK_CHECK(weight.sizes()[0] % groups == 0, RuntimeError, op, ": Given groups=", groups,
             ", expected weight to be divisible by ", groups, " at dimension 0, but got weight of size ",
             format_shape(weight.sizes()), " instead");
  const std::optional<std::int64_t> expected_channels = try_mul(weight.sizes()[1], groups);
  WICK_CHECK(expected_channels == channels, RuntimeError, op, ": Given groups=", groups, ", weight of size ",
             format_shape(weight.sizes()), ", expected input", format_shape(x.sizes()), " to have ",
             expected_channels ? std::to_string(*expected_channels)
                               : std::to_string(weight.sizes()[1]) + " * " + std::to_string(groups),
             " channels, but got ", channels, " channels instead");
  if (bias)
    WICK_CHECK(bias->dim() == 1 && bias->sizes()[0] == weight.sizes()[0], RuntimeError, op, ": Given weight of size ",
               format_shape(weight.sizes()), ", expected bias to be 1-dimensional with ", weight.sizes()[0],
               " elements, but got bias of size ", format_shape(bias->sizes()), " instead");
  // Window extents past int64 (a huge dilation) cannot fit any input.
  for (std::size_t i = 0; i < spatial; ++i) {
    const std::optional<std::int64_t> extent = try_mul(dilation[i], weight.sizes()[2 + i] - 1);
    WICK_CHECK(extent && *extent < (std::int64_t{1} << 62), RuntimeError, op, ": dilation ", dilation[i],
               " is too large for a kernel of size ", weight.sizes()[2 + i]);
  }
  Ints pad;
  if (padding.is_string()) {
    const std::string& mode = padding.to_string();
    WICK_CHECK(mode == "valid" || mode == "same", RuntimeError, op, ": Invalid padding string: '", mode, "'");
    for (std::size_t i = 0; i < spatial; ++i) pad.push_back(0);
    if (mode == "same") {
      for (std::int64_t s : stride)
        WICK_CHECK(s == 1, RuntimeError, op, ": padding='same' is not supported for strided convolutions");
      for (std::size_t i = 0; i < spatial; ++i) {
        const std::int64_t total = dilation[i] * (weight.sizes()[2 + i] - 1);
        pad[i] = total / 2;
        if (total % 2 != 0) x = pad_right(x, 2 + static_cast<std::int64_t>(i));
      }
    }
  } else {
    std::vector<std::int64_t> p;
    if (padding.is_int() || padding.is_bool()) {
      p.push_back(padding.to_int());
    } else if (padding.is_int_list()) {
      p = padding.to_int_list();
    } else {
      WICK_CHECK(padding.is_list() || padding.is_tuple(), TypeError, op,
                 ": argument 'padding' must be a tuple of ints or a string");
      for (const Value& v : padding.items()) {
        WICK_CHECK(v.is_int(), TypeError, op, ": argument 'padding' must be a tuple of ints or a string");
        p.push_back(v.to_int());
      }
    }
    pad = expand(op, "padding", p, spatial);
  }
  for (std::int64_t p : pad) {
    WICK_CHECK(p >= 0, RuntimeError, op, ": negative padding is not supported");
    WICK_CHECK(p < (std::int64_t{1} << 61), RuntimeError, op, ": padding ", p, " is too large");
  }
  // Kernel larger than the padded input. The kernel's extent is below
  // 2**62 + 1 and the padding below 2**61 (checked above); the input's size
  // may be anything up to 2**63 - 1 (an expanded view).
  Ints padded_size;
  Ints kernel_size;
  bool fits = true;
  for (std::size_t i = 0; i < spatial; ++i) {
    padded_size.push_back(checked_add(x.sizes()[2 + i], 2 * pad[i], op));
    kernel_size.push_back(dilation[i] * (weight.sizes()[2 + i] - 1) + 1);
    fits = fits && padded_size[i] >= kernel_size[i];
  }
  if (!fits) {
    std::string padded;
    std::string kernel;
    for (std::size_t i = 0; i < spatial; ++i) {
      padded += (i != 0 ? " x " : "") + std::to_string(padded_size[i]);
      kernel += (i != 0 ? " x " : "") + std::to_string(kernel_size[i]);
    }
    WICK_CHECK(false, RuntimeError, op, ": Calculated padded input size per channel: (", padded, "). Kernel size: (",
               kernel, "). Kernel size can't be greater than actual input size");
  }
  static const auto conv =
      typed<Tensor(T, T, OptTensor, IntArrayRef, IntArrayRef, IntArrayRef, std::int64_t)>("aten.convolution2d");
  const bool floating = is_floating(x.dtype());
  const auto run = [&](T a, T b, OptTensor c, IntArrayRef s, IntArrayRef p, IntArrayRef d, std::int64_t g) {
    return floating ? conv.call(a, b, c, s, p, d, g) : integer_conv2d(a, b, c, s, p, d, g);
  };
  Tensor out;
  if (spatial == 3) {
    // PyTorch 1.13's CPU conv3d has no float16 loop (its im2col's name).
    WICK_CHECK(x.dtype() != ScalarType::kFloat16 || !x.device().is_cpu(), RuntimeError, op,
               ": \"compute_columns3d\" not implemented for 'Half'");
    out = conv3d_as_2d(op, run, x, weight, bias, stride, pad, dilation, groups);
  } else if (spatial == 1) {
    const std::int64_t s[] = {1, stride[0]};
    const std::int64_t p[] = {0, pad[0]};
    const std::int64_t d[] = {1, dilation[0]};
    out =
        run(x.unsqueeze(2), weight.unsqueeze(2), bias, IntArrayRef(s, 2), IntArrayRef(p, 2), IntArrayRef(d, 2), groups)
            .squeeze(2);
  } else {
    out = run(x, weight, bias, stride, pad, dilation, groups);
  }
  return batched ? out : out.squeeze(0);
}

Tensor conv1d_kernel(T input, T weight, OptTensor bias, IntArrayRef stride, const Value& padding, IntArrayRef dilation,
                     std::int64_t groups) {
  return conv_nd("torch.conv1d", 1, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv2d_kernel(T input, T weight, OptTensor bias, IntArrayRef stride, const Value& padding, IntArrayRef dilation,
                     std::int64_t groups) {
  return conv_nd("torch.conv2d", 2, input, weight, bias, stride, padding, dilation, groups);
}
Tensor conv3d_kernel(T input, T weight, OptTensor bias, IntArrayRef stride, const Value& padding, IntArrayRef dilation,
                     std::int64_t groups) {
  return conv_nd("torch.conv3d", 3, input, weight, bias, stride, padding, dilation, groups);
}

// --- pooling -----------------------------------------------------------------------------------

// A 3-D (unbatched) or 4-D input as 4-D; `batched` says which.
Tensor as_batched(const char* op, T input, bool& batched) {
  WICK_CHECK(input.dim() == 3 || input.dim() == 4, RuntimeError, op, ": Expected 3D or 4D tensor, but got ",
             format_shape(input.sizes()));
  batched = input.dim() == 4;
  return batched ? input : input.unsqueeze(0);
}

Ints pool_param(const char* op, const char* name, IntArrayRef v, std::size_t n) {
  WICK_CHECK(v.size() == n || v.size() == 1, RuntimeError, op, ": ", name,
             " must either be a single int, or a tuple of ", n, " ints");
  Ints out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(v.size() == 1 ? v[0] : v[i]);
  return out;
}

std::tuple<Tensor, Tensor> max_pool2d_indices(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                              bool /*return_indices*/) {
  const char* op = "torch.nn.functional.max_pool2d";
  static const auto pool =
      typed<std::tuple<Tensor, Tensor>(T, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool)>(
          "aten.max_pool2d_with_indices");
  bool batched = false;
  Tensor x = as_batched(op, input, batched);
  const Ints k = pool_param(op, "kernel_size", kernel_size, 2);
  const Ints s = stride && !stride->empty() ? pool_param(op, "stride", *stride, 2) : k;
  for (std::int64_t v : s) WICK_CHECK(v != 0, RuntimeError, op, ": stride should not be zero");
  auto [out, idx] =
      pool.call(x, k, s, pool_param(op, "padding", padding, 2), pool_param(op, "dilation", dilation, 2), ceil_mode);
  if (batched) return {out, idx};
  return {out.squeeze(0), idx.squeeze(0)};
}

Tensor torch_max_pool2d(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride, IntArrayRef padding,
                        IntArrayRef dilation, bool ceil_mode) {
  return std::get<0>(max_pool2d_indices(input, kernel_size, stride, padding, dilation, ceil_mode, false));
}

Value f_max_pool2d(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride, IntArrayRef padding,
                   IntArrayRef dilation, bool ceil_mode, bool return_indices) {
  auto [out, idx] = max_pool2d_indices(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices);
  if (!return_indices) return Value(out);
  return Value::list({Value(out), Value(idx)}, true);
}

Tensor avg_pool2d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride, IntArrayRef padding,
                         bool ceil_mode, bool count_include_pad, std::optional<std::int64_t> divisor_override) {
  const char* op = "torch.nn.functional.avg_pool2d";
  static const auto pool =
      typed<Tensor(T, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool, std::optional<std::int64_t>)>(
          "aten.avg_pool2d");
  bool batched = false;
  Tensor x = as_batched(op, input, batched);
  const Ints k = pool_param(op, "kernel_size", kernel_size, 2);
  const Ints s = stride && !stride->empty() ? pool_param(op, "stride", *stride, 2) : k;
  for (std::int64_t v : s) WICK_CHECK(v != 0, RuntimeError, op, ": stride should not be zero");
  Tensor out =
      pool.call(x, k, s, pool_param(op, "padding", padding, 2), ceil_mode, count_include_pad, divisor_override);
  return batched ? out : out.squeeze(0);
}

Tensor avg_pool1d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride, IntArrayRef padding,
                         bool ceil_mode, bool count_include_pad) {
  const char* op = "torch.avg_pool1d";
  WICK_CHECK(input.dim() == 2 || input.dim() == 3, RuntimeError, op, ": Expected 2 to 3 dimensions, but got ",
             input.dim(), "-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)");
  const Ints k = pool_param(op, "kernel_size", kernel_size, 1);
  const Ints s = stride && !stride->empty() ? pool_param(op, "stride", *stride, 1) : k;
  const Ints p = pool_param(op, "padding", padding, 1);
  const std::int64_t k2[] = {1, k[0]};
  const std::int64_t s2[] = {1, s[0]};
  const std::int64_t p2[] = {0, p[0]};
  return avg_pool2d_kernel(input.unsqueeze(-2), IntArrayRef(k2, 2), IntArrayRef(s2, 2), IntArrayRef(p2, 2), ceil_mode,
                           count_include_pad, std::nullopt)
      .squeeze(-2);
}

Tensor adaptive_avg_pool2d_kernel(T input, IntArrayRef output_size) {
  const char* op = "torch.nn.functional.adaptive_avg_pool2d";
  static const auto pool = typed<Tensor(T, IntArrayRef)>("aten.adaptive_avg_pool2d");
  WICK_CHECK(input.dim() == 3 || input.dim() == 4, RuntimeError, op, ": Expected 3D or 4D tensor, but got ",
             format_shape(input.sizes()));
  for (std::int64_t d = 1; d < input.dim(); ++d)
    WICK_CHECK(input.sizes()[d] > 0, RuntimeError, op,
               ": Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
               format_shape(input.sizes()), " with dimension ", d, " being empty");
  const Ints out_size = pool_param(op, "output_size", output_size, 2);
  bool batched = false;
  Tensor x = as_batched(op, input, batched);
  Tensor out = pool.call(x, out_size);
  return batched ? out : out.squeeze(0);
}

// F.adaptive_avg_pool2d's output_size as PyTorch's Python reads it (pool::adaptive_sizes).
Tensor f_adaptive_avg_pool2d_kernel(T input, const Value& output_size) {
  return adaptive_avg_pool2d_kernel(input, pool::adaptive_sizes("adaptive_avg_pool2d", input, output_size, 2));
}

Tensor adaptive_avg_pool1d_kernel(T input, IntArrayRef output_size) {
  const char* op = "torch.adaptive_avg_pool1d";
  WICK_CHECK(output_size.size() == 1, RuntimeError, op, ": argument 'output_size' should contain one int (got ",
             output_size.size(), ")");
  WICK_CHECK(input.dim() == 2 || input.dim() == 3, RuntimeError, op, ": Expected 2 to 3 dimensions, but got ",
             input.dim(),
             "-dimensional tensor for argument #1 'self' (while checking arguments for "
             "adaptive_avg_pool1d)");
  const std::int64_t size2[] = {1, output_size[0]};
  return adaptive_avg_pool2d_kernel(input.unsqueeze(-2), IntArrayRef(size2, 2)).squeeze(-2);
}

// Note [Transposed convolution as a convolution]
// conv_transpose is the gradient of conv with respect to its input. In one
// and two dims, with output_padding below the stride, it is exactly the
// operator aten.convolution2d_input_backward of x with the weight as it is
// (the output's size, fed to a convolution, gives back x's): one direct
// kernel (oneDNN's backward-data where the build has it), whose
// derivatives are conv's other two operators (dispatch/autograd/conv.cpp),
// plus the bias. Otherwise (conv3d, integers, complex numbers, an
// output_padding of at least the stride, allowed below the dilation) it
// is a plain convolution: the input with stride - 1 zeros between its
// elements, padded by dilation (k - 1) - padding on each side (a negative
// amount crops) and output_padding more at the end, convolved at stride 1
// with the weight flipped in each spatial dim and its two channel dims
// swapped within each group; the zeros cost stride^2 times the work.
// conv_transpose of a batched 3-D or 4-D floating x as convolution2d_input_backward
// (Note [Transposed convolution as a convolution]); reach[i] is d (k - 1) - p.
Tensor transposed_as_adjoint(T x, T weight, OptTensor bias, const Ints& stride, const Ints& padding,
                             const Ints& dilation, std::int64_t groups, const Ints& reach, const Ints& output_padding) {
  static const auto input_backward =
      typed<Tensor(T, T, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, std::int64_t)>(
          "aten.convolution2d_input_backward");
  const char* op = "conv_transpose";
  const bool one_dim = stride.size() == 1;
  // As 2-D: a 1-D problem is one of height 1.
  const Tensor x4 = one_dim ? x.unsqueeze(2) : x;
  const Tensor w4 = one_dim ? weight.unsqueeze(2) : weight;
  Ints s4 = one_dim ? Ints{1, stride[0]} : stride;
  Ints p4 = one_dim ? Ints{0, padding[0]} : padding;
  Ints d4 = one_dim ? Ints{1, dilation[0]} : dilation;
  // The output's extent per dim: (in - 1) s + reach + output_padding + 1 - p, reach = d (k - 1) - p.
  std::int64_t size[4] = {x4.sizes()[0], checked_mul(w4.sizes()[1], groups, op), 1, 1};
  for (std::size_t i = 0; i < stride.size(); ++i) {
    const std::size_t d = one_dim ? 3 : 2 + i;
    const std::int64_t grown = checked_mul(x4.sizes()[static_cast<std::int64_t>(d)] - 1, stride[i], op);
    size[d] = checked_add(checked_add(checked_sub(grown, padding[i], op), reach[i], op), output_padding[i] + 1, op);
  }
  Tensor out = input_backward.call(x4, w4, IntArrayRef(size, 4), s4, p4, d4, groups);
  if (bias) out = add(out, bias->reshape({1, size[1], 1, 1}));
  return one_dim ? out.squeeze(2) : out;
}

Tensor conv_transpose_nd(const char* op, std::size_t spatial, T input, T weight, OptTensor bias, IntArrayRef stride_arg,
                         IntArrayRef padding_arg, IntArrayRef output_padding_arg, std::int64_t groups,
                         IntArrayRef dilation_arg) {
  const auto dims = static_cast<std::int64_t>(spatial);
  const char* name = spatial == 1 ? "conv_transpose1d" : spatial == 2 ? "conv_transpose2d" : "conv_transpose3d";
  const bool batched = input.dim() == dims + 2;
  WICK_CHECK(batched || input.dim() == dims + 1, RuntimeError, op, ": Expected ", dims + 1, "D (unbatched) or ",
             dims + 2, "D (batched) input to ", name, ", but got input of size: ", format_shape(input.sizes()));
  Tensor x = batched ? input : input.unsqueeze(0);
  WICK_CHECK(weight.dim() == dims + 2, RuntimeError, op, ": Expected ", weight.dim(), "-dimensional input for ",
             weight.dim(), "-dimensional weight ", format_shape(weight.sizes()), ", but got ", x.dim(),
             "-dimensional input of size ", format_shape(x.sizes()), " instead");
  const Ints stride = expand(op, "stride", stride_arg, spatial);
  const Ints padding = expand(op, "padding", padding_arg, spatial);
  const Ints output_padding = expand(op, "output_padding", output_padding_arg, spatial);
  const Ints dilation = expand(op, "dilation", dilation_arg, spatial);
  for (std::int64_t v : stride) WICK_CHECK(v > 0, RuntimeError, op, ": non-positive stride is not supported");
  for (std::int64_t v : dilation) WICK_CHECK(v > 0, RuntimeError, op, ": non-positive dilation is not supported");
  for (std::int64_t v : padding) WICK_CHECK(v >= 0, RuntimeError, op, ": negative padding is not supported");
  for (std::int64_t v : output_padding)
    WICK_CHECK(v >= 0, RuntimeError, op, ": negative output_padding is not supported");
  WICK_CHECK(groups > 0, RuntimeError, op, ": non-positive groups is not supported");
  WICK_CHECK(x.dtype() == weight.dtype(), RuntimeError, op, ": Input type (", legacy_type_name(x.dtype(), x.device()),
             ") and weight type (", legacy_type_name(weight.dtype(), weight.device()), ") should be the same");
  // PyTorch 1.13's CPU kernel takes the floating dtypes and int64, and a
  // 1-D call also complex numbers (as two real convolutions).
  const bool complex_ok = spatial == 1 && is_complex(x.dtype());
  WICK_CHECK(is_floating(x.dtype()) || x.dtype() == ScalarType::kInt64 || complex_ok, RuntimeError, op, ": \"",
             spatial == 3 ? "slow_conv_transpose3d_out_cpu" : "slow_conv_transpose2d_out_cpu",
             "\" not implemented for '", type_title(x.dtype()), "'");
  const std::int64_t c_in = weight.sizes()[0];
  WICK_CHECK(x.sizes()[1] == c_in, RuntimeError, op, ": Given transposed=1, weight of size ",
             format_shape(weight.sizes()), ", expected input", format_shape(x.sizes()), " to have ", c_in,
             " channels, but got ", x.sizes()[1], " channels instead");
  WICK_CHECK(c_in % groups == 0, RuntimeError, op, ": Given groups=", groups,
             ", expected weight to be divisible by ", groups, " at dimension 0, but got weight of size ",
             format_shape(weight.sizes()), " instead");
  const std::int64_t c_out = checked_mul(weight.sizes()[1], groups, op);
  if (bias)
    WICK_CHECK(bias->dim() == 1 && bias->sizes()[0] == c_out, RuntimeError, op, ": Given transposed=1, weight of size ",
               format_shape(weight.sizes()), ", expected bias to be 1-dimensional with ", c_out,
               " elements, but got bias of size ", format_shape(bias->sizes()), " instead");
  bool small_enough = true;
  for (std::size_t i = 0; i < spatial; ++i)
    small_enough = small_enough && (output_padding[i] < stride[i] || output_padding[i] < dilation[i]);
  if (!small_enough) {
    // PyTorch reports a 1-D call as the 2-D one it runs: a height of output
    // padding 0, stride 1 and dilation 1.
    std::string text;
    const auto names = [&](const char* what, const Ints& v, std::int64_t unit) {
      const std::int64_t height = spatial == 1 ? unit : v[spatial - 2];
      const std::int64_t width = v[spatial - 1];
      if (spatial == 3) text += std::string(text.empty() ? "" : " ") + what + "_depth: " + std::to_string(v[0]);
      text += std::string(text.empty() ? "" : " ") + what + "_height: " + std::to_string(height) + " " + what +
              "_width: " + std::to_string(width);
    };
    names("output_padding", output_padding, 0);
    names("stride", stride, 1);
    names("dilation", dilation, 1);
    WICK_CHECK(false, RuntimeError, op, ": output padding must be smaller than either stride or dilation, but got ",
               text);
  }
  // The output's extent per spatial dim, (in - 1) s - 2 p + d (k - 1) + op + 1.
  std::string in_text;
  std::string out_text;
  bool positive = true;
  Ints before;
  Ints after;
  for (std::size_t i = 0; i < spatial; ++i) {
    const std::int64_t in = x.sizes()[2 + i];
    const std::int64_t reach = checked_mul(dilation[i], weight.sizes()[2 + i] - 1, op);
    const std::int64_t grown = checked_mul(in - 1, stride[i], op);
    const std::int64_t extent = checked_add(
        checked_add(checked_sub(grown, checked_mul(2, padding[i], op), op), reach, op), output_padding[i] + 1, op);
    positive = positive && extent > 0 && in > 0;
    in_text += (i != 0 ? " x " : "") + std::to_string(in);
    out_text += (i != 0 ? " x " : "") + std::to_string(extent);
    before.push_back(checked_sub(reach, padding[i], op));
    after.push_back(checked_add(before.back(), output_padding[i], op));
  }
  WICK_CHECK(positive, RuntimeError, op, ": Given input size per channel: (", in_text,
             "). Calculated output size per channel: (", out_text, "). Output size is too small");
  bool adjoint = spatial < 3 && is_floating(x.dtype());
  for (std::size_t i = 0; i < spatial; ++i) adjoint = adjoint && output_padding[i] < stride[i];
  if (adjoint) {
    Tensor out = transposed_as_adjoint(x, weight, bias, stride, padding, dilation, groups, before, output_padding);
    return batched ? out : out.squeeze(0);
  }
  // stride - 1 zeros after each element but the last, dim by dim.
  for (std::size_t i = 0; i < spatial; ++i) {
    const std::int64_t s = stride[i];
    if (s == 1) continue;
    const std::int64_t d = 2 + static_cast<std::int64_t>(i);
    DimVector gap(x.sizes());
    gap.insert(static_cast<std::size_t>(d) + 1, s - 1);
    const Tensor zeros_gap = zeros(IntArrayRef(gap), x.dtype(), x.device());
    Tensor spread = cat({x.unsqueeze(d + 1), zeros_gap}, d + 1);
    DimVector merged(x.sizes());
    merged[static_cast<std::size_t>(d)] = checked_mul(x.sizes()[d], s, op);
    x = spread.reshape(IntArrayRef(merged)).narrow(d, 0, checked_add(checked_mul(x.sizes()[d] - 1, s, op), 1, op));
  }
  DimVector pads;  // F.pad's order: the last dim first
  for (std::size_t i = spatial; i-- > 0;) {
    pads.push_back(before[i]);
    pads.push_back(after[i]);
  }
  x = nn::functional::pad(x, IntArrayRef(pads));
  // (C_in, C_out / g, k...) -> (C_out, C_in / g, k...), flipped.
  DimVector grouped(weight.sizes());
  grouped[0] = c_in / groups;
  grouped.insert(0, groups);
  DimVector swapped(weight.sizes());
  swapped[0] = c_out;
  swapped[1] = c_in / groups;
  DimVector spatial_dims;
  for (std::int64_t i = 0; i < dims; ++i) spatial_dims.push_back(2 + i);
  const Tensor w = weight.reshape(IntArrayRef(grouped)).transpose(1, 2).reshape(IntArrayRef(swapped)).flip(spatial_dims);
  const Ints ones(spatial, 1);
  Tensor out = conv_nd(op, spatial, x, w, bias, ones, Value(0), dilation, groups);
  return batched ? out : out.squeeze(0);
}

Tensor conv_transpose1d_kernel(T input, T weight, OptTensor bias, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef output_padding, std::int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd("torch.conv_transpose1d", 1, input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}
Tensor conv_transpose2d_kernel(T input, T weight, OptTensor bias, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef output_padding, std::int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd("torch.conv_transpose2d", 2, input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}
Tensor conv_transpose3d_kernel(T input, T weight, OptTensor bias, IntArrayRef stride, IntArrayRef padding,
                               IntArrayRef output_padding, std::int64_t groups, IntArrayRef dilation) {
  return conv_transpose_nd("torch.conv_transpose3d", 3, input, weight, bias, stride, padding, output_padding, groups,
                           dilation);
}

// torch.conv_tbc: a 1-D convolution of a (time, batch, channel) input with a
// (width, in, out) weight and a bias, padded by `pad` in time.
Tensor conv_tbc_kernel(T input, T weight, T bias, std::int64_t pad) {
  const char* op = "torch.conv_tbc";
  WICK_CHECK(input.dim() == 3, RuntimeError, op, ": Input must have 3 dims: time, batch, in_channel");
  WICK_CHECK(weight.dim() == 3, RuntimeError, op, ": Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.");
  WICK_CHECK(bias.dim() == 1, RuntimeError, op, ": Bias must be 1-D");
  WICK_CHECK(input.sizes()[2] == weight.sizes()[1], RuntimeError, op,
             ": Input dim 2 (input channels) is not == dim 1 in the weight tensor");
  WICK_CHECK(weight.sizes()[2] == bias.sizes()[0], RuntimeError, op,
             ": Bias size must equal dim 2 in the weight tensor (output channels).");
  const std::int64_t time = checked_sub(checked_add(input.sizes()[0], checked_mul(pad, 2, op), op),
                                        weight.sizes()[0] - 1, op);
  const std::int64_t shown[] = {time, input.sizes()[1], weight.sizes()[2]};
  WICK_CHECK(time >= 0, RuntimeError, op, ": Trying to create tensor with negative dimension ", time, ": ",
             format_shape(IntArrayRef(shown, 3)));
  WICK_CHECK(pad >= 0, RuntimeError, op, ": negative padding is not supported");
  // PyTorch computes it as matrix products (addmm): its dtypes.
  WICK_CHECK(input.dtype() != ScalarType::kFloat16, RuntimeError, op,
             ": \"addmm_impl_cpu_\" not implemented for 'Half'");
  if (time == 0) return add(zeros(IntArrayRef(shown, 3), input.dtype(), input.device()), bias);
  const std::int64_t bct[] = {1, 2, 0};
  const std::int64_t oik[] = {2, 1, 0};
  const std::int64_t one[] = {1};
  const Tensor y = conv_nd(op, 1, input.permute(IntArrayRef(bct, 3)), weight.permute(IntArrayRef(oik, 3)), bias,
                           IntArrayRef(one, 1), Value(pad), IntArrayRef(one, 1), 1);  // (batch, out, time)
  const std::int64_t tbc[] = {2, 0, 1};
  return y.permute(IntArrayRef(tbc, 3)).contiguous();
}

// F.lp_pool1d / lp_pool2d: (sum of x^p over each window)^(1/p), as the
// window's mean times its element count (the sign of a negative sum kept
// through the relu, as PyTorch's formula has it).
Tensor lp_finish(T pooled, double norm_type, std::int64_t window) {
  Tensor kept = mul(sign(pooled), relu(abs(pooled)));
  return pow(mul(kept, wrap_scalar(Scalar(window))), Scalar(1.0 / norm_type));
}

Tensor lp_pool1d_kernel(T input, double norm_type, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                        bool ceil_mode) {
  const char* op = "torch.nn.functional.lp_pool1d";
  const Ints k = pool_param(op, "kernel_size", kernel_size, 1);
  const std::int64_t zero[] = {0};
  Tensor pooled = avg_pool1d_kernel(pow(input, Scalar(norm_type)), k, stride, IntArrayRef(zero, 1), ceil_mode, true);
  return lp_finish(pooled, norm_type, k[0]);
}

Tensor lp_pool2d_kernel(T input, double norm_type, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                        bool ceil_mode) {
  const char* op = "torch.nn.functional.lp_pool2d";
  const Ints k = pool_param(op, "kernel_size", kernel_size, 2);
  const std::int64_t zero[] = {0};
  Tensor pooled = avg_pool2d_kernel(pow(input, Scalar(norm_type)), k, stride, IntArrayRef(zero, 1), ceil_mode, true,
                                    std::nullopt);
  return lp_finish(pooled, norm_type, checked_mul(k[0], k[1], op));
}

}  // namespace

void register_conv_composite_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("conv1d", &conv1d_kernel)
      .impl("conv2d", &conv2d_kernel)
      .impl("conv3d", &conv3d_kernel)
      .impl("conv_transpose3d", &conv_transpose3d_kernel)
      .impl("conv_tbc", &conv_tbc_kernel)
      .impl("max_pool2d", &torch_max_pool2d)
      .impl("avg_pool1d", &avg_pool1d_kernel)
      .impl("conv_transpose1d", &conv_transpose1d_kernel)
      .impl("conv_transpose2d", &conv_transpose2d_kernel)
      .impl("adaptive_avg_pool1d", &adaptive_avg_pool1d_kernel);
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("max_pool2d", &f_max_pool2d)
      .impl("max_pool2d_with_indices", &max_pool2d_indices)
      .impl("avg_pool2d", &avg_pool2d_kernel)
      .impl("adaptive_avg_pool2d", &f_adaptive_avg_pool2d_kernel)
      .impl("lp_pool1d", &lp_pool1d_kernel)
      .impl("lp_pool2d", &lp_pool2d_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
}

}  // namespace wick
