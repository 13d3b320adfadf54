// dispatch/composite/statistics_ops.cpp - cov, corrcoef, isin, renorm and segment_reduce, over the reductions, mm,
// sort, searchsorted and scatter_reduce.
/// \file
/// Differentiable where PyTorch's are (cov, corrcoef and renorm, through
/// the operators they are written in: renorm's gradient flows through the
/// norm, as PyTorch's renorm_backward does, and segment_reduce's through
/// scatter_reduce); isin gives bools.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;
using OptTensor = const std::optional<Tensor>&;

// PyTorch's checks of a weight vector: at most 1-D, one per observation,
// none negative.
void check_weights(T w, const char* name, I64 observations) {
  WICK_CHECK(w.dim() <= 1, RuntimeError, "torch.cov: cov(): expected ", name,
             " to have one or fewer dimensions but got ", name, " with ", w.dim(), " dimensions");
  WICK_CHECK(w.numel() == observations, RuntimeError, "torch.cov: cov(): expected ", name,
             " to have the same numel as there are observations in the input but got ", w.numel(),
             " != ", observations);
  // Data checks need values: a meta tensor has none (its geometry is checked).
  WICK_CHECK(observations == 0 || w.device().is_meta() || w.min().ge(0).item().to<bool>(), RuntimeError,
             "torch.cov: cov(): ", name, " cannot be negative");
}

void check_weight_dtype(T w, const char* name, bool integral) {
  const bool fits = integral ? is_integral(w.dtype(), /*include_bool=*/false) : is_floating(w.dtype());
  WICK_CHECK(fits, RuntimeError, "torch.cov: cov(): expected ", name, " to have ",
             integral ? "integral" : "floating point", " dtype but got ", name, " with ", type_title(w.dtype()),
             " dtype");
}

// The weighted mean of each variable (row) over its observations, then
// sum(w (x - mean)(x - mean)^H) / (w_sum - correction * sum(w a) / w_sum),
// as numpy.cov; a normaliser <= 0 gives infinities and NaNs (PyTorch warns).
Tensor cov_kernel(T self, I64 correction, const std::optional<Tensor>& fweights,
                  const std::optional<Tensor>& aweights) {
  WICK_CHECK(self.dim() <= 2, RuntimeError,
             "torch.cov: cov(): expected input to have two or fewer dimensions but got "
             "an input with ",
             self.dim(), " dimensions");
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError,
             "torch.cov: cov(): bool dtype is not supported for input");
  const Tensor in = self.dim() < 2 ? self.reshape({1, -1}) : self;
  const I64 observations = in.sizes()[1];
  std::optional<Tensor> w;
  if (fweights) {
    check_weight_dtype(*fweights, "fweights", true);
    check_weights(*fweights, "fweights", observations);
    w = *fweights;
  }
  if (aweights) {
    check_weight_dtype(*aweights, "aweights", false);
    check_weights(*aweights, "aweights", observations);
    w = w ? w->mul(*aweights) : *aweights;
  }
  const Tensor w_sum = w ? w->sum() : full({}, observations, ScalarType::kInt64, in.device());
  const bool meta = in.device().is_meta();
  WICK_CHECK(!w || meta || w_sum.ne(0).item().to<bool>(), RuntimeError,
             "torch.cov: cov(): weights sum to zero, can't be normalized");
  const Tensor mean = (w ? in.mul(*w) : in).sum(IntArrayRef{1}).div(w_sum);
  Tensor norm = w && aweights && correction != 0 ? w_sum.sub(w->mul(*aweights).sum().mul(correction).div(w_sum))
                                                 : w_sum.sub(correction);
  if (!meta && norm.le(0).item().to<bool>()) norm = zeros_like(norm);
  const Tensor centred = in.sub(mean.unsqueeze(1));
  const Tensor c = mm(centred, (w ? centred.mul(*w) : centred).t().conj());
  return c.true_divide(norm).squeeze();
}

