// backends/cpu/index_ops.cpp - cat, index_select, gather, scatter, scatter_add, masked_fill, flip, tril, triu.
/// \file
/// Data-movement kernels: they copy elements (bytes) rather than compute,
/// so most loops are dtype-blind and work on element offsets. Index
/// tensors are checked up front: dtype, rank, shape, then every value, so a
/// bad index throws before anything is written.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cpu_kernels.h"
#include "loops.h"

namespace wick::cpu {
namespace {

using I64 = std::int64_t;

// --- cat ---------------------------------------------------------------------------------

// A 1-D tensor with no elements: PyTorch's legacy "empty" that cat skips.
bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

Tensor cat(const std::vector<Tensor>& tensors, I64 dim) {
  WICK_CHECK(!tensors.empty(), RuntimeError, "torch.cat(): expected a non-empty list of Tensors");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    WICK_CHECK(tensors[i].dim() > 0, RuntimeError, "zero-dimensional tensor (at position ", i,
               ") cannot be concatenated");
  const ScalarType dtype = result_type(tensors);
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors)
    if (!legacy_empty(t)) {
      first = &t;
      break;
    }
  if (first == nullptr) return make_empty({0}, dtype, tensors.front().device());
  const I64 d = wrap_dim(dim, first->dim());
  DimVector shape(first->sizes());
  shape[d] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_empty(t)) continue;
    WICK_CHECK(t.dim() == first->dim(), RuntimeError, "Tensors must have same number of dimensions: got ",
               first->dim(), " and ", t.dim());
    for (I64 k = 0; k < t.dim(); ++k)
      WICK_CHECK(k == d || t.sizes()[k] == first->sizes()[k], RuntimeError, "Sizes of tensors must match except in ",
                 "dimension ", d, ". Expected size ", first->sizes()[k], " but got size ", t.sizes()[k],
                 " for tensor number ", i, " in the list.");
    shape[d] += t.sizes()[d];
  }
  Tensor out = make_empty(shape, dtype, first->device());
  I64 offset = 0;
  for (const Tensor& t : tensors) {
    if (legacy_empty(t)) continue;
    out.narrow(d, offset, t.sizes()[d]).copy_(t);
    offset += t.sizes()[d];
  }
  return out;
}

// --- index checks -----------------------------------------------------------------------------

// `index` as contiguous int64 after checking its dtype.
Tensor int64_index(const Tensor& index, const char* op, bool allow_int32) {
  const ScalarType t = index.dtype();
  WICK_CHECK(t == ScalarType::kInt64 || (allow_int32 && t == ScalarType::kInt32), RuntimeError, op,
             allow_int32 ? "(): Expected dtype int32 or int64 for index" : "(): Expected dtype int64 for index");
  return as_dtype(index, ScalarType::kInt64).contiguous();
}

// Every index in [0, size): gather and scatter do not wrap negative indices.
void check_bounds(const Tensor& index, I64 size, I64 dim) {
  const I64* p = index.data_ptr<I64>();
  for (I64 k = 0; k < index.numel(); ++k)
    WICK_CHECK(p[k] >= 0 && p[k] < size, RuntimeError, "index ", p[k], " is out of bounds for dimension ", dim,
               " with size ", size);
}

// Calls f(k, a, b) for element k (row-major) of `shape`: a is the offset of
// its position in a tensor with strides sa leaving out dimension `skip`
// (where the index goes), b the offset in a tensor with strides sb.
template <class F>
void walk_positions(IntArrayRef shape, I64 skip, IntArrayRef sa, IntArrayRef sb, F f) {
  I64 numel = 1;
  for (I64 s : shape) numel *= s;
  const auto nd = static_cast<I64>(shape.size());
  DimVector pos(shape.size(), 0);
  I64 a = 0;
  I64 b = 0;
  for (I64 k = 0; k < numel; ++k) {
    f(k, a, b);
    for (I64 d = nd - 1; d >= 0; --d) {
      const I64 ka = d == skip ? 0 : sa[d];
      const I64 kb = sb[d];
      if (++pos[d] < shape[d]) {
        a += ka;
        b += kb;
        break;
      }
      a -= (shape[d] - 1) * ka;
      b -= (shape[d] - 1) * kb;
      pos[d] = 0;
    }
  }
}

// A 0-dim tensor seen as one element of a 1-D tensor (gather and scatter treat them so).
Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

// --- index_select ---------------------------------------------------------------------------

Tensor index_select(const Tensor& self, I64 dim, const Tensor& index) {
  const I64 d = wrap_dim(dim, std::max<I64>(self.dim(), 1));
  WICK_CHECK(index.dim() <= 1, IndexError, "index_select(): Index is supposed to be a vector");
  const Tensor idx = int64_index(index, "index_select", true);
  const Tensor src = at_least_1d(self).contiguous();
  const I64 size = src.sizes()[d];
  const I64* ip = idx.data_ptr<I64>();
  for (I64 k = 0; k < idx.numel(); ++k) WICK_CHECK(ip[k] >= 0 && ip[k] < size, IndexError, "index out of range in self");
  if (self.dim() == 0) return self.clone();  // PyTorch keeps a 0-dim self 0-dim, whatever the index count
  DimVector shape(src.sizes());
  shape[d] = idx.numel();
  Tensor out = make_empty(shape, self.dtype(), self.device());
  I64 outer = 1;
  for (I64 k = 0; k < d; ++k) outer *= shape[k];
  I64 inner = 1;
  for (I64 k = d + 1; k < src.dim(); ++k) inner *= shape[k];
  const auto row = static_cast<std::size_t>(inner) * itemsize(self.dtype());
  const auto* in = static_cast<const char*>(src.data_ptr());
  auto* o = static_cast<char*>(out.data_ptr());
  if (out.numel() == 0) return out;  // no rows to copy (an empty storage's pointer is null)
  for (I64 i = 0; i < outer; ++i)
    for (I64 j = 0; j < idx.numel(); ++j)
      std::memcpy(o + static_cast<std::size_t>(i * idx.numel() + j) * row, in + static_cast<std::size_t>(i * size + ip[j]) * row, row);
  return out;
}

// --- gather / scatter -----------------------------------------------------------------------------

// PyTorch's shape rule: index no larger than self outside `dim` (and than src everywhere).
void check_gather_shapes(const Tensor& self, I64 d, const Tensor& index, const Tensor* src) {
  const char* what = src != nullptr ? "self" : "input";
  WICK_CHECK(index.dim() == self.dim(), RuntimeError, "Index tensor must have the same number of dimensions as ",
             what, " tensor");
  if (src != nullptr)
    WICK_CHECK(index.dim() == src->dim(), RuntimeError,
               "Index tensor must have the same number of dimensions as src tensor");
  for (I64 k = 0; k < index.dim(); ++k) {
    const bool fits_self = k == d || index.sizes()[k] <= self.sizes()[k];
    if (src == nullptr) {
      WICK_CHECK(fits_self, RuntimeError, "Size does not match at dimension ", k, " expected index ",
                 format_shape(index.sizes()), " to be smaller than self ", format_shape(self.sizes()),
                 " apart from dimension ", d);
    } else {
      WICK_CHECK(fits_self && index.sizes()[k] <= src->sizes()[k], RuntimeError, "Expected index ",
                 format_shape(index.sizes()), " to be smaller than self ", format_shape(self.sizes()),
                 " apart from dimension ", d, " and to be smaller size than src ", format_shape(src->sizes()));
    }
  }
}

