// backends/cpu/sort_ops.cpp - argsort: the CPU's one sorting kernel (sort, topk, kthvalue and msort build on it).
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

}  // namespace wick::cpu