// cov over the outer product of the deviations, clamped to [-1, 1] (each
// part of a complex one).
Tensor corrcoef_kernel(T self) {
  WICK_CHECK(self.dim() <= 2, RuntimeError,
             "torch.corrcoef: corrcoef(): expected input to have two or fewer "
             "dimensions but got an input with ",
             self.dim(), " dimensions");
  Tensor c = cov(self);
  if (c.dim() == 0) return c.div(c);  // one variable: 1, or NaN where its variance is 0, inf or NaN
  const Tensor d = c.diagonal();
  const Tensor deviation = (is_complex(d.dtype()) ? real(d) : d).sqrt();
  c = c.div(deviation.reshape({-1, 1})).div(deviation.reshape({1, -1}));
  if (is_complex(c.dtype())) return complex(real(c).clamp(-1, 1), imag(c).clamp(-1, 1));
  return c.clamp(-1, 1);
}

// Each element's place in the sorted test elements (searchsorted): found
// where the element there equals it. NaN equals nothing. PyTorch 1.13 has
// no isin for bool, bfloat16 or complex tensors.
Tensor isin_kernel(T elements, T test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // an optimisation hint in PyTorch; the result is the same
  for (const Tensor* t : {&elements, &test_elements}) {
    WICK_CHECK(t->dtype() != ScalarType::kBool && t->dtype() != ScalarType::kBFloat16 && !is_complex(t->dtype()),
               RuntimeError, "torch.isin: Unsupported input type encountered for isin(): ", type_title(t->dtype()));
  }
  const ScalarType common = result_type(elements, test_elements);
  // A Python number (a wrapped CPU scalar) goes to the other's device.
  const Device device = elements.impl()->is_wrapped_number() ? test_elements.device() : elements.device();
  const Tensor x = elements.to(device, common);
  Tensor found;
  if (test_elements.numel() == 0) {
    found = zeros(elements.sizes(), ScalarType::kBool, device);
  } else {
    const Tensor sorted = std::get<0>(test_elements.to(device, common).flatten().sort());
    const Tensor place = searchsorted(sorted, x.contiguous()).clamp_max(sorted.numel() - 1);
    found = sorted.take(place).eq(x);
  }
  return invert ? found.logical_not() : found;
}

// Each slice along dim with a p-norm over maxnorm is scaled by
// maxnorm / (norm + 1e-7); the norm in float32 for float16 and bfloat16.
Tensor renorm_kernel(T self, const Scalar& p, I64 dim, const Scalar& maxnorm) {
  const char* op = "torch.renorm";
  WICK_CHECK(!p.is_complex(), RuntimeError, op, ": renorm: p must be real-valued");
  WICK_CHECK(p.to<double>() > 0.0, RuntimeError, op, ": renorm: non-positive-norm not supported");
  WICK_CHECK(!maxnorm.is_complex(), RuntimeError, op, ": renorm: maxnorm must be real-valued");
  WICK_CHECK(maxnorm.to<double>() >= 0.0, RuntimeError, op, ": renorm: expected maxnorm to be >= 0 but got ",
             maxnorm.to<double>());
  WICK_CHECK(self.dim() > 1, RuntimeError, op, ": renorm: input needs at least 2 dimensions, got ", self.dim(),
             " dimensions");
  const I64 d = wrap_dim(dim, self.dim());
  DimVector others;
  for (I64 k = 0; k < self.dim(); ++k) {
    if (k != d) others.push_back(k);
  }
  const ScalarType t = self.dtype();
  const bool reduced = t == ScalarType::kFloat16 || t == ScalarType::kBFloat16;
  const Tensor norm = linalg::vector_norm(self, p, IntArrayRef(others), /*keepdim=*/true,
                                          reduced ? std::optional(ScalarType::kFloat32) : std::nullopt);
  const double limit = maxnorm.to<double>();
  const Tensor factor = where(norm.gt(limit), norm.add(1e-7).reciprocal().mul(limit), Scalar(1.0));
  return self.mul(reduced ? factor.to(t) : factor);
}

// --- segment_reduce ----------------------------------------------------------------------------------