Tensor gather(const Tensor& self, I64 dim, const Tensor& index, bool /*sparse_grad*/) {
  const I64 d = wrap_dim(dim, std::max<I64>(self.dim(), 1));
  const Tensor idx = int64_index(index, "gather", false);
  check_gather_shapes(self, d, index, nullptr);
  const Tensor src = at_least_1d(self);
  const Tensor ix = at_least_1d(idx);
  check_bounds(ix, src.sizes()[d], d);
  Tensor out = make_empty(ix.sizes(), self.dtype(), self.device());
  const I64* ip = ix.data_ptr<I64>();
  const I64 step = src.strides()[d];
  visit_dtype(self.dtype(), "gather", [&](auto tag) {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(src.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    walk_positions(ix.sizes(), d, src.strides(), src.strides(),
                   [&](I64 k, I64 base, I64) { o[k] = in[base + ip[k] * step]; });
  });
  return self.dim() == 0 ? out.reshape(index.sizes()) : out;
}

// scatter (kAdd false) and scatter_add (kAdd true); a wrapped-number src is scatter's value overload.
template <bool kAdd>
Tensor scatter_impl(const Tensor& self, I64 dim, const Tensor& index, const Tensor& src) {
  const char* op = kAdd ? "scatter_add" : "scatter";
  const I64 d = wrap_dim(dim, std::max<I64>(self.dim(), 1));
  const Tensor idx = int64_index(index, op, false);
  const bool is_value = !kAdd && src.impl()->is_wrapped_number();
  if (is_value) {
    WICK_CHECK(index.dim() == self.dim(), RuntimeError,
               "Index tensor must have the same number of dimensions as self tensor");
    for (I64 k = 0; k < index.dim(); ++k)
      WICK_CHECK(k == d || index.sizes()[k] <= self.sizes()[k], RuntimeError, "Expected index ",
                 format_shape(index.sizes()), " to be smaller than self ", format_shape(self.sizes()),
                 " apart from dimension ", d);
  } else {
    WICK_CHECK(src.dtype() == self.dtype(), RuntimeError, op, "(): Expected self.dtype to be equal to src.dtype");
    check_gather_shapes(self, d, index, &src);
  }
  Tensor out = at_least_1d(self).clone();
  const Tensor ix = at_least_1d(idx);
  check_bounds(ix, out.sizes()[d], d);
  const Tensor s = is_value ? src : at_least_1d(src);
  const I64* ip = ix.data_ptr<I64>();
  const I64 step = out.strides()[d];
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(out.data_ptr());
    if (is_value) {
      const T v = src.item().to<T>();
      walk_positions(ix.sizes(), d, out.strides(), out.strides(), [&](I64 k, I64 base, I64) { o[base + ip[k] * step] = v; });
      return;
    }
    const T* in = static_cast<const T*>(s.data_ptr());
    walk_positions(ix.sizes(), d, out.strides(), s.strides(), [&](I64 k, I64 base, I64 sbase) {
      T& dst = o[base + ip[k] * step];
      if constexpr (kAdd) {
        dst = static_cast<T>(dst + in[sbase]);
      } else {
        dst = in[sbase];
      }
    });
  });
  return self.dim() == 0 ? out.reshape({}) : out;
}

Tensor scatter(const Tensor& self, I64 dim, const Tensor& index, const Tensor& src) {
  return scatter_impl<false>(self, dim, index, src);
}
Tensor scatter_add(const Tensor& self, I64 dim, const Tensor& index, const Tensor& src) {
  return scatter_impl<true>(self, dim, index, src);
}

// --- masked_fill ----------------------------------------------------------------------------------

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  WICK_CHECK(value.dim() == 0, RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got ",
             "tensor with ", value.dim(), " dimension(s).");
  // PyTorch 1.13 still takes integer masks of 0s and 1s (deprecated); floating masks are refused.
  WICK_CHECK(!is_floating(mask.dtype()), RuntimeError, "masked_fill_ only supports boolean masks, but got mask with ",
             "dtype ", dtype_name(mask.dtype()));
  Tensor m = mask;
  if (mask.dtype() != ScalarType::kBool) {
    m = as_dtype(mask, ScalarType::kInt64).contiguous();
    const I64* p = m.data_ptr<I64>();
    for (I64 k = 0; k < m.numel(); ++k)
      WICK_CHECK(p[k] == 0 || p[k] == 1, RuntimeError, "Mask tensor can take 0 and 1 values only");
    m = m.to(ScalarType::kBool);
  }
  const DimVector shape = broadcast_shapes(self.sizes(), m.sizes(), "masked_fill");
  Tensor out = make_empty(shape, self.dtype(), self.device());
  out.copy_(self.expand(shape));
  const Scalar v = value.item();
  visit_dtype(self.dtype(), "masked_fill", [&](auto tag) {
    using T = decltype(tag);
    const T fill = v.to<T>();
    for_each_element<2>(shape, {out, m}, [&](std::array<char*, 2> p, I64 n, std::array<I64, 2> s) {
      for (I64 i = 0; i < n; ++i)
        if (*reinterpret_cast<const bool*>(p[1] + i * s[1])) *reinterpret_cast<T*>(p[0] + i * s[0]) = fill;
    });
  });
  return out;
}

// --- flip, tril, triu ------------------------------------------------------------------------------

Tensor flip(const Tensor& self, IntArrayRef dims) {
  // A 0-dim tensor takes dims 0 and -1 (wrap_dim), so one slot at least.
  std::vector<bool> flipped(static_cast<std::size_t>(std::max<I64>(self.dim(), 1)), false);
  for (I64 dim : dims) {
    const I64 d = wrap_dim(dim, self.dim());
    WICK_CHECK(!flipped[d], RuntimeError, "dim ", d, " appears multiple times in the list of dims");
    flipped[d] = true;
  }
  Tensor out = make_empty(self.sizes(), self.dtype(), self.device());
  if (self.numel() == 0) return out;
  // Read self through strides negated along the flipped dims, from its far end.
  const auto item = static_cast<I64>(itemsize(self.dtype()));
  DimVector strides(self.strides());
  const char* in = static_cast<const char*>(self.data_ptr());
  for (I64 d = 0; d < self.dim(); ++d) {
    if (!flipped[d]) continue;
    in += (self.sizes()[d] - 1) * strides[d] * item;
    strides[d] = -strides[d];
  }
  auto* o = static_cast<char*>(out.data_ptr());
  walk_positions(self.sizes(), -1, strides, strides,
                 [&](I64 k, I64 off, I64) { std::memcpy(o + k * item, in + off * item, static_cast<std::size_t>(item)); });
  return out;
}

// Zeroes the entries above (kLower) or below the `diagonal`-th diagonal of each matrix.
template <bool kLower>
Tensor triangle(const Tensor& self, I64 diagonal) {
  WICK_CHECK(self.dim() != 0, IndexError, "Dimension specified as -2 but tensor has no dimensions");
  const I64 rows = self.sizes()[wrap_dim(-2, self.dim())];
  const I64 cols = self.sizes()[self.dim() - 1];
  Tensor out = self.clone();
  if (out.numel() == 0) return out;
  const auto item = itemsize(self.dtype());
  const I64 matrices = out.numel() / (rows * cols);
  auto* p = static_cast<char*>(out.data_ptr());
  for (I64 m = 0; m < matrices; ++m) {
    for (I64 i = 0; i < rows; ++i) {
      // Row i keeps columns j with j - i <= diagonal (lower) or >= diagonal (upper).
      const I64 from = kLower ? std::clamp<I64>(i + diagonal + 1, 0, cols) : 0;
      const I64 to = kLower ? cols : std::clamp<I64>(i + diagonal, 0, cols);
      if (to > from)
        std::memset(p + static_cast<std::size_t>((m * rows + i) * cols + from) * item, 0,
                    static_cast<std::size_t>(to - from) * item);
    }
  }
  return out;
}

Tensor tril(const Tensor& self, I64 diagonal) { return triangle<true>(self, diagonal); }
Tensor triu(const Tensor& self, I64 diagonal) { return triangle<false>(self, diagonal); }

}  // namespace

void register_index_ops(Library& torch) {
  torch.impl("cat", &cat)
      .impl("index_select", &index_select)
      .impl("gather", &gather)
      .impl("scatter", &scatter)
      .impl("scatter_add", &scatter_add)
      .impl("masked_fill", &masked_fill)
      .impl("flip", &flip)
      .impl("tril", &tril)
      .impl("triu", &triu);
}

}  // namespace wick::cpu
