// dispatch/composite/sorting_ops.cpp - sort, topk, kthvalue, msort, median, nanmedian and mode, built on argsort.
/// \file
/// argsort is the one sorting kernel a backend writes (dispatch/ops/sorting.ops);
/// these take its indices and gather the values with them, so their
/// gradients and forward tangents are gather's, and they run on every
/// backend and the Meta device that has argsort and gather. Every sort is
/// stable, so `stable=` changes nothing and topk always returns its values
/// in order (PyTorch's `sorted=False` leaves the order unspecified).
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
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

// The size of `dim` (1 for a 0-dim tensor, which sorts as one element).
I64 size_along(const Tensor& self, I64 dim) {
  const I64 d = wrap_dim(dim, self.dim() == 0 ? 1 : self.dim());
  return self.dim() == 0 ? 1 : self.size(d);
}

Pair topk_kernel(const Tensor& self, I64 k, I64 dim, bool largest, bool /*sorted*/) {
  WICK_CHECK(k >= 0 && k <= size_along(self, dim), RuntimeError, "torch.topk: selected index k out of range");
  check_ordered(self, "topk_cpu");
  const Tensor order = argsort(self, dim, largest);
  Tensor indices = self.dim() == 0 ? order : order.narrow(dim, 0, k);
  return {gather(self, dim, indices), std::move(indices)};
}

Pair kthvalue_kernel(const Tensor& self, I64 k, I64 dim, bool keepdim) {
  const char* op = "torch.kthvalue";
  const I64 n = size_along(self, dim);
  const I64 d = wrap_dim(dim, self.dim() == 0 ? 1 : self.dim());
  WICK_CHECK(n > 0, IndexError, op, ": kthvalue(): Expected reduction dim ", d, " to have non-zero size.");
  WICK_CHECK(k >= 1 && k <= n, RuntimeError, op, ": kthvalue(): selected number k out of range for dimension ", d);
  check_ordered(self, "kthvalue_cpu");
  const Tensor order = argsort(self, dim, false);
  if (self.dim() == 0) return {gather(self, dim, order), order};
  Tensor indices = order.narrow(d, k - 1, 1);
  Tensor values = gather(self, d, indices);
  if (keepdim) return {std::move(values), std::move(indices)};
  return {values.squeeze(d), indices.squeeze(d)};
}

// --- median, nanmedian, mode: positions in the sorted order ---------------------------------

// self as at least 1-D (a 0-dim tensor sorts as one element), and `dim` wrapped for it.
std::tuple<Tensor, I64> as_lines(const Tensor& self, I64 dim) {
  const Tensor x = self.dim() == 0 ? self.reshape({1}) : self;
  return {x, wrap_dim(dim, x.dim())};
}

// The values and indices of x at `pos` (positions in the stable ascending
// order along d, keepdim-shaped), shaped as the operator returns them.
Pair at_sorted_positions(const Tensor& self, const Tensor& x, const Tensor& order, I64 d, const Tensor& pos,
                         bool keepdim) {
  Tensor indices = gather(order, d, pos);
  Tensor values = gather(x, d, indices);
  if (self.dim() == 0) return {values.reshape({}), indices.reshape({})};
  if (keepdim) return {std::move(values), std::move(indices)};
  return {values.squeeze(d), indices.squeeze(d)};
}

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
      .impl("mode", &mode_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick
