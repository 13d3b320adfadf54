// dispatch/composite/scan_ops.cpp - cummax, cummin, logcumsumexp, trapezoid, trapz, cumulative_trapezoid, quantile, nanquantile, gradient.
/// \file
/// Scans and integrals along one dim, and quantiles, composed from the
/// elementwise operators, sort, gather and the shape operators, so that they
/// run on every backend and get their gradients from their parts. Checks and
/// messages are PyTorch 1.13's.
///
/// Note [Scans by doubling]
/// cummax, cummin and logcumsumexp combine each element with all the ones
/// before it by an associative operation: in round k, element i takes in
/// element i - 2^k (Hillis and Steele), so that ceil(log2 n) rounds of whole-
/// tensor operations cover a line of n. logcumsumexp's operation is
/// logaddexp, which is exact where exp(x - max) would underflow; cummax's
/// picks the larger (value, index) pair, a tie to the later index and a NaN
/// above every number, the first NaN staying, as PyTorch's kernel does.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using T = const Tensor&;
using Pair = std::tuple<Tensor, Tensor>;

// x shifted by `offset` along dim: out[i] = x[i - offset], `fill` before.
Tensor shifted(T x, I64 dim, I64 offset, T fill) {
  const I64 n = x.size(dim);
  return cat({fill.expand_as(x.narrow(dim, 0, offset)), x.narrow(dim, 0, n - offset)}, dim);
}

// cummax (`max`) or cummin along dim, by doubling (Note [Scans by doubling]).
Pair cum_extreme(const char* op, T self, I64 dim, bool max) {
  const I64 d = wrap_dim(dim, std::max<I64>(self.dim(), 1));
  // A 0-dim self is its own running extreme, whatever its dtype (PyTorch's kernel is not called).
  if (self.dim() == 0) return {self.clone(), zeros({}, ScalarType::kInt64, self.device())};
  const Tensor& x = self;
  const I64 n = x.size(d);
  DimVector index_shape(static_cast<std::size_t>(x.dim()), 1);
  index_shape[static_cast<std::size_t>(d)] = n;
  Tensor index = arange(Scalar(0), Scalar(n), Scalar(1), ScalarType::kInt64, x.device()).reshape(IntArrayRef(index_shape)).expand_as(x);
  Tensor value = x.detach();
  WICK_CHECK(!is_complex(x.dtype()) && x.dtype() != ScalarType::kFloat16, RuntimeError, "\"", max ? "cummax" : "cummin",
             "_cpu\" not implemented for '", type_title(x.dtype()), "'");
  const bool floating = is_floating(x.dtype());
  for (I64 offset = 1; offset < n; offset = checked_mul(offset, 2, op)) {
    const Tensor prev_value = shifted(value, d, offset, value.narrow(d, 0, 1));
    const Tensor prev_index = shifted(index, d, offset, full({}, Scalar(-1), ScalarType::kInt64, x.device()));
    // Keep the earlier pair where it wins: strictly better, or a NaN.
    Tensor better = max ? gt(prev_value, value) : lt(prev_value, value);
    if (floating) better = logical_or(logical_and(better, logical_not(isnan(value))), isnan(prev_value));
    const Tensor take = logical_and(better, ge(prev_index, 0));
    value = where(take, prev_value, value);
    index = where(take, prev_index, index);
  }
  return {gather(x, d, index), index.contiguous()};
}

Pair cummax_kernel(T self, I64 dim) { return cum_extreme("torch.cummax", self, dim, true); }
Pair cummin_kernel(T self, I64 dim) { return cum_extreme("torch.cummin", self, dim, false); }

Tensor logcumsumexp_kernel(T self, I64 dim) {
  WICK_CHECK(self.dtype() == ScalarType::kFloat32 || self.dtype() == ScalarType::kFloat64 ||
                 self.dtype() == ScalarType::kBFloat16,
             RuntimeError, "\"logcumsumexp_out_cpu\" not implemented for '", type_title(self.dtype()), "'");
  const I64 d = wrap_dim(dim, std::max<I64>(self.dim(), 1));
  Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  const I64 n = x.size(d);
  const Tensor minus_inf = full({}, Scalar(-std::numeric_limits<double>::infinity()), x.dtype(), x.device());
  for (I64 offset = 1; offset < n; offset = checked_mul(offset, 2, "torch.logcumsumexp"))
    x = logaddexp(x, shifted(x, d, offset, minus_inf));
  return self.dim() == 0 ? x.reshape({}) : x;
}

