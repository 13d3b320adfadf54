// dispatch/composite/pool_nd_ops.cpp - pooling in one to three spatial dims by separable passes: max_pool1d/3d,
// avg_pool3d, adaptive max pooling and adaptive_avg_pool3d (the passes: dispatch/composite/pool_passes.h).
/// \file
/// Note [Pooling one dim at a time]
/// A pooling window is a box, the product of one input range per spatial
/// dim (Note [Pooling windows], wick/meta_nn.h), and both the maximum and
/// the sum over a box are separable: reduce the last spatial dim over its
/// windows, then the one before it over those partial results, and so on.
/// Each pass lists every window's taps as positions along its dim, k per
/// window (a window with fewer taps repeats its first one, which changes no
/// maximum and is masked out of a sum), gathers them (`gather`, whose
/// gradient is a scatter-add) and reduces the last dim (`max`, or `sum`).
/// Max pooling's flat index comes from the positions the passes chose: the
/// last dim's pass picks the first maximum along each row, the next pass the
/// first row that holds the box's maximum, and so on, so the index is the
/// first maximum in row-major order, as PyTorch's CPU loops find it.
/// Averages divide once, by the product of the dims' counts, as PyTorch
/// divides each window's sum. The passes run on every backend and take
/// their gradients from the operators they call; PyTorch's argument checks
/// and messages come first.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dispatch/composite/pool_passes.h"

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/meta_nn.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick::pool {

using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using I64 = std::int64_t;
using Ints = DimVector;

// The dtypes PyTorch 1.13's CPU kernel `kernel` has a loop for; the rest
// are refused in its words.
void check_dtype(const char* kernel, ScalarType t, std::uint32_t allowed) {
  if ((allowed & dtypes::bit(t)) == 0) throw_not_implemented_for(kernel, t);
}

// One value per spatial dim: a single value stands for all of them.
Ints per_dim(IntArrayRef v, std::size_t n) {
  Ints out;
  for (std::size_t i = 0; i < n; ++i) out.push_back(v.size() == 1 ? v[0] : v[i]);
  return out;
}

// The last `n` of `sizes` (n <= sizes.size()).
IntArrayRef last_dims(IntArrayRef sizes, std::size_t n) { return IntArrayRef(sizes.data() + sizes.size() - n, n); }

namespace {

// --- the passes --------------------------------------------------------------------------------

// One spatial dim's windows as taps: `pos` (out, k) positions along the dim,
// `invalid` marking the repeats where windows have fewer than k taps, and
// `count` (out) each window's share of an average's divisor.
struct Taps {
  Tensor pos;
  Tensor invalid;  // undefined when every window has k taps
  Tensor count;
};

// The tables are tensors from the start: their size is the pooling's output
// along the dim times k, which the allocator refuses at once when it cannot
// exist (an output_size of 2**40), before any loop runs over the windows.
Taps taps_of(const PoolDim& dim, const Device& device) {
  const I64 step = dim.kind == PoolKind::kMax ? dim.dilation : 1;
  // The most taps a window has: the kernel, or an adaptive window's
  // ceil(in / out) + 1 (never more than the input).
  const I64 k = std::max<I64>(
      1, dim.kind == PoolKind::kAdaptive ? std::min<I64>(dim.in, dim.in / std::max<I64>(dim.out, 1) + 2) : dim.kernel);
  const I64 shape[] = {dim.out, k};
  Tensor pos = empty(IntArrayRef(shape, 2), ScalarType::kInt64);
  Tensor invalid = empty(IntArrayRef(shape, 2), ScalarType::kBool);
  Tensor count = empty(IntArrayRef(&dim.out, 1), ScalarType::kInt64);
  I64* p = pos.data_ptr<I64>();
  bool* bad = invalid.data_ptr<bool>();
  I64* c = count.data_ptr<I64>();
  bool ragged = false;
  for (I64 o = 0; o < dim.out; ++o) {
    const PoolWindow w = meta::pool_window(dim, o);
    const I64 n = w.end > w.start ? (w.end - w.start - 1) / step + 1 : 0;
    const I64 first = std::clamp<I64>(w.start, 0, dim.in - 1);
    for (I64 j = 0; j < k; ++j) {
      *p++ = j < n ? w.start + j * step : first;
      *bad++ = j >= n;
    }
    ragged = ragged || n < k;
    c[o] = w.count;
  }
  Taps t;
  t.pos = pos.to(device);
  if (ragged) t.invalid = invalid.to(device);
  t.count = count.to(device);
  return t;
}

// `pos` shaped to broadcast against x.movedim(dim, -1) gathered into
// (..., out, k): (out, k) for taps shared by every plane, (N, C, out, k)
// for per-plane taps (fractional pooling).
Tensor taps_view(T pos, std::size_t lead_dims) {
  Ints view;
  const bool per_plane = pos.dim() == 4;
  for (std::size_t i = 0; i < lead_dims; ++i) view.push_back(per_plane && i < 2 ? pos.sizes()[i] : 1);
  view.push_back(pos.sizes()[pos.dim() - 2]);
  view.push_back(pos.sizes()[pos.dim() - 1]);
  return pos.reshape(IntArrayRef(view));
}

// x's dim `dim` gathered into windows: (..., out, k) with `dim` moved last.
Tensor gather_windows(T x, I64 dim, T pos) {
  const I64 last = -1;
  const Tensor xt = movedim(x, IntArrayRef(&dim, 1), IntArrayRef(&last, 1));
  Ints lead(xt.sizes());
  lead.resize(lead.size() - 1);
  const I64 out = pos.sizes()[pos.dim() - 2];
  const I64 k = pos.sizes()[pos.dim() - 1];
  Ints shape(lead);
  shape.push_back(out);
  shape.push_back(k);
  Ints flat(lead);
  flat.push_back(checked_mul(out, k, "pooling"));
  const Tensor idx = taps_view(pos, lead.size()).expand(IntArrayRef(shape)).reshape(IntArrayRef(flat));
  return gather(xt, -1, idx).reshape(IntArrayRef(shape));
}

Tensor move_back(T y, I64 dim) {
  const I64 last = -1;
  return movedim(y, IntArrayRef(&last, 1), IntArrayRef(&dim, 1));
}

// The maxima over `dim`'s windows and the input position of each.
std::pair<Tensor, Tensor> max_pass(T x, I64 dim, T pos) {
  const Tensor g = gather_windows(x, dim, pos);
  auto [values, arg] = max(g, -1);
  const Tensor where = gather(taps_view(pos, static_cast<std::size_t>(g.dim() - 2)).expand(g.sizes()), -1,
                              arg.unsqueeze(-1))
                           .squeeze(-1);
  return {move_back(values, dim), move_back(where, dim)};
}

Tensor sum_pass(T x, I64 dim, const Taps& taps) {
  Tensor g = gather_windows(x, dim, taps.pos);
  if (taps.invalid.defined()) g = masked_fill(g, taps.invalid, Scalar(0));
  const I64 last = -1;
  return move_back(sum(g, IntArrayRef(&last, 1)), dim);
}

}  // namespace

// The average of x (N, C, S...) over each box of `dims` (one per spatial
// dim): the sums pass by pass, divided once by the product of the dims'
// counts (or by divisor_override), in the input's dtype; an integer input's
// quotient truncated, as PyTorch's int64 average pooling.
Tensor average_over(const Tensor& x, const std::vector<PoolDim>& dims, std::optional<std::int64_t> divisor_override) {
  Ints out;
  for (const PoolDim& d : dims) out.push_back(d.out);
  if (empty_pool(x, out)) return zeros(IntArrayRef(pooled_shape(x, out)), x.dtype(), x.device());
  Tensor sums = x;
  Tensor divisor;
  for (std::size_t i = dims.size(); i-- > 0;) {
    const Taps taps = taps_of(dims[i], x.device());
    sums = sum_pass(sums, 2 + static_cast<I64>(i), taps);
    Ints shape(dims.size() - i, 1);
    shape[0] = dims[i].out;
    const Tensor c = taps.count.reshape(IntArrayRef(shape));
    divisor = divisor.defined() ? mul(divisor, c) : c;
  }
  if (divisor_override) divisor = full(IntArrayRef(), Scalar(*divisor_override), ScalarType::kInt64, x.device());
  return is_floating(x.dtype()) ? div(sums, divisor.to(x.dtype())) : div(sums, divisor, std::string_view("trunc"));
}

// Max pooling of x (N, C, S...) over per-dim taps, the last dim first; the
// second result is the flat index of each maximum in its plane or volume.
std::pair<Tensor, Tensor> max_over(T x, const std::vector<Tensor>& taps) {
  Tensor values = x;
  Tensor flat;
  I64 inner = 1;
  for (std::size_t i = taps.size(); i-- > 0;) {
    const I64 dim = 2 + static_cast<I64>(i);
    auto [v, where] = max_pass(values, dim, taps[i]);
    flat = flat.defined() ? add(mul(where, wrap_scalar(Scalar(inner))), gather(flat, dim, where)) : where;
    inner = checked_mul(inner, x.sizes()[static_cast<std::size_t>(dim)], "pooling");
    values = v;
  }
  return {values, flat};
}

// A (C, S...) input as (1, C, S...); `batched` says which it was.
Tensor with_batch(T input, std::size_t spatial, bool& batched) {
  batched = input.dim() == static_cast<I64>(spatial) + 2;
  return batched ? input : input.unsqueeze(0);
}

std::pair<Tensor, Tensor> unbatch(std::pair<Tensor, Tensor> r, bool batched) {
  if (batched) return r;
  return {r.first.squeeze(0), r.second.squeeze(0)};
}

Value maybe_pair(const std::pair<Tensor, Tensor>& r, bool return_indices) {
  if (!return_indices) return Value(r.first);
  return Value::list({Value(r.first), Value(r.second)}, true);
}

// An empty result of the pooled shape (PyTorch allows empty batches and outputs).
bool empty_pool(T x, IntArrayRef out_spatial) {
  if (x.numel() == 0) return true;
  return std::any_of(out_spatial.begin(), out_spatial.end(), [](I64 o) { return o == 0; });
}

Ints pooled_shape(T x, IntArrayRef out_spatial) {
  Ints shape{x.sizes()[0], x.sizes()[1]};
  for (const I64 o : out_spatial) shape.push_back(o);
  return shape;
}

std::pair<Tensor, Tensor> empty_max(T x, IntArrayRef out_spatial) {
  const Ints shape = pooled_shape(x, out_spatial);
  return {zeros(IntArrayRef(shape), x.dtype(), x.device()), zeros(IntArrayRef(shape), ScalarType::kInt64, x.device())};
}

// F.adaptive_*'s output_size as PyTorch's Python reads it: an int is every
// size; in a list, None keeps the input's size in that dim.
Ints adaptive_sizes(const char* name, const Tensor& input, const Value& output_size, std::size_t n) {
  if (output_size.is_int()) return Ints(n, output_size.to_int());
  if (output_size.is_int_list()) return Ints(output_size.to_int_list());
  WICK_CHECK(output_size.is_list() || output_size.is_tuple(), TypeError, name,
             "(): argument 'output_size' must be tuple of ints, not ", output_size.type_name());
  const std::vector<Value>& items = output_size.items();
  const auto count = static_cast<I64>(items.size());
  WICK_CHECK(input.dim() > count, ValueError, "Input dimension should be at least ", count + 1);
  Ints sizes;
  for (I64 i = 0; i < count; ++i) {
    const Value& v = items[static_cast<std::size_t>(i)];
    WICK_CHECK(v.is_none() || v.is_int(), TypeError, name, "(): argument 'output_size' must be tuple of ints, not ",
               v.type_name());
    sizes.push_back(v.is_none() ? input.sizes()[static_cast<std::size_t>(input.dim() - count + i)] : v.to_int());
  }
  return sizes;
}

}  // namespace wick::pool

namespace wick {
namespace {

using namespace pool;  // NOLINT(google-build-using-namespace): the passes are this file's subject
using T = const Tensor&;
using I64 = std::int64_t;
using Ints = DimVector;

// --- max pooling with a kernel ------------------------------------------------------------------

struct Window {
  Ints k, s, p, d;
};

std::string sizes_text(I64 c, IntArrayRef sizes) {
  std::string text = std::to_string(c);
  for (const I64 v : sizes) text += "x" + std::to_string(v);
  return text;
}

// Output sizes for max_pool3d/avg_pool3d, with pool3d_shape_check's messages.
Ints pool3d_output(T x, const Window& w, bool ceil_mode, bool check_input_size) {
  const char* op = "pooling";
  Ints out;
  for (std::size_t i = 0; i < 3; ++i) {
    WICK_CHECK(w.s[i] != 0, RuntimeError, "stride should not be zero");
    WICK_CHECK(w.p[i] >= 0, RuntimeError, "pad must be non-negative, but got pad: ", w.p[i]);
    WICK_CHECK(w.p[i] <= w.k[i] / 2, RuntimeError, "pad should be at most half of kernel size, but got pad=", w.p[i],
               " and kernel_size=", w.k[i]);
  }
  WICK_CHECK(w.k[0] > 0 && w.k[1] > 0 && w.k[2] > 0, RuntimeError,
             "kernel sizes should be greater than zero, but got kT: ", w.k[0], " kH: ", w.k[1], " kW: ", w.k[2]);
  WICK_CHECK(w.s[0] > 0 && w.s[1] > 0 && w.s[2] > 0, RuntimeError,
             "stride should be greater than zero, but got dT: ", w.s[0], " dH: ", w.s[1], " dW: ", w.s[2]);
  WICK_CHECK(w.d[0] > 0 && w.d[1] > 0 && w.d[2] > 0, RuntimeError,
             "dilation should be greater than zero, but got dilationT: ", w.d[0], " dilationH: ", w.d[1],
             " dilationW: ", w.d[2]);
  for (I64 i = 1; i < x.dim(); ++i)
    WICK_CHECK(x.sizes()[static_cast<std::size_t>(i)] > 0, RuntimeError,
               "Expected input's non-batch dimensions to have positive length, but input has a shape of ",
               format_shape(x.sizes()), " and non-batch dimension ", x.sizes()[static_cast<std::size_t>(i)],
               " has length zero!");
  const IntArrayRef in = last_dims(x.sizes(), 3);
  if (check_input_size)
    WICK_CHECK(in[0] >= w.k[0] && in[1] >= w.k[1] && in[2] >= w.k[2], RuntimeError, "input image (T: ", in[0],
               " H: ", in[1], " W: ", in[2], ") smaller than kernel size (kT: ", w.k[0], " kH: ", w.k[1],
               " kW: ", w.k[2], ")");
  for (std::size_t i = 0; i < 3; ++i) out.push_back(meta::pooled_size(op, in[i], w.k[i], w.s[i], w.p[i], w.d[i], ceil_mode));
  WICK_CHECK(out[0] >= 1 && out[1] >= 1 && out[2] >= 1, RuntimeError, "Given input size: (",
             sizes_text(x.sizes()[x.dim() - 4], in), "). Calculated output size: (",
             sizes_text(x.sizes()[x.dim() - 4], out), "). Output size is too small");
  return out;
}

Window window3d(const char* name, IntArrayRef kernel_size, std::optional<IntArrayRef> stride, IntArrayRef padding,
                IntArrayRef dilation) {
  auto three = [&](const char* what, IntArrayRef v) {
    WICK_CHECK(v.size() == 1 || v.size() == 3, RuntimeError, name, ": ", what,
               " must either be a single int, or a tuple of three ints");
    return per_dim(v, 3);
  };
  Window w;
  w.k = three("kernel_size", kernel_size);
  w.s = stride && !stride->empty() ? three("stride", *stride) : w.k;
  w.p = three("padding", padding);
  w.d = three("dilation", dilation);
  return w;
}

std::pair<Tensor, Tensor> max_pool_taps(T x, const Window& w, IntArrayRef out) {
  if (empty_pool(x, out)) return empty_max(x, out);
  std::vector<Tensor> taps;
  const std::size_t n = out.size();
  for (std::size_t i = 0; i < n; ++i) {
    const PoolDim dim{x.sizes()[2 + i], out[i], w.k[i], w.s[i], w.p[i], w.d[i], PoolKind::kMax, true};
    taps.push_back(taps_of(dim, x.device()).pos);
  }
  return max_over(x, taps);
}

std::pair<Tensor, Tensor> max_pool3d_pair(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                                          IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  const Window w = window3d("max_pool3d", kernel_size, stride, padding, dilation);
  WICK_CHECK(input.dim() == 4 || input.dim() == 5, RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input");
  const Ints out = pool3d_output(input, w, ceil_mode, false);
  check_dtype("max_pool3d_with_indices_cpu", input.dtype(), kFloatDouble);
  bool batched = false;
  const Tensor x = with_batch(input, 3, batched);
  return unbatch(max_pool_taps(x, w, out), batched);
}

std::tuple<Tensor, Tensor> max_pool3d_with_indices_kernel(T input, IntArrayRef kernel_size,
                                                          std::optional<IntArrayRef> stride, IntArrayRef padding,
                                                          IntArrayRef dilation, bool ceil_mode, bool /*return_indices*/) {
  auto r = max_pool3d_pair(input, kernel_size, stride, padding, dilation, ceil_mode);
  return {r.first, r.second};
}

Tensor torch_max_pool3d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                               IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool3d_pair(input, kernel_size, stride, padding, dilation, ceil_mode).first;
}

Value f_max_pool3d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride, IntArrayRef padding,
                          IntArrayRef dilation, bool ceil_mode, bool return_indices) {
  return maybe_pair(max_pool3d_pair(input, kernel_size, stride, padding, dilation, ceil_mode), return_indices);
}

// max_pool1d: PyTorch's 1-D checks (check_max_pool1d, or max_pool1d_with_indices'
// own for the pair), then the maxima along the last dim.
std::pair<Tensor, Tensor> max_pool1d_pair(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride_arg,
                                          IntArrayRef padding, IntArrayRef dilation, bool ceil_mode, bool with_indices) {
  const char* name = "max_pool1d";
  IntArrayRef stride = stride_arg ? *stride_arg : IntArrayRef();
  if (with_indices) {
    WICK_CHECK(input.dim() == 2 || input.dim() == 3, RuntimeError, "Expected 2 to 3 dimensions, but got ",
               input.dim(), "-dimensional tensor for argument #1 'self' (while checking arguments for max_pool1d)");
    auto one = [&](const char* what, IntArrayRef v) {
      WICK_CHECK(v.size() == 1, RuntimeError, name, "() argument '", what, "' should contain one int (got ", v.size(), ")");
    };
    one("kernel_size", kernel_size);
    if (!stride.empty()) one("stride", stride);
    one("padding", padding);
    one("dilation", dilation);
  } else {
    WICK_CHECK(input.dim() == 2 || input.dim() == 3, RuntimeError, name,
               ": Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:",
               format_shape(input.sizes()));
    WICK_CHECK(kernel_size.size() == 1, RuntimeError, name,
               "() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size ", kernel_size.size());
    WICK_CHECK(stride.size() <= 1, RuntimeError, name,
               "() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size ", stride.size());
    WICK_CHECK(padding.size() == 1, RuntimeError, name,
               "() padding must be an int, list of ints, or tuple of ints of size 1 but got size ", padding.size());
    WICK_CHECK(dilation.size() == 1, RuntimeError, name,
               "() dilation must be an int, list of ints or tuple of ints of size 1 but got size ", dilation.size());
  }
  const I64 k = kernel_size[0];
  const I64 s = stride.empty() ? k : stride[0];
  const I64 p = padding[0];
  const I64 d = dilation[0];
  WICK_CHECK(k > 0, RuntimeError, name, "() kernel_size must be greater than zero, but got ", k);
  WICK_CHECK(s > 0, RuntimeError, name, "() stride must be greater than zero, but got ", s);
  WICK_CHECK(p >= 0, RuntimeError, name, "() padding must be non-negative, but got ", p);
  WICK_CHECK(p <= k / 2, RuntimeError, name, "() padding should be at most half of kernel size, but got padding=", p,
             " and kernel_size=", k);
  WICK_CHECK(d > 0, RuntimeError, name, "() dilation must be greater than zero, but got ", d);
  const I64 len = input.sizes().back();
  const I64 out = meta::pooled_size("max_pool1d", len, k, s, p, d, ceil_mode);
  WICK_CHECK(out >= 0, RuntimeError, name, "() Invalid computed output size: ", out);
  check_dtype(with_indices ? "max_pool2d" : "max_pool1d_impl", input.dtype(),
              kFloatDouble | dtypes::bit(ScalarType::kBFloat16));
  bool batched = false;
  const Tensor x = with_batch(input, 1, batched);
  const Window w{{k}, {s}, {p}, {d}};
  return unbatch(max_pool_taps(x, w, IntArrayRef(&out, 1)), batched);
}

Tensor torch_max_pool1d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                               IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_pool1d_pair(input, kernel_size, stride, padding, dilation, ceil_mode, false).first;
}

