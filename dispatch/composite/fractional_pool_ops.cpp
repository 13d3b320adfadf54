// dispatch/composite/fractional_pool_ops.cpp - fractional max pooling and max_unpool, on the pooling passes.
/// \file
/// F.fractional_max_pool2d/3d place pseudo-random windows as PyTorch 1.13
/// does and take their maxima with the separable passes of
/// dispatch/composite/pool_passes.h; F.max_unpool1d/2d/3d scatter each
/// value to its index in a zero result (F._unpool_output_size's sizes and
/// checks), so the gradient is a gather.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dispatch/composite/composite.h"
#include "dispatch/composite/pool_passes.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using namespace pool;  // NOLINT(google-build-using-namespace): the passes are this file's subject
using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using I64 = std::int64_t;
using Ints = DimVector;

// --- fractional max pooling ---------------------------------------------------------------------

// Graham's pseudo-random windows, as PyTorch 1.13 places them: for a sample
// u of the plane, alpha = (in - k) / (out - 1) in the input's dtype, window i
// starts at trunc((i + u) alpha) - trunc(u alpha), and the last at in - k.
// Computed with tensor operations in that dtype, so the roundings agree.
Tensor fractional_taps(T u /* (N, C) */, I64 in, I64 out, I64 k) {
  const Device device = u.device();
  Tensor starts;
  if (out > 1) {
    const double alpha_exact = static_cast<double>(in - k) / static_cast<double>(out - 1);
    const Tensor alpha = full(IntArrayRef(), Scalar(alpha_exact), u.dtype(), device);
    const Tensor i = arange(Scalar(0), Scalar(out - 1), Scalar(1), u.dtype(), device);
    const Tensor uu = u.unsqueeze(-1);
    starts = sub(trunc(mul(add(i, uu), alpha)), trunc(mul(uu, alpha))).to(ScalarType::kInt64);
  }
  Ints lead(u.sizes());
  lead.push_back(1);
  const Tensor last = full(IntArrayRef(lead), Scalar(in - k), ScalarType::kInt64, device);
  starts = starts.defined() ? cat({starts, last}, -1) : last;
  const Tensor offsets = arange(Scalar(0), Scalar(k), Scalar(1), ScalarType::kInt64, device);
  return add(starts.unsqueeze(-1), offsets);  // (N, C, out, k)
}

std::pair<Tensor, Tensor> fractional_pair(const char* name, std::size_t n, T input, IntArrayRef kernel_size,
                                          std::optional<IntArrayRef> output_size_arg, const Value& output_ratio,
                                          OptTensor random_samples) {
  const bool three = n == 3;
  const Ints k = per_dim(kernel_size, n);
  WICK_CHECK(output_size_arg || !output_ratio.is_none(), ValueError, name,
             " requires specifying either an output_size or an output_ratio");
  Ints out;
  if (output_size_arg) {
    out = per_dim(*output_size_arg, n);
  } else {
    std::vector<double> ratio;
    if (output_ratio.is_list() || output_ratio.is_tuple()) {
      for (const Value& v : output_ratio.items()) ratio.push_back(v.to_double());
    } else {
      ratio.push_back(output_ratio.to_double());
    }
    WICK_CHECK(ratio.size() == 1 || ratio.size() == n, ValueError, name, ": output_ratio must be a number or ", n,
               " numbers");
    for (std::size_t i = 0; i < n; ++i) {
      const double r = ratio.size() == 1 ? ratio[0] : ratio[i];
      const I64 size = input.dim() >= static_cast<I64>(n) ? input.sizes()[static_cast<std::size_t>(input.dim()) - n + i] : 0;
      out.push_back(static_cast<I64>(static_cast<double>(size) * r));
    }
  }
  const std::string prefix = three ? "fractional_max_pool3d_out(): " : "fractional_max_pool2d(): ";
  const I64 lo = three ? 4 : 3;
  if (!three)
    for (I64 d = 1; d < input.dim(); ++d)
      WICK_CHECK(input.sizes()[static_cast<std::size_t>(d)] > 0, RuntimeError, prefix,
                 "Expected input to have non-zero size for non-batch dimensions, but got", format_shape(input.sizes()),
                 " with dimension ", d, " being empty.");
  WICK_CHECK(input.dim() == lo || input.dim() == lo + 1, RuntimeError, prefix, "Expected ", lo, "D or ", lo + 1,
             "D tensor, but got: ", format_shape(input.sizes()));
  if (three)
    for (I64 d = 1; d < input.dim(); ++d)
      WICK_CHECK(input.sizes()[static_cast<std::size_t>(d)] > 0, RuntimeError, prefix,
                 "Expected input to have non-zero size for non-batch dimensions, but got", format_shape(input.sizes()),
                 " with dimension ", d, " being empty.");
  const IntArrayRef in = last_dims(input.sizes(), n);
  const char* names[] = {"time", "height", "width"};
  for (std::size_t i = 0; i < n; ++i) {
    const char* what = names[three ? i : i + 1];
    // PyTorch 1.13's 3-D check is strict, its 2-D one is not.
    const I64 reach = checked_add(out[i], checked_sub(k[i], 1, name), name);
    WICK_CHECK(three ? reach < in[i] : reach <= in[i], RuntimeError, prefix, "pool ", what, " ", k[i],
               " too large relative to input ", what, " ", in[i]);
  }
  bool batched = false;
  const Tensor x = with_batch(input, n, batched);
  Tensor samples;
  if (random_samples) {
    samples = *random_samples;
  } else {
    const I64 shape[] = {x.sizes()[0], x.sizes()[1], static_cast<I64>(n)};
    samples = rand(IntArrayRef(shape, 3), input.dtype(), input.device());
  }
  check_dtype(three ? "fractional_max_pool3d_out_frame" : "fractional_max_pool2d_out_frame", input.dtype(),
              kFloatDouble);
  WICK_CHECK(samples.dim() == 3 && samples.sizes()[0] >= x.sizes()[0] && samples.sizes()[1] >= x.sizes()[1] &&
                 samples.sizes()[2] >= static_cast<I64>(n),
             RuntimeError, name, ": _random_samples must have shape (N, C, ", n, "), got ",
             format_shape(samples.sizes()));
  if (empty_pool(x, out)) return unbatch(empty_max(x, out), batched);
  if (std::any_of(k.begin(), k.end(), [](I64 v) { return v <= 0; })) {
    // Empty windows: PyTorch's loops leave -inf and the index -1.
    const Ints shape = pooled_shape(x, out);
    return unbatch({full(IntArrayRef(shape), Scalar(-std::numeric_limits<double>::infinity()), x.dtype(), x.device()),
                    full(IntArrayRef(shape), Scalar(-1), ScalarType::kInt64, x.device())},
                   batched);
  }
  const Tensor u = samples.narrow(0, 0, x.sizes()[0]).narrow(1, 0, x.sizes()[1]).to(x.dtype()).detach();
  std::vector<Tensor> taps;
  for (std::size_t i = 0; i < n; ++i) {
    // PyTorch's 2-D kernel reads the width's sample first; the 3-D one time, height, width.
    const I64 column = three ? static_cast<I64>(i) : static_cast<I64>(1 - i);
    taps.push_back(fractional_taps(u.select(2, column), in[i], out[i], k[i]));
  }
  return unbatch(max_over(x, taps), batched);
}

