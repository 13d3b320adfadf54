// backends/cpu/sort_ops.cpp - argsort (sort, msort, median and the others build on it), topk_indices (topk and kthvalue build on it) and searchsorted (bucketize builds on it).
/// \file
/// Each line along `dim` is read into keys that order as the sort does
/// (Note [Sorting keys] in wick/sort_key.h) and its positions are radix
/// sorted by them: equal values keep their order and NaN sorts above every
/// number, as PyTorch's CPU sort. Lines are sorted in parallel when there
/// is enough work (Note [Grain size] in loops.h). Complex numbers have no
/// order: PyTorch's message names its kernel ("sorting_kernel_method_name"),
/// even for an empty tensor; a 0-dim tensor of any dtype is its own order.
#include <algorithm>
#include <array>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_index.h>
#include <wick/sort_key.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

using I64 = std::int64_t;

template <typename C>
using KeyOf = sort_key::KeyOf<C>;

// The key of v (Note [Sorting keys] in wick/sort_key.h).
template <typename C>
KeyOf<C> key_of(C v, bool descending) {
  return sort_key::directed(sort_key::of(v), descending);
}

// Each value's key and position packed into one unsigned integer, the key
// in the high half: each value is unique and integer order is the stable
// order (ties by position), which both the heap of topk_indices and the
// radix sort (stable, on the key bytes) give. 32-bit keys of lines shorter
// than 2^32 pack into 64 bits; the others into 128.
using Wide = unsigned __int128;

template <typename Item>
constexpr int kHalf = 4 * static_cast<int>(sizeof(Item));

template <typename Item, typename K>
Item pack(K key, I64 position) {
  return (static_cast<Item>(key) << kHalf<Item>) | static_cast<Item>(position);
}

template <typename Item>
I64 position_of(Item item) {
  return static_cast<I64>(item & ((Item{1} << kHalf<Item>) - 1));
}

// LSD radix sort of the n packed items at `items` by their key bytes
// (`key_bytes` of them), stable, so the positions' order among equal keys
// stays; a byte that every key shares takes no pass. `scratch` holds n
// items too; returns the buffer the sorted items end in.
template <typename Item>
Item* radix_sort(Item* items, Item* scratch, std::size_t n, int key_bytes) {
  for (int shift = kHalf<Item>; shift < kHalf<Item> + 8 * key_bytes; shift += 8) {
    std::array<std::size_t, 257> count{};
    for (std::size_t i = 0; i < n; ++i) ++count[static_cast<std::size_t>((items[i] >> shift) & 0xFF) + 1];
    if (*std::max_element(count.begin() + 1, count.end()) == n) continue;
    for (std::size_t b = 1; b < count.size(); ++b) count[b] += count[b - 1];
    for (std::size_t i = 0; i < n; ++i) scratch[count[static_cast<std::size_t>((items[i] >> shift) & 0xFF)]++] = items[i];
    std::swap(items, scratch);
  }
  return items;
}

// The lines of src along m.dim, one call of fn(src_base, dst_base, state)
// each (in parallel when there is enough work, with a State of its own per
// thread's run of lines), for a result of `width` along it.
template <typename State, typename Fn>
void for_each_line(const DimMeta& m, const Tensor& src, const Tensor& dst, I64 width, Fn&& fn) {
  const I64 d = m.dim;
  const I64 n = src.sizes()[d];
  DimVector outer;
  DimVector src_strides;
  DimVector dst_strides;
  for (I64 k = 0; k < src.dim(); ++k) {
    if (k == d) continue;
    outer.push_back(src.sizes()[k]);
    src_strides.push_back(src.strides()[k]);
    dst_strides.push_back(dst.strides()[k]);
  }
  const I64 lines = n == 0 || width == 0 ? 0 : src.numel() / n;
  parallel_for(lines, std::max<I64>(1, kGrainSize / std::max<I64>(n, 1)), [&](I64 begin, I64 end) {
    State state;
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
      fn(src_base, dst_base, state);
    }
  });
}

