// dispatch/composite/sorting_ops.cpp - sort, topk, kthvalue, msort, median, nanmedian, mode, unique, unique_consecutive, histc and bincount.
/// \file
/// argsort and topk_indices (the first k of argsort's order, selected
/// without sorting whole lines) are the sorting kernels a backend writes
/// (dispatch/ops/sorting.ops); these take their indices and gather the
/// values with them, so their gradients and forward tangents are gather's,
/// and they run on every backend and the Meta device that has these and
/// gather. Every sort is
/// stable, so `stable=` changes nothing and topk always returns its values
/// in order (PyTorch's `sorted=False` leaves the order unspecified).
///
/// unique and
/// unique_consecutive find runs of equal values (slices along `dim`) in
/// argsort's order (in self's own order for unique_consecutive): the values
/// are each run's first, the inverse each element's run, the counts each
/// run's length. histc and bincount count with scatter_add. The results of
/// unique and bincount have sizes that depend on the data: a device tensor
/// is read on the host for them, as in PyTorch, and a meta tensor cannot be.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using Pair = std::tuple<Tensor, Tensor>;

Pair sort_kernel(const Tensor& self, I64 dim, bool descending) {
  Tensor indices = argsort(self, dim, descending);
  return {gather(self, dim, indices), std::move(indices)};
}

Pair sort_stable_kernel(const Tensor& self, std::optional<bool> /*stable*/, I64 dim, bool descending) {
  return sort_kernel(self, dim, descending);
}

Tensor argsort_stable_kernel(const Tensor& self, bool /*stable*/, I64 dim, bool descending) {
  return argsort(self, dim, descending);
}

Tensor msort_kernel(const Tensor& self) { return std::get<0>(sort_kernel(self, 0, false)); }

// PyTorch's selection kernels ("topk_cpu") refuse complex numbers and
// bools, which sort does order; topk and kthvalue return a 0-dim tensor
// before they look at its dtype, median does not.
void check_ordered(const Tensor& self, const char* kernel, bool scalar_exempt = true) {
  WICK_CHECK((scalar_exempt && self.dim() == 0) || !(is_complex(self.dtype()) || self.dtype() == ScalarType::kBool),
             RuntimeError, "\"", kernel, "\" not implemented for '", type_title(self.dtype()), "'");
}

// self as at least 1-D (a 0-dim tensor sorts as one element), and `dim` wrapped for it.
std::tuple<Tensor, I64> as_lines(const Tensor& self, I64 dim) {
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  return {x, wrap_dim(dim, x.dim())};
}

// Values and indices taken along d of as_lines(self), shaped as the
// operator returns them: 0-dim for a 0-dim self, else with d kept or squeezed.
Pair shaped_result(const Tensor& self, Tensor values, Tensor indices, I64 d, bool keepdim) {
  if (self.dim() == 0) return {values.reshape({}), indices.reshape({})};
  if (keepdim) return {std::move(values), std::move(indices)};
  return {values.squeeze(d), indices.squeeze(d)};
}

// The values and indices of x at `pos` (positions in the stable ascending
// order along d, keepdim-shaped).
Pair at_sorted_positions(const Tensor& self, const Tensor& x, const Tensor& order, I64 d, const Tensor& pos,
                         bool keepdim) {
  Tensor indices = gather(order, d, pos);
  Tensor values = gather(x, d, indices);
  return shaped_result(self, std::move(values), std::move(indices), d, keepdim);
}

// argsort of x = as_lines(self) along d; a 0-dim self is its own order
// whatever its dtype (complex included), as argsort says of 0-dim tensors.
Tensor sorted_order(const Tensor& self, const Tensor& x, I64 d, bool descending) {
  return self.dim() == 0 ? argsort(self, d, descending).reshape({1}) : argsort(x, d, descending);
}

// The positions of the k first values of each line of x = as_lines(self)
// along d in the stable order (largest first, or smallest first):
// topk_indices, which selects without sorting whole lines; a 0-dim self is
// its own order whatever its dtype, and gives its one element for any k
// PyTorch accepts (0 too).
Tensor first_positions(const Tensor& self, const Tensor& x, I64 d, I64 k, bool largest) {
  if (self.dim() == 0) return sorted_order(self, x, d, largest);
  return aten::topk_indices(x, k, d, largest);
}

Pair topk_kernel(const Tensor& self, I64 k, I64 dim, bool largest, bool /*sorted*/) {
  const auto [x, d] = as_lines(self, dim);
  const I64 n = x.size(d);
  WICK_CHECK(k >= 0 && k <= n, RuntimeError, "torch.topk: selected index k out of range");
  check_ordered(self, "topk_cpu");
  Tensor indices = first_positions(self, x, d, k, largest);
  Tensor values = gather(x, d, indices);
  return shaped_result(self, std::move(values), std::move(indices), d, true);
}

Pair kthvalue_kernel(const Tensor& self, I64 k, I64 dim, bool keepdim) {
  const char* op = "torch.kthvalue";
  const auto [x, d] = as_lines(self, dim);
  const I64 n = x.size(d);
  WICK_CHECK(n > 0, IndexError, op, ": kthvalue(): Expected reduction dim ", d, " to have non-zero size.");
  WICK_CHECK(k >= 1 && k <= n, RuntimeError, op, ": kthvalue(): selected number k out of range for dimension ", d);
  check_ordered(self, "kthvalue_cpu");
  Tensor indices = first_positions(self, x, d, k, false).narrow(d, k - 1, 1);
  Tensor values = gather(x, d, indices);
  return shaped_result(self, std::move(values), std::move(indices), d, keepdim);
}

// --- median, nanmedian, mode: positions in the sorted order ---------------------------------

// The lower median of each line; with NaN in a line, its first NaN
// (median), or the lower median of the other values (nanmedian: NaN only
// when there are none).
Pair median_dim_impl(const Tensor& self, I64 dim, bool keepdim, bool ignore_nan) {
  const char* op = ignore_nan ? "torch.nanmedian" : "torch.median";
  check_ordered(self, "median_out", false);
  const auto [x, d] = as_lines(self, dim);
  const I64 n = x.size(d);
  WICK_CHECK(n > 0, IndexError, op, ": median(): Expected reduction dim ", d, " to have non-zero size.");
  const Tensor order = argsort(x, d, false);  // NaN last, in their own order
  const I64 dims[] = {d};
  const Tensor numbers = sum(logical_not(ne(x, x)), IntArrayRef(dims, 1), true);  // non-NaN per line
  const Tensor pos = ignore_nan ? where(eq(numbers, 0), numbers, floor_divide(sub(numbers, 1), 2))
                                : where(lt(numbers, n), numbers, full_like(numbers, (n - 1) / 2));
  return at_sorted_positions(self, x, order, d, pos, keepdim);
}

Pair median_dim_kernel(const Tensor& self, I64 dim, bool keepdim) { return median_dim_impl(self, dim, keepdim, false); }
Pair nanmedian_dim_kernel(const Tensor& self, I64 dim, bool keepdim) {
  return median_dim_impl(self, dim, keepdim, true);
}

// Of all the elements; an empty tensor's is NaN in its dtype (PyTorch's
// int64 result is then the lowest int64, as NaN converts).
Tensor median_all(const Tensor& self, bool ignore_nan) {
  check_ordered(self, "median_cpu", false);
  if (self.numel() == 0) return full({}, std::numeric_limits<double>::quiet_NaN(), self.dtype(), self.device());
  return std::get<0>(median_dim_impl(self.reshape({-1}), 0, false, ignore_nan));
}

Tensor median_kernel(const Tensor& self) { return median_all(self, false); }
Tensor nanmedian_kernel(const Tensor& self) { return median_all(self, true); }

// The most frequent value of each line (the smallest of equally frequent
// ones; NaN never equals NaN) and the index of its last occurrence: the
// longest run of equal values in the stable ascending order.
Pair mode_kernel(const Tensor& self, I64 dim, bool keepdim) {
  if (self.dim() == 0) {  // its own mode, of any dtype
    static_cast<void>(wrap_dim(dim, 1));  // dim must still be 0 or -1
    Tensor index = zeros({}, ScalarType::kInt64, self.device());
    return {gather(self, 0, index), std::move(index)};
  }
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "\"mode_cpu\" not implemented for '", type_title(self.dtype()),
             "'");
  const auto [x, d] = as_lines(self, dim);
  const I64 n = x.size(d);
  WICK_CHECK(n > 0, IndexError, "torch.mode: mode(): Expected reduction dim ", d, " to have non-zero size.");
  const Tensor order = argsort(x, d, false);
  const Tensor sorted = gather(x, d, order);
  // A run starts at the first position and wherever a value differs from the one before.
  const Tensor starts = cat({ones_like(sorted.narrow(d, 0, 1), ScalarType::kBool),
                             ne(sorted.narrow(d, 1, n - 1), sorted.narrow(d, 0, n - 1))},
                            d);
  const Tensor run = sub(cumsum(starts, d, ScalarType::kInt64), 1);             // each position's run
  const Tensor counts = scatter_add(zeros_like(run), d, run, ones_like(run));  // each run's length
  const Tensor length = gather(counts, d, run);                                 // each position's run length
  const Tensor first = argmax(length, d, true);  // the first position of the first longest run
  const Tensor last = add(first, sub(gather(length, d, first), 1));
  return at_sorted_positions(self, x, order, d, last, keepdim);
}

