// dispatch/composite/index_ops.cpp - take, take_along_dim, masked_select, masked_scatter, argwhere, index_fill, index_copy, index_add and put.
/// \file
/// Indexing by positions and masks, composed from the kernels every backend
/// has (dispatch/ops/indexing.ops): flat positions become an index_select or
/// a scatter of the flattened tensor, slices along a dim a gather, scatter
/// or scatter_add with the index spread over the other dims, and a mask a
/// nonzero. So they run on every backend with those kernels, and their
/// gradients and forward tangents are those operators'. PyTorch's kernels
/// check indices against the sizes as they read them; here the indices are
/// checked first, on the host (a device tensor's bounds are two reductions
/// read back, as PyTorch's CUDA kernels synchronise to report them), with
/// PyTorch's messages. A meta tensor has no values to check.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;

// The first entry of `index` outside [lo, hi), or none (read on the host).
std::optional<I64> first_outside(const Tensor& index, I64 lo, I64 hi) {
  if (index.numel() == 0 || index.device().is_meta()) return std::nullopt;
  if (amin(index).item().to<I64>() >= lo && amax(index).item().to<I64>() < hi) return std::nullopt;
  const Tensor flat = index.reshape({-1});
  const Tensor bad = nonzero(logical_or(lt(flat, Scalar(lo)), ge(flat, Scalar(hi)))).reshape({-1});
  return flat.select(0, bad.select(0, 0).item().to<I64>()).item().to<I64>();
}

// Positions in [-n, n) made non-negative.
Tensor from_the_end(const Tensor& index, I64 n) { return where(lt(index, Scalar(I64{0})), add(index, Scalar(n)), index); }

// `index` (1-D or 0-dim, as index_fill/index_copy/index_add take it) shaped
// to run along dim d of a tensor of `rank` dims and expanded to `sizes`.
Tensor along(const Tensor& index, I64 d, IntArrayRef sizes) {
  DimVector shape(sizes.size(), 1);
  if (!shape.empty()) shape[static_cast<std::size_t>(d)] = index.numel();
  return index.reshape(IntArrayRef(shape.data(), shape.size())).expand(sizes);
}

// --- flat positions: take, put ---------------------------------------------------------------

void check_flat_positions(const Tensor& index, I64 n) {
  if (const auto bad = first_outside(index, -n, n)) {
    throw IndexError(detail::str_cat("out of range: tried to access index ", *bad, " on a tensor of ", n, " elements."));
  }
}

Tensor take_kernel(const Tensor& self, const Tensor& index) {
  WICK_CHECK(index.dtype() == ScalarType::kInt64, RuntimeError, "take(): Expected a long tensor for index, but got ",
             type_title(index.dtype()));
  const I64 n = self.numel();
  WICK_CHECK(n > 0 || index.numel() == 0, IndexError, "take(): tried to take from an empty tensor");
  check_flat_positions(index, n);
  const Tensor positions = from_the_end(index, n).reshape({-1});
  return index_select(self.reshape({-1}), 0, positions).reshape(index.sizes());
}

Tensor put_kernel(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  WICK_CHECK(index.dtype() == ScalarType::kInt64, RuntimeError, "put_(): Expected a long tensor for index, but got ",
             type_title(index.dtype()));
  WICK_CHECK(self.dtype() == source.dtype(), RuntimeError,
             "put_(): self and source expected to have the same dtype, but got self.dtype = ",
             type_title(self.dtype()), " and source.dtype = ", type_title(source.dtype()));
  WICK_CHECK(source.numel() == index.numel(), IndexError,
             "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
             source.numel(), ", index.numel() = ", index.numel());
  const I64 n = self.numel();
  WICK_CHECK(n > 0 || index.numel() == 0, IndexError, "put_(): Tried to put elements into an empty tensor");
  check_flat_positions(index, n);
  const Tensor positions = from_the_end(index, n).reshape({-1});
  const Tensor flat = self.reshape({-1});
  const Tensor values = source.reshape({-1});
  const Tensor out = accumulate ? scatter_add(flat, 0, positions, values) : scatter(flat, 0, positions, values);
  return out.reshape(self.sizes());
}

// --- take_along_dim ---------------------------------------------------------------------------

Tensor take_along_dim_kernel(const Tensor& self, const Tensor& indices, std::optional<I64> dim) {
  const char* op = "torch.take_along_dim(): ";
  WICK_CHECK(indices.dtype() == ScalarType::kInt64, RuntimeError, op, "dtype of indices should be Long but got ",
             type_title(indices.dtype()));
  if (!dim) return gather(self.reshape({-1}), 0, indices.reshape({-1}));
  WICK_CHECK(self.dim() == indices.dim(), RuntimeError, op,
             "input and indices should have the same number of dimensions, but got ", self.dim(),
             " dimensions for input, and ", indices.dim(), " dimensions for indices");
  const I64 d = wrap_dim(*dim, self.dim());
  if (self.dim() == 0) return gather(self, d, indices);
  // Each broadcast to the other's sizes, apart from dim.
  DimVector self_sizes(self.sizes());
  self_sizes[static_cast<std::size_t>(d)] = indices.sizes()[d];
  const DimVector index_shape = broadcast_shapes(self_sizes, indices.sizes(), "torch.take_along_dim");
  DimVector index_sizes(indices.sizes());
  index_sizes[static_cast<std::size_t>(d)] = self.sizes()[d];
  const DimVector self_shape = broadcast_shapes(index_sizes, self.sizes(), "torch.take_along_dim");
  return gather(self.expand(self_shape), d, indices.expand(index_shape));
}

