// backends/cuda/index_ops.cpp - cat, index_select, gather, scatter, scatter_add, masked_fill, flip, tril, triu on CUDA.
/// \file
/// The CPU backend's results (backends/cpu/index_ops.cpp); kernels in
/// index_kernels.cu. Each is the computation of an operator whose meta
/// function (dispatch/ops/meta_index.cpp) checked the arguments, for every
/// backend with the same messages, and gave the contiguous output the glue
/// allocated on the device and the wrapped `dim` (Note [Structured
/// kernels] in wick/structured.h). A 0-dim CPU tensor among the inputs (a
/// wrapped Python number) is moved to the device first.
///
/// Note [Index checks on the device]
/// The index values are the impl's to check (Note [Index values are the
/// impl's to check] in dispatch/ops/meta_index.cpp). The CPU checks every
/// one before writing anything, and so must
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

#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_index.h>
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

IndexWalk make_walk(const char* op, IntArrayRef sizes, IntArrayRef strides_a, IntArrayRef strides_b) {
  WICK_CHECK(sizes.size() <= static_cast<std::size_t>(kIndexMaxDims), RuntimeError, op,
             ": CUDA index kernels take at most ", kIndexMaxDims, " dimensions, got ", sizes.size());
  IndexWalk w;
  w.ndim = static_cast<int>(sizes.size());
  w.numel = checked_numel(sizes);
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    w.sizes[d] = sizes[d];
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

// The moving kernels copy elements of 1, 2, 4 or 8 bytes: every dtype but
// complex128 (16 bytes), which is refused naming `kernel` before any work.
void check_movable(ScalarType t, const char* kernel) {
  if (itemsize(t) > 8) throw_not_implemented_for(kernel, t);
}

int elem_size(ScalarType t) { return static_cast<int>(itemsize(t)); }

// --- cat ---------------------------------------------------------------------------------

}  // namespace

Tensor as_int64(const Tensor& t) {
  if (t.dtype() == ScalarType::kInt64) return contiguous_on(t);
  Tensor c = make_empty(t.sizes(), ScalarType::kInt64, t.device());
  if (c.numel() > 0) copy_within_device(c, t);
  return c;
}

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

// Tensors with no elements add nothing (as on the CPU: legacy empty 1-D
// tensors, and those empty along `dim`).
void cat(const DimMeta& m, const Tensor& out, const std::vector<Tensor>& tensors, I64 /*dim*/) {
  if (out.numel() == 0) return;
  const DeviceGuard guard(out.device());
  I64 offset = 0;
  for (const Tensor& t : tensors) {
    if (t.numel() == 0) continue;
    copy_within_device(out.narrow(m.dim, offset, t.sizes()[m.dim]), t);
    offset += t.sizes()[m.dim];
  }
}

namespace {

// --- index_select, gather, scatter ------------------------------------------------------------

// Every index in [0, size): gather and scatter do not wrap negative indices.
void check_bounds(const char* op, const Tensor& index, I64 size, I64 dim) {
  if (const auto bad = find_bad(op, index, 0, size))
    WICK_CHECK(false, RuntimeError, "index ", bad->second, " is out of bounds for dimension ", dim, " with size ",
               size);
}

Tensor at_least_1d(const Tensor& t) { return t.dim() == 0 ? t.reshape({1}) : t; }

}  // namespace

void index_select(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, const Tensor& index) {
  const char* op = "index_select";
  check_movable(self.dtype(), "index_select_out_cuda_impl");
  const I64 d = m.dim;
  const Device device = out.device();
  const DeviceGuard guard(device);
  const Tensor idx = as_int64(on_device(index, device));
  const Tensor src = contiguous_on(at_least_1d(on_device(self, device)));
  const I64 size = src.sizes()[d];
  WICK_CHECK(!find_bad(op, idx, 0, size), IndexError, "index out of range in self");
  if (self.dim() == 0) {  // PyTorch keeps a 0-dim self 0-dim
    copy_within_device(out, on_device(self, device));
    return;
  }
  if (out.numel() == 0) return;
  IndexSelectArgs a;
  a.src = src.data_ptr();
  a.out = out.data_ptr();
  a.idx = static_cast<const I64*>(idx.data_ptr());
  a.elem_size = elem_size(self.dtype());
  a.outer = 1;
  for (I64 k = 0; k < d; ++k) a.outer *= out.sizes()[k];
  a.inner = 1;
  for (I64 k = d + 1; k < src.dim(); ++k) a.inner *= out.sizes()[k];
  a.count = idx.numel();
  a.size = size;
  launch_index_select(a, current_stream());
  check_launch(op);
}

namespace {

// `strides` with dimension d's stride zeroed (the index supplies that coordinate).
DimVector without_dim(IntArrayRef strides, I64 d) {
  DimVector s(strides);
  s[d] = 0;
  return s;
}

}  // namespace

void gather(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, const Tensor& index,
            bool /*sparse_grad*/) {
  const char* op = "gather";
  check_movable(self.dtype(), "gather_out_cuda");
  const I64 d = m.dim;
  const Device device = out.device();
  const DeviceGuard guard(device);
  const Tensor src = at_least_1d(on_device(self, device));
  const Tensor ix = at_least_1d(as_int64(on_device(index, device)));
  check_bounds(op, ix, src.sizes()[d], d);
  const IndexWalk walk = make_walk(op, ix.sizes(), without_dim(src.strides(), d), {});
  launch_gather(walk, src.data_ptr(), out.data_ptr(), static_cast<const I64*>(ix.data_ptr()), src.strides()[d],
                elem_size(self.dtype()), current_stream());
  check_launch(op);
}