Value f_fractional_max_pool2d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> output_size,
                                     const Value& output_ratio, bool return_indices, OptTensor random_samples) {
  return maybe_pair(fractional_pair("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio,
                                    random_samples),
                    return_indices);
}
std::tuple<Tensor, Tensor> f_fractional_max_pool2d_with_indices_kernel(T input, IntArrayRef kernel_size,
                                                                       std::optional<IntArrayRef> output_size,
                                                                       const Value& output_ratio, bool,
                                                                       OptTensor random_samples) {
  auto r = fractional_pair("fractional_max_pool2d", 2, input, kernel_size, output_size, output_ratio, random_samples);
  return {r.first, r.second};
}
Value f_fractional_max_pool3d_kernel(T input, IntArrayRef kernel_size, std::optional<IntArrayRef> output_size,
                                     const Value& output_ratio, bool return_indices, OptTensor random_samples) {
  return maybe_pair(fractional_pair("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio,
                                    random_samples),
                    return_indices);
}
std::tuple<Tensor, Tensor> f_fractional_max_pool3d_with_indices_kernel(T input, IntArrayRef kernel_size,
                                                                       std::optional<IntArrayRef> output_size,
                                                                       const Value& output_ratio, bool,
                                                                       OptTensor random_samples) {
  auto r = fractional_pair("fractional_max_pool3d", 3, input, kernel_size, output_size, output_ratio, random_samples);
  return {r.first, r.second};
}

// --- max_unpool -----------------------------------------------------------------------------------

// F._unpool_output_size: the default size, or output_size (optionally with
// N and C in front) within a stride of it.
Ints unpool_size(T input, const Ints& k, const Ints& s, const Ints& p, std::optional<IntArrayRef> output_size) {
  const std::size_t n = k.size();
  Ints def;
  for (std::size_t d = 0; d < n; ++d) {
    const I64 in = input.dim() >= static_cast<I64>(n) ? input.sizes()[static_cast<std::size_t>(input.dim()) - n + d] : 0;
    def.push_back(checked_sub(checked_add(checked_mul(in - 1, s[d], "max_unpool"), k[d], "max_unpool"),
                              checked_mul(p[d], 2, "max_unpool"), "max_unpool"));
  }
  if (!output_size) return def;
  Ints out(*output_size);
  if (out.size() == n + 2) out = Ints(last_dims(out, n));
  WICK_CHECK(out.size() == n, ValueError, "output_size should be a sequence containing ", n, " or ", n + 2,
             " elements, but it has a length of '", out.size(), "'");
  for (std::size_t d = 0; d < n; ++d) {
    const I64 lo = checked_sub(def[d], s[d], "max_unpool");
    const I64 hi = checked_add(def[d], s[d], "max_unpool");
    WICK_CHECK(lo < out[d] && out[d] < hi, ValueError, "invalid output_size \"", format_shape(*output_size),
               "\" (dim ", d, " must be between ", lo, " and ", hi, ")");
  }
  return out;
}