// --- trapezoid rule ----------------------------------------------------------------------------------------

// `x`: the sample points, when given (PyTorch's message names both then).
I64 trapezoid_dim(const char* op, T y, I64 dim, const Tensor* x = nullptr) {
  if (x != nullptr) {
    WICK_CHECK(y.dtype() != ScalarType::kBool && x->dtype() != ScalarType::kBool, RuntimeError, op,
               ": received a bool input for `x` or `y`, but bool is not supported");
  }
  WICK_CHECK(y.dtype() != ScalarType::kBool, RuntimeError, op, ": received a bool input for `y`, but bool is not supported");
  WICK_CHECK(y.dim() > 0, IndexError, "Dimension specified as ", dim, " but tensor has no dimensions");
  return wrap_dim(dim, y.dim());
}

// y[i] + y[i + 1] along d (empty for an empty line).
Tensor pair_sums(T y, I64 d) {
  const I64 n = y.size(d);
  if (n == 0) return y.narrow(d, 0, 0);
  return add(y.narrow(d, 1, n - 1), y.narrow(d, 0, n - 1));
}

// The spacing of the samples: x's differences along d (x 1-D, or as y).
Tensor spacing(const char* op, T y, T x, I64 d) {
  const I64 n = y.size(d);
  if (x.dim() == 1) {
    WICK_CHECK(x.size(0) == n, RuntimeError, op, ": There must be one `x` value for each sample point");
    DimVector shape(static_cast<std::size_t>(y.dim()), 1);
    shape[static_cast<std::size_t>(d)] = n == 0 ? 0 : n - 1;
    return n == 0 ? x.narrow(0, 0, 0).reshape(IntArrayRef(shape)) : diff(x).reshape(IntArrayRef(shape));
  }
  const I64 xd = d - y.dim() + x.dim();
  WICK_CHECK(xd >= 0 && x.size(xd) == n, RuntimeError, op, ": There must be one `x` value for each sample point");
  return n == 0 ? x.narrow(xd, 0, 0) : diff(x, 1, xd);
}

Tensor trapezoid_x(T y, T x, I64 dim) {
  const char* op = "trapezoid";
  const I64 d = trapezoid_dim(op, y, dim, &x);
  return div(sum(mul(spacing(op, y, x, d), pair_sums(y, d)), IntArrayRef({d})), 2);
}

Tensor trapezoid_dx(T y, const Scalar& dx, I64 dim) {
  const I64 d = trapezoid_dim("trapezoid", y, dim);
  return mul(div(sum(pair_sums(y, d), IntArrayRef({d})), 2), dx);
}

Tensor cumulative_trapezoid_x(T y, T x, I64 dim) {
  const char* op = "cumulative_trapezoid";
  const I64 d = trapezoid_dim(op, y, dim, &x);
  return cumsum(div(mul(spacing(op, y, x, d), pair_sums(y, d)), 2), d);
}

Tensor cumulative_trapezoid_dx(T y, const Scalar& dx, I64 dim) {
  const I64 d = trapezoid_dim("cumulative_trapezoid", y, dim);
  return cumsum(mul(div(pair_sums(y, d), 2), dx), d);
}

// --- quantile ----------------------------------------------------------------------------------------------