// --- masks: masked_select, masked_scatter, argwhere -------------------------------------------

// self and mask broadcast together and flattened, and the flat positions where mask is true.
struct MaskedPositions {
  Tensor flat;
  Tensor positions;
  DimVector shape;
};

MaskedPositions masked_positions(const Tensor& self, const Tensor& mask, const char* op) {
  MaskedPositions m;
  m.shape = broadcast_shapes(mask.sizes(), self.sizes(), op);  // PyTorch's order in its message
  const IntArrayRef shape(m.shape.data(), m.shape.size());
  m.flat = self.expand(shape).reshape({-1});
  const Tensor flags = mask.dtype() == ScalarType::kBool ? mask : ne(mask, Scalar(0));
  m.positions = nonzero(flags.expand(shape).reshape({-1})).reshape({-1});
  return m;
}

Tensor masked_select_kernel(const Tensor& self, const Tensor& mask) {
  WICK_CHECK(mask.dtype() == ScalarType::kBool || mask.dtype() == ScalarType::kUInt8, RuntimeError,
             "masked_select: expected BoolTensor or ByteTensor for mask");
  const MaskedPositions m = masked_positions(self, mask, "torch.masked_select");
  return index_select(m.flat, 0, m.positions);
}

Tensor masked_scatter_kernel(const Tensor& self, const Tensor& mask, const Tensor& source) {
  WICK_CHECK(mask.dtype() == ScalarType::kBool || is_integral(mask.dtype(), false), RuntimeError,
             "masked_scatter_ only supports boolean masks, but got mask with dtype ", type_title(mask.dtype()));
  WICK_CHECK(self.dtype() == source.dtype(), RuntimeError,
             "masked_scatter: expected self and source to have same dtypes but got", type_title(self.dtype()), " and ",
             type_title(source.dtype()));
  const MaskedPositions m = masked_positions(self, mask, "torch.masked_scatter");
  const I64 count = m.positions.numel();
  WICK_CHECK(source.numel() >= count, RuntimeError, "Number of elements of source < number of ones in mask");
  const Tensor values = source.reshape({-1}).narrow(0, 0, count);
  return scatter(m.flat, 0, m.positions, values).reshape(IntArrayRef(m.shape.data(), m.shape.size()));
}

Tensor argwhere_kernel(const Tensor& self) { return nonzero(self); }

// --- slices along a dim: index_fill, index_copy, index_add ------------------------------------

// The size along dim d, a 0-dim tensor counting as one element.
I64 size_at(const Tensor& self, I64 d) { return self.dim() == 0 ? 1 : self.sizes()[d]; }

// A slice index: 1-D or 0-dim int64 (`name` is the operator in PyTorch's message).
void check_slice_index(const Tensor& index, const char* name) {
  WICK_CHECK(index.dtype() == ScalarType::kInt64, IndexError, name, "(): Expected dtype int64 for index.");
  WICK_CHECK(index.dim() <= 1, RuntimeError, "Index has to be a vector/scalar");
}

Tensor index_fill_kernel(const Tensor& self, I64 dim, const Tensor& index, const Tensor& value) {
  check_slice_index(index, "index_fill_");
  WICK_CHECK(value.dim() == 0, RuntimeError, "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
             value.dim(), " dimension(s).");
  const I64 d = wrap_dim(dim, self.dim());
  const I64 n = size_at(self, d);
  if (const auto bad = first_outside(index, -n, n)) {
    throw IndexError(detail::str_cat("index ", *bad, " is out of bounds for dimension ", d, " with size ", n));
  }
  // A float goes into self's dtype as PyTorch converts it (refused when it does not fit an integer type).
  if (!value.device().is_meta() && is_floating(value.dtype())) check_converts(value.item().to<double>(), self.dtype());
  // A bool per slice, true at the indices, laid along dim.
  const Tensor hit = scatter(zeros({n}, ScalarType::kBool, self.device()), 0, from_the_end(index, n).reshape({-1}),
                             Scalar(true));
  DimVector shape(static_cast<std::size_t>(self.dim()), 1);
  if (self.dim() > 0) shape[static_cast<std::size_t>(d)] = n;
  return masked_fill(self, hit.reshape(IntArrayRef(shape.data(), shape.size())), value);
}