Tensor max_unpool_nd(std::size_t n, T input, T indices, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                     IntArrayRef padding, std::optional<IntArrayRef> output_size) {
  const Ints k = per_dim(kernel_size, n);
  const Ints s = stride && !stride->empty() ? per_dim(*stride, n) : k;
  const Ints p = per_dim(padding, n);
  const Ints out = unpool_size(input, k, s, p, output_size);
  // PyTorch's 1-D unpooling is its 2-D one of a (..., L, 1) view: its names and sizes.
  const std::size_t dims = n == 1 ? 2 : n;
  const std::string kernel = n == 3 ? "max_unpool3d" : "max_unpool2d";
  WICK_CHECK(indices.dtype() == ScalarType::kInt64, RuntimeError, "elements in indices should be type int64 but got: ",
             type_title(indices.dtype()));
  WICK_CHECK(input.dim() == static_cast<I64>(dims) + 1 + (n == 1 ? -1 : 0) ||
                 input.dim() == static_cast<I64>(dims) + 2 + (n == 1 ? -1 : 0),
             RuntimeError, "Input to max_unpooling", dims, "d should be a ", dims + 1, "d or ", dims + 2,
             "d Tensor, but got a tensor with ", input.dim() + (n == 1 ? 1 : 0), " dimensions.");
  WICK_CHECK(input.sizes().equals(indices.sizes()), RuntimeError,
             "Expected shape of indices to be same as that of the input tensor (", format_shape(input.sizes()),
             ") but got indices tensor with shape: ", format_shape(indices.sizes()));
  for (std::size_t d = 0; d < n; ++d)
    WICK_CHECK(s[d] > 0, RuntimeError, "strides should be greater than zero, but got stride: ", format_shape(s));
  check_dtype(kernel.c_str(), input.dtype(), kFloatDouble);
  bool batched = false;
  const Tensor x = with_batch(input, n, batched);
  const Tensor idx = batched ? indices : indices.unsqueeze(0);
  I64 volume = 1;
  std::string shown;
  for (std::size_t d = 0; d < n; ++d) {
    WICK_CHECK(out[d] >= 0, RuntimeError, "Trying to create tensor with negative dimension ", out[d], ": ",
               format_shape(out));
    volume = checked_mul(volume, out[d], "max_unpool");
    shown += (d == 0 ? "" : "x") + std::to_string(out[d]);
  }
  if (n == 1) shown += "x1";
  const I64 planes_shape[] = {x.sizes()[0], x.sizes()[1], -1};
  const Tensor flat_idx = idx.reshape(IntArrayRef(planes_shape, 3));
  if (flat_idx.numel() > 0 && !flat_idx.device().is_meta()) {
    const Tensor bad = logical_or(lt(flat_idx, Scalar(0)), ge(flat_idx, Scalar(volume)));
    if (any(bad).item<bool>()) {
      const I64 first = masked_select(flat_idx, bad).flatten().select(0, 0).item<I64>();
      WICK_CHECK(false, RuntimeError, "Found an invalid max index: ", first, " (output volumes are of size ", shown);
    }
  }
  const I64 zeros_shape[] = {x.sizes()[0], x.sizes()[1], volume};
  Tensor result = scatter(zeros(IntArrayRef(zeros_shape, 3), x.dtype(), x.device()), 2, flat_idx,
                          x.reshape(IntArrayRef(planes_shape, 3)));
  const Ints shape = pooled_shape(x, out);
  result = result.reshape(IntArrayRef(shape));
  return batched ? result : result.squeeze(0);
}

Tensor max_unpool1d_kernel(T input, T indices, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                           IntArrayRef padding, std::optional<IntArrayRef> output_size) {
  return max_unpool_nd(1, input, indices, kernel_size, stride, padding, output_size);
}
Tensor max_unpool2d_kernel(T input, T indices, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                           IntArrayRef padding, std::optional<IntArrayRef> output_size) {
  return max_unpool_nd(2, input, indices, kernel_size, stride, padding, output_size);
}
Tensor max_unpool3d_kernel(T input, T indices, IntArrayRef kernel_size, std::optional<IntArrayRef> stride,
                           IntArrayRef padding, std::optional<IntArrayRef> output_size) {
  return max_unpool_nd(3, input, indices, kernel_size, stride, padding, output_size);
}

}  // namespace

void register_fractional_pool_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kCompositeImplicit);
  functional->impl("fractional_max_pool2d", &f_fractional_max_pool2d_kernel)
      .impl("fractional_max_pool2d_with_indices", &f_fractional_max_pool2d_with_indices_kernel)
      .impl("fractional_max_pool3d", &f_fractional_max_pool3d_kernel)
      .impl("fractional_max_pool3d_with_indices", &f_fractional_max_pool3d_with_indices_kernel)
      .impl("max_unpool1d", &max_unpool1d_kernel)
      .impl("max_unpool2d", &max_unpool2d_kernel)
      .impl("max_unpool3d", &max_unpool3d_kernel);
  out.push_back(std::move(functional));
}

}  // namespace wick
