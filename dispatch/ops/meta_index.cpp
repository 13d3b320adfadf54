// dispatch/ops/meta_index.cpp - meta functions of the indexing and joining operators.
/// \file
/// Every result is contiguous, in self's dtype (cat's: the inputs' result
/// type), on the inputs' common device: cat joins along `dim`, skipping
/// PyTorch's legacy empty 1-D tensors; index_select takes index.numel()
/// entries along `dim` (a 0-dim self stays 0-dim); gather has the index's
/// shape; scatter and scatter_add, flip, tril and triu have self's;
/// masked_fill broadcasts self with the mask. The messages are PyTorch's
/// CPU messages, for every backend.
///
/// Note [Index values are the impl's to check]
/// An index tensor's dtype, rank and shape are checked here; its values
/// (in range along `dim`, an integer mask's 0s and 1s) are data, read only
/// by the impls, which check all of them before writing anything. On the
/// meta device there are no values, so an out-of-range index goes
/// unnoticed there, as in PyTorch.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/meta_index.h"
#include "wick/tensor_util.h"

namespace wick::meta {
namespace {

using I64 = std::int64_t;

// A 1-D tensor with no elements: PyTorch's legacy "empty" that cat skips.
bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.numel() == 0; }

// `dim` wrapped for an operator that takes a 0-dim tensor as 1-D.
I64 wrap_at_least_1d(I64 dim, const Tensor& self) { return wrap_dim(dim, std::max<I64>(self.dim(), 1)); }

void check_index_dtype(const Tensor& index, const char* op, bool allow_int32) {
  const ScalarType t = index.dtype();
  WICK_CHECK(t == ScalarType::kInt64 || (allow_int32 && t == ScalarType::kInt32), RuntimeError, op,
             allow_int32 ? "(): Expected dtype int32 or int64 for index" : "(): Expected dtype int64 for index");
}

// PyTorch's shape rule: index no larger than self outside `dim` (and than src everywhere).
void check_gather_shapes(const Tensor& self, I64 d, const Tensor& index, const Tensor* src) {
  const char* what = src != nullptr ? "self" : "input";
  WICK_CHECK(index.dim() == self.dim(), RuntimeError, "Index tensor must have the same number of dimensions as ", what,
             " tensor");
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

// scatter (`add` false) and scatter_add; a wrapped-number src is scatter's value overload.
DimMeta scatter_meta(const char* op, bool add, const Tensor& self, I64 dim, const Tensor& index, const Tensor& src) {
  const I64 d = wrap_at_least_1d(dim, self);
  check_index_dtype(index, op, false);
  if (!add && src.impl()->is_wrapped_number()) {
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
  const Device device = common_device(op, self, index, src);
  return {TensorMeta::contiguous(self.sizes(), self.dtype(), device), d};
}

// tril and triu: the last two dims are the matrices.
OutputMeta triangle(const char* op, const Tensor& self) {
  WICK_CHECK(self.dim() != 0, IndexError, "Dimension specified as -2 but tensor has no dimensions");
  return {TensorMeta::contiguous(self.sizes(), self.dtype(), common_device(op, self))};
}

}  // namespace

DimMeta cat(const std::vector<Tensor>& tensors, I64 dim) {
  const char* op = "torch.cat";
  WICK_CHECK(!tensors.empty(), RuntimeError, "torch.cat(): expected a non-empty list of Tensors");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    WICK_CHECK(tensors[i].dim() > 0, RuntimeError, "zero-dimensional tensor (at position ", i,
               ") cannot be concatenated");
  const ScalarType dtype = result_type(tensors);
  // Every tensor has dims, so none joins another device as a 0-dim CPU tensor would.
  for (const Tensor& t : tensors) (void)common_device(op, tensors.front(), t);
  const Device device = tensors.front().device();
  const auto first = std::find_if(tensors.begin(), tensors.end(), [](const Tensor& t) { return !legacy_empty(t); });
  if (first == tensors.end()) return {TensorMeta::contiguous({0}, dtype, device), 0};
  const I64 d = wrap_dim(dim, first->dim());
  DimVector shape(first->sizes());
  shape[d] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_empty(t)) continue;
    WICK_CHECK(t.dim() == first->dim(), RuntimeError, "Tensors must have same number of dimensions: got ", first->dim(),
               " and ", t.dim());
    for (I64 k = 0; k < t.dim(); ++k)
      WICK_CHECK(k == d || t.sizes()[k] == first->sizes()[k], RuntimeError, "Sizes of tensors must match except in ",
                 "dimension ", d, ". Expected size ", first->sizes()[k], " but got size ", t.sizes()[k],
                 " for tensor number ", i, " in the list.");
    shape[d] = checked_add(shape[d], t.sizes()[d], op);  // empty tensors' sizes may be anything
  }
  return {TensorMeta::contiguous(shape, dtype, device), d};
}

// The index's values are checked by the impls (Note [Index values are the impl's to check]).
DimMeta index_select(const Tensor& self, I64 dim, const Tensor& index) {
  const char* op = "index_select";
  const I64 d = wrap_at_least_1d(dim, self);
  WICK_CHECK(index.dim() <= 1, IndexError, "index_select(): Index is supposed to be a vector");
  check_index_dtype(index, op, true);
  const Device device = common_device(op, self, index);
  if (self.dim() == 0) return {TensorMeta::contiguous({}, self.dtype(), device), d};  // PyTorch keeps it 0-dim
  DimVector shape(self.sizes());
  shape[d] = index.numel();
  return {TensorMeta::contiguous(shape, self.dtype(), device), d};
}

DimMeta gather(const Tensor& self, I64 dim, const Tensor& index, bool /*sparse_grad*/) {
  const char* op = "gather";
  const I64 d = wrap_at_least_1d(dim, self);
  check_index_dtype(index, op, false);
  check_gather_shapes(self, d, index, nullptr);
  const Device device = common_device(op, self, index);
  return {TensorMeta::contiguous(index.sizes(), self.dtype(), device), d};
}

DimMeta scatter(const Tensor& self, I64 dim, const Tensor& index, const Tensor& src) {
  return scatter_meta("scatter", false, self, dim, index, src);
}
DimMeta scatter_add(const Tensor& self, I64 dim, const Tensor& index, const Tensor& src) {
  return scatter_meta("scatter_add", true, self, dim, index, src);
}

// An integer mask's values (0 or 1) are the impl's to check.
OutputMeta masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  const char* op = "masked_fill";
  WICK_CHECK(value.dim() == 0, RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got ",
             "tensor with ", value.dim(), " dimension(s).");
  // PyTorch 1.13 still takes integer masks of 0s and 1s (deprecated); floating masks are refused.
  WICK_CHECK(!is_floating(mask.dtype()), RuntimeError, "masked_fill_ only supports boolean masks, but got mask with ",
             "dtype ", dtype_name(mask.dtype()));
  const Device device = common_device(op, self, mask, value);
  const DimVector shape = broadcast_shapes(self.sizes(), mask.sizes(), op);
  return {TensorMeta::contiguous(shape, self.dtype(), device)};
}

FlipMeta flip(const Tensor& self, IntArrayRef dims) {
  // A 0-dim tensor takes dims 0 and -1 (wrap_dim), so one slot at least.
  std::vector<bool> flipped(static_cast<std::size_t>(std::max<I64>(self.dim(), 1)), false);
  DimVector wrapped;
  for (I64 dim : dims) {
    const I64 d = wrap_dim(dim, self.dim());
    WICK_CHECK(!flipped[d], RuntimeError, "dim ", d, " appears multiple times in the list of dims");
    flipped[d] = true;
    wrapped.push_back(d);
  }
  FlipMeta m{TensorMeta::contiguous(self.sizes(), self.dtype(), common_device("flip", self)), wrapped, 0,
             DimVector(self.strides())};
  if (self.dim() > 0 && self.numel() > 0) {  // a 0-dim or empty tensor flips to itself
    for (I64 d : wrapped) {
      m.read_offset += (self.sizes()[d] - 1) * m.read_strides[d];
      m.read_strides[d] = -m.read_strides[d];
    }
  }
  return m;
}

