// backends/cpu/pool_ops.cpp - 2-D average, adaptive average and max pooling over [N, C, H, W] tensors.
/// \file
/// Average pooling (plain and adaptive) is a sum over one window per output
/// element divided by a divisor (divisor_override, else the product of the
/// windows' counts); both share one forward and one backward (its adjoint)
/// loop. Max pooling records the flat h*W+w index of each maximum (a NaN
/// wins), as PyTorch's max_pool2d_with_indices does. The checks, the output
/// sizes and the windows are the meta functions' (dispatch/ops/meta_conv.cpp,
/// Note [Pooling windows] in wick/meta_nn.h).
#include <cmath>
#include <limits>
#include <vector>

#include <wick/meta_nn.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

// The windows of `dim`, one per output index (made only when there is something to pool).
std::vector<PoolWindow> windows(const PoolDim& dim) {
  std::vector<PoolWindow> out(static_cast<std::size_t>(dim.out));
  for (std::int64_t o = 0; o < dim.out; ++o) out[static_cast<std::size_t>(o)] = meta::pool_window(dim, o);
  return out;
}

// float and double, and int64 (avg_pool2d: integer sums divided with C's
// truncation, as PyTorch): the meta functions let only these through.
template <typename Fn>
void visit_pool_dtype(ScalarType t, const char* kernel, Fn&& fn) {
  visit_dtype<dtypes::bit(ScalarType::kInt64) | dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64)>(
      t, kernel, fn);
}

// kForward: y[o] = sum(x[window]) / divisor, from src into dst. Else the
// adjoint: x[window] += g[o] / divisor, from the gradient src into dst.
template <bool kForward, typename T>
void window_pool(const Pool2dMeta& m, const std::vector<PoolWindow>& wh, const std::vector<PoolWindow>& ww,
                 const T* src, T* dst) {
  const std::int64_t h = m.rows.in;
  const std::int64_t w = m.cols.in;
  const std::int64_t oh = m.rows.out;
  const std::int64_t ow = m.cols.out;
  for (std::int64_t plane = 0; plane < m.planes; ++plane) {
    const std::int64_t in_base = plane * h * w;
    const std::int64_t out_base = plane * oh * ow;
    for (std::int64_t y = 0; y < oh; ++y) {
      const PoolWindow& hy = wh[static_cast<std::size_t>(y)];
      for (std::int64_t x = 0; x < ow; ++x) {
        const PoolWindow& wx = ww[static_cast<std::size_t>(x)];
        const auto divisor = static_cast<T>(m.divisor_override.value_or(hy.count * wx.count));
        if constexpr (kForward) {
          T sum = 0;
          for (std::int64_t i = hy.start; i < hy.end; ++i)
            for (std::int64_t j = wx.start; j < wx.end; ++j) sum += src[in_base + i * w + j];
          dst[out_base + y * ow + x] = sum / divisor;
        } else {
          const T g = src[out_base + y * ow + x] / divisor;
          for (std::int64_t i = hy.start; i < hy.end; ++i)
            for (std::int64_t j = wx.start; j < wx.end; ++j) dst[in_base + i * w + j] += g;
        }
      }
    }
  }
}

// Forward from `src` into out, or (kForward false) the adjoint from the
// gradient `src` into out. An empty batch, plane or output (whose other
// sizes may be anything, 2**63 - 1 included) makes no window table.
template <bool kForward>
void run_window_pool(const Pool2dMeta& m, const Tensor& out_in, const Tensor& src) {
  const Widened wide(out_in);
  const Tensor& out = wide.out();
  const Tensor s = Widened::in(src).contiguous();
  visit_pool_dtype(out.dtype(), kForward ? "avg_pool2d_out_frame" : "avg_pool2d_backward_out_frame", [&](auto tag) {
    using T = decltype(tag);
    T* po = static_cast<T*>(out.data_ptr());
    // The adjoint adds into zeros; a forward with nothing to read (an empty
    // input padded into a non-empty output) gives zeros, as on CUDA.
    if (!kForward || s.numel() == 0) std::fill(po, po + out.numel(), T(0));
    if (out.numel() == 0 || s.numel() == 0 || m.rows.out == 0 || m.cols.out == 0) return;
    window_pool<kForward, T>(m, windows(m.rows), windows(m.cols), static_cast<const T*>(s.data_ptr()), po);
  });
  wide.finish();
}

}  // namespace

void avg_pool2d(const Pool2dMeta& m, const Tensor& out, const Tensor& input, IntArrayRef /*kernel_size*/,
                IntArrayRef /*stride*/, IntArrayRef /*padding*/, bool /*ceil_mode*/, bool /*count_include_pad*/,
                std::optional<std::int64_t> /*divisor_override*/) {
  run_window_pool<true>(m, out, input);
}

void avg_pool2d_backward(const Pool2dMeta& m, const Tensor& out, const Tensor& grad, IntArrayRef /*input_size*/,
                         IntArrayRef /*kernel_size*/, IntArrayRef /*stride*/, IntArrayRef /*padding*/,
                         bool /*ceil_mode*/, bool /*count_include_pad*/,
                         std::optional<std::int64_t> /*divisor_override*/) {
  run_window_pool<false>(m, out, grad);
}

void adaptive_avg_pool2d(const Pool2dMeta& m, const Tensor& out, const Tensor& input, IntArrayRef /*output_size*/) {
  run_window_pool<true>(m, out, input);
}

void adaptive_avg_pool2d_backward(const Pool2dMeta& m, const Tensor& out, const Tensor& grad,
                                  IntArrayRef /*input_size*/) {
  run_window_pool<false>(m, out, grad);
}

void max_pool2d_with_indices(const MaxPool2dMeta& m, const std::array<Tensor, 2>& outs, const Tensor& input,
                             IntArrayRef /*kernel_size*/, IntArrayRef /*stride*/, IntArrayRef /*padding*/,
                             IntArrayRef /*dilation*/, bool /*ceil_mode*/) {
  if (outs[0].numel() == 0) return;
  const Widened wide(outs[0]);
  const Tensor& out = wide.out();
  const Tensor x = Widened::in(input).contiguous();
  auto* pi = static_cast<std::int64_t*>(outs[1].data_ptr());
  const std::int64_t h = m.rows.in;
  const std::int64_t w = m.cols.in;
  const std::int64_t oh = m.rows.out;
  const std::int64_t ow = m.cols.out;
  const std::int64_t dh = m.rows.dilation;
  const std::int64_t dw = m.cols.dilation;
  const std::vector<PoolWindow> wh = windows(m.rows);
  const std::vector<PoolWindow> ww = windows(m.cols);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* px = static_cast<const T*>(x.data_ptr());
    T* po = static_cast<T*>(out.data_ptr());
    for (std::int64_t plane = 0; plane < m.planes; ++plane) {
      const T* xp = px + plane * h * w;
      for (std::int64_t y = 0; y < oh; ++y) {
        const PoolWindow& hy = wh[static_cast<std::size_t>(y)];
        for (std::int64_t xo = 0; xo < ow; ++xo) {
          const PoolWindow& wx = ww[static_cast<std::size_t>(xo)];
          std::int64_t best = hy.start * w + wx.start;
          T mx = -std::numeric_limits<T>::infinity();
          for (std::int64_t i = hy.start; i < hy.end; i += dh) {
            for (std::int64_t j = wx.start; j < wx.end; j += dw) {
              const T v = xp[i * w + j];
              if (v > mx || std::isnan(v)) {
                mx = v;
                best = i * w + j;
              }
            }
          }
          const std::int64_t o = (plane * oh + y) * ow + xo;
          po[o] = mx;
          pi[o] = best;
        }
      }
    }
  };
  visit_float(x.dtype(), "max_pool2d", run);
  wide.finish();
}

}  // namespace wick::cpu