namespace {

// scatter_add's loops: bool, int32, int64, float32, float64, float16 and
// bfloat16 (the narrow integers: not yet, refused as PyTorch refuses a dtype).
IndexDtype index_dtype(ScalarType t) {
  switch (t) {
    case ScalarType::kBool:
      return IndexDtype::kBool;
    case ScalarType::kInt32:
      return IndexDtype::kInt32;
    case ScalarType::kInt64:
      return IndexDtype::kInt64;
    case ScalarType::kFloat32:
      return IndexDtype::kFloat32;
    case ScalarType::kFloat64:
      return IndexDtype::kFloat64;
    case ScalarType::kFloat16:
      return IndexDtype::kFloat16;
    case ScalarType::kBFloat16:
      return IndexDtype::kBFloat16;
    default:
      throw_not_implemented_for("scatter_add_cuda_", t);
  }
}

}  // namespace

// scatter (add false) and scatter_add (add true) into `out`, a copy of
// self; a wrapped-number src is scatter's value overload.
void scatter_into(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, const Tensor& index,
                  const Tensor& src, bool add) {
  const char* op = add ? "scatter_add" : "scatter";
  if (add) (void)index_dtype(self.dtype());  // refused before anything is written
  check_movable(self.dtype(), add ? "scatter_add_cuda_" : "scatter_cuda_");
  const I64 d = m.dim;
  const bool is_value = !add && src.impl()->is_wrapped_number();
  const Device device = out.device();
  const DeviceGuard guard(device);
  const Tensor ix = at_least_1d(as_int64(on_device(index, device)));
  const Tensor o = at_least_1d(out);      // a view of the contiguous `out`
  check_bounds(op, ix, o.sizes()[d], d);  // before anything is written
  copy_within_device(out, on_device(self, device));
  ScatterArgs a;
  a.dst = o.data_ptr();
  a.idx = static_cast<const I64*>(ix.data_ptr());
  a.step = o.strides()[d];
  a.dtype = add ? index_dtype(self.dtype()) : IndexDtype::kFloat32;  // only scatter_add computes
  a.elem_size = elem_size(self.dtype());
  Tensor s;
  if (is_value) {
    a.mode = ScatterMode::kValue;
    a.value_bits = value_bits(src.item(), self.dtype(), op);
    a.walk = make_walk(op, ix.sizes(), without_dim(o.strides(), d), {});
  } else {
    s = at_least_1d(on_device(src, device));
    a.mode = add ? ScatterMode::kAdd : ScatterMode::kWrite;
    a.src = s.data_ptr();
    a.walk = make_walk(op, ix.sizes(), without_dim(o.strides(), d), s.strides());
  }
  launch_scatter(a, current_stream());
  check_launch(op);
}

namespace {

// --- masked_fill ----------------------------------------------------------------------------------

}  // namespace

void masked_fill(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, const Tensor& mask,
                 const Tensor& value) {
  const char* op = "masked_fill";
  check_movable(self.dtype(), "masked_fill_");
  const Device device = out.device();
  const DeviceGuard guard(device);
  Tensor mk = on_device(mask, device);
  if (mk.dtype() != ScalarType::kBool) {  // PyTorch 1.13's deprecated integer masks: 0s and 1s only
    mk = as_int64(mk);
    WICK_CHECK(!find_bad(op, mk, 0, 2), RuntimeError, "Mask tensor can take 0 and 1 values only");
  }
  if (out.numel() == 0) return;
  copy_within_device(out, on_device(self, device));
  Tensor mb = make_empty(out.sizes(), ScalarType::kBool, device);
  copy_within_device(mb, mk);
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
}

namespace {

// --- flip, tril, triu ------------------------------------------------------------------------------

}  // namespace

void flip(const FlipMeta& m, const Tensor& out, const Tensor& self, IntArrayRef /*dims*/) {
  const char* op = "flip";
  check_movable(self.dtype(), "flip_cuda");
  if (self.numel() == 0) return;
  const DeviceGuard guard(out.device());
  // Read self in the result's order (the meta function's offset and strides).
  const auto item = static_cast<I64>(itemsize(self.dtype()));
  const char* in = static_cast<const char*>(self.data_ptr()) + m.read_offset * item;
  const DimVector& strides = m.read_strides;
  launch_strided_gather(make_walk(op, self.sizes(), strides, {}), in, out.data_ptr(), elem_size(self.dtype()),
                        current_stream());
  check_launch(op);
}

namespace {

template <bool kLower>
void triangle(const Tensor& out, const Tensor& self, I64 diagonal) {
  const char* op = kLower ? "tril" : "triu";
  check_movable(self.dtype(), kLower ? "tril_cuda" : "triu_cuda");
  if (out.numel() == 0) return;
  const DeviceGuard guard(out.device());
  copy_within_device(out, self);
  const I64 rows = out.sizes()[wrap_dim(-2, out.dim())];
  const I64 cols = out.sizes()[out.dim() - 1];
  launch_triangle(out.data_ptr(), out.numel() / (rows * cols), rows, cols, diagonal, kLower, elem_size(self.dtype()),
                  current_stream());
  check_launch(op);
}

}  // namespace

void tril(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, I64 diagonal) {
  triangle<true>(out, self, diagonal);
}
void triu(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, I64 diagonal) {
  triangle<false>(out, self, diagonal);
}

}  // namespace wick::cuda_backend
