// backends/cuda/pool_ops.cpp - 2-D average, adaptive average and max pooling on CUDA (host side).
/// \file
/// The `aten` pooling operators with the CPU backend's checks, output sizes
/// and messages (backends/cpu/pool_ops.cpp); registered by
/// register_dnn_ops (dnn_ops.cpp), kernels in dnn_kernels.cu.
///
/// Note [Pooling window tables]
/// A window is a product of one [start, end) range per spatial dim, so the
/// host computes the ranges once, in the CPU kernel's int64 arithmetic
/// (and its overflow guards), and ships them as one small int64 table:
/// (start, end, count) per output row and column. The backward pass runs
/// one thread per input element gathering from the windows containing it
/// (no atomics, deterministic): since start and end grow with the output
/// index, those windows are a contiguous run of output rows (and of
/// columns), found on the host by one sweep and shipped in the same table.
#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <wick/ops.h>
#include <wick/tensor_util.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "dnn_kernels.h"

namespace wick::cuda_backend {

void register_pool_ops(Library& aten);

namespace {

using I64 = std::int64_t;

struct Window {
  I64 start = 0, end = 0, count = 0;  // count: this dim's share of the divisor
};

struct Pool2dArgs {
  I64 nc = 0, h = 0, w = 0;
};

Pool2dArgs pool_shape(const char* op, IntArrayRef sizes) {
  WICK_CHECK(sizes.size() == 4, RuntimeError, op, ": expected a 4-D input, got ", format_shape(sizes));
  I64 numel = 1;
  for (const I64 s : sizes) {
    WICK_CHECK(s >= 0 && (s == 0 || numel <= std::numeric_limits<I64>::max() / s), RuntimeError, op,
               ": invalid input size ", format_shape(sizes));
    numel *= s;
  }
  return {sizes[0] * sizes[1], sizes[2], sizes[3]};
}

// float and double; int64 too where `allow_long` (avg_pool2d's forward).
DnnType pool_type(const char* op, const char* kernel, ScalarType t, bool allow_long = false) {
  if (allow_long && t == ScalarType::kInt64) return DnnType::kInt64;
  if (t == ScalarType::kFloat32) return DnnType::kFloat32;
  WICK_CHECK(t == ScalarType::kFloat64, RuntimeError, op, ": \"", kernel, "\" not implemented for '", type_title(t),
             "'");
  return DnnType::kFloat64;
}

// PyTorch's pooling output size (ceil_mode: the last window starts inside
// the input or its left padding), in 128 bits as the CPU computes it.
I64 pooled_size(I64 in, I64 k, I64 s, I64 p, I64 d, bool ceil) {
  using Wide = __int128;
  const Wide span = Wide{in} + 2 * Wide{p} - Wide{d} * (Wide{k} - 1) - 1 + (ceil ? Wide{s} - 1 : 0);
  Wide out = (span < 0 ? -((-span + s - 1) / s) : span / s) + 1;
  if (ceil && (out - 1) * s >= Wide{in} + p) --out;
  constexpr Wide kMin = std::numeric_limits<I64>::min();
  return static_cast<I64>(out < kMin ? kMin : out);
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

void check_output(const char* op, const Pool2dArgs& a, I64 c, I64 oh, I64 ow) {
  WICK_CHECK(oh >= 1 && ow >= 1, RuntimeError, op, ": Given input size: (", c, "x", a.h, "x", a.w,
             "). Calculated output size: (", c, "x", oh, "x", ow, "). Output size is too small");
}

std::vector<Window> avg_windows(I64 n, I64 in, I64 k, I64 s, I64 p, bool count_include_pad) {
  std::vector<Window> out(static_cast<std::size_t>(n));
  for (std::size_t o = 0; o < out.size(); ++o) {
    const I64 start = static_cast<I64>(o) * s - p;
    const I64 end = std::min(start + k, in + p);
    Window& win = out[o];
    win.start = std::max<I64>(start, 0);
    win.end = std::min(end, in);
    win.count = count_include_pad ? end - start : win.end - win.start;
  }
  return out;
}

std::vector<Window> adaptive_windows(I64 in, I64 out_size) {
  std::vector<Window> out(static_cast<std::size_t>(out_size));
  for (I64 o = 0; o < out_size; ++o) {
    Window& win = out[static_cast<std::size_t>(o)];
    win.start = o * in / out_size;
    win.end = ((o + 1) * in + out_size - 1) / out_size;
    win.count = win.end - win.start;
  }
  return out;
}

// Appends, for each input index i < in, the run [first, end) of windows containing i.
void append_ranges(std::vector<I64>& table, const std::vector<Window>& win, I64 in) {
  const auto n = static_cast<I64>(win.size());
  I64 first = 0;  // the first window with end > i
  I64 end = 0;    // one past the last window with start <= i
  for (I64 i = 0; i < in; ++i) {
    while (first < n && win[static_cast<std::size_t>(first)].end <= i) ++first;
    while (end < n && win[static_cast<std::size_t>(end)].start <= i) ++end;
    table.push_back(first);
    table.push_back(std::max(first, end));
  }
}

// The windows (and, for the backward, the ranges) as an int64 tensor on `device`.
Tensor window_table(const std::vector<Window>& wh, const std::vector<Window>& ww, bool backward, I64 h, I64 w,
                    Device device) {
  std::vector<I64> table;
  table.reserve(3 * (wh.size() + ww.size()) + (backward ? 2 * static_cast<std::size_t>(h + w) : 0));
  for (const auto* dim : {&wh, &ww}) {
    for (const Window& win : *dim) {
      table.push_back(win.start);
      table.push_back(win.end);
      table.push_back(win.count);
    }
  }
  if (backward) {
    append_ranges(table, wh, h);
    append_ranges(table, ww, w);
  }
  const auto len = static_cast<I64>(table.size());
  Tensor host = make_empty({len}, ScalarType::kInt64, Device());
  if (len > 0) std::memcpy(host.data_ptr(), table.data(), table.size() * sizeof(I64));
  Tensor dev = make_empty({len}, ScalarType::kInt64, device);
  if (len > 0) dev.copy_(host);
  return dev;
}

// Forward from `src`, or (kForward false) the adjoint from grad `src` into
// input_size, over an (oh, ow) output; windows made once the output is allocated.
template <bool kForward, typename MakeWindows>
Tensor run_window_pool(const char* op, const char* kernel, const Tensor& src, IntArrayRef input_size, I64 oh, I64 ow,
                       MakeWindows make_windows, std::optional<I64> divisor_override) {
  const Pool2dArgs a = pool_shape(op, input_size);
  check_output(op, a, input_size[1], oh, ow);
  WICK_CHECK(!divisor_override || *divisor_override != 0, RuntimeError, op, ": divisor must be not zero");
  if (!kForward)
    WICK_CHECK(src.sizes().equals(IntArrayRef{input_size[0], input_size[1], oh, ow}), RuntimeError, op,
               ": grad_output of shape ", format_shape(src.sizes()), " does not match the pooling's output");
  const Device device = cuda_device_of(op, {&src});
  const DnnType type = pool_type(op, kernel, src.dtype(), kForward && std::string_view(kernel) == "avg_pool2d");
  const DeviceGuard guard(device);
  Tensor s = src.contiguous();
  Tensor out = kForward ? make_empty({input_size[0], input_size[1], oh, ow}, s.dtype(), device)
                        : make_empty(input_size, s.dtype(), device);
  if (out.numel() == 0) return out;
  // Nothing to pool from an empty gradient, whose other size may be anything
  // (2**63 - 1 included): no window table is made.
  if (s.numel() == 0) return out.fill_(0);
  const auto windows = make_windows();
  const Tensor table = window_table(windows.first, windows.second, !kForward, a.h, a.w, device);
  AvgPoolArgs args;
  args.src = s.data_ptr();
  args.dst = out.data_ptr();
  args.type = type;
  args.planes = a.nc;
  args.h = a.h;
  args.w = a.w;
  args.oh = oh;
  args.ow = ow;
  args.windows = static_cast<const I64*>(table.data_ptr());
  args.ranges = args.windows + 3 * (oh + ow);
  args.has_divisor = divisor_override.has_value();
  args.divisor = divisor_override.value_or(1);
  if constexpr (kForward) {
    launch_avg_pool_forward(args, current_stream());
  } else {
    launch_avg_pool_backward(args, current_stream());
  }
  check_launch(op);
  return out;
}

template <bool kForward>
Tensor avg_pool2d(const Tensor& src, IntArrayRef input_size, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil,
                  bool count_include_pad, std::optional<I64> divisor_override) {
  const char* op = kForward ? "torch.nn.functional.avg_pool2d" : "aten.avg_pool2d_backward";
  const I64 one[] = {1, 1};
  check_pool_args(op, k, s, p, IntArrayRef(one, 2));
  pool_shape(op, input_size);
  const I64 oh = pooled_size(input_size[2], k[0], s[0], p[0], 1, ceil);
  const I64 ow = pooled_size(input_size[3], k[1], s[1], p[1], 1, ceil);
  return run_window_pool<kForward>(
      op, "avg_pool2d", src, input_size, oh, ow,
      [&] {
        return std::pair(avg_windows(oh, input_size[2], k[0], s[0], p[0], count_include_pad),
                         avg_windows(ow, input_size[3], k[1], s[1], p[1], count_include_pad));
      },
      divisor_override);
}

Tensor avg_pool2d_forward(const Tensor& input, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil,
                          bool count_include_pad, std::optional<I64> divisor_override) {
  return avg_pool2d<true>(input, input.sizes(), k, s, p, ceil, count_include_pad, divisor_override);
}

template <bool kForward>
Tensor adaptive_avg_pool2d(const Tensor& src, IntArrayRef input_size, IntArrayRef output_size) {
  const char* op = kForward ? "torch.nn.functional.adaptive_avg_pool2d" : "aten.adaptive_avg_pool2d_backward";
  pool_shape(op, input_size);
  WICK_CHECK(output_size.size() == 2 && output_size[0] >= 0 && output_size[1] >= 0, RuntimeError, op,
             ": output_size must be 2 non-negative sizes");
  for (std::size_t d = 2; d < 4; ++d)
    WICK_CHECK(input_size[d] > 0, RuntimeError, op,
               ": Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
               format_shape(input_size), " with dimension ", d - 1, " being empty");
  if (output_size[0] == 0 || output_size[1] == 0) {  // an empty result (PyTorch allows it)
    const Device device = cuda_device_of(op, {&src});
    if (kForward)
      return make_empty({input_size[0], input_size[1], output_size[0], output_size[1]}, src.dtype(), device);
    return wick::zeros(input_size, src.dtype(), device);
  }
  return run_window_pool<kForward>(
      op, "adaptive_avg_pool2d", src, input_size, output_size[0], output_size[1],
      [&] {
        return std::pair(adaptive_windows(input_size[2], output_size[0]),
                         adaptive_windows(input_size[3], output_size[1]));
      },
      std::nullopt);
}

Tensor adaptive_forward(const Tensor& input, IntArrayRef output_size) {
  return adaptive_avg_pool2d<true>(input, input.sizes(), output_size);
}

Tensor adaptive_backward(const Tensor& grad, IntArrayRef input_size) {
  const I64 n = grad.dim() == 4 ? grad.sizes()[2] : 0;
  const I64 m = grad.dim() == 4 ? grad.sizes()[3] : 0;
  const I64 out[] = {n, m};
  return adaptive_avg_pool2d<false>(grad, input_size, IntArrayRef(out, 2));
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                                   IntArrayRef d, bool ceil) {
  const char* op = "torch.nn.functional.max_pool2d";
  check_pool_args(op, k, s, p, d);
  const Pool2dArgs a = pool_shape(op, input.sizes());
  const I64 oh = pooled_size(a.h, k[0], s[0], p[0], d[0], ceil);
  const I64 ow = pooled_size(a.w, k[1], s[1], p[1], d[1], ceil);
  check_output(op, a, input.sizes()[1], oh, ow);
  const Device device = cuda_device_of(op, {&input});
  const DnnType type = pool_type(op, "max_pool2d", input.dtype());
  const DeviceGuard guard(device);
  Tensor x = input.contiguous();
  Tensor out = make_empty({input.sizes()[0], input.sizes()[1], oh, ow}, x.dtype(), device);
  Tensor idx = make_empty(out.sizes(), ScalarType::kInt64, device);
  if (out.numel() == 0) return {out, idx};
  MaxPoolArgs args;
  args.x = x.data_ptr();
  args.y = out.data_ptr();
  args.indices = static_cast<I64*>(idx.data_ptr());
  args.type = type;
  args.planes = a.nc;
  args.h = a.h;
  args.w = a.w;
  args.oh = oh;
  args.ow = ow;
  args.kh = k[0];
  args.kw = k[1];
  args.sh = s[0];
  args.sw = s[1];
  args.ph = p[0];
  args.pw = p[1];
  args.dh = d[0];
  args.dw = d[1];
  launch_max_pool(args, current_stream());
  check_launch(op);
  return {out, idx};
}

}  // namespace

void register_pool_ops(Library& aten) {
  aten.impl("avg_pool2d", &avg_pool2d_forward)
      .impl("avg_pool2d_backward", &avg_pool2d<false>)
      .impl("adaptive_avg_pool2d", &adaptive_forward)
      .impl("adaptive_avg_pool2d_backward", &adaptive_backward)
      .impl("max_pool2d_with_indices", &max_pool2d_with_indices);
}

}  // namespace wick::cuda_backend
