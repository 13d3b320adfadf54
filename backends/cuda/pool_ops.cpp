// backends/cuda/pool_ops.cpp - 2-D average, adaptive average and max pooling on CUDA (host side).
/// \file
/// The computations of the `aten` pooling operators, whose meta functions
/// (dispatch/ops/meta_conv.cpp) checked the arguments and gave the output
/// sizes and windows (Note [Pooling windows] in wick/meta_nn.h), for the
/// CPU backend too; device kernels in dnn_kernels.cu.
///
/// Note [Pooling window tables]
/// A window is a product of one [start, end) range per spatial dim, so the
/// host takes the ranges from the meta result once and ships them as one
/// small int64 table: (start, end, count) per output row and column. The
/// backward pass runs one thread per input element gathering from the
/// windows containing it (no atomics, deterministic): since start and end
/// grow with the output index, those windows are a contiguous run of
/// output rows (and of columns), found on the host by one sweep and
/// shipped in the same table.
#include <algorithm>
#include <cstring>
#include <vector>

#include <wick/meta_nn.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "dnn_kernels.h"

namespace wick::cuda_backend {

namespace {

using I64 = std::int64_t;

// The pooling kernels' loops: float32, float64, float16 and bfloat16 (in
// float32, rounded once), and int64 for the average's forward
// (`with_int64`); others are PyTorch's refusal naming `kernel` (the max
// and the backward kernels have no int64 loop: they used to read int64 as
// float).
DnnType pool_type(ScalarType t, const char* kernel, bool with_int64 = false) {
  switch (t) {
    case ScalarType::kInt64:
      if (!with_int64) throw_not_implemented_for(kernel, t);
      return DnnType::kInt64;
    case ScalarType::kFloat32:
      return DnnType::kFloat32;
    case ScalarType::kFloat64:
      return DnnType::kFloat64;
    case ScalarType::kFloat16:
      return DnnType::kFloat16;
    case ScalarType::kBFloat16:
      return DnnType::kBFloat16;
    default:
      throw_not_implemented_for(kernel, t);
  }
}

// The windows of `dim`, one per output index.
std::vector<PoolWindow> windows(const PoolDim& dim) {
  std::vector<PoolWindow> out(static_cast<std::size_t>(dim.out));
  for (I64 o = 0; o < dim.out; ++o) out[static_cast<std::size_t>(o)] = meta::pool_window(dim, o);
  return out;
}

// Appends, for each input index i < in, the run [first, end) of windows containing i.
void append_ranges(std::vector<I64>& table, const std::vector<PoolWindow>& win, I64 in) {
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
Tensor window_table(const Pool2dMeta& m, bool backward, Device device) {
  const std::vector<PoolWindow> wh = windows(m.rows);
  const std::vector<PoolWindow> ww = windows(m.cols);
  std::vector<I64> table;
  table.reserve(3 * (wh.size() + ww.size()) + (backward ? 2 * static_cast<std::size_t>(m.rows.in + m.cols.in) : 0));
  for (const auto* dim : {&wh, &ww}) {
    for (const PoolWindow& win : *dim) {
      table.push_back(win.start);
      table.push_back(win.end);
      table.push_back(win.count);
    }
  }
  if (backward) {
    append_ranges(table, wh, m.rows.in);
    append_ranges(table, ww, m.cols.in);
  }
  const auto len = static_cast<I64>(table.size());
  Tensor host = make_empty({len}, ScalarType::kInt64, Device());
  if (len > 0) std::memcpy(host.data_ptr(), table.data(), table.size() * sizeof(I64));
  Tensor dev = make_empty({len}, ScalarType::kInt64, device);
  if (len > 0) dev.copy_(host);
  return dev;
}

// Forward from `src` into out, or (kForward false) the adjoint from the
// gradient `src` into out. An empty batch, plane or output (whose other
// sizes may be anything, 2**63 - 1 included) makes no window table.
template <bool kForward>
void run_window_pool(const char* op, const char* kernel, const Pool2dMeta& m, const Tensor& out, const Tensor& src) {
  const DnnType type = pool_type(out.dtype(), kernel, /*with_int64=*/kForward);
  if (out.numel() == 0) return;
  const Device device = out.device();
  const DeviceGuard guard(device);
  Tensor target = out;
  if (src.numel() == 0 || m.rows.out == 0 || m.cols.out == 0) {
    target.fill_(0);
    return;
  }
  const Tensor s = src.contiguous();
  const Tensor table = window_table(m, !kForward, device);
  AvgPoolArgs args;
  args.src = s.data_ptr();
  args.dst = out.data_ptr();
  args.type = type;
  args.planes = m.planes;
  args.h = m.rows.in;
  args.w = m.cols.in;
  args.oh = m.rows.out;
  args.ow = m.cols.out;
  args.windows = static_cast<const I64*>(table.data_ptr());
  args.ranges = args.windows + 3 * (args.oh + args.ow);
  args.has_divisor = m.divisor_override.has_value();
  args.divisor = m.divisor_override.value_or(1);
  if constexpr (kForward) {
    launch_avg_pool_forward(args, current_stream());
  } else {
    launch_avg_pool_backward(args, current_stream());
  }
  check_launch(op);
}

}  // namespace

void avg_pool2d(const Pool2dMeta& m, const Tensor& out, const Tensor& input, IntArrayRef /*kernel_size*/,
                IntArrayRef /*stride*/, IntArrayRef /*padding*/, bool /*ceil_mode*/, bool /*count_include_pad*/,
                std::optional<I64> /*divisor_override*/) {
  run_window_pool<true>("torch.nn.functional.avg_pool2d", "avg_pool2d_out_cuda_frame", m, out, input);
}

void avg_pool2d_backward(const Pool2dMeta& m, const Tensor& out, const Tensor& grad, IntArrayRef /*input_size*/,
                         IntArrayRef /*kernel_size*/, IntArrayRef /*stride*/, IntArrayRef /*padding*/,
                         bool /*ceil_mode*/, bool /*count_include_pad*/, std::optional<I64> /*divisor_override*/) {
  run_window_pool<false>("aten.avg_pool2d_backward", "avg_pool2d_backward_out_cuda_frame", m, out, grad);
}

void adaptive_avg_pool2d(const Pool2dMeta& m, const Tensor& out, const Tensor& input, IntArrayRef /*output_size*/) {
  run_window_pool<true>("torch.nn.functional.adaptive_avg_pool2d", "adaptive_avg_pool2d_cuda", m, out, input);
}

void adaptive_avg_pool2d_backward(const Pool2dMeta& m, const Tensor& out, const Tensor& grad,
                                  IntArrayRef /*input_size*/) {
  run_window_pool<false>("aten.adaptive_avg_pool2d_backward", "adaptive_avg_pool2d_backward_cuda", m, out, grad);
}

void max_pool2d_with_indices(const MaxPool2dMeta& m, const std::array<Tensor, 2>& outs, const Tensor& input,
                             IntArrayRef /*kernel_size*/, IntArrayRef /*stride*/, IntArrayRef /*padding*/,
                             IntArrayRef /*dilation*/, bool /*ceil_mode*/) {
  const char* op = "torch.nn.functional.max_pool2d";
  const DnnType type = pool_type(input.dtype(), "max_pool2d_with_indices_out_cuda_frame");
  if (outs[0].numel() == 0) return;
  const DeviceGuard guard(outs[0].device());
  const Tensor x = input.contiguous();
  MaxPoolArgs args;
  args.x = x.data_ptr();
  args.y = outs[0].data_ptr();
  args.indices = static_cast<I64*>(outs[1].data_ptr());
  args.type = type;
  args.planes = m.planes;
  args.h = m.rows.in;
  args.w = m.cols.in;
  args.oh = m.rows.out;
  args.ow = m.cols.out;
  args.kh = m.rows.kernel;
  args.kw = m.cols.kernel;
  args.sh = m.rows.stride;
  args.sw = m.cols.stride;
  args.ph = m.rows.padding;
  args.pw = m.cols.padding;
  args.dh = m.rows.dilation;
  args.dw = m.cols.dilation;
  launch_max_pool(args, current_stream());
  check_launch(op);
}

}  // namespace wick::cuda_backend