std::tuple<Tensor, Tensor> torch_max_pool1d_with_indices_kernel(T input, IntArrayRef kernel_size,
                                                                 std::optional<IntArrayRef> stride,
                                                                 IntArrayRef padding, IntArrayRef dilation,
                                                                 bool ceil_mode) {
  auto r = max_pool1d_pair(input, kernel_size, stride, padding, dilation, ceil_mode, true);
  return {r.first, r.second};
}

std::tuple<Tensor, Tensor> f_max_pool1d_with_indices_kernel(T input, IntArrayRef kernel_size,
                                                            std::optional<IntArrayRef> stride, IntArrayRef padding,
                                                            IntArrayRef dilation, bool ceil_mode,
                                                            bool /*return_indices*/) {
  return torch_max_pool1d_with_indices_kernel(input, kernel_size, stride, padding, dilation, ceil_mode);
}

Value f_max_pool1d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride, IntArrayRef padding,
                          IntArrayRef dilation, bool ceil_mode, bool return_indices) {
  return maybe_pair(max_pool1d_pair(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices),
                    return_indices);
}

// --- avg_pool3d -----------------------------------------------------------------------------------

Tensor avg_pool3d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> stride, IntArrayRef padding,
                         bool ceil_mode, bool count_include_pad, std::optional<I64> divisor_override) {
  const I64 one[] = {1};
  const Window w = window3d("avg_pool3d", kernel_size, stride, padding, IntArrayRef(one, 1));
  WICK_CHECK(input.dim() == 4 || input.dim() == 5, RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input");
  WICK_CHECK(!divisor_override || *divisor_override != 0, RuntimeError, "divisor must be not zero");
  const Ints out = pool3d_output(input, w, ceil_mode, true);
  check_dtype("avg_pool3d_out_frame", input.dtype(), kFloatDouble | dtypes::bit(ScalarType::kInt64));
  bool batched = false;
  const Tensor x = with_batch(input, 3, batched);
  std::vector<PoolDim> dims;
  for (std::size_t i = 0; i < 3; ++i)
    dims.push_back(PoolDim{x.sizes()[2 + i], out[i], w.k[i], w.s[i], w.p[i], 1, PoolKind::kAverage, count_include_pad});
  const Tensor result = average_over(x, dims, divisor_override);
  return batched ? result : result.squeeze(0);
}

// --- adaptive pooling ------------------------------------------------------------------------------

// "Trying to create tensor with negative dimension -1: [2, 2, -1, -1]": the
// result's allocation refuses a negative output size.
void check_output_sizes(T input, IntArrayRef out, bool unsqueezed) {
  Ints shape(IntArrayRef(input.sizes().data(), input.sizes().size() - out.size()));
  if (unsqueezed) shape.push_back(1);  // PyTorch's (..., 1, L) view of a 1-D pooling
  for (const I64 o : out) shape.push_back(o);
  for (const I64 o : out)
    WICK_CHECK(o >= 0, RuntimeError, "Trying to create tensor with negative dimension ", o, ": ", format_shape(shape));
}

void check_nonempty(const char* name, IntArrayRef sizes_shown) {
  for (std::size_t d = 1; d < sizes_shown.size(); ++d)
    WICK_CHECK(sizes_shown[d] > 0, RuntimeError, name,
               "(): Expected input to have non-zero size for non-batch dimensions, but input has sizes ",
               format_shape(sizes_shown), " with dimension ", d, " being empty");
}

std::pair<Tensor, Tensor> adaptive_max(T x, IntArrayRef out) {
  if (empty_pool(x, out)) return empty_max(x, out);
  std::vector<Tensor> taps;
  for (std::size_t i = 0; i < out.size(); ++i) {
    const PoolDim dim{x.sizes()[2 + i], out[i], 1, 1, 0, 1, PoolKind::kAdaptive, true};
    taps.push_back(taps_of(dim, x.device()).pos);
  }
  return max_over(x, taps);
}

std::pair<Tensor, Tensor> adaptive_max2d_pair(T input, IntArrayRef out) {
  const char* name = "adaptive_max_pool2d";
  WICK_CHECK(input.dim() == 3 || input.dim() == 4, RuntimeError, name, "(): Expected 3D or 4D tensor, but got: ",
             format_shape(input.sizes()));
  WICK_CHECK(out.size() == 2, RuntimeError, name, "(): internal error: output_size.size() must be 2");
  check_nonempty(name, input.sizes());
  check_output_sizes(input, out, false);
  check_dtype(name, input.dtype(), kFloatDouble | dtypes::bit(ScalarType::kBFloat16));
  bool batched = false;
  const Tensor x = with_batch(input, 2, batched);
  return unbatch(adaptive_max(x, out), batched);
}

std::pair<Tensor, Tensor> adaptive_max1d_pair(T input, IntArrayRef out) {
  WICK_CHECK(input.dim() == 2 || input.dim() == 3, RuntimeError, "Expected 2 to 3 dimensions, but got ", input.dim(),
             "-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_max_pool1d)");
  WICK_CHECK(out.size() == 1, RuntimeError, "adaptive_max_pool1d() argument 'output_size' should contain one int (got ",
             out.size(), ")");
  // PyTorch pools a (..., 1, L) view in two dims: its messages show that shape.
  const Tensor x = input.unsqueeze(-2);
  check_nonempty("adaptive_max_pool2d", x.sizes());
  check_output_sizes(input, out, true);
  check_dtype("adaptive_max_pool2d", input.dtype(), kFloatDouble | dtypes::bit(ScalarType::kBFloat16));
  bool batched = false;
  const Tensor b = with_batch(input, 1, batched);
  return unbatch(adaptive_max(b, out), batched);
}

std::pair<Tensor, Tensor> adaptive_max3d_pair(T input, IntArrayRef out) {
  const char* name = "adaptive_max_pool3d";
  WICK_CHECK(input.dim() == 4 || input.dim() == 5, RuntimeError, name, "(): Expected 4D or 5D tensor, but got: ",
             format_shape(input.sizes()));
  WICK_CHECK(out.size() == 3, RuntimeError, name, "(): internal error: output_size.size() must be 3");
  check_nonempty(name, input.sizes());
  check_output_sizes(input, out, false);
  check_dtype("adaptive_max_pool3d_cpu", input.dtype(), kFloatDouble);
  bool batched = false;
  const Tensor x = with_batch(input, 3, batched);
  return unbatch(adaptive_max(x, out), batched);
}

std::tuple<Tensor, Tensor> torch_adaptive_max_pool1d_kernel(T input, IntArrayRef output_size) {
  auto r = adaptive_max1d_pair(input, output_size);
  return {r.first, r.second};
}

Ints one_size(const Value& output_size, T input) {
  return adaptive_sizes("adaptive_max_pool1d", input, output_size, 1);
}

Value f_adaptive_max_pool1d_kernel(T input, const Value& output_size, bool return_indices) {
  return maybe_pair(adaptive_max1d_pair(input, one_size(output_size, input)), return_indices);
}
std::tuple<Tensor, Tensor> f_adaptive_max_pool1d_with_indices_kernel(T input, const Value& output_size, bool) {
  auto r = adaptive_max1d_pair(input, one_size(output_size, input));
  return {r.first, r.second};
}
Value f_adaptive_max_pool2d_kernel(T input, const Value& output_size, bool return_indices) {
  return maybe_pair(adaptive_max2d_pair(input, adaptive_sizes("adaptive_max_pool2d", input, output_size, 2)),
                    return_indices);
}
std::tuple<Tensor, Tensor> f_adaptive_max_pool2d_with_indices_kernel(T input, const Value& output_size, bool) {
  auto r = adaptive_max2d_pair(input, adaptive_sizes("adaptive_max_pool2d", input, output_size, 2));
  return {r.first, r.second};
}
Value f_adaptive_max_pool3d_kernel(T input, const Value& output_size, bool return_indices) {
  return maybe_pair(adaptive_max3d_pair(input, adaptive_sizes("adaptive_max_pool3d", input, output_size, 3)),
                    return_indices);
}
std::tuple<Tensor, Tensor> f_adaptive_max_pool3d_with_indices_kernel(T input, const Value& output_size, bool) {
  auto r = adaptive_max3d_pair(input, adaptive_sizes("adaptive_max_pool3d", input, output_size, 3));
  return {r.first, r.second};
}

Tensor f_adaptive_avg_pool3d_kernel(T input, const Value& output_size) {
  const char* name = "adaptive_avg_pool3d";
  const Ints out = adaptive_sizes(name, input, output_size, 3);
  WICK_CHECK(out.size() == 3, RuntimeError, name, "(): internal error: output_size.size() must be 3");
  WICK_CHECK(out[0] >= 0 && out[1] >= 0 && out[2] >= 0, RuntimeError,
             "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {", out[0],
             ", ", out[1], ",", out[2], "}");
  WICK_CHECK(input.dim() == 4 || input.dim() == 5, RuntimeError, name, "(): Expected 4D or 5D tensor, but got ",
             format_shape(input.sizes()));
  check_nonempty(name, input.sizes());
  check_dtype("adaptive_avg_pool3d_cpu", input.dtype(), kFloatDouble | dtypes::bit(ScalarType::kFloat16));
  bool batched = false;
  const Tensor x = with_batch(input, 3, batched);
  std::vector<PoolDim> dims;
  for (std::size_t i = 0; i < 3; ++i) dims.push_back(PoolDim{x.sizes()[2 + i], out[i], 1, 1, 0, 1, PoolKind::kAdaptive, true});
  const Tensor result = average_over(x, dims, std::nullopt);
  return batched ? result : result.squeeze(0);
}

}  // namespace

void register_pool_nd_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("max_pool1d", &torch_max_pool1d_kernel)
      .impl("max_pool1d_with_indices", &torch_max_pool1d_with_indices_kernel)
      .impl("max_pool3d", &torch_max_pool3d_kernel)
      .impl("adaptive_max_pool1d", &torch_adaptive_max_pool1d_kernel);
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("max_pool1d", &f_max_pool1d_kernel)
      .impl("max_pool1d_with_indices", &f_max_pool1d_with_indices_kernel)
      .impl("max_pool3d", &f_max_pool3d_kernel)
      .impl("max_pool3d_with_indices", &max_pool3d_with_indices_kernel)
      .impl("avg_pool3d", &avg_pool3d_kernel)
      .impl("adaptive_avg_pool3d", &f_adaptive_avg_pool3d_kernel)
      .impl("adaptive_max_pool1d", &f_adaptive_max_pool1d_kernel)
      .impl("adaptive_max_pool1d_with_indices", &f_adaptive_max_pool1d_with_indices_kernel)
      .impl("adaptive_max_pool2d", &f_adaptive_max_pool2d_kernel)
      .impl("adaptive_max_pool2d_with_indices", &f_adaptive_max_pool2d_with_indices_kernel)
      .impl("adaptive_max_pool3d", &f_adaptive_max_pool3d_kernel)
      .impl("adaptive_max_pool3d_with_indices", &f_adaptive_max_pool3d_with_indices_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
}

}  // namespace wick
