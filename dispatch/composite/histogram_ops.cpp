// dispatch/composite/histogram_ops.cpp - torch.histogram and torch.histogramdd over searchsorted and scatter_add.
/// \file
/// Note [Histograms]
/// histogramdd bins N points of D coordinates (input's last dim) into a D-
/// dimensional grid. Each dim's edges are either given (a 1-D tensor of
/// input's dtype) or `bins` equal bins over the dim's range: the given
/// (min, max), else the data's, widened by 0.5 on both sides when it is a
/// point, edges from linspace in input's dtype. A coordinate goes to the last
/// edge not above it (searchsorted, right side), the last edge itself to the
/// last bin; a point with a coordinate outside the edges, or NaN, is not
/// counted. The flat bin of each point collects its weight (1 without
/// `weight`) with scatter_add; `density` divides by the total and by each
/// bin's volume (the product of its widths). histogram is histogramdd of the
/// flattened input as N points of one coordinate. The checks and messages
/// are PyTorch 1.13's.
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;

struct Histogram {
  Tensor hist;
  std::vector<Tensor> edges;
};

// bins: one int for every dim, one int per dim, or one 1-D tensor of edges per dim.
Histogram histogramdd_impl(const Tensor& input, const Value& bins, const std::optional<std::vector<double>>& range,
                           const std::optional<Tensor>& weight, bool density) {
  const char* op = "torch.histogramdd";
  const ScalarType t = input.dtype();
  WICK_CHECK(input.dim() >= 2, RuntimeError, op, ": torch.histogramdd: input tensor should have at least 2 dimensions");
  const I64 dims = input.size(-1);
  const Tensor points = input.reshape({-1, dims});
  const I64 n = points.size(0);
  std::vector<Value> per_dim;
  if (bins.is_int()) {
    per_dim.assign(static_cast<std::size_t>(dims), bins);
  } else if (bins.is_tensor()) {
    per_dim.emplace_back(bins);
  } else {
    per_dim = list_items(bins);
  }
  const bool edges_given = !per_dim.empty() && per_dim.front().is_tensor();
  if (edges_given) {
    WICK_CHECK(static_cast<I64>(per_dim.size()) == dims, RuntimeError, op, ": torch.histogramdd: expected ", dims,
               " sequences of bin edges for a ", dims, "-dimensional histogram but got ", per_dim.size());
  }
  for (I64 d = 0; d < dims; ++d) {
    // PyTorch reads a missing count as 0 and ignores extra ones.
    const I64 count = d < static_cast<I64>(per_dim.size()) && !per_dim[static_cast<std::size_t>(d)].is_tensor()
                          ? per_dim[static_cast<std::size_t>(d)].to_int()
                          : 0;
    if (!edges_given) {
      WICK_CHECK(count > 0, RuntimeError, op, ": torch.histogram(): bins must be > 0, but got ", count,
                 " for dimension ", d);
    }
  }
  // PyTorch 1.13's coverage: float32 and float64; bfloat16 when the edges do
  // not come from the data; integers reach the edges' conversion of the range
  // first, whose message they get.
  if (range && !is_floating(t)) {
    for (const double v : *range) check_converts(v, t);
  }
  const bool data_range = !edges_given && !range;
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || (t == ScalarType::kBFloat16 && !data_range),
             RuntimeError, op, ": \"histogramdd\" not implemented for '", type_title(t), "'");
  if (range) {
    const I64 ends = checked_mul(dims, 2, op);
    WICK_CHECK(static_cast<I64>(range->size()) == ends, RuntimeError, op, ": torch.histogramdd: for a ", dims,
               "-dimensional histogram range should have ", ends, " elements, but got ", range->size());
  }
  if (weight) {
    const IntArrayRef expected(input.sizes().data(), static_cast<std::size_t>(input.dim() - 1));
    WICK_CHECK(weight->sizes().equals(expected), RuntimeError, op, ": torch.histogramdd: if weight tensor is "
               "provided it should have the same shape as the input tensor excluding its innermost dimension, but got "
               "input with shape ", format_shape(input.sizes()), " and weight with shape ", format_shape(weight->sizes()));
    WICK_CHECK(weight->dtype() == t, RuntimeError, op, ": torch.histogramdd: if weight tensor is provided, input tensor "
               "and weight tensor should have the same dtype, but got input(", cpp_type_name(t), "), and weight(",
               cpp_type_name(weight->dtype()), ")");
  }

  Histogram out;
  DimVector counts;
  for (I64 d = 0; d < dims; ++d) {
    Tensor edges;
    if (edges_given) {
      edges = per_dim[static_cast<std::size_t>(d)].to_tensor().clone();  // the result's own, as PyTorch's
      WICK_CHECK(edges.dim() == 1, RuntimeError, op, ": torch.histogramdd: bins tensor should have one dimension, but "
                 "got ", edges.dim(), " dimensions in the bins tensor for dimension ", d);
      WICK_CHECK(edges.dtype() == t, RuntimeError, op, ": torch.histogramdd: input tensor and bins tensors should have "
                 "the same dtype, but got input with dtype ", cpp_type_name(t), " and bins for dimension ", d, " with dtype ",
                 cpp_type_name(edges.dtype()));
      WICK_CHECK(edges.numel() > 0, RuntimeError, op, ": torch.histogram(): bins must be > 0, but got 0 for dimension ",
                 d);
    } else {
      const I64 count = per_dim[static_cast<std::size_t>(d)].to_int();
      double lo = 0;
      double hi = 1;
      if (range) {
        lo = (*range)[static_cast<std::size_t>(2 * d)];
        hi = (*range)[static_cast<std::size_t>(2 * d + 1)];
      } else if (n > 0 && !input.device().is_meta()) {
        const Tensor column = points.select(1, d);
        lo = amin(column).item<double>();
        hi = amax(column).item<double>();
      }
      WICK_CHECK(lo <= hi || std::isnan(lo) || std::isnan(hi), RuntimeError, op, ": torch.histogramdd: min should not "
                 "exceed max, but got min ", lo, " max ", hi, " for dimension ", d);
      WICK_CHECK(std::isfinite(lo) && std::isfinite(hi), RuntimeError, op, ": torch.histogramdd: dimension ", d,
                 "'s range [", lo, ", ", hi, "] is not finite");
      if (lo == hi) {
        lo -= 0.5;
        hi += 0.5;
      }
      edges = linspace(Scalar(lo), Scalar(hi), checked_add(count, 1, op), t, input.device());
    }
    counts.push_back(edges.numel() - 1);
    out.edges.push_back(edges);
  }

  const I64 cells = checked_numel(counts);
  Tensor flat = zeros({cells}, t, input.device());
  if (n > 0 && cells > 0 && !input.device().is_meta()) {
    Tensor cell = zeros({n}, ScalarType::kInt64, input.device());
    Tensor inside = ones({n}, ScalarType::kBool, input.device());
    for (I64 d = 0; d < dims; ++d) {
      const Tensor& edges = out.edges[static_cast<std::size_t>(d)];
      const I64 last = counts[static_cast<std::size_t>(d)];
      const Tensor x = points.select(1, d).contiguous();
      inside = inside.logical_and(x.ge(edges.select(0, 0))).logical_and(x.le(edges.select(0, last)));
      const Tensor bin = searchsorted(edges, x, false, /*right=*/true)
                             .sub(1)
                             .clamp(Scalar(I64{0}), Scalar(std::max<I64>(last - 1, 0)));
      cell = cell.mul(last).add(bin);
    }
    const Tensor w = weight ? weight->reshape({-1}) : ones({n}, t, input.device());
    flat = flat.scatter_add(0, cell, where(inside, w, zeros_like(w)));
  }
  out.hist = flat.reshape(counts);
  if (density) {
    Tensor volume = ones({}, t, input.device());
    for (I64 d = 0; d < dims; ++d) {
      const Tensor& edges = out.edges[static_cast<std::size_t>(d)];
      const I64 last = counts[static_cast<std::size_t>(d)];
      DimVector along(static_cast<std::size_t>(dims), 1);
      along[static_cast<std::size_t>(d)] = last;
      volume = volume.mul(edges.narrow(0, 1, last).sub(edges.narrow(0, 0, last)).reshape(along));
    }
    out.hist = out.hist.div(out.hist.sum()).div(volume);
  }
  return out;
}

// A range argument: None, or a list or tuple of numbers.
std::optional<std::vector<double>> range_of(const Value& range) {
  if (range.is_none()) return std::nullopt;
  std::vector<double> out;
  for (const Value& v : list_items(range)) out.push_back(v.to_double());
  return out;
}

std::tuple<Tensor, Tensor> histogram_kernel(const Tensor& input, const Value& bins, const Value& range,
                                            const std::optional<Tensor>& weight, bool density) {
  // As PyTorch: N points of one coordinate, and the weight flattened.
  if (weight) {
    WICK_CHECK(weight->numel() == input.numel(), RuntimeError, "torch.histogram: torch.histogramdd: if weight tensor "
               "is provided it should have the same shape as the input tensor excluding its innermost dimension, but "
               "got input with shape ", format_shape(DimVector{input.numel(), 1}), " and weight with shape [",
               weight->numel(), "]");
  }
  const std::optional<Tensor> flat_weight = weight ? std::optional(weight->reshape({-1})) : std::nullopt;
  const Histogram h = histogramdd_impl(input.reshape({-1, 1}), bins, range_of(range), flat_weight, density);
  return {h.hist, h.edges.front()};
}

Value histogramdd_kernel(const Tensor& input, const Value& bins, const Value& range, const std::optional<Tensor>& weight,
                         bool density) {
  const Histogram h = histogramdd_impl(input, bins, range_of(range), weight, density);
  std::vector<Value> edges(h.edges.begin(), h.edges.end());
  return Value::list({Value(h.hist), Value::list(std::move(edges), /*tuple=*/true)}, /*tuple=*/true);
}

}  // namespace

void register_histogram_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("histogram", &histogram_kernel).impl("histogramdd", &histogramdd_kernel);
  out.push_back(std::move(torch));
}

}  // namespace wick