// Note [Segments of a reduction]
// torch.segment_reduce reduces runs of consecutive entries of data along
// `axis`. The runs' lengths are the last dim of `lengths` (or the
// differences of `offsets`, which win when both are given); their leading
// dims are data's leading dims, one set of runs per batch entry, so axis
// must be lengths.dim() - 1. Each entry gets its run's number, and
// scatter_reduce gathers the runs into a result whose axis has one entry per
// run, so the gradients are scatter_reduce's: tied maxima share theirs
// evenly, a product with zeros follows the product rule, as PyTorch's
// segment_reduce backward does. An empty run holds `initial`, or else -inf
// (max), inf (min), 0 (sum), 1 (prod) or NaN (mean). With `initial`, every
// run's reduction takes it in too, but mean divides (initial + sum) by the
// run's length, as PyTorch's kernel does.
// Where PyTorch reads past its buffers, wick refuses: offsets outside the
// axis, runs longer than the axis with unsafe=True, and lengths whose
// leading sizes are not data's.
Tensor segment_reduce_kernel(T data, std::string_view reduce, OptTensor lengths, OptTensor indices, OptTensor offsets,
                             I64 axis, bool unsafe, const std::optional<Scalar>& initial) {
  const char* op = "torch.segment_reduce";
  constexpr std::string_view kReductions[] = {"max", "mean", "min", "sum", "prod"};
  WICK_CHECK(std::find(std::begin(kReductions), std::end(kReductions), reduce) != std::end(kReductions), RuntimeError,
             op, ": unsupported reduction given! ", reduce);
  WICK_CHECK(!indices, RuntimeError, op, ": segment_reduce(): indices based reduction is not supported yet.");
  WICK_CHECK(lengths || offsets, RuntimeError, op, ": segment_reduce(): Either lengths or offsets must be defined.");
  const bool by_offsets = offsets.has_value();
  const Tensor& runs = by_offsets ? *offsets : *lengths;
  const char* what = by_offsets ? "offsets" : "lengths";
  const I64 dim = wrap_dim(axis, data.dim());
  WICK_CHECK(dim == runs.dim() - 1, RuntimeError, op, ": segment_reduce(): Expected axis to be the last dimension of ",
             what, " but got ", dim, ".");
  WICK_CHECK(data.dim() >= runs.dim(), RuntimeError, op,
             ": Expected data.dim() >= lengths_value.dim() to be true, but got false.  (Could this error message be "
             "improved?  "
             "If so, please report an enhancement request to PyTorch.)");
  WICK_CHECK(runs.dtype() == ScalarType::kInt64 || runs.dtype() == ScalarType::kInt32, RuntimeError, op,
             ": \"_segment_reduce_", what, "_cpu_kernel1\" not implemented for '", type_title(runs.dtype()), "'");
  WICK_CHECK(is_floating(data.dtype()), RuntimeError, op, ": \"_segment_reduce_cpu\" not implemented for '",
             type_title(data.dtype()), "'");
  for (I64 d = 0; d < dim; ++d)
    WICK_CHECK(runs.size(d) == data.size(d), RuntimeError, op, ": segment_reduce(): Expected ", what,
               "'s leading sizes ", format_shape(IntArrayRef(runs.sizes().data(), static_cast<std::size_t>(dim))),
               " to be data's ", format_shape(IntArrayRef(data.sizes().data(), static_cast<std::size_t>(dim))));
  const I64 batch = runs.numel() / std::max<I64>(runs.size(dim), 1);
  const I64 segments = std::max<I64>(runs.size(dim) - (by_offsets ? 1 : 0), 0);
  const I64 n = data.size(dim);
  // Each run's start and length, per batch entry: offsets must lie in the
  // axis, and runs of lengths may not run past it.
  const std::vector<I64> values = host_int64s(runs);
  const I64 per_row = runs.size(dim);
  const std::size_t runs_count = static_cast<std::size_t>(checked_mul(batch, segments, op));
  std::vector<I64> starts(runs_count);
  std::vector<I64> sizes(runs_count);
  std::size_t k = 0;  // the run's place in starts and sizes
  const I64* row = values.data();
  for (I64 b = 0; b < batch; ++b, row += per_row) {
    if (by_offsets) {
      for (I64 s = 0; s < per_row; ++s)
        WICK_CHECK(row[s] >= 0 && row[s] <= n, RuntimeError, op, ": segment_reduce(): offsets must lie in [0, ", n,
                   "] (the size of data along axis), but got ", row[s]);
    }
    I64 at = by_offsets && per_row > 0 ? row[0] : 0;
    for (I64 s = 0; s < segments; ++s, ++k) {
      if (by_offsets) {
        WICK_CHECK(row[s + 1] >= row[s], RuntimeError, op,
                   ": Expected segment_length >= 0 to be true, but got false.  (Could this error message be improved?  "
                   "If so, please report an enhancement request to PyTorch.)");
        at = row[s];
        sizes[k] = row[s + 1] - row[s];  // both in [0, n]
      } else {
        WICK_CHECK(row[s] >= 0, RuntimeError, op, ": lengths contains negative value!");
        sizes[k] = row[s];
      }
      starts[k] = at;
      at = checked_add(at, sizes[k], op);
      WICK_CHECK(at <= n || !unsafe, RuntimeError, op, ": segment_reduce(): the runs of lengths row ", b,
                 " end at entry ", at, ", past data.size(", dim, ") = ", n);
    }
    WICK_CHECK(by_offsets || unsafe || at == n, RuntimeError, op,
               ": segment_reduce(): Expected all rows of lengths along axis to sum to data.size(lengths.dim()-1) "
               "when !unsafe.");
  }
  // Each entry's run (`segments` for entries in none), as a (batch..., n) index.
  std::vector<I64> run_of(static_cast<std::size_t>(checked_mul(batch, n, op)), segments);
  k = 0;
  I64* entries = run_of.data();
  for (I64 b = 0; b < batch; ++b, entries += n) {
    for (I64 s = 0; s < segments; ++s, ++k) std::fill_n(entries + starts[k], sizes[k], s);  // inside [0, n]
  }
  DimVector index_shape;
  for (I64 d = 0; d < data.dim(); ++d) index_shape.push_back(d <= dim ? data.size(d) : 1);
  const Tensor index = tensor(Value(run_of), ScalarType::kInt64, data.device())
                           .reshape(IntArrayRef(index_shape))
                           .expand(data.sizes())
                           .contiguous();
  DimVector out_shape;
  for (I64 d = 0; d < data.dim(); ++d) out_shape.push_back(d == dim ? segments + 1 : data.size(d));  // one spare
  const double inf = std::numeric_limits<double>::infinity();
  Tensor result;
  if (reduce == "mean") {
    DimVector count_shape = index_shape;
    count_shape[static_cast<std::size_t>(dim)] = segments;
    const Tensor count = tensor(Value(sizes), data.dtype(), data.device()).reshape(IntArrayRef(count_shape));
    if (initial) {
      const Tensor total = full(IntArrayRef(out_shape), *initial, data.dtype(), data.device())
                               .scatter_reduce(dim, index, data, "sum", /*include_self=*/true)
                               .narrow(dim, 0, segments);
      return div(total, clamp_min(count, Scalar(1)));
    }
    result = full(IntArrayRef(out_shape), Scalar(std::nan("")), data.dtype(), data.device())
                 .scatter_reduce(dim, index, data, "mean", /*include_self=*/false);
  } else {
    const Scalar identity = reduce == "max"   ? Scalar(-inf)
                            : reduce == "min" ? Scalar(inf)
                            : reduce == "sum" ? Scalar(0)
                                              : Scalar(1);
    const std::string_view how = reduce == "max" ? "amax" : reduce == "min" ? "amin" : reduce;
    result = full(IntArrayRef(out_shape), initial.value_or(identity), data.dtype(), data.device())
                 .scatter_reduce(dim, index, data, how, /*include_self=*/initial.has_value());
  }
  return result.narrow(dim, 0, segments);
}

}  // namespace

void register_statistics_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("cov", &cov_kernel)
      .impl("corrcoef", &corrcoef_kernel)
      .impl("isin", &isin_kernel)
      .impl("renorm", &renorm_kernel)
      .impl("segment_reduce", &segment_reduce_kernel);
  out.push_back(std::move(torch));
}

}  // namespace wick
