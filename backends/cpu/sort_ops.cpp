// backends/cpu/sort_ops.cpp - argsort (sort, topk, kthvalue and msort build on it) and searchsorted (bucketize builds on it).
/// \file
/// Each line along `dim` is read into a buffer of its values in their
/// compute type (float for float16/bfloat16) and its positions are
/// stable-sorted by them: equal values keep their order and NaN sorts above
/// every number, as PyTorch's CPU sort. Lines are sorted in parallel when
/// there is enough work (Note [Grain size] in loops.h). Complex numbers have
/// no order: PyTorch's message names its kernel ("sorting_kernel_method_name"),
/// even for an empty tensor; a 0-dim tensor of any dtype is its own order.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>
#include <numeric>
#include <vector>

#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_index.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

using I64 = std::int64_t;

// a before b: ascending with NaN last, or descending with NaN first.
template <typename C>
bool before(C a, C b, bool descending) {
  if constexpr (std::is_floating_point_v<C>) {
    if (std::isnan(a) || std::isnan(b)) return descending ? std::isnan(a) && !std::isnan(b) : std::isnan(b) && !std::isnan(a);
  }
  return descending ? b < a : a < b;
}

}  // namespace

void argsort(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, bool descending) {
  if (self.dim() == 0) {  // one element, of any dtype (PyTorch returns before it looks at the dtype)
    *static_cast<I64*>(out.data_ptr()) = 0;
    return;
  }
  const Tensor& src = self;
  const Tensor& dst = out;
  const I64 d = m.dim;
  const I64 n = src.sizes()[d];
  // The other dims: each position there is one line to sort.
  DimVector outer;
  DimVector src_strides;
  DimVector dst_strides;
  for (I64 k = 0; k < src.dim(); ++k) {
    if (k == d) continue;
    outer.push_back(src.sizes()[k]);
    src_strides.push_back(src.strides()[k]);
    dst_strides.push_back(dst.strides()[k]);
  }
  const I64 lines = n == 0 ? 0 : src.numel() / n;
  const I64 src_step = src.strides()[d];
  const I64 dst_step = dst.strides()[d];
  visit_dtype<dtypes::kAll>(self.dtype(), "sorting_kernel_method_name", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    const T* in = static_cast<const T*>(src.data_ptr());
    I64* o = static_cast<I64*>(dst.data_ptr());
    parallel_for(lines, std::max<I64>(1, kGrainSize / std::max<I64>(n, 1)), [&](I64 begin, I64 end) {
      std::vector<C> keys(static_cast<std::size_t>(n));
      std::vector<I64> order(static_cast<std::size_t>(n));
      for (I64 line = begin; line < end; ++line) {
        I64 rest = line;
        I64 src_base = 0;
        I64 dst_base = 0;
        for (I64 k = static_cast<I64>(outer.size()) - 1; k >= 0; --k) {
          const I64 i = rest % outer[k];
          rest /= outer[k];
          src_base += i * src_strides[k];
          dst_base += i * dst_strides[k];
        }
        for (I64 j = 0; j < n; ++j) keys[j] = static_cast<C>(in[src_base + j * src_step]);
        std::iota(order.begin(), order.end(), I64{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](I64 a, I64 b) { return before<C>(keys[a], keys[b], descending); });
        for (I64 j = 0; j < n; ++j) o[dst_base + j * dst_step] = order[j];
      }
    });
  });
}

// searchsorted: a binary search of each value in its row of the boundaries
// (the one row when they are 1-D), both converted to the compared dtype. The
// search moves right past every boundary below the value (right=False) or
// not above it (right=True), as PyTorch's, so a NaN value lands past every
// number and NaN boundaries count as above every value. With a sorter, the
// k-th boundary of a row is the one at the sorter's k-th index; indices out
// of the row are an IndexError (PyTorch reads past the row).
void searchsorted(const SearchsortedMeta& m, const Tensor& out, const Tensor& sorted_sequence, const Tensor& self,
                  bool /*out_int32*/, bool /*right*/, std::optional<std::string_view> /*side*/,
                  const std::optional<Tensor>& sorter) {
  const I64 n = self.numel();
  const I64 width = sorted_sequence.sizes()[sorted_sequence.dim() - 1];  // boundaries per row
  const bool one_row = sorted_sequence.dim() == 1;
  const I64 per_row = self.dim() == 0 ? 1 : self.sizes()[self.dim() - 1];  // values per row
  std::optional<Tensor> order;
  if (sorter) {
    order = sorter->contiguous();
    const I64* o = order->data_ptr<I64>();
    for (I64 i = 0; i < order->numel(); ++i) {
      WICK_CHECK(o[i] >= 0 && o[i] < width, IndexError, "torch.searchsorted(): sorter index ", o[i],
                 " is out of range for boundaries of ", width, " elements along their last dimension");
    }
  }
  if (n == 0) return;
  const Tensor bounds = sorted_sequence.to(m.compute).contiguous();
  const Tensor values = self.to(m.compute).contiguous();
  visit_dtype<dtypes::kIntegral | dtypes::kFloating>(m.compute, "searchsorted_out_cpu", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    const T* b = static_cast<const T*>(bounds.data_ptr());
    const T* v = static_cast<const T*>(values.data_ptr());
    const I64* o = order ? order->data_ptr<I64>() : nullptr;
    const bool right = m.right;
    auto search = [&](I64 i) {
      const I64 base = one_row ? 0 : (i / per_row) * width;
      const C value = static_cast<C>(v[i]);
      I64 lo = 0;
      I64 hi = width;
      while (lo < hi) {
        const I64 mid = lo + (hi - lo) / 2;
        const C at = static_cast<C>(b[base + (o != nullptr ? o[base + mid] : mid)]);
        if (right ? !(at > value) : !(at >= value)) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      return lo;
    };
    const I64 grain = std::max<I64>(1, kGrainSize / 16);
    if (out.dtype() == ScalarType::kInt32) {
      auto* r = out.data_ptr<std::int32_t>();
      parallel_for(n, grain, [&](I64 begin, I64 end) {
        for (I64 i = begin; i < end; ++i) r[i] = static_cast<std::int32_t>(search(i));
      });
    } else {
      auto* r = out.data_ptr<I64>();
      parallel_for(n, grain, [&](I64 begin, I64 end) {
        for (I64 i = begin; i < end; ++i) r[i] = search(i);
      });
    }
  });
}

void bucketize(const SearchsortedMeta& m, const Tensor& out, const Tensor& self, const Tensor& boundaries,
               bool out_int32, bool right) {
  searchsorted(m, out, boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

}  // namespace wick::cpu