OutputMeta tril(const Tensor& self, I64 /*diagonal*/) { return triangle("tril", self); }
OutputMeta triu(const Tensor& self, I64 /*diagonal*/) { return triangle("triu", self); }

}  // namespace wick::meta

// --- the internal operators (namespace aten) ----------------------------------------------------

namespace aten::meta {

using wick::DimMeta;
using wick::Tensor;

namespace {

// The taps' values are the impls' to check; their shapes, dtypes and
// devices are checked here. `positions` is the size along dim the taps
// make (the gradient's; -1: the result's, any).
wick::Device check_taps(const char* op, const Tensor& self, std::int64_t dim, std::int64_t positions,
                        const Tensor& index, const std::optional<Tensor>& weight) {
  WICK_CHECK(index.dtype() == wick::ScalarType::kInt64 && index.dim() == 2, RuntimeError, op,
             ": index must be a 2-D int64 tensor [taps, positions], got a ", index.dim(), "-D ",
             wick::type_title(index.dtype()), " tensor");
  WICK_CHECK(positions < 0 || index.sizes()[1] == positions, RuntimeError, op, ": index has ", index.sizes()[1],
             " positions, but grad_output has ", positions, " along dim ", dim);
  if (!weight) {
    WICK_CHECK(index.sizes()[0] == 1, RuntimeError, op, ": taps without a weight must be one, got ",
               index.sizes()[0]);
    return wick::common_device(op, self, index);
  }
  WICK_CHECK(wick::is_floating(self.dtype()), RuntimeError, op, ": weighted taps need a floating self, got ",
             wick::type_title(self.dtype()));
  WICK_CHECK(weight->dtype() == self.dtype(), RuntimeError, op, ": weight must have self's dtype ",
             wick::type_title(self.dtype()), ", got ", wick::type_title(weight->dtype()));
  WICK_CHECK(weight->sizes() == index.sizes(), RuntimeError, op, ": weight must have index's shape ",
             wick::format_shape(index.sizes()), ", got ", wick::format_shape(weight->sizes()));
  return wick::common_device(op, self, index, *weight);
}

}  // namespace

DimMeta interpolate_taps(const Tensor& self, std::int64_t dim, const Tensor& index,
                         const std::optional<Tensor>& weight) {
  const char* op = "aten.interpolate_taps";
  WICK_CHECK(self.dim() >= 1, RuntimeError, op, ": self must have at least one dimension, got a 0-dim tensor");
  const std::int64_t d = wick::wrap_dim(dim, self.dim());
  const wick::Device device = check_taps(op, self, d, -1, index, weight);
  wick::DimVector shape(self.sizes());
  shape[static_cast<std::size_t>(d)] = index.sizes()[1];
  return {wick::TensorMeta::contiguous(shape, self.dtype(), device), d};
}

DimMeta interpolate_taps_backward(const Tensor& grad_output, std::int64_t dim, const Tensor& index,
                                  const std::optional<Tensor>& weight, std::int64_t input_size) {
  const char* op = "aten.interpolate_taps_backward";
  WICK_CHECK(grad_output.dim() >= 1, RuntimeError, op,
             ": grad_output must have at least one dimension, got a 0-dim tensor");
  const std::int64_t d = wick::wrap_dim(dim, grad_output.dim());
  WICK_CHECK(wick::is_floating(grad_output.dtype()), RuntimeError, op, ": grad_output must be floating, got ",
             wick::type_title(grad_output.dtype()));
  WICK_CHECK(input_size >= 0, RuntimeError, op, ": input_size must be at least 0, got ", input_size);
  const wick::Device device = check_taps(op, grad_output, d, grad_output.sizes()[static_cast<std::size_t>(d)],
                                         index, weight);
  wick::DimVector shape(grad_output.sizes());
  shape[static_cast<std::size_t>(d)] = input_size;
  return {wick::TensorMeta::contiguous(shape, grad_output.dtype(), device), d};
}

}  // namespace aten::meta
