// backends/cpu/pool_ops.cpp - 2-D average, adaptive average and max pooling over [N, C, H, W] tensors.
/// \file
/// Average pooling (plain and adaptive) is a sum over one window per output
/// element divided by a divisor; a window is the product of one [start, end)
/// range per spatial dim, so both are described by per-dim `Window` lists
/// and share one forward and one backward (its adjoint) loop:
///   avg_pool2d:          start = o*s - p, end = min(start + k, in + p), then
///                        clipped to [0, in); divisor = divisor_override, else
///                        the padded (count_include_pad) or clipped area;
///   adaptive_avg_pool2d: start = floor(o*in/out), end = ceil((o+1)*in/out).
/// Max pooling records the flat h*W+w index of each maximum (a NaN wins), as
/// PyTorch's max_pool2d_with_indices does.
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include <wick/ops.h>
#include <wick/tensor_util.h>

#include "cpu_kernels.h"
#include "loops.h"

namespace wick::cpu {
namespace {

struct Window {
  std::int64_t start = 0, end = 0, count = 0;  // count: this dim's share of the divisor
};

struct Pool2dArgs {
  std::int64_t nc = 0, h = 0, w = 0;
};

Pool2dArgs pool_shape(const char* op, IntArrayRef sizes) {
  WICK_CHECK(sizes.size() == 4, RuntimeError, op, ": expected a 4-D input, got ", format_shape(sizes));
  // The backward kernels take the input's size as an argument: check it as
  // an allocation would (the fuzzer passed [-2, INT64_MIN, ...]).
  std::int64_t numel = 1;
  for (const std::int64_t s : sizes) {
    WICK_CHECK(s >= 0 && (s == 0 || numel <= std::numeric_limits<std::int64_t>::max() / s), RuntimeError, op,
               ": invalid input size ", format_shape(sizes));
    numel *= s;
  }
  return {sizes[0] * sizes[1], sizes[2], sizes[3]};
}

// float and double; int64 too where `allow_long` (avg_pool2d: integer sums
// divided with C's truncation, as PyTorch).
template <typename Fn>
void visit_float(const char* op, const char* kernel, ScalarType t, Fn&& fn, bool allow_long = false) {
  if (allow_long && t == ScalarType::kInt64) {
    fn(std::int64_t{});
  } else if (t == ScalarType::kFloat32) {
    fn(float{});
  } else if (t == ScalarType::kFloat64) {
    fn(double{});
  } else {
    WICK_CHECK(false, RuntimeError, op, ": \"", kernel, "\" not implemented for '", type_title(t), "'");
  }
}

// PyTorch's pooling output size, with ceil_mode's rule that the last window
// must start inside the input or its left padding.
// In 128 bits: kernel_size, stride and dilation may be anything up to
// INT64_MAX (the fuzzer's kernel_size=2**63-1 overflowed 64 bits). The result
// is at most in / s + 2, since padding is at most half the kernel.
std::int64_t pooled_size(std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p, std::int64_t d, bool ceil) {
  using Wide = __int128;
  const Wide span = Wide{in} + 2 * Wide{p} - Wide{d} * (Wide{k} - 1) - 1 + (ceil ? Wide{s} - 1 : 0);
  Wide out = (span < 0 ? -((-span + s - 1) / s) : span / s) + 1;
  if (ceil && (out - 1) * s >= Wide{in} + p) --out;
  // A window far longer than the input gives a hugely negative size: kept
  // negative (check_output refuses it), never cut to 64 bits.
  constexpr Wide kMin = std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(out < kMin ? kMin : out);
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

void check_output(const char* op, const Pool2dArgs& a, std::int64_t c, std::int64_t oh, std::int64_t ow) {
  WICK_CHECK(oh >= 1 && ow >= 1, RuntimeError, op, ": Given input size: (", c, "x", a.h, "x", a.w,
             "). Calculated output size: (", c, "x", oh, "x", ow, "). Output size is too small");
}

// The `n` windows of average pooling along one dim (n from pooled_size).
std::vector<Window> avg_windows(std::int64_t n, std::int64_t in, std::int64_t k, std::int64_t s, std::int64_t p,
                                bool count_include_pad) {
  std::vector<Window> out(static_cast<std::size_t>(n));
  for (std::size_t o = 0; o < out.size(); ++o) {
    const std::int64_t start = static_cast<std::int64_t>(o) * s - p;
    const std::int64_t end = std::min(start + k, in + p);
    Window& win = out[o];
    win.start = std::max<std::int64_t>(start, 0);
    win.end = std::min(end, in);
    win.count = count_include_pad ? end - start : win.end - win.start;
  }
  return out;
}

std::vector<Window> adaptive_windows(std::int64_t in, std::int64_t out_size) {
  std::vector<Window> out(static_cast<std::size_t>(out_size));
  for (std::int64_t o = 0; o < out_size; ++o) {
    Window& win = out[static_cast<std::size_t>(o)];
    win.start = o * in / out_size;
    win.end = ((o + 1) * in + out_size - 1) / out_size;
    win.count = win.end - win.start;
  }
  return out;
}

// kForward: y[o] = sum(x[window]) / divisor. Else the adjoint: x[window] += g[o] / divisor.
template <bool kForward, typename T>
void window_pool(const Pool2dArgs& a, const std::vector<Window>& wh, const std::vector<Window>& ww,
                 std::optional<std::int64_t> divisor_override, const T* src, T* dst) {
  const auto oh = static_cast<std::int64_t>(wh.size());
  const auto ow = static_cast<std::int64_t>(ww.size());
  for (std::int64_t plane = 0; plane < a.nc; ++plane) {
    const std::int64_t in_base = plane * a.h * a.w;
    const std::int64_t out_base = plane * oh * ow;
    for (std::int64_t y = 0; y < oh; ++y) {
      const Window& hy = wh[static_cast<std::size_t>(y)];
      for (std::int64_t x = 0; x < ow; ++x) {
        const Window& wx = ww[static_cast<std::size_t>(x)];
        const auto divisor = static_cast<T>(divisor_override.value_or(hy.count * wx.count));
        if constexpr (kForward) {
          T sum = 0;
          for (std::int64_t i = hy.start; i < hy.end; ++i)
            for (std::int64_t j = wx.start; j < wx.end; ++j) sum += src[in_base + i * a.w + j];
          dst[out_base + y * ow + x] = sum / divisor;
        } else {
          const T g = src[out_base + y * ow + x] / divisor;
          for (std::int64_t i = hy.start; i < hy.end; ++i)
            for (std::int64_t j = wx.start; j < wx.end; ++j) dst[in_base + i * a.w + j] += g;
        }
      }
    }
  }
}

// Forward from `input`, or (kForward false) the adjoint from `grad` into
// input_size, over an (oh, ow) output. The windows are made only once the
// output size is checked and the result allocated: a huge size fails there,
// with the allocator's error, rather than in a table of windows.
template <bool kForward, typename MakeWindows>
Tensor run_window_pool(const char* op, const char* kernel, const Tensor& src, IntArrayRef input_size, std::int64_t oh,
                       std::int64_t ow, MakeWindows make_windows, std::optional<std::int64_t> divisor_override) {
  const Pool2dArgs a = pool_shape(op, input_size);
  check_output(op, a, input_size[1], oh, ow);
  WICK_CHECK(!divisor_override || *divisor_override != 0, RuntimeError, op, ": divisor must be not zero");
  Tensor s = src.contiguous();
  if (!kForward)
    WICK_CHECK(s.sizes().equals(IntArrayRef{input_size[0], input_size[1], oh, ow}), RuntimeError, op,
               ": grad_output of shape ", format_shape(s.sizes()), " does not match the pooling's output");
  Tensor out = kForward ? make_empty({input_size[0], input_size[1], oh, ow}, s.dtype(), s.device())
                        : make_empty(input_size, s.dtype(), s.device());
  visit_float(
      op, kernel, s.dtype(),
      [&](auto tag) {
        using T = decltype(tag);
        T* po = static_cast<T*>(out.data_ptr());
        if (!kForward) std::fill(po, po + out.numel(), T(0));
        // Nothing to pool in an empty batch or plane, whose output size may
        // be anything (2**63 - 1 included): no window table is made.
        if (out.numel() == 0 || s.numel() == 0) return;
        const auto windows = make_windows();  // (per-row, per-column) windows
        window_pool<kForward, T>(a, windows.first, windows.second, divisor_override,
                                 static_cast<const T*>(s.data_ptr()), po);
      },
      kForward && std::string_view(kernel) == "avg_pool2d");
  return out;
}

template <bool kForward>
Tensor avg_pool2d(const Tensor& src, IntArrayRef input_size, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil,
                  bool count_include_pad, std::optional<std::int64_t> divisor_override) {
  const char* op = kForward ? "torch.nn.functional.avg_pool2d" : "aten.avg_pool2d_backward";
  const std::int64_t one[] = {1, 1};
  check_pool_args(op, k, s, p, IntArrayRef(one, 2));
  pool_shape(op, input_size);
  const std::int64_t oh = pooled_size(input_size[2], k[0], s[0], p[0], 1, ceil);
  const std::int64_t ow = pooled_size(input_size[3], k[1], s[1], p[1], 1, ceil);
  return run_window_pool<kForward>(
      op, "avg_pool2d", src, input_size, oh, ow,
      [&] {
        return std::pair(avg_windows(oh, input_size[2], k[0], s[0], p[0], count_include_pad),
                         avg_windows(ow, input_size[3], k[1], s[1], p[1], count_include_pad));
      },
      divisor_override);
}

Tensor avg_pool2d_forward(const Tensor& input, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil,
                          bool count_include_pad, std::optional<std::int64_t> divisor_override) {
  return avg_pool2d<true>(input, input.sizes(), k, s, p, ceil, count_include_pad, divisor_override);
}

template <bool kForward>
Tensor adaptive_avg_pool2d(const Tensor& src, IntArrayRef input_size, IntArrayRef output_size) {
  const char* op = kForward ? "torch.nn.functional.adaptive_avg_pool2d" : "aten.adaptive_avg_pool2d_backward";
  pool_shape(op, input_size);
  WICK_CHECK(output_size.size() == 2 && output_size[0] >= 0 && output_size[1] >= 0, RuntimeError, op,
             ": output_size must be 2 non-negative sizes");
  for (std::int64_t d = 2; d < 4; ++d)
    WICK_CHECK(input_size[static_cast<std::size_t>(d)] > 0, RuntimeError, op,
               ": Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
               format_shape(input_size), " with dimension ", d - 1, " being empty");
  if (output_size[0] == 0 || output_size[1] == 0)  // an empty result (PyTorch allows it)
    return kForward
               ? make_empty({input_size[0], input_size[1], output_size[0], output_size[1]}, src.dtype(), src.device())
               : wick::zeros(input_size, src.dtype());
  return run_window_pool<kForward>(
      op, "adaptive_avg_pool2d", src, input_size, output_size[0], output_size[1],
      [&] {
        return std::pair(adaptive_windows(input_size[2], output_size[0]), adaptive_windows(input_size[3], output_size[1]));
      },
      std::nullopt);
}

Tensor adaptive_forward(const Tensor& input, IntArrayRef output_size) {
  return adaptive_avg_pool2d<true>(input, input.sizes(), output_size);
}

Tensor adaptive_backward(const Tensor& grad, IntArrayRef input_size) {
  const std::int64_t n = grad.dim() == 4 ? grad.sizes()[2] : 0;
  const std::int64_t m = grad.dim() == 4 ? grad.sizes()[3] : 0;
  const std::int64_t out[] = {n, m};
  return adaptive_avg_pool2d<false>(grad, input_size, IntArrayRef(out, 2));
}

std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, IntArrayRef k, IntArrayRef s, IntArrayRef p,
                                                   IntArrayRef d, bool ceil) {
  const char* op = "torch.nn.functional.max_pool2d";
  check_pool_args(op, k, s, p, d);
  const Pool2dArgs a = pool_shape(op, input.sizes());
  const std::int64_t oh = pooled_size(a.h, k[0], s[0], p[0], d[0], ceil);
  const std::int64_t ow = pooled_size(a.w, k[1], s[1], p[1], d[1], ceil);
  check_output(op, a, input.sizes()[1], oh, ow);
  Tensor x = input.contiguous();
  Tensor out = make_empty({input.sizes()[0], input.sizes()[1], oh, ow}, x.dtype(), x.device());
  Tensor idx = make_empty(out.sizes(), ScalarType::kInt64, x.device());
  auto* pi = static_cast<std::int64_t*>(idx.data_ptr());
  visit_float(op, "max_pool2d", x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    for (std::int64_t plane = 0; plane < a.nc; ++plane) {
      const T* xp = px + plane * a.h * a.w;
      for (std::int64_t y = 0; y < oh; ++y) {
        std::int64_t h0 = y * s[0] - p[0];
        const std::int64_t h1 = std::min(h0 + (k[0] - 1) * d[0] + 1, a.h);
        // The first tap inside the input (no loop: padding may be 2**62).
        if (h0 < 0) h0 += (-h0 + d[0] - 1) / d[0] * d[0];
        for (std::int64_t xo = 0; xo < ow; ++xo) {
          std::int64_t w0 = xo * s[1] - p[1];
          const std::int64_t w1 = std::min(w0 + (k[1] - 1) * d[1] + 1, a.w);
          if (w0 < 0) w0 += (-w0 + d[1] - 1) / d[1] * d[1];
          std::int64_t best = h0 * a.w + w0;
          T mx = -std::numeric_limits<T>::infinity();
          for (std::int64_t i = h0; i < h1; i += d[0]) {
            for (std::int64_t j = w0; j < w1; j += d[1]) {
              const T v = xp[i * a.w + j];
              if (v > mx || std::isnan(v)) {
                mx = v;
                best = i * a.w + j;
              }
            }
          }
          const std::int64_t o = (plane * oh + y) * ow + xo;
          po[o] = mx;
          pi[o] = best;
        }
      }
    }
  });
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

}  // namespace wick::cpu
