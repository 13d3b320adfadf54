// backends/cpu/index_ops.cpp - cat, index_select, gather, scatter, scatter_add, masked_fill, flip, tril, triu.
/// \file
/// Data-movement kernels: they copy elements (bytes) rather than compute,
/// so most loops are dtype-blind and work on element offsets. Each is the
/// computation of an operator whose meta function
/// (dispatch/ops/meta_index.cpp) checked the arguments (an index's dtype,
/// rank and shape) and gave the contiguous output and the wrapped `dim`
/// (Note [Structured kernels] in wick/structured.h). The index values are
/// checked here, every one before anything is written (Note [Index values
/// are the impl's to check] there).
#include <algorithm>
#include <cstring>
#include <vector>

#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_index.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

using I64 = std::int64_t;

// --- cat ---------------------------------------------------------------------------------

}  // namespace

// Tensors with no elements add nothing: legacy empty 1-D tensors (which
// the meta function skipped) and those empty along `dim` (when `out` has
// elements, every other tensor has them too).
void cat(const DimMeta& m, const Tensor& out, const std::vector<Tensor>& tensors, I64 /*dim*/) {
  if (out.numel() == 0) return;
  I64 offset = 0;
  for (const Tensor& t : tensors) {
    if (t.numel() == 0) continue;
    out.narrow(m.dim, offset, t.sizes()[m.dim]).copy_(t);
    offset += t.sizes()[m.dim];
  }
}

namespace {

// --- index checks -----------------------------------------------------------------------------

// `index` (int64 or int32: the meta function checked) as contiguous int64.
Tensor int64_index(const Tensor& index) { return as_dtype(index, ScalarType::kInt64).contiguous(); }

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
  const I64 numel = checked_numel(shape);
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

}  // namespace

void index_select(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, const Tensor& index) {
  const I64 d = m.dim;
  const Tensor idx = int64_index(index);
  const Tensor src = at_least_1d(self).contiguous();
  const I64 size = src.sizes()[d];
  const I64* ip = idx.data_ptr<I64>();
  for (I64 k = 0; k < idx.numel(); ++k)
    WICK_CHECK(ip[k] >= 0 && ip[k] < size, IndexError, "index out of range in self");
  if (self.dim() == 0) {  // PyTorch keeps a 0-dim self 0-dim, whatever the index count
    Tensor o = out;
    o.copy_(self);
    return;
  }
  if (out.numel() == 0) return;  // no rows to copy (an empty storage's pointer is null)
  I64 outer = 1;
  for (I64 k = 0; k < d; ++k) outer *= out.sizes()[k];
  I64 inner = 1;
  for (I64 k = d + 1; k < src.dim(); ++k) inner *= out.sizes()[k];
  const auto row = static_cast<std::size_t>(inner) * itemsize(self.dtype());
  const auto* in = static_cast<const char*>(src.data_ptr());
  auto* o = static_cast<char*>(out.data_ptr());
  for (I64 i = 0; i < outer; ++i)
    for (I64 j = 0; j < idx.numel(); ++j)
      std::memcpy(o + static_cast<std::size_t>(i * idx.numel() + j) * row,
                  in + static_cast<std::size_t>(i * size + ip[j]) * row, row);
}

namespace {

// --- gather / scatter -----------------------------------------------------------------------------

}  // namespace

void gather(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, const Tensor& index,
            bool /*sparse_grad*/) {
  const I64 d = m.dim;
  const Tensor src = at_least_1d(self);
  const Tensor ix = at_least_1d(int64_index(index));
  check_bounds(ix, src.sizes()[d], d);
  const I64* ip = ix.data_ptr<I64>();
  const I64 step = src.strides()[d];
  visit_dtype<dtypes::kAllAndComplex>(self.dtype(), "gather", [&](auto tag) {
    using T = decltype(tag);
    const T* in = static_cast<const T*>(src.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    walk_positions(ix.sizes(), d, src.strides(), src.strides(),
                   [&](I64 k, I64 base, I64) { o[k] = in[base + ip[k] * step]; });
  });
}

namespace {

// scatter (kAdd false) and scatter_add (kAdd true) into `out`, a copy of
// self; a wrapped-number src is scatter's value overload.
template <bool kAdd>
void scatter_impl(const DimMeta& m, const Tensor& out, const Tensor& self, const Tensor& index, const Tensor& src) {
  const char* op = kAdd ? "scatter_add" : "scatter";
  const I64 d = m.dim;
  const bool is_value = !kAdd && src.impl()->is_wrapped_number();
  const Tensor ix = at_least_1d(int64_index(index));
  const Tensor o1 = at_least_1d(out);  // a view of the contiguous `out`
  check_bounds(ix, o1.sizes()[d], d);  // before anything is written
  Tensor target = out;
  target.copy_(self);
  const Tensor s = is_value ? src : at_least_1d(src);
  const I64* ip = ix.data_ptr<I64>();
  const I64 step = o1.strides()[d];
  visit_dtype<dtypes::kAllAndComplex>(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(o1.data_ptr());
    if (is_value) {
      const T v = src.item().to<T>();
      walk_positions(ix.sizes(), d, o1.strides(), o1.strides(),
                     [&](I64 k, I64 base, I64) { o[base + ip[k] * step] = v; });
      return;
    }
    const T* in = static_cast<const T*>(s.data_ptr());
    walk_positions(ix.sizes(), d, o1.strides(), s.strides(), [&](I64 k, I64 base, I64 sbase) {
      T& dst = o[base + ip[k] * step];
      if constexpr (kAdd) {
        dst = static_cast<T>(dst + in[sbase]);
      } else {
        dst = in[sbase];
      }
    });
  });
}

// --- masked_fill ----------------------------------------------------------------------------------

}  // namespace

void masked_fill(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, const Tensor& mask,
                 const Tensor& value) {
  Tensor mk = mask;
  if (mask.dtype() != ScalarType::kBool) {  // PyTorch 1.13's deprecated integer masks: 0s and 1s only
    mk = as_dtype(mask, ScalarType::kInt64).contiguous();
    const I64* p = mk.data_ptr<I64>();
    for (I64 k = 0; k < mk.numel(); ++k)
      WICK_CHECK(p[k] == 0 || p[k] == 1, RuntimeError, "Mask tensor can take 0 and 1 values only");
    mk = mk.to(ScalarType::kBool);
  }
  const IntArrayRef shape = out.sizes();
  Tensor target = out;
  target.copy_(self.expand(shape));
  const Scalar v = value.item();
  visit_dtype<dtypes::kAllAndComplex>(self.dtype(), "masked_fill", [&](auto tag) {
    using T = decltype(tag);
    const T fill = v.to<T>();
    for_each_element<2>(shape, {out, mk}, [&](std::array<char*, 2> p, I64 n, std::array<I64, 2> s) {
      for (I64 i = 0; i < n; ++i)
        if (*reinterpret_cast<const bool*>(p[1] + i * s[1])) *reinterpret_cast<T*>(p[0] + i * s[0]) = fill;
    });
  });
}

namespace {

// --- flip, tril, triu ------------------------------------------------------------------------------

}  // namespace

void flip(const FlipMeta& m, const Tensor& out, const Tensor& self, IntArrayRef /*dims*/) {
  if (self.numel() == 0) return;
  // Read self in the result's order (the meta function's offset and strides).
  const auto item = static_cast<I64>(itemsize(self.dtype()));
  const DimVector& strides = m.read_strides;
  const char* in = static_cast<const char*>(self.data_ptr()) + m.read_offset * item;
  auto* o = static_cast<char*>(out.data_ptr());
  walk_positions(self.sizes(), -1, strides, strides, [&](I64 k, I64 off, I64) {
    std::memcpy(o + k * item, in + off * item, static_cast<std::size_t>(item));
  });
}

namespace {

// Zeroes the entries above (kLower) or below the `diagonal`-th diagonal of each matrix of `out`, a copy of self.
template <bool kLower>
void triangle(const Tensor& out, const Tensor& self, I64 diagonal) {
  Tensor target = out;
  target.copy_(self);
  if (out.numel() == 0) return;
  const I64 rows = out.sizes()[wrap_dim(-2, out.dim())];
  const I64 cols = out.sizes()[out.dim() - 1];
  const auto item = itemsize(self.dtype());
  const I64 matrices = out.numel() / (rows * cols);
  // Any diagonal past the matrix acts as its edge; clamped, i + diagonal + 1
  // cannot overflow (the argument may be 2**63 - 1).
  diagonal = std::clamp<I64>(diagonal, -rows, cols);
  auto* p = static_cast<char*>(out.data_ptr());
  for (I64 mi = 0; mi < matrices; ++mi) {
    for (I64 i = 0; i < rows; ++i) {
      // Row i keeps columns j with j - i <= diagonal (lower) or >= diagonal (upper).
      const I64 from = kLower ? std::clamp<I64>(i + diagonal + 1, 0, cols) : 0;
      const I64 to = kLower ? cols : std::clamp<I64>(i + diagonal, 0, cols);
      if (to > from)
        std::memset(p + static_cast<std::size_t>((mi * rows + i) * cols + from) * item, 0,
                    static_cast<std::size_t>(to - from) * item);
    }
  }
}

}  // namespace

void tril(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, I64 diagonal) {
  triangle<true>(out, self, diagonal);
}
void triu(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, I64 diagonal) {
  triangle<false>(out, self, diagonal);
}

void scatter_into(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, const Tensor& index,
                  const Tensor& src, bool add) {
  add ? scatter_impl<true>(m, out, self, index, src) : scatter_impl<false>(m, out, self, index, src);
}

}  // namespace wick::cpu