// The q-th quantiles of self along dim (every element with dim None), by
// sorting: NaNs sort last, so a line's first `count` values are its numbers.
Tensor quantile_impl(T self, T q, std::optional<I64> dim, bool keepdim, std::string_view interpolation, bool ignore_nan) {
  const char* op = "quantile()";  // PyTorch's messages say quantile() for nanquantile too
  WICK_CHECK(self.numel() > 0, RuntimeError, op, " input tensor must be non-empty");
  WICK_CHECK(q.dim() <= 1, RuntimeError, op, " q must be a scalar or 1D tensor");
  WICK_CHECK(self.dtype() == ScalarType::kFloat32 || self.dtype() == ScalarType::kFloat64, RuntimeError, op,
             " input tensor must be either float or double dtype");
  WICK_CHECK(q.dtype() == self.dtype(), RuntimeError, op, " q tensor must be same dtype as the input tensor");
  WICK_CHECK(interpolation == "linear" || interpolation == "lower" || interpolation == "higher" ||
                 interpolation == "midpoint" || interpolation == "nearest",
             RuntimeError, op, " interpolation must be one of linear, lower, higher, midpoint or nearest, but got ",
             interpolation);
  WICK_CHECK(self.device() == q.device(), RuntimeError, op,
             " q tensor must be on the same device as the input tensor");
  // The values are read on the host, as PyTorch does; a meta q has none.
  if (q.device().type() != DeviceType::kMeta) {
    WICK_CHECK(all(logical_and(ge(q, 0), le(q, 1))).item().to<bool>(), RuntimeError, op,
               " q values must be in the range [0, 1]");
  }
  // The lines: the last dim of `sorted`, shape (lines..., n).
  Tensor sorted;
  DimVector out_shape;
  if (!dim) {
    sorted = std::get<0>(sort(self.flatten()));
    if (keepdim) out_shape = DimVector(static_cast<std::size_t>(self.dim()), 1);
  } else {
    const I64 d = wrap_dim(*dim, std::max<I64>(self.dim(), 1));
    const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
    sorted = std::get<0>(sort(x.movedim(IntArrayRef({d}), IntArrayRef({-1}))));
    for (I64 i = 0; i < self.dim(); ++i)
      if (i != d || keepdim) out_shape.push_back(i == d ? 1 : self.size(i));
  }
  const I64 n = sorted.size(-1);
  // The last rank per line: n - 1, or (nanquantile) the numbers' count - 1.
  const Tensor nans = isnan(sorted);
  const Tensor last = ignore_nan ? sub(sum(logical_not(nans), IntArrayRef({-1}), true), 1)
                                 : full({1}, Scalar(n - 1), ScalarType::kInt64, self.device());
  const Tensor line_nan = ignore_nan ? lt(last, 0) : any(nans, -1, true);
  // ranks, (lines..., len(q)).
  DimVector rank_shape(sorted.sizes());
  rank_shape.back() = q.numel();
  Tensor rank = mul(q.reshape({-1}), clamp_min(last, Scalar(0)).to(self.dtype())).expand(IntArrayRef(rank_shape));
  if (interpolation == "lower") rank = floor(rank);
  if (interpolation == "higher") rank = ceil(rank);
  if (interpolation == "nearest") rank = round(rank);
  const Tensor below = floor(rank);
  const Tensor weight =
      interpolation == "midpoint" ? full({}, Scalar(0.5), self.dtype(), self.device()) : sub(rank, below);
  const Tensor low = gather(sorted, -1, below.to(ScalarType::kInt64));
  const Tensor high = gather(sorted, -1, ceil(rank).to(ScalarType::kInt64));
  Tensor result = where(line_nan, full({}, Scalar(std::numeric_limits<double>::quiet_NaN()), self.dtype(), self.device()),
                        lerp(low, high, weight));
  // (len(q), out_shape...), without the first dim for a 0-dim q.
  DimVector shape;
  if (q.dim() == 1) shape.push_back(q.numel());
  for (const I64 s : out_shape) shape.push_back(s);
  return result.movedim(IntArrayRef({-1}), IntArrayRef({0})).reshape(IntArrayRef(shape));
}

Tensor quantile_kernel(T self, T q, std::optional<I64> dim, bool keepdim, std::string_view interpolation) {
  return quantile_impl(self, q, dim, keepdim, interpolation, false);
}
Tensor nanquantile_kernel(T self, T q, std::optional<I64> dim, bool keepdim, std::string_view interpolation) {
  return quantile_impl(self, q, dim, keepdim, interpolation, true);
}

Tensor scalar_q(const char* op, T self, double q) {
  WICK_CHECK(q >= 0 && q <= 1, RuntimeError, op, " q must be in the range [0, 1] but got ", q);
  return full({}, Scalar(q), self.dtype(), self.device());
}
Tensor quantile_scalar(T self, double q, std::optional<I64> dim, bool keepdim, std::string_view interpolation) {
  return quantile_impl(self, scalar_q("quantile()", self, q), dim, keepdim, interpolation, false);
}
Tensor nanquantile_scalar(T self, double q, std::optional<I64> dim, bool keepdim, std::string_view interpolation) {
  return quantile_impl(self, scalar_q("quantile()", self, q), dim, keepdim, interpolation, true);
}

}  // namespace