// The first `k` positions of each line in the stable order (all of them
// for argsort), written along m.dim of out. A small k of a long line keeps
// a heap of the k best (worst on top), which most values need only be
// compared with; otherwise the whole line is radix sorted.
template <typename T, typename Item>
void sorted_positions_as(const DimMeta& m, const Tensor& out, const Tensor& self, I64 k, bool descending) {
  using C = compute_type_t<T>;
  const I64 n = self.sizes()[m.dim];
  const I64 src_step = self.strides()[m.dim];
  const I64 dst_step = out.strides()[m.dim];
  const T* in = static_cast<const T*>(self.data_ptr());
  I64* o = static_cast<I64*>(out.data_ptr());
  const bool select = k < n / 16;
  // A run of lines' buffers: the heap, or two arrays of n items for the
  // radix sort, allocated as tensors so that the CPU's large-block cache
  // hands the same pages back to the next sort (Note [Large-block cache] in
  // core/storage.cpp: fresh pages cost more to fault in than sorting them).
  struct Buffers {
    std::vector<Item> heap;
    Tensor items;
    Tensor scratch;
  };
  for_each_line<Buffers>(m, self, out, k, [&](I64 src_base, I64 dst_base, Buffers& state) {
    const auto item = [&](I64 j) {
      return pack<Item>(key_of(static_cast<C>(in[src_base + j * src_step]), descending), j);
    };
    const Item* sorted = nullptr;
    if (select) {
      auto& items = state.heap;
      items.clear();
      for (I64 j = 0; j < n; ++j) {
        const Item it = item(j);
        if (static_cast<I64>(items.size()) < k) {
          items.push_back(it);
          std::push_heap(items.begin(), items.end());
        } else if (it < items.front()) {
          std::pop_heap(items.begin(), items.end());
          items.back() = it;
          std::push_heap(items.begin(), items.end());
        }
      }
      std::sort_heap(items.begin(), items.end());
      sorted = items.data();
    } else {
      const auto count = static_cast<std::size_t>(n);
      if (!state.items.defined()) {
        const I64 bytes[] = {checked_mul(n, static_cast<I64>(sizeof(Item)), "argsort")};
        state.items = make_empty(IntArrayRef(bytes, 1), ScalarType::kUInt8, Device(DeviceType::kCPU));
        state.scratch = make_empty(IntArrayRef(bytes, 1), ScalarType::kUInt8, Device(DeviceType::kCPU));
      }
      Item* items = static_cast<Item*>(state.items.data_ptr());
      for (I64 j = 0; j < n; ++j) items[j] = item(j);
      if (n <= 64) {
        std::sort(items, items + n);
        sorted = items;
      } else {
        sorted = radix_sort(items, static_cast<Item*>(state.scratch.data_ptr()), count,
                            static_cast<int>(sizeof(KeyOf<C>)));
      }
    }
    for (I64 j = 0; j < k; ++j) o[dst_base + j * dst_step] = position_of(sorted[j]);
  });
}

void sorted_positions(const DimMeta& m, const Tensor& out, const Tensor& self, I64 k, bool descending) {
  const I64 n = self.sizes()[m.dim];
  visit_dtype<dtypes::kAll>(self.dtype(), "sorting_kernel_method_name", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (sizeof(KeyOf<compute_type_t<T>>) == 4) {
      if (n <= std::numeric_limits<std::uint32_t>::max()) {
        sorted_positions_as<T, std::uint64_t>(m, out, self, k, descending);
        return;
      }
    }
    sorted_positions_as<T, Wide>(m, out, self, k, descending);
  });
}

}  // namespace

void argsort(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, bool descending) {
  if (self.dim() == 0) {  // one element, of any dtype (PyTorch returns before it looks at the dtype)
    *static_cast<I64*>(out.data_ptr()) = 0;
    return;
  }
  sorted_positions(m, out, self, self.sizes()[m.dim], descending);
}

void topk_indices(const DimMeta& m, const Tensor& out, const Tensor& self, I64 k, I64 /*dim*/, bool largest) {
  sorted_positions(m, out, self, k, largest);
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