// --- unique, unique_consecutive -------------------------------------------------------------

using Triple = std::tuple<Tensor, Tensor, Tensor>;

Tensor empty_index(Device device) { return empty({0}, ScalarType::kInt64, device); }

// Where each run of equal rows of `rows` ([n, w], in the order to group)
// starts: a bool per row, true for the first and wherever a row differs
// from the one before it (NaN differs from everything).
Tensor run_starts(const Tensor& rows) {
  const I64 n = rows.size(0);
  const Tensor first = ones({std::min<I64>(n, 1)}, ScalarType::kBool, rows.device());
  if (n <= 1) return first;
  Tensor differs = ne(rows.narrow(0, 1, n - 1), rows.narrow(0, 0, n - 1));
  differs = rows.size(1) == 0 ? zeros({n - 1}, ScalarType::kBool, rows.device()) : any(differs, 1);
  return cat({first, differs}, 0);
}

// The order that sorts the rows of `rows` ([n, w]) lexicographically, NaN
// above every number: one stable argsort per column, last column first.
Tensor row_order(const Tensor& rows) {
  const I64 n = rows.size(0);
  Tensor order = arange(Scalar(n), std::nullopt, Scalar(1), ScalarType::kInt64, rows.device());
  for (I64 c = rows.size(1) - 1; c >= 0; --c) {
    const Tensor key = index_select(rows.select(1, c), 0, order);
    order = index_select(order, 0, argsort(key, 0, false));
  }
  return order;
}

// The distinct rows of `rows` ([n, w]), grouped in `order` (null: as they
// are), with each row's group and each group's size, as asked.
Triple unique_rows(const Tensor& rows, const std::optional<Tensor>& order, bool return_inverse, bool return_counts) {
  const Device device = rows.device();
  const Tensor grouped = order ? index_select(rows, 0, *order) : rows;
  const Tensor starts = run_starts(grouped);
  const Tensor firsts = nonzero(starts).reshape({-1});
  Tensor values = index_select(grouped, 0, firsts);
  const Tensor run = sub(cumsum(starts, 0, ScalarType::kInt64), 1);  // each grouped row's group
  Tensor inverse = empty_index(device);
  if (return_inverse) inverse = order ? scatter(zeros_like(run), 0, *order, run) : run;
  Tensor counts = empty_index(device);
  if (return_counts) {
    counts = scatter_add(zeros({firsts.numel()}, ScalarType::kInt64, device), 0, run, ones_like(run));
  }
  return {std::move(values), std::move(inverse), std::move(counts)};
}

// PyTorch's CPU kernels for unique refuse float16 and complex numbers.
void check_unique_dtype(const Tensor& self, bool with_dim) {
  WICK_CHECK(!(self.dtype() == ScalarType::kFloat16 || is_complex(self.dtype())), RuntimeError, "\"",
             with_dim ? "unique_dim" : "unique", "\" not implemented for '", type_title(self.dtype()), "'");
  WICK_CHECK(!self.device().is_meta(), NotImplementedError,
             "torch.unique: the number of results depends on the data, which a meta tensor does not have");
}

// All elements: values 1-D, the inverse shaped as self.
Triple unique_flat(const Tensor& self, bool consecutive, bool return_inverse, bool return_counts) {
  check_unique_dtype(self, false);
  const Tensor rows = self.reshape({-1, 1});
  std::optional<Tensor> order;
  if (!consecutive) order = argsort(self.reshape({-1}), 0, false);
  auto [values, inverse, counts] = unique_rows(rows, order, return_inverse, return_counts);
  if (return_inverse) inverse = inverse.reshape(self.sizes());
  return {values.reshape({-1}), std::move(inverse), std::move(counts)};
}

// Slices along dim: self's other dims must not be empty.
Triple unique_along(const Tensor& self, I64 dim, bool consecutive, bool return_inverse, bool return_counts) {
  check_unique_dtype(self, true);
  static_cast<void>(self.size(dim));  // IndexError for a 0-dim self or a dim out of range
  const I64 d = wrap_dim(dim, self.dim());
  for (I64 k = 0; k < self.dim(); ++k) {
    WICK_CHECK(k == d || self.sizes()[k] != 0, RuntimeError,
               "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
  }
  if (self.sizes()[d] == 0) return {self.clone(), empty_index(self.device()), empty_index(self.device())};
  // Slices as rows: dim first, the rest flattened.
  std::vector<I64> perm(static_cast<std::size_t>(self.dim()));
  std::iota(perm.begin(), perm.end(), I64{0});
  perm.erase(perm.begin() + d);
  perm.insert(perm.begin(), d);
  const Tensor moved = permute(self, IntArrayRef(perm.data(), perm.size()));
  const Tensor rows = moved.reshape({self.sizes()[d], -1});
  std::optional<Tensor> order;
  if (!consecutive) order = row_order(rows);
  auto [values, inverse, counts] = unique_rows(rows, order, return_inverse, return_counts);
  DimVector shape(moved.sizes());
  shape[0] = values.size(0);
  const DimVector back = inverse_permutation(IntArrayRef(perm.data(), perm.size()));
  Tensor out = permute(values.reshape(IntArrayRef(shape.data(), shape.size())), back);
  return {out.contiguous(), std::move(inverse), std::move(counts)};
}

Triple unique2_kernel(const Tensor& self, bool /*sorted*/, bool return_inverse, bool return_counts) {
  return unique_flat(self, false, return_inverse, return_counts);
}

Triple unique_dim_kernel(const Tensor& self, I64 dim, bool /*sorted*/, bool return_inverse, bool return_counts) {
  return unique_along(self, dim, false, return_inverse, return_counts);
}

Triple unique_consecutive_triple(const Tensor& self, bool return_inverse, bool return_counts, std::optional<I64> dim) {
  if (dim) return unique_along(self, *dim, true, return_inverse, return_counts);
  return unique_flat(self, true, return_inverse, return_counts);
}

// Python's result: the values alone, or a tuple with the inverse and counts asked for.
Value python_result(const Triple& r, bool return_inverse, bool return_counts) {
  if (!return_inverse && !return_counts) return Value(std::get<0>(r));
  if (return_inverse && return_counts) return Value::list({std::get<0>(r), std::get<1>(r), std::get<2>(r)}, true);
  return Value::list({std::get<0>(r), return_inverse ? std::get<1>(r) : std::get<2>(r)}, true);
}

// Through the catalog's aten operators, so that their autograd nodes (no
// derivative, as in PyTorch) are recorded.
Value unique_kernel(const Tensor& self, bool sorted, bool return_inverse, bool return_counts, std::optional<I64> dim) {
  const Triple r = dim ? aten::unique_dim(self, *dim, sorted, return_inverse, return_counts)
                       : aten::_unique2(self, sorted, return_inverse, return_counts);
  return python_result(r, return_inverse, return_counts);
}

Value unique_consecutive_kernel(const Tensor& self, bool return_inverse, bool return_counts, std::optional<I64> dim) {
  return python_result(aten::unique_consecutive(self, return_inverse, return_counts, dim), return_inverse,
                       return_counts);
}

// --- histc, bincount -------------------------------------------------------------------------

// Each element in [min, max] (NaN is not) counts in one of `bins` equal
// bins, the last taking max itself. As PyTorch's CPU kernel: the edges are
// linspace(min, max, bins + 1) in self's dtype; an element's bin is first
// estimated as trunc((x - min) * bins / (max - min)), computed step by step
// in self's dtype, then moved to the one whose edges hold it among its
// neighbours (the estimate can be one off by rounding). An equal min and max
// mean the data's range, widened by 1 on each side when it is one value or
// there are no elements.
Tensor histc_kernel(const Tensor& self, I64 bins, const Scalar& min, const Scalar& max) {
  WICK_CHECK(bins > 0, RuntimeError, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  const ScalarType t = self.dtype();
  const Device device = self.device();
  double lo = min.to<double>();
  double hi = max.to<double>();
  if (lo == hi && self.numel() > 0) {
    WICK_CHECK(!(t == ScalarType::kFloat16 || is_complex(t)), RuntimeError, "\"aminmax_cpu\" not implemented for '",
               type_title(t), "'");
    if (device.is_meta()) return empty({bins}, t, device);  // the range is the data's: only the shape is known
    lo = amin(self).item().to<double>();
    hi = amax(self).item().to<double>();
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  WICK_CHECK(std::isfinite(lo) && std::isfinite(hi), RuntimeError, "torch.histc: range of [", lo, ", ", hi,
             "] is not finite");
  WICK_CHECK(lo < hi, RuntimeError, "torch.histc: max must be larger than min");
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, "\"linspace_cpu\" not implemented for 'Bool'");
  // The edges in an integer dtype (before its refusal below) must hold min and max.
  check_converts(lo, t);
  check_converts(hi, t);
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || t == ScalarType::kBFloat16, RuntimeError,
             "\"histogram_cpu\" not implemented for '", type_title(t), "'");
  if (device.is_meta()) return empty({bins}, t, device);
  const I64 nedges = checked_add(bins, 1, "torch.histc");
  const Tensor edges = linspace(Scalar(lo), Scalar(hi), nedges, t, device);
  const Tensor left = edges.select(0, 0);
  const Tensor right = edges.select(0, bins);
  const Tensor x = self.reshape({-1});
  const Tensor inside = logical_and(ge(x, left), le(x, right));
  const Tensor scaled = div(mul(sub(x, left), Scalar(bins)), sub(right, left));
  const Tensor estimate =
      clamp(where(inside, scaled, zeros_like(scaled)).to(ScalarType::kInt64), Scalar(I64{0}), Scalar(bins));
  // The bin: the last edge among the estimate's neighbours (pos - 1 .. pos + 1) not above x.
  const Tensor first = clamp(sub(estimate, Scalar(I64{1})), Scalar(I64{0}), std::nullopt);
  const Tensor end = clamp(add(estimate, Scalar(I64{2})), std::nullopt, Scalar(nedges));
  Tensor bin = sub(first, Scalar(I64{1}));
  for (I64 k = 0; k < 3; ++k) {
    const Tensor at = add(first, Scalar(k));
    const Tensor edge = index_select(edges, 0, clamp(at, std::nullopt, Scalar(bins)));
    bin = add(bin, logical_and(lt(at, end), le(edge, x)).to(ScalarType::kInt64));
  }
  bin = clamp(bin, Scalar(I64{0}), Scalar(bins - 1));  // max itself in the last bin; outside: any valid one
  return scatter_add(zeros({bins}, t, device), 0, bin, inside.to(t));
}

Tensor bincount_kernel(const Tensor& self, const std::optional<Tensor>& weights, I64 minlength) {
  WICK_CHECK(is_integral(self.dtype(), false), RuntimeError, "\"bincount_cpu\" not implemented for '",
             type_title(self.dtype()), "'");
  WICK_CHECK(minlength >= 0, RuntimeError, "minlength should be >= 0");
  WICK_CHECK(!self.device().is_meta(), NotImplementedError,
             "torch.bincount: the result's size depends on the data, which a meta tensor does not have");
  const Device device = self.device();
  if (self.dim() == 1 && self.numel() == 0) return zeros({minlength}, ScalarType::kInt64, device);
  WICK_CHECK(self.dim() == 1 && amin(self).item().to<I64>() >= 0, RuntimeError,
             "bincount only supports 1-d non-negative integral inputs.");
  WICK_CHECK(!weights || (weights->dim() == 1 && weights->numel() == self.numel()), RuntimeError,
             "weights should be 1-d and have the same length as input");
  const I64 size = std::max(checked_add(amax(self).item().to<I64>(), 1, "torch.bincount"), minlength);
  const Tensor index = self.to(ScalarType::kInt64);
  if (!weights) return scatter_add(zeros({size}, ScalarType::kInt64, device), 0, index, ones_like(index));
  const ScalarType t = weights->dtype() == ScalarType::kFloat32 ? ScalarType::kFloat32 : ScalarType::kFloat64;
  return scatter_add(zeros({size}, t, device), 0, index, weights->to(t));
}

}  // namespace

void register_sorting_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  lib->impl("sort", &sort_kernel)
      .impl("sort.stable", &sort_stable_kernel)
      .impl("argsort.stable", &argsort_stable_kernel)
      .impl("msort", &msort_kernel)
      .impl("topk", &topk_kernel)
      .impl("kthvalue", &kthvalue_kernel)
      .impl("median", &median_kernel)
      .impl("median.dim", &median_dim_kernel)
      .impl("nanmedian", &nanmedian_kernel)
      .impl("nanmedian.dim", &nanmedian_dim_kernel)
      .impl("mode", &mode_kernel)
      .impl("unique_consecutive", &unique_consecutive_kernel)
      .impl("histc", &histc_kernel)
      .impl("bincount", &bincount_kernel);
  out.push_back(std::move(lib));
  auto functional = std::make_unique<Library>("torch.functional", DispatchKey::kCompositeImplicit);
  functional->impl("unique", &unique_kernel);
  out.push_back(std::move(functional));
  auto aten = std::make_unique<Library>("aten", DispatchKey::kCompositeImplicit);
  aten->impl("_unique2", &unique2_kernel)
      .impl("unique_dim", &unique_dim_kernel)
      .impl("unique_consecutive", &unique_consecutive_triple);
  out.push_back(std::move(aten));
}

}  // namespace wick