// --- gradient -----------------------------------------------------------------------------------------------

// Note [torch.gradient]
// Along each dim: central differences inside, one-sided differences of
// edge_order 1 or 2 at both ends, concatenated. With a sample distance h the
// inside is (f[i+1] - f[i-1]) / 2h, the ends (f[1] - f[0]) / h or, to second
// order, (-1.5 f[0] + 2 f[1] - 0.5 f[2]) / h. With coordinates x the
// spacings h1 = x[i] - x[i-1] and h2 = x[i+1] - x[i] differ, and the inside
// is the derivative of the parabola through the three points:
//   -h2 / (h1 (h1 + h2)) f[i-1] + (h2 - h1) / (h1 h2) f[i] + h1 / (h2 (h1 + h2)) f[i+1],
// the ends the first or second order one-sided forms with their own spacings
// (NumPy's and PyTorch's formulas). Composed of slices, so the gradient of
// each result is its parts'.

// The derivative along d with the sample distance h.
Tensor gradient_uniform(T f, I64 d, const Scalar& h, I64 edge_order) {
  const I64 n = f.size(d);
  const Tensor center = f.narrow(d, 2, n - 2).sub(f.narrow(d, 0, n - 2)).div(h).div(2);
  Tensor first;
  Tensor last;
  if (edge_order == 1) {
    first = f.narrow(d, 1, 1).sub(f.narrow(d, 0, 1)).div(h);
    last = f.narrow(d, n - 1, 1).sub(f.narrow(d, n - 2, 1)).div(h);
  } else {
    first = f.narrow(d, 0, 1).mul(-1.5).add(f.narrow(d, 1, 1).mul(2)).sub(f.narrow(d, 2, 1).mul(0.5)).div(h);
    last = f.narrow(d, n - 3, 1).mul(0.5).sub(f.narrow(d, n - 2, 1).mul(2)).add(f.narrow(d, n - 1, 1).mul(1.5)).div(h);
  }
  return cat({first, center, last}, d);
}

// The derivative along d at the sample coordinates x (1-D, f's size along d).
Tensor gradient_coordinates(T f, I64 d, T x, I64 edge_order) {
  const I64 n = f.size(d);
  WICK_CHECK(x.dim() == 1 && x.size(0) == n, RuntimeError, "torch.gradient: expected the coordinates of dim ", d,
             " to be a 1-D tensor of its size ", n, ", but got one of shape ", format_shape(x.sizes()));
  const Tensor at = x.to(f.device());
  const Tensor dx = at.narrow(0, 1, n - 1).sub(at.narrow(0, 0, n - 1));
  DimVector inside(static_cast<std::size_t>(f.dim()), 1);
  inside[static_cast<std::size_t>(d)] = n - 2;
  const Tensor h1 = dx.narrow(0, 0, n - 2);
  const Tensor h2 = dx.narrow(0, 1, n - 2);
  const Tensor sum = h1.add(h2);
  const Tensor a = h2.neg().div(h1.mul(sum)).reshape(inside);
  const Tensor b = h2.sub(h1).div(h1.mul(h2)).reshape(inside);
  const Tensor c = h1.div(h2.mul(sum)).reshape(inside);
  const Tensor center =
      a.mul(f.narrow(d, 0, n - 2)).add(b.mul(f.narrow(d, 1, n - 2))).add(c.mul(f.narrow(d, 2, n - 2)));
  Tensor first;
  Tensor last;
  if (edge_order == 1) {
    first = f.narrow(d, 1, 1).sub(f.narrow(d, 0, 1)).div(dx.narrow(0, 0, 1));
    last = f.narrow(d, n - 1, 1).sub(f.narrow(d, n - 2, 1)).div(dx.narrow(0, n - 2, 1));
  } else {
    const Tensor p1 = dx.narrow(0, 0, 1);  // the first two spacings
    const Tensor p2 = dx.narrow(0, 1, 1);
    const Tensor ps = p1.add(p2);
    first = p1.mul(2).add(p2).neg().div(p1.mul(ps)).mul(f.narrow(d, 0, 1))
                .add(ps.div(p1.mul(p2)).mul(f.narrow(d, 1, 1)))
                .add(p1.neg().div(p2.mul(ps)).mul(f.narrow(d, 2, 1)));
    const Tensor q1 = dx.narrow(0, n - 3, 1);  // the last two
    const Tensor q2 = dx.narrow(0, n - 2, 1);
    const Tensor qs = q1.add(q2);
    last = q2.div(q1.mul(qs)).mul(f.narrow(d, n - 3, 1))
               .add(qs.neg().div(q1.mul(q2)).mul(f.narrow(d, n - 2, 1)))
               .add(q2.mul(2).add(q1).div(q2.mul(qs)).mul(f.narrow(d, n - 1, 1)));
  }
  return cat({first, center, last}, d);
}

std::vector<Tensor> gradient_kernel(T input, const Value& spacing, const Value& dim, I64 edge_order) {
  const char* op = "torch.gradient";
  std::vector<I64> dims;
  if (dim.is_none()) {
    for (I64 d = 0; d < input.dim(); ++d) dims.push_back(d);
  } else if (dim.is_int()) {
    dims.push_back(wrap_dim(dim.to_int(), input.dim()));
  } else {
    for (const Value& v : list_items(dim)) {
      const I64 d = wrap_dim(v.to_int(), input.dim());
      WICK_CHECK(std::find(dims.begin(), dims.end(), d) == dims.end(), RuntimeError, op, ": dim ", d,
                 " appears multiple times in the list of dims");
      dims.push_back(d);
    }
  }
  std::vector<Value> steps;
  if (spacing.is_none() || spacing.is_number()) {
    steps.assign(dims.size(), spacing.is_none() ? Value(1.0) : spacing);
  } else {
    steps = list_items(spacing);
    if (steps.size() != dims.size()) {
      if (dim.is_none()) {
        throw RuntimeError(detail::str_cat(op, ": torch.gradient expected spacing to be unspecified, a scalar or a "
                                           "list of length ", dims.size(), " but got a list of length ", steps.size()));
      }
      throw RuntimeError(detail::str_cat(
          op, ": torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to "
          "have the same length, but got a spacing argument of length ", steps.size(), " and a dim argument of length ",
          dims.size(), "."));
    }
  }
  WICK_CHECK(edge_order == 1 || edge_order == 2, RuntimeError, op,
             ": torch.gradient only supports edge_order=1 and edge_order=2.");
  WICK_CHECK(input.dtype() != ScalarType::kUInt8, RuntimeError, op, ": torch.gradient does not support uint8 input.");
  for (const I64 d : dims) {
    WICK_CHECK(input.size(d) >= edge_order + 1, RuntimeError, op,
               ": torch.gradient expected each dimension size to be at least edge_order+1");
  }
  std::vector<Tensor> out;
  out.reserve(dims.size());
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const Value& step = steps[k];
    out.push_back(step.is_tensor() && step.to_tensor().dim() > 0
                      ? gradient_coordinates(input, dims[k], step.to_tensor(), edge_order)
                      : gradient_uniform(input, dims[k], step.to_scalar(), edge_order));
  }
  return out;
}

std::vector<Value> list_items(const Value& v) {
  std::vector<Value> out;
  if (v.is_int_list()) {
    for (const I64 i : v.to_int_list()) out.emplace_back(i);
  } else if (v.is_double_list()) {
    for (const double d : v.to_double_list()) out.emplace_back(d);
  } else if (v.is_tensor_list()) {
    for (const Tensor& t : v.to_tensor_list()) out.emplace_back(t);
  } else {
    out = v.items();
  }
  return out;
}

void register_scan_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("cummax", &cummax_kernel)
      .impl("cummin", &cummin_kernel)
      .impl("logcumsumexp", &logcumsumexp_kernel)
      .impl("trapezoid", &trapezoid_x)
      .impl("trapezoid.dx", &trapezoid_dx)
      .impl("cumulative_trapezoid", &cumulative_trapezoid_x)
      .impl("cumulative_trapezoid.dx", &cumulative_trapezoid_dx)
      .impl("quantile", &quantile_kernel)
      .impl("quantile.scalar", &quantile_scalar)
      .impl("nanquantile", &nanquantile_kernel)
      .impl("nanquantile.scalar", &nanquantile_scalar)
      .impl("gradient", &gradient_kernel);
  out.push_back(std::move(torch));
}

}  // namespace wick
