// dispatch/composite_ops.cpp - CompositeImplicit kernels: views and operators
// written in terms of other operators, shared by every backend.
/// \file
/// View kernels only compute sizes, strides and offsets (no data is touched),
/// so they serve any device. Decompositions (matmul, clone, to, zeros, the
/// in-place methods) call other operators through the dispatcher, so each
/// backend only implements the primitives.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <string_view>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/device_runtime.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

// Resolves one -1 in `shape` against `numel`.
DimVector infer_size(IntArrayRef shape, std::int64_t numel, const char* op) {
  DimVector out(shape);
  int infer = -1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      WICK_CHECK(infer < 0, RuntimeError, op, ": only one dimension can be inferred");
      infer = static_cast<int>(i);
    } else {
      WICK_CHECK(shape[i] >= 0, RuntimeError, op, ": invalid shape dimension ", shape[i]);
    }
  }
  // A product past int64 cannot match the input's size (and [2**63-1,
  // 2**63-1, 0] has 0 elements).
  DimVector given(shape);
  if (infer >= 0) given[infer] = 1;
  const std::optional<std::int64_t> product = try_numel(given);
  WICK_CHECK(product, RuntimeError, op, ": shape '", format_shape(shape), "' is invalid for input of size ", numel);
  const std::int64_t known = *product;
  if (infer >= 0) {
    WICK_CHECK(known != 0 && numel % known == 0, RuntimeError, op, ": shape '", format_shape(shape),
               "' is invalid for input of size ", numel);
    out[infer] = numel / known;
  } else {
    WICK_CHECK(known == numel, RuntimeError, op, ": shape '", format_shape(shape), "' is invalid for input of size ",
               numel);
  }
  return out;
}

// Strides for viewing `t` as `shape` without copying, if possible: each run of
// old dims that is contiguous in memory may be split or merged freely.
std::optional<DimVector> view_strides(const Tensor& t, IntArrayRef shape) {
  IntArrayRef old_sizes = t.sizes();
  IntArrayRef old_strides = t.strides();
  DimVector strides(shape.size());
  if (t.numel() == 0) return contiguous_strides(shape);
  if (old_sizes.empty()) return DimVector(shape.size(), 1);  // a 0-dim tensor: any all-ones shape
  std::int64_t view_d = static_cast<std::int64_t>(shape.size()) - 1;
  std::int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
  std::int64_t tensor_numel = 1;
  std::int64_t view_numel = 1;
  for (std::int64_t d = static_cast<std::int64_t>(old_sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= old_sizes[d];
    // At a chunk boundary (or the first dim), fill in the view dims of this chunk.
    if (d == 0 || (old_sizes[d - 1] != 1 && old_strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || shape[view_d] == 1)) {
        strides[view_d] = view_numel * chunk_base_stride;
        view_numel *= shape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = old_strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return strides;
}

Tensor view_kernel(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel(), "view");
  auto strides = view_strides(self, shape);
  WICK_CHECK(strides.has_value(), RuntimeError,
             "view size is not compatible with input tensor's size and stride (at least one dimension spans "
             "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(self, shape, *strides, self.storage_offset());
}

Tensor reshape_kernel(const Tensor& self, IntArrayRef size) {
  DimVector shape = infer_size(size, self.numel(), "reshape");
  if (auto strides = view_strides(self, shape)) return make_view(self, shape, *strides, self.storage_offset());
  Tensor c = clone(self);
  return make_view(c, shape, contiguous_strides(shape), 0);
}

Tensor transpose_kernel(const Tensor& self, std::int64_t dim0, std::int64_t dim1) {
  const std::int64_t d0 = wrap_dim(dim0, self.dim());
  const std::int64_t d1 = wrap_dim(dim1, self.dim());
  if (self.dim() == 0) return make_view(self, {}, {}, self.storage_offset());
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor swapaxes_kernel(const Tensor& self, std::int64_t axis0, std::int64_t axis1) {
  return transpose(self, axis0, axis1);
}

Tensor t_kernel(const Tensor& self) {
  WICK_CHECK(self.dim() <= 2, RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is ", self.dim(), "D");
  if (self.dim() < 2) return make_view(self, self.sizes(), self.strides(), self.storage_offset());
  return transpose_kernel(self, 0, 1);
}

Tensor permute_kernel(const Tensor& self, IntArrayRef dims) {
  const std::int64_t n = self.dim();
  // PyTorch 1.13's texts, its "sparse_coo" included.
  WICK_CHECK(static_cast<std::int64_t>(dims.size()) == n, RuntimeError,
             "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the "
             "desired ordering of dimensions i.e. input.dim() = ",
             n, " is not equal to len(dims) = ", dims.size());
  DimVector sizes(dims.size());
  DimVector strides(dims.size());
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::int64_t d = wrap_dim(dims[i], n);
    WICK_CHECK(!seen[d], RuntimeError, "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = self.sizes()[d];
    strides[i] = self.strides()[d];
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor unsqueeze_kernel(const Tensor& self, std::int64_t dim) {
  const std::int64_t d = wrap_dim(dim, self.dim() + 1);
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  // Past int64 only for an empty tensor, whose strides address nothing.
  const std::int64_t stride =
      d >= self.dim() ? 1 : try_mul(sizes[d], strides[d]).value_or(std::numeric_limits<std::int64_t>::max());
  sizes.insert(static_cast<std::size_t>(d), 1);
  strides.insert(static_cast<std::size_t>(d), stride);
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor squeeze_kernel(const Tensor& self, std::optional<std::int64_t> dim) {
  DimVector sizes;
  DimVector strides;
  const std::int64_t only = dim ? wrap_dim(*dim, self.dim()) : -1;
  for (std::int64_t i = 0; i < self.dim(); ++i) {
    const bool drop = self.sizes()[i] == 1 && (only < 0 || i == only);
    if (drop) continue;
    sizes.push_back(self.sizes()[i]);
    strides.push_back(self.strides()[i]);
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor expand_kernel(const Tensor& self, IntArrayRef size) {
  const auto ndim = static_cast<std::int64_t>(size.size());
  WICK_CHECK(ndim >= self.dim(), RuntimeError, "expand(", legacy_type_name(self.dtype(), self.device()), "{",
             format_shape(self.sizes()), "}, size=", format_shape(size), "): the number of sizes provided (", ndim,
             ") must be greater or equal to the number of dimensions in the tensor (", self.dim(), ")");
  DimVector sizes(size.size());
  DimVector strides(size.size());
  for (std::int64_t i = ndim - 1; i >= 0; --i) {
    const std::int64_t offset = ndim - 1 - i;
    const std::int64_t d = self.dim() - 1 - offset;
    const std::int64_t cur = d >= 0 ? self.sizes()[d] : 1;
    const std::int64_t cur_stride = d >= 0 ? self.strides()[d] : 0;
    std::int64_t target = size[i];
    if (target == -1) {
      WICK_CHECK(d >= 0, RuntimeError, "expand: -1 is not allowed in a leading, non-existing dimension ", i);
      target = cur;
    }
    WICK_CHECK(target >= 0, RuntimeError, "expand: Trying to create tensor with negative dimension ", target, ": ",
               format_shape(size));
    WICK_CHECK(cur == target || cur == 1, RuntimeError, "The expanded size of the tensor (", target,
               ") must match the existing size (", cur, ") at non-singleton dimension ", i,
               ".  Target sizes: ", format_shape(size), ".  Tensor sizes: ", format_shape(self.sizes()));
    sizes[i] = target;
    strides[i] = (cur == target) ? cur_stride : 0;
  }
  return make_view(self, sizes, strides, self.storage_offset());
}

Tensor narrow_kernel(const Tensor& self, std::int64_t dim, std::int64_t start, std::int64_t length) {
  WICK_CHECK(self.dim() > 0, RuntimeError, "narrow() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = wrap_dim(dim, self.dim());
  const std::int64_t size = self.sizes()[d];
  WICK_CHECK(start >= -size && start <= size, IndexError, "start out of range (expected to be in range of [", -size,
             ", ", size, "], but got ", start, ")");
  if (start < 0) start += size;
  WICK_CHECK(length >= 0 && start <= size - length, RuntimeError, "start (", start, ") + length (", length,
             ") exceeds dimension size (", size, ").");
  DimVector sizes(self.sizes());
  sizes[d] = length;
  const std::int64_t offset =
      checked_add(self.storage_offset(), checked_mul(start, self.strides()[d], "torch.narrow"), "torch.narrow");
  return make_view(self, sizes, self.strides(), offset);
}

// aten.slice: Python's slice of one dim, start and end clamped into [0, size]
// (negative from the end), as a view whose stride is step times the dim's.
Tensor slice_kernel(const Tensor& self, std::int64_t dim, std::optional<std::int64_t> start,
                    std::optional<std::int64_t> end, std::int64_t step) {
  WICK_CHECK(self.dim() > 0, IndexError, "slice() cannot be applied to a 0-dim tensor.");
  WICK_CHECK(step > 0, ValueError, "step must be greater than zero");
  const std::int64_t d = wrap_dim(dim, self.dim());
  const std::int64_t size = self.sizes()[d];
  auto clamp = [size](std::optional<std::int64_t> v, std::int64_t absent) {
    if (!v) return absent;
    // -size <= *v < 0 here: the sum cannot overflow.
    const std::int64_t x = *v < 0 ? (*v < -size ? 0 : checked_add(*v, size, "aten.slice")) : *v;
    return std::min(x, size);
  };
  const std::int64_t from = clamp(start, 0);
  const std::int64_t to = std::max(clamp(end, size), from);
  const std::int64_t count = to == from ? 0 : (to - from - 1) / step + 1;  // no overflow: 0 <= to - from <= size
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  sizes[d] = count;
  strides[d] = checked_mul(strides[d], step, "aten.slice");
  const std::int64_t offset =
      checked_add(self.storage_offset(), checked_mul(from, self.strides()[d], "aten.slice"), "aten.slice");
  return make_view(self, sizes, strides, offset);
}

Tensor select_kernel(const Tensor& self, std::int64_t dim, std::int64_t index) {
  WICK_CHECK(self.dim() > 0, IndexError, "select() cannot be applied to a 0-dim tensor.");
  const std::int64_t d = wrap_dim(dim, self.dim());
  const std::int64_t size = self.sizes()[d];
  WICK_CHECK(index >= -size && index < size, IndexError, "select(): index ", index, " out of range for tensor of size ",
             format_shape(self.sizes()), " at dimension ", d);
  if (index < 0) index += size;
  DimVector sizes(self.sizes());
  DimVector strides(self.strides());
  const std::int64_t offset =
      checked_add(self.storage_offset(), checked_mul(index, strides[d], "torch.select"), "torch.select");
  sizes.erase(static_cast<std::size_t>(d));
  strides.erase(static_cast<std::size_t>(d));
  return make_view(self, sizes, strides, offset);
}

Tensor clone_kernel(const Tensor& self) {
  Tensor out = make_empty(self.sizes(), self.dtype(), self.device());
  out.copy_(self);
  return out;
}

Tensor contiguous_kernel(const Tensor& self) { return self.is_contiguous() ? self : clone(self); }

Tensor to_kernel(const Tensor& self, ScalarType dtype) {
  if (self.dtype() == dtype) return self;
  Tensor out = make_empty(self.sizes(), dtype, self.device());
  out.copy_(self);
  return out;
}

// Note [Copies between devices]
// to(device) allocates the result on the target device and copies into it;
// the copy_ kernel of the higher-priority backend of the two (CUDA over CPU)
// moves the bytes, so a backend that adds a device brings its own transfers.
Tensor to_device_kernel(const Tensor& self, Device device, std::optional<ScalarType> dtype, bool non_blocking,
                        bool copy) {
  const Device target = resolve_device(device);
  const ScalarType type = dtype.value_or(self.dtype());
  if (!copy && self.device() == target && self.dtype() == type) return self;
  Tensor out = make_empty(self.sizes(), type, target);
  out.copy_(self, non_blocking);
  return out;
}

Tensor cuda_kernel(const Tensor& self, std::optional<Device> device, bool non_blocking) {
  const Device target = device.value_or(Device(DeviceType::kCUDA));
  WICK_CHECK(target.type() == DeviceType::kCUDA, RuntimeError,
             "torch.Tensor.cuda: Invalid device, must be cuda device");
  return self.to(target, std::nullopt, non_blocking);
}

Tensor cpu_kernel(const Tensor& self) { return self.to(Device()); }

// Tensor.float(), .double(), ...: self.to(dtype), self when it has it already.
template <ScalarType kDtype>
Tensor to_dtype_kernel(const Tensor& self) {
  return self.to(kDtype);
}

// self converted to other's dtype and device (PyTorch's type_as goes
// through the tensor type, "torch.cuda.FloatTensor", which names both).
Tensor type_as_kernel(const Tensor& self, const Tensor& other) { return self.to(other.device(), other.dtype()); }

Tensor reshape_as_kernel(const Tensor& self, const Tensor& other) { return self.reshape(other.sizes()); }

ScalarType default_dtype(std::optional<ScalarType> dtype) { return dtype.value_or(kDefaultFloat); }
Device default_device(std::optional<Device> device) { return device.value_or(Device()); }

Tensor empty_kernel(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return make_empty(size, default_dtype(dtype), default_device(device));
}
Tensor full_kernel(IntArrayRef size, const Scalar& value, std::optional<ScalarType> dtype,
                   std::optional<Device> device) {
  // PyTorch infers the dtype from the fill value: bool, int64, the default
  // float or the default complex dtype.
  ScalarType t = dtype                 ? *dtype
                 : value.is_bool()     ? ScalarType::kBool
                 : value.is_integral() ? ScalarType::kInt64
                 : value.is_complex()  ? kDefaultComplex
                                       : kDefaultFloat;
  Tensor out = make_empty(size, t, default_device(device));
  out.fill_(value);
  return out;
}
Tensor zeros_kernel(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return full_kernel(size, 0, default_dtype(dtype), device);
}
Tensor ones_kernel(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return full_kernel(size, 1, default_dtype(dtype), device);
}

Tensor matmul_kernel(const Tensor& a, const Tensor& b) {
  const std::int64_t da = a.dim();
  const std::int64_t db = b.dim();
  WICK_CHECK(da > 0 && db > 0, RuntimeError, "both arguments to matmul need to be at least 1D, but they are ", da,
             "D and ", db, "D");
  if (da == 1 && db == 1) {
    WICK_CHECK(a.numel() == b.numel(), RuntimeError, "inconsistent tensor size, expected tensor [", a.numel(),
               "] and src [", b.numel(), "] to have the same number of elements, but got ", a.numel(), " and ",
               b.numel(), " elements respectively");
    return dot(a, b);
  }
  if (da == 2 && db == 2) return mm(a, b);
  if (da == 1 && db == 2) return squeeze(mm(unsqueeze(a, 0), b), 0);
  if (da == 2 && db == 1) return squeeze(mm(a, unsqueeze(b, 1)), 1);
  // A batch of matrices times one matrix (or vector): the batch dims fold
  // into the rows of one mm, as PyTorch does, instead of a bmm with the
  // matrix copied once per batch entry (and those copies summed again in
  // backward). What linear does on 3-D inputs.
  if (da >= 3 && db <= 2 && a.size(-1) > 0) {
    const Tensor b2 = db == 1 ? unsqueeze(b, 1) : b;
    DimVector out(IntArrayRef(a.sizes().data(), a.sizes().size() - 1));
    if (db == 2) out.push_back(b.size(1));
    return reshape(mm(reshape(a, {-1, a.size(-1)}), b2), out);
  }
  // Batched: broadcast the batch dims, fold them into one, and use bmm.
  Tensor a3 = da == 1 ? unsqueeze(a, 0) : a;
  Tensor b3 = db == 1 ? unsqueeze(b, 1) : b;
  const std::int64_t n = a3.size(-2);
  const std::int64_t k = a3.size(-1);
  const std::int64_t k2 = b3.size(-2);
  const std::int64_t p = b3.size(-1);
  WICK_CHECK(k == k2, RuntimeError, "mat1 and mat2 shapes cannot be multiplied (", n, "x", k, " and ", k2, "x", p, ")");
  IntArrayRef ba(a3.sizes().data(), a3.sizes().size() - 2);
  IntArrayRef bb(b3.sizes().data(), b3.sizes().size() - 2);
  DimVector batch = broadcast_shapes(ba, bb, "torch.matmul");
  const std::int64_t nb = checked_numel(batch);
  DimVector ea(batch);
  ea.push_back(n);
  ea.push_back(k);
  DimVector eb(batch);
  eb.push_back(k);
  eb.push_back(p);
  Tensor r = bmm(reshape(a3.expand(ea), {nb, n, k}), reshape(b3.expand(eb), {nb, k, p}));
  DimVector out(batch);
  if (da > 1) out.push_back(n);
  if (db > 1) out.push_back(p);
  return reshape(r, out);
}

Tensor outer_kernel(const Tensor& self, const Tensor& vec2) {
  WICK_CHECK(self.dim() == 1, RuntimeError, "torch.outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  WICK_CHECK(vec2.dim() == 1, RuntimeError, "torch.outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
  return mul(unsqueeze(self, 1), vec2);
}

Tensor rsub_kernel(const Tensor& self, const Tensor& other, const Scalar& alpha) { return sub(other, self, alpha); }
// other / self as PyTorch 1.13's Tensor.__rtruediv__ computes it: reciprocal(self) * other
// (2.5 / half(3.) is 0.8330, not the nearest half 0.8335).
Tensor rtruediv_kernel(const Tensor& self, const Tensor& other) { return mul(reciprocal(self), other); }
Tensor rpow_kernel(const Tensor& self, const Tensor& other) { return pow(other, self); }
Tensor rmod_kernel(const Tensor& self, const Tensor& other) { return remainder(other, self); }
Tensor rlshift_kernel(const Tensor& self, const Tensor& other) { return bitwise_left_shift(other, self); }
Tensor rrshift_kernel(const Tensor& self, const Tensor& other) { return bitwise_right_shift(other, self); }
Tensor invert_kernel(const Tensor& self) {
  WICK_CHECK(!is_floating(self.dtype()), TypeError,
             "~ (operator.invert) is only implemented on integer and Boolean-type tensors");
  return bitwise_not(self);
}
ScalarType result_type_kernel(const Tensor& tensor, const Tensor& other) { return result_type(tensor, other); }

// floor_divide is div(rounding_mode='floor') in PyTorch 1.13 (it truncated before).
// nonzero reads self on the host: the number of results is the data's. A
// device tensor is copied over (a synchronisation, as PyTorch's CUDA
// nonzero makes), and the indices go back to its device.
Tensor nonzero_kernel(const Tensor& self) {
  WICK_CHECK(!self.device().is_meta(), NotImplementedError,
             "torch.nonzero: the number of results depends on the data, which a meta tensor does not have");
  const Device cpu(DeviceType::kCPU);
  const Tensor host = ne(self.device().is_cpu() ? self : self.to(cpu), wrap_scalar(Scalar(0))).contiguous();
  const bool* flags = host.data_ptr<bool>();
  const std::int64_t n = host.numel();
  const std::int64_t k = host.dim();
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i) count += flags[i] ? 1 : 0;
  Tensor out = empty({count, k}, ScalarType::kInt64, cpu);
  std::int64_t* row = out.data_ptr<std::int64_t>();
  std::vector<std::int64_t> coords(static_cast<std::size_t>(k), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    if (flags[i]) {
      std::copy(coords.begin(), coords.end(), row);
      row += k;
    }
    for (std::int64_t d = k - 1; d >= 0; --d) {  // the next coordinates in row-major order
      auto& c = coords[static_cast<std::size_t>(d)];
      if (++c < host.size(d)) break;
      c = 0;
    }
  }
  return self.device().is_cpu() ? out : out.to(self.device());
}

// torch.where(condition): nonzero's columns, one tensor per dim.
std::vector<Tensor> where_cond_kernel(const Tensor& condition) {
  // A 0-dim condition counts as one element, as in PyTorch: (tensor([0]),) when true.
  const Tensor rows = nonzero(condition.dim() == 0 ? reshape(condition, {1}) : condition);
  std::vector<Tensor> out;
  for (std::int64_t d = 0; d < rows.size(1); ++d) out.push_back(select(rows, 1, d).contiguous());
  return out;
}

// Note [Scatter reductions on the host]
// scatter's multiply and scatter_reduce's prod, amax and amin combine each
// entry of src (or one number) into its target in index order, as PyTorch's
// CPU loops: on host copies (a device tensor goes there and back), each
// element of `out` updated by `combine(old, entry)`.
template <std::uint32_t kSet, class Combine>
Tensor scatter_on_host(const Tensor& base, std::int64_t dim, const Tensor& index, const Tensor& src, const char* kernel,
                       Combine combine) {
  const Device cpu(DeviceType::kCPU);
  const bool value = src.impl()->is_wrapped_number();
  // A 0-dim tensor is one element of a 1-D one here, as scatter treats it.
  const auto at_least_1d = [](const Tensor& t) { return t.dim() == 0 ? reshape(t, {1}) : t; };
  const Tensor result = base.to(cpu).contiguous().clone();
  const Tensor out = at_least_1d(result);
  const Tensor ix = at_least_1d(index.to(cpu).to(ScalarType::kInt64).contiguous());
  const Tensor s = value ? src : at_least_1d(src.to(cpu).to(base.dtype()));
  const std::int64_t d = wrap_dim(dim, out.dim());
  visit_dtype<kSet>(base.dtype(), kernel, [&](auto tag) {
    using V = decltype(tag);
    V* o = out.data_ptr<V>();
    const std::int64_t* ip = ix.data_ptr<std::int64_t>();
    const V constant = value ? src.item().to<V>() : V{};
    const std::int64_t k = ix.dim();
    std::vector<std::int64_t> c(static_cast<std::size_t>(k), 0);  // coordinates in index
    for (std::int64_t e = 0; e < ix.numel(); ++e) {
      std::int64_t target = 0;
      std::int64_t from = 0;
      for (std::int64_t q = 0; q < k; ++q) {
        const std::int64_t at = c[static_cast<std::size_t>(q)];
        target += (q == d ? ip[e] + (ip[e] < 0 ? out.size(q) : 0) : at) * out.stride(q);
        if (!value) from += at * s.stride(q);
      }
      o[target] = combine(o[target], value ? constant : s.data_ptr<V>()[from]);
      for (std::int64_t q = k - 1; q >= 0; --q) {  // the next coordinates in row-major order
        auto& x = c[static_cast<std::size_t>(q)];
        if (++x < ix.size(q)) break;
        x = 0;
      }
    }
  });
  return base.device().is_cpu() ? result : result.to(base.device());
}

// scatter(..., reduce=): "add" is scatter_add (a number src, that value at
// every index); "multiply" multiplies in index order (Note [Scatter
// reductions on the host]). scatter itself checks the arguments first, with
// its messages.
Tensor scatter_reduce_kernel(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src,
                             std::string_view reduce) {
  const char* op = "torch.scatter";
  WICK_CHECK(reduce == "add" || reduce == "multiply", RuntimeError, op,
             ": reduce argument must be either add or multiply.");
  const Tensor checked = scatter(self, dim, index, src);
  const bool value = src.impl()->is_wrapped_number();
  if (reduce == "add") {
    return scatter_add(self, dim, index, value ? full(index.sizes(), src.item(), self.dtype(), self.device()) : src);
  }
  if (self.device().is_meta()) return checked;
  return scatter_on_host<dtypes::kAllAndComplex>(self, dim, index, src, "scatter_cpu",
                                                 [](auto a, auto b) { return static_cast<decltype(a)>(a * b); });
}

// scatter_reduce (PyTorch 1.13's scatter_reduce.two): sum and mean from
// scatter_add (mean divides by the count of entries, self counting one with
// include_self; integers floor), prod, amax and amin on the host (a NaN
// entry wins amax and amin, as in PyTorch). Without include_self the
// targets start from the reduction's identity. Its formula is in
// dispatch/autograd/index.cpp.
Tensor scatter_reduce_two_kernel(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src,
                                 std::string_view reduce, bool include_self) {
  WICK_CHECK(reduce == "sum" || reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin",
             RuntimeError, "torch.scatter_reduce: reduce argument must be either sum, prod, mean, amax or amin.");
  const Tensor checked = scatter(self, dim, index, src);
  if (self.device().is_meta()) return checked;
  const ScalarType t = self.dtype();
  const bool extreme = reduce == "amax" || reduce == "amin";
  WICK_CHECK(!(extreme && is_complex(t)), RuntimeError, "torch.scatter_reduce: \"scatter_gather_tensor_cpu_reduce_",
             reduce, "\" not implemented for '", type_title(t), "'");
  const double inf = std::numeric_limits<double>::infinity();
  const Scalar identity = reduce == "prod"   ? Scalar(1)
                          : reduce == "amax" ? (is_floating(t) ? Scalar(-inf) : Scalar(std::int64_t{0}))
                          : reduce == "amin" ? (is_floating(t) ? Scalar(inf) : Scalar(std::int64_t{0}))
                                             : Scalar(0);
  // The targets' starting value (a number: scatter's value overload).
  Tensor base = include_self ? self : scatter(self, dim, index, wrap_scalar(identity));
  if (extreme && !include_self && !is_floating(t)) {  // integers: the dtype's lowest or highest value
    visit_dtype<dtypes::kAll>(t, "scatter_reduce", [&](auto tag) {
      using V = decltype(tag);
      const V bound = reduce == "amax" ? std::numeric_limits<V>::lowest() : std::numeric_limits<V>::max();
      base = scatter(self, dim, index, wrap_scalar(Scalar(bound)));
    });
  }
  if (reduce == "sum" || reduce == "mean") {
    const Tensor total = scatter_add(base, dim, index, src);
    if (reduce == "sum") return total;
    WICK_CHECK(t != ScalarType::kBool, RuntimeError,
               "torch.scatter_reduce: \"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'");
    // Counted in the real dtype of a complex self.
    const ScalarType counting = is_complex(t) ? to_real_dtype(t) : t;
    const Tensor unit = ones(self.sizes(), counting, self.device());
    const Tensor start = include_self ? unit : scatter(unit, dim, index, wrap_scalar(Scalar(0)));
    const Tensor count = scatter_add(start, dim, index, ones(index.sizes(), counting, self.device())).clamp_min(1);
    return is_floating(t) || is_complex(t) ? total.div(count) : total.div(count, "floor");
  }
  if (reduce == "prod") {
    return scatter_on_host<dtypes::kAllAndComplex>(base, dim, index, src, "scatter_reduce",
                                                   [](auto a, auto b) { return static_cast<decltype(a)>(a * b); });
  }
  const bool largest = reduce == "amax";
  return scatter_on_host<dtypes::kAll>(base, dim, index, src, "scatter_reduce", [largest](auto a, auto b) {
    using V = decltype(a);
    const double x = static_cast<double>(a);
    const double y = static_cast<double>(b);
    if (std::isnan(y) || std::isnan(x)) return std::isnan(y) ? b : a;
    return static_cast<V>(largest ? (y > x ? b : a) : (y < x ? b : a));
  });
}

// index_reduce: scatter_reduce with the index laid along dim and expanded over
// source, after index_reduce's own checks (PyTorch's messages). Its gradient
// is scatter_reduce's, which is PyTorch's IndexReduceBackward.
Tensor index_reduce_kernel(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& source,
                           std::string_view reduce, bool include_self) {
  const char* op = "torch.index_reduce";
  WICK_CHECK(reduce == "prod" || reduce == "mean" || reduce == "amax" || reduce == "amin", RuntimeError, op,
             ": index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got ", reduce, ".");
  const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(self.dim(), 1));
  WICK_CHECK(index.dim() <= 1, IndexError, op,
             ": index_reduce_(): Index is supposed to be a vector, but got dim: ", index.dim(),
             " with type: ", type_title(index.dtype()), " and size: ", format_shape(index.sizes()));
  WICK_CHECK(index.dtype() == ScalarType::kInt64 || index.dtype() == ScalarType::kInt32, RuntimeError, op,
             ": index_reduce_(): Expected dtype int32/int64 for index but got: ", type_title(index.dtype()));
  WICK_CHECK(self.dtype() == source.dtype(), RuntimeError, op, ": index_reduce_(): self (", type_title(self.dtype()),
             ") and source (", type_title(source.dtype()), ") must have the same scalar type");
  WICK_CHECK(self.dim() == source.dim() || (self.dim() <= 1 && source.dim() <= 1), RuntimeError, op,
             ": index_reduce_(): source (", format_shape(source.sizes()), ") and self (", format_shape(self.sizes()),
             ") must have the same number of dimensions");
  const std::int64_t slices = source.dim() == 0 ? 1 : source.size(d);
  WICK_CHECK(index.numel() == slices, RuntimeError, op, ": index_reduce_(): Number of indices (", index.numel(),
             ") should be equal to source.size(dim): (", slices, "), for dim: ", dim);
  for (std::int64_t k = 0; k < self.dim(); ++k) {
    WICK_CHECK(k == d || self.size(k) == source.size(k), RuntimeError, op, ": index_reduce_(): source (",
               format_shape(source.sizes()), ") must have self's size (", format_shape(self.sizes()),
               ") in every dim but dim ", d);
  }
  // PyTorch 1.13's coverage of complex and bool selves, which depends on its
  // code path: none without include_self or for a 1-D self; otherwise no
  // complex amax/amin and no bool mean.
  const ScalarType t = self.dtype();
  if (is_complex(t) || t == ScalarType::kBool) {
    const char* kernel = !include_self                                ? "index_reduce_func_exclude_input_init"
                         : self.dim() <= 1                            ? "index_func_"
                         : is_complex(t) && reduce == "amax"          ? "maximum_cpu"
                         : is_complex(t) && reduce == "amin"          ? "minimum_cpu"
                         : t == ScalarType::kBool && reduce == "mean" ? "div_floor_cpu"
                                                                      : nullptr;
    WICK_CHECK(kernel == nullptr, RuntimeError, op, ": \"", kernel, "\" not implemented for '", type_title(t), "'");
  }
  const std::int64_t limit = self.dim() == 0 ? 1 : self.size(d);
  if (index.numel() > 0 && !index.device().is_meta()) {
    // Negative indices are out of range here (unlike scatter's).
    const bool in_range = index.ge(0).logical_and(index.lt(limit)).all().item<bool>();
    WICK_CHECK(in_range, IndexError, op, ": index out of range in self");
  }
  if (self.dim() == 0)
    return scatter_reduce(self, 0, index.reshape({}).to(ScalarType::kInt64), source.reshape({}), reduce, include_self);
  DimVector shape(self.dim(), 1);
  shape[static_cast<std::size_t>(d)] = slices;
  const Tensor spread = index.to(ScalarType::kInt64).reshape(shape).expand(source.sizes());
  return scatter_reduce(self, d, spread, source, reduce, include_self);
}

// clamp with tensor bounds is minimum(maximum(self, min), max): the bounds
// broadcast, the dtypes promote, and a NaN in any operand gives NaN, as in
// PyTorch's clamp.Tensor (a bound above the other clamps to the upper one).
Tensor clamp_tensor_kernel(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "torch.clamp: clamp is not supported for complex types");
  // Both bounds: PyTorch's clamp kernel, which has no bool loop (one bound is maximum or minimum, which do).
  WICK_CHECK(!(min && max && self.dtype() == ScalarType::kBool), RuntimeError,
             "torch.clamp: \"clamp_cpu\" not implemented for 'Bool'");
  WICK_CHECK(min.has_value() || max.has_value(), RuntimeError,
             "torch.clamp: At least one of 'min' or 'max' must not be None");
  const Tensor low = min ? maximum(self, *min) : self;
  return max ? minimum(low, *max) : low;
}

Tensor floor_divide_kernel(const Tensor& self, const Tensor& other) { return div(self, other, "floor"); }
Tensor floor_divide__kernel(const Tensor& self, const Tensor& other) {
  Tensor s = self;
  return s.div_(other, "floor");
}
Tensor rfloordiv_kernel(const Tensor& self, const Tensor& other) { return div(other, self, "floor"); }
Tensor tensor_where_kernel(const Tensor& self, const Tensor& condition, const Tensor& other) {
  return where(condition, self, other);
}

Tensor add_inplace(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out = self;
  return add_out(out, self, other, alpha);
}
Tensor sub_inplace(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  Tensor out = self;
  return sub_out(out, self, other, alpha);
}
Tensor mul_inplace(const Tensor& self, const Tensor& other) {
  Tensor out = self;
  return mul_out(out, self, other);
}
Tensor div_inplace(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  Tensor out = self;
  return div_out(out, self, other, rounding_mode);
}

Tensor functional_relu(const Tensor& input, bool inplace) {
  Tensor r = relu(input);
  if (!inplace) return r;
  Tensor self = input;
  self.copy_(r);
  return self;
}

}  // namespace

void register_composite_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("reshape", &reshape_kernel)
      .impl("floor_divide", &floor_divide_kernel)
      .impl("clamp.Tensor", &clamp_tensor_kernel)
      .impl("nonzero", &nonzero_kernel)
      .impl("scatter.reduce", &scatter_reduce_kernel)
      .impl("scatter_reduce", &scatter_reduce_two_kernel)
      .impl("index_reduce", &index_reduce_kernel)
      .impl("where.cond", &where_cond_kernel)
      .impl("result_type", &result_type_kernel)
      .impl("transpose", &transpose_kernel)
      .impl("swapaxes", &swapaxes_kernel)
      .impl("t", &t_kernel)
      .impl("permute", &permute_kernel)
      .impl("unsqueeze", &unsqueeze_kernel)
      .impl("squeeze", &squeeze_kernel)
      .impl("narrow", &narrow_kernel)
      .impl("select", &select_kernel)
      .impl("clone", &clone_kernel)
      .impl("matmul", &matmul_kernel)
      .impl("outer", &outer_kernel)
      .impl("rsub", &rsub_kernel)
      .impl("empty", &empty_kernel)
      .impl("zeros", &zeros_kernel)
      .impl("ones", &ones_kernel)
      .impl("full", &full_kernel);

  auto aten = std::make_unique<Library>("aten", kComposite);
  aten->impl("slice", &slice_kernel);
  out.push_back(std::move(aten));

  auto tensor = std::make_unique<Library>("torch.Tensor", kComposite);
  tensor->impl("view", &view_kernel)
      .impl("expand", &expand_kernel)
      .impl("contiguous", &contiguous_kernel)
      .impl("to", &to_kernel)
      .impl("to.device", &to_device_kernel)
      .impl("cuda", &cuda_kernel)
      .impl("cpu", &cpu_kernel)
      .impl("float", &to_dtype_kernel<ScalarType::kFloat32>)
      .impl("double", &to_dtype_kernel<ScalarType::kFloat64>)
      .impl("half", &to_dtype_kernel<ScalarType::kFloat16>)
      .impl("bfloat16", &to_dtype_kernel<ScalarType::kBFloat16>)
      .impl("cfloat", &to_dtype_kernel<ScalarType::kComplex64>)
      .impl("cdouble", &to_dtype_kernel<ScalarType::kComplex128>)
      .impl("bool", &to_dtype_kernel<ScalarType::kBool>)
      .impl("byte", &to_dtype_kernel<ScalarType::kUInt8>)
      .impl("char", &to_dtype_kernel<ScalarType::kInt8>)
      .impl("short", &to_dtype_kernel<ScalarType::kInt16>)
      .impl("int", &to_dtype_kernel<ScalarType::kInt32>)
      .impl("long", &to_dtype_kernel<ScalarType::kInt64>)
      .impl("type_as", &type_as_kernel)
      .impl("reshape_as", &reshape_as_kernel)
      .impl("add_", &add_inplace)
      .impl("sub_", &sub_inplace)
      .impl("mul_", &mul_inplace)
      .impl("div_", &div_inplace)
      .impl("__rtruediv__", &rtruediv_kernel)
      .impl("__rpow__", &rpow_kernel)
      .impl("__rmod__", &rmod_kernel)
      .impl("__rlshift__", &rlshift_kernel)
      .impl("__rrshift__", &rrshift_kernel)
      .impl("__invert__", &invert_kernel)
      .impl("floor_divide_", &floor_divide__kernel)
      .impl("__rfloordiv__", &rfloordiv_kernel)
      .impl("where", &tensor_where_kernel);

  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("relu", &functional_relu);

  out.push_back(std::move(torch));
  out.push_back(std::move(tensor));
  out.push_back(std::move(functional));
}

}  // namespace wick