// index_copy and index_add: source has self's sizes apart from dim, where it has one slice per index.
void check_slices(const Tensor& self, I64 d, const Tensor& index, const Tensor& source, const char* name) {
  WICK_CHECK(source.dim() == self.dim() || (source.dim() <= 1 && self.dim() <= 1), RuntimeError, name,
             "(): When source and destination are not scalars, their dimensionality must match. Source "
             "dimensionality (",
             source.dim(), "), destination dimensionality (", self.dim(), ")");
  for (I64 k = 0; k < self.dim(); ++k) {
    if (k == d || source.dim() == 0) continue;
    WICK_CHECK(source.sizes()[k] == self.sizes()[k], RuntimeError, name,
               "(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
               self.sizes()[k], " at dimension ", k, " and source slice shape: ", source.sizes()[k], " at dimension ",
               k, ".");
  }
  static_cast<void>(index);
}

Tensor index_copy_kernel(const Tensor& self, I64 dim, const Tensor& index, const Tensor& source) {
  const char* name = "index_copy_";
  const I64 d = wrap_dim(dim, self.dim());
  WICK_CHECK(index.dim() <= 1, IndexError, name, "(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  const I64 slices = size_at(source, d);
  WICK_CHECK(index.numel() == slices, IndexError, name, "(): Number of indices (", index.numel(),
             ") should be equal to source.size(dim) (", slices, ")");
  WICK_CHECK(index.dtype() == ScalarType::kInt64, IndexError, name, "(): Expected a long tensor for index, but got ",
             type_title(index.dtype()));
  WICK_CHECK(self.dtype() == source.dtype(), RuntimeError, name,
             "(): self and source expected to have the same dtype, but got (self) ", type_title(self.dtype()),
             " and (source) ", type_title(source.dtype()));
  check_slices(self, d, index, source, name);
  const I64 n = size_at(self, d);
  if (const auto bad = first_outside(index, 0, n)) {
    throw IndexError(detail::str_cat(name, "(): index ", *bad, " is out of bounds for dimension ", d, " with size ", n));
  }
  if (self.dim() == 0) return source.reshape({}).clone();
  const Tensor src = source.dim() == self.dim() ? source : source.reshape(self.sizes());
  return scatter(self, d, along(index, d, src.sizes()), src);
}

Tensor index_add_kernel(const Tensor& self, I64 dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  const char* name = "index_add_";
  const I64 d = wrap_dim(dim, self.dim());
  WICK_CHECK(index.dim() <= 1, IndexError, name, "(): Index is supposed to be a vector");
  WICK_CHECK(index.dtype() == ScalarType::kInt64 || index.dtype() == ScalarType::kInt32, RuntimeError, name,
             "(): Expected dtype int32/int64 for index");
  WICK_CHECK(self.dtype() == source.dtype(), RuntimeError, name, "(): self (", type_title(self.dtype()),
             ") and source (", type_title(source.dtype()), ") must have the same scalar type");
  const I64 slices = size_at(source, d);
  WICK_CHECK(index.numel() == slices, RuntimeError, name, "(): Number of indices (", index.numel(),
             ") should be equal to source.size(dim): (", slices, "), for dim: ", d);
  check_slices(self, d, index, source, name);
  const I64 n = size_at(self, d);
  WICK_CHECK(!first_outside(index, 0, n), IndexError, "index out of range in self");
  // alpha in self's kind of number: an integer tensor takes it truncated, a
  // bool one as true or false, as PyTorch converts it.
  Tensor scaled;
  if (self.dtype() == ScalarType::kBool) {
    scaled = alpha.to<bool>() ? source : zeros_like(source);
  } else {
    const Scalar a = is_floating(self.dtype()) || is_complex(self.dtype()) ? alpha : Scalar(alpha.to<I64>());
    scaled = !a.is_complex() && a.to<double>() == 1.0 ? source : mul(source, a);
  }
  if (self.dim() == 0) return add(self, scaled.reshape({}));
  const Tensor src = scaled.dim() == self.dim() ? scaled : scaled.reshape(self.sizes());
  return scatter_add(self, d, along(index.to(ScalarType::kInt64), d, src.sizes()), src);
}

}  // namespace

void check_converts(double value, ScalarType t) {
  double low = 0;
  double high = 0;
  const char* type = nullptr;
  switch (t) {
    case ScalarType::kUInt8: low = 0, high = 255, type = "uint8_t"; break;
    case ScalarType::kInt8: low = -128, high = 127, type = "int8_t"; break;
    case ScalarType::kInt16: low = -32768, high = 32767, type = "int16_t"; break;
    case ScalarType::kInt32: low = -2147483648.0, high = 2147483647.0, type = "int"; break;
    default: return;
  }
  WICK_CHECK(value >= low && value <= high, RuntimeError, "value cannot be converted to type ", type,
             " without overflow");
}

void register_index_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  lib->impl("take", &take_kernel)
      .impl("put", &put_kernel)
      .impl("take_along_dim", &take_along_dim_kernel)
      .impl("masked_select", &masked_select_kernel)
      .impl("masked_scatter", &masked_scatter_kernel)
      .impl("argwhere", &argwhere_kernel)
      .impl("index_fill", &index_fill_kernel)
      .impl("index_copy", &index_copy_kernel)
      .impl("index_add", &index_add_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick
