// dispatch/composite/sorting_ops.cpp - sort, topk, kthvalue and msort, built on argsort.
/// \file
/// argsort is the one sorting kernel a backend writes (dispatch/ops/sorting.ops);
/// these take its indices and gather the values with them, so their
/// gradients and forward tangents are gather's, and they run on every
/// backend and the Meta device that has argsort and gather. Every sort is
/// stable, so `stable=` changes nothing and topk always returns its values
/// in order (PyTorch's `sorted=False` leaves the order unspecified).
#include <cstdint>
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
// bools, which sort does order; a 0-dim tensor is returned before the dtype
// is looked at.
void check_ordered(const Tensor& self, const char* kernel) {
  WICK_CHECK(self.dim() == 0 || !(is_complex(self.dtype()) || self.dtype() == ScalarType::kBool), RuntimeError, "\"",
             kernel, "\" not implemented for '", type_title(self.dtype()), "'");
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

}  // namespace

void register_sorting_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  lib->impl("sort", &sort_kernel)
      .impl("sort.stable", &sort_stable_kernel)
      .impl("argsort.stable", &argsort_stable_kernel)
      .impl("msort", &msort_kernel)
      .impl("topk", &topk_kernel)
      .impl("kthvalue", &kthvalue_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick
