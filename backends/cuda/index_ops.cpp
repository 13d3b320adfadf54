// backends/cuda/index_ops.cpp - cat, index_select, gather, scatter, scatter_add, masked_fill, flip, tril, triu on CUDA.
/// \file
/// The CPU backend's checks, messages and results (backends/cpu/index_ops.cpp);
/// kernels in index_kernels.cu.
///
/// Note [Index checks on the device]
/// The CPU checks every index value before writing anything, and so must
/// we: an out-of-range index is an IndexError or RuntimeError naming the
/// first bad value, never a fault or a half-written result. The index
/// tensor is scanned on the device for the first position outside the
/// range (atomicMin over positions); two int64s (position, value) come back
/// to the host, which costs one synchronisation per checked call. Only then
/// is the result written.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <utility>
#include <vector>

#include <wick/tensor_util.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "index_kernels.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;

Tensor contiguous_on(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device());
  if (c.numel() > 0) copy_within_device(c, t);
  return c;
}

// A contiguous copy (what clone() gives on the CPU).
Tensor fresh_copy(const Tensor& t) {
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device());
  if (c.numel() > 0) copy_within_device(c, t);
  return c;
}

Tensor as_int64(const Tensor& t) {
  if (t.dtype() == ScalarType::kInt64) return contiguous_on(t);
  Tensor c = make_empty(t.sizes(), ScalarType::kInt64, t.device());
  if (c.numel() > 0) copy_within_device(c, t);
  return c;
}

// The first value of contiguous int64 `idx` outside [low, high), as (position, value).
std::optional<std::pair<I64, I64>> find_bad(const char* op, const Tensor& idx, I64 low, I64 high) {
  if (idx.numel() == 0) return std::nullopt;
  Tensor result = make_empty({2}, ScalarType::kInt64, idx.device());
  launch_find_bad_index(static_cast<const I64*>(idx.data_ptr()), idx.numel(), low, high, false, 0,
                        static_cast<I64*>(result.data_ptr()), current_stream());
  check_launch(op);
  Tensor host = make_empty({2}, ScalarType::kInt64, Device());
  host.copy_(result);
  const I64* r = static_cast<const I64*>(host.data_ptr());
  if (r[0] == INT64_MAX) return std::nullopt;
  return std::pair(r[0], r[1]);
}

IndexWalk make_walk(const char* op, IntArrayRef sizes, IntArrayRef strides_a, IntArrayRef strides_b) {
  WICK_CHECK(sizes.size() <= static_cast<std::size_t>(kIndexMaxDims), RuntimeError, op,
             ": CUDA index kernels take at most ", kIndexMaxDims, " dimensions, got ", sizes.size());
  IndexWalk w;
  w.ndim = static_cast<int>(sizes.size());
  w.numel = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    w.sizes[d] = sizes[d];
    w.numel *= sizes[d];
    w.strides_a[d] = d < strides_a.size() ? strides_a[d] : 0;
    w.strides_b[d] = d < strides_b.size() ? strides_b[d] : 0;
  }
  return w;
}

// The raw bits of `s` converted to `t` (low bytes first).
std::uint64_t value_bits(const Scalar& s, ScalarType t, const char* op) {
  std::uint64_t bits = 0;
  visit_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    const T v = s.to<T>();
    std::memcpy(&bits, &v, sizeof(T));
  });
  return bits;
}

int elem_size(ScalarType t) { return static_cast<int>(itemsize(t)); }

// --- cat ---------------------------------------------------------------------------------

bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

Tensor cat(const std::vector<Tensor>& tensors, I64 dim) {
  const char* op = "torch.cat";
  WICK_CHECK(!tensors.empty(), RuntimeError, "torch.cat(): expected a non-empty list of Tensors");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    WICK_CHECK(tensors[i].dim() > 0, RuntimeError, "zero-dimensional tensor (at position ", i,
               ") cannot be concatenated");
  const ScalarType dtype = result_type(tensors);
  Device device = cuda_device_of(op, {&tensors.front()});
  for (const Tensor& t : tensors) device = cuda_device_of(op, {&tensors.front(), &t});
  const Tensor* first = nullptr;
  for (const Tensor& t : tensors)
    if (!legacy_empty(t)) {
      first = &t;
      break;
    }
  if (first == nullptr) return make_empty({0}, dtype, device);
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
  const DeviceGuard guard(device);
  Tensor out = make_empty(shape, dtype, device);
  I64 offset = 0;
  for (const Tensor& t : tensors) {
    if (legacy_empty(t)) continue;
    if (t.numel() > 0) copy_within_device(out.narrow(d, offset, t.sizes()[d]), t);
    offset += t.sizes()[d];
  }
  return out;
}

// --- index_select, gather, scatter ------------------------------------------------------------

void check_index_dtype(const Tensor& index, const char* op, bool allow_int32) {
  const ScalarType t = index.dtype();
  WICK_CHECK(t == ScalarType::kInt64 || (allow_int32 && t == ScalarType::kInt32), RuntimeError, op,
             allow_int32 ? "(): Expected dtype int32 or int64 for index" : "(): Expected dtype int64 for index");
}

// Every index in [0, size): gather and scatter do not wrap negative indices.
void check_bounds(const char* op, const Tensor& index, I64 size, I64 dim) {
  if (const auto bad = find_bad(op, index, 0, size))
    WICK_CHECK(false, RuntimeError, "index ", bad->second, " is out of bounds for dimension ", dim, " with size ",
               size);
}

Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

Tensor index_select(const Tensor& self, I64 dim, const Tensor& index) {
  const char* op = "index_select";
  const I64 d = wrap_dim(dim, std::max<I64>(self.dim(), 1));
  WICK_CHECK(index.dim() <= 1, IndexError, "index_select(): Index is supposed to be a vector");
  check_index_dtype(index, op, true);
  const Device device = cuda_device_of(op, {&self, &index});
  const DeviceGuard guard(device);
  const Tensor idx = as_int64(on_device(index, device));
  const Tensor src = contiguous_on(at_least_1d(on_device(self, device)));
  const I64 size = src.sizes()[d];
  WICK_CHECK(!find_bad(op, idx, 0, size), IndexError, "index out of range in self");
  if (self.dim() == 0) return fresh_copy(on_device(self, device));  // PyTorch keeps a 0-dim self 0-dim
  DimVector shape(src.sizes());
  shape[d] = idx.numel();
  Tensor out = make_empty(shape, self.dtype(), device);
  if (out.numel() == 0) return out;
  IndexSelectArgs a;
  a.src = src.data_ptr();
  a.out = out.data_ptr();
  a.idx = static_cast<const I64*>(idx.data_ptr());
  a.elem_size = elem_size(self.dtype());
  a.outer = 1;
  for (I64 k = 0; k < d; ++k) a.outer *= shape[k];
  a.inner = 1;
  for (I64 k = d + 1; k < src.dim(); ++k) a.inner *= shape[k];
  a.count = idx.numel();
  a.size = size;
  launch_index_select(a, current_stream());
  check_launch(op);
  return out;
}

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

// `strides` with dimension d's stride zeroed (the index supplies that coordinate).
DimVector without_dim(IntArrayRef strides, I64 d) {
  DimVector s(strides);
  s[d] = 0;
  return s;
}

Tensor gather(const Tensor& self, I64 dim, const Tensor& index, bool /*sparse_grad*/) {
  const char* op = "gather";
  const I64 d = wrap_dim(dim, std::max<I64>(self.dim(), 1));
  check_index_dtype(index, op, false);
  check_gather_shapes(self, d, index, nullptr);
  const Device device = cuda_device_of(op, {&self, &index});
  const DeviceGuard guard(device);
  const Tensor src = at_least_1d(on_device(self, device));
  const Tensor ix = at_least_1d(as_int64(on_device(index, device)));
  check_bounds(op, ix, src.sizes()[d], d);
  Tensor out = make_empty(ix.sizes(), self.dtype(), device);
  const IndexWalk walk = make_walk(op, ix.sizes(), without_dim(src.strides(), d), {});
  launch_gather(walk, src.data_ptr(), out.data_ptr(), static_cast<const I64*>(ix.data_ptr()), src.strides()[d],
                elem_size(self.dtype()), current_stream());
  check_launch(op);
  return self.dim() == 0 ? out.reshape(index.sizes()) : out;
}

IndexDtype index_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::kBool: return IndexDtype::kBool;
    case ScalarType::kInt32: return IndexDtype::kInt32;
    case ScalarType::kInt64: return IndexDtype::kInt64;
    case ScalarType::kFloat32: return IndexDtype::kFloat32;
    default: return IndexDtype::kFloat64;
  }
}

// scatter (kAdd false) and scatter_add (kAdd true); a wrapped-number src is scatter's value overload.
template <bool kAdd>
Tensor scatter_impl(const Tensor& self, I64 dim, const Tensor& index, const Tensor& src) {
  const char* op = kAdd ? "scatter_add" : "scatter";
  const I64 d = wrap_dim(dim, std::max<I64>(self.dim(), 1));
  check_index_dtype(index, op, false);
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
  const Device device = cuda_device_of(op, {&self, &index, &src});
  const DeviceGuard guard(device);
  const Tensor ix = at_least_1d(as_int64(on_device(index, device)));
  const Tensor base = at_least_1d(on_device(self, device));
  check_bounds(op, ix, base.sizes()[d], d);  // before anything is written
  Tensor out = fresh_copy(base);
  ScatterArgs a;
  a.dst = out.data_ptr();
  a.idx = static_cast<const I64*>(ix.data_ptr());
  a.step = out.strides()[d];
  a.dtype = index_dtype(self.dtype());
  a.elem_size = elem_size(self.dtype());
  Tensor s;
  if (is_value) {
    a.mode = ScatterMode::kValue;
    a.value_bits = value_bits(src.item(), self.dtype(), op);
    a.walk = make_walk(op, ix.sizes(), without_dim(out.strides(), d), {});
  } else {
    s = at_least_1d(on_device(src, device));
    a.mode = kAdd ? ScatterMode::kAdd : ScatterMode::kWrite;
    a.src = s.data_ptr();
    a.walk = make_walk(op, ix.sizes(), without_dim(out.strides(), d), s.strides());
  }
  launch_scatter(a, current_stream());
  check_launch(op);
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
  const char* op = "masked_fill";
  WICK_CHECK(value.dim() == 0, RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got ",
             "tensor with ", value.dim(), " dimension(s).");
  // PyTorch 1.13 still takes integer masks of 0s and 1s (deprecated); floating masks are refused.
  WICK_CHECK(!is_floating(mask.dtype()), RuntimeError, "masked_fill_ only supports boolean masks, but got mask with ",
             "dtype ", dtype_name(mask.dtype()));
  const Device device = cuda_device_of(op, {&self, &mask, &value});
  const DeviceGuard guard(device);
  Tensor m = on_device(mask, device);
  if (m.dtype() != ScalarType::kBool) {
    m = as_int64(m);
    WICK_CHECK(!find_bad(op, m, 0, 2), RuntimeError, "Mask tensor can take 0 and 1 values only");
  }
  const DimVector shape = broadcast_shapes(self.sizes(), m.sizes(), "masked_fill");
  Tensor out = make_empty(shape, self.dtype(), device);
  if (out.numel() == 0) return out;
  copy_within_device(out, on_device(self, device));
  Tensor mb = make_empty(shape, ScalarType::kBool, device);
  copy_within_device(mb, m);
  Scalar v;
  if (value.device().is_cpu()) {
    v = value.item();
  } else {  // one element back to the host
    Tensor host = make_empty({}, value.dtype(), Device());
    host.copy_(value);
    v = host.item();
  }
  launch_masked_fill(out.data_ptr(), static_cast<const bool*>(mb.data_ptr()), out.numel(), elem_size(self.dtype()),
                     value_bits(v, self.dtype(), op), current_stream());
  check_launch(op);
  return out;
}

// --- flip, tril, triu ------------------------------------------------------------------------------

Tensor flip(const Tensor& self, IntArrayRef dims) {
  const char* op = "flip";
  // A 0-dim tensor takes dims 0 and -1 (wrap_dim), so one slot at least.
  std::vector<bool> flipped(static_cast<std::size_t>(std::max<I64>(self.dim(), 1)), false);
  for (I64 dim : dims) {
    const I64 d = wrap_dim(dim, self.dim());
    WICK_CHECK(!flipped[d], RuntimeError, "dim ", d, " appears multiple times in the list of dims");
    flipped[d] = true;
  }
  const Device device = cuda_device_of(op, {&self});
  const DeviceGuard guard(device);
  Tensor out = make_empty(self.sizes(), self.dtype(), device);
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
  launch_strided_gather(make_walk(op, self.sizes(), strides, {}), in, out.data_ptr(), elem_size(self.dtype()),
                        current_stream());
  check_launch(op);
  return out;
}

template <bool kLower>
Tensor triangle(const Tensor& self, I64 diagonal) {
  const char* op = kLower ? "tril" : "triu";
  WICK_CHECK(self.dim() != 0, IndexError, "Dimension specified as -2 but tensor has no dimensions");
  const I64 rows = self.sizes()[wrap_dim(-2, self.dim())];
  const I64 cols = self.sizes()[self.dim() - 1];
  const Device device = cuda_device_of(op, {&self});
  const DeviceGuard guard(device);
  Tensor out = fresh_copy(self);
  if (out.numel() == 0) return out;
  launch_triangle(out.data_ptr(), out.numel() / (rows * cols), rows, cols, diagonal, kLower, elem_size(self.dtype()),
                  current_stream());
  check_launch(op);
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

}  // namespace wick::cuda_backend
