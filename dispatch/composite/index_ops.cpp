// dispatch/composite/index_ops.cpp - advanced indexing (aten.index, index_put), take, take_along_dim, masked_select,
// masked_scatter, argwhere, index_fill, index_copy, index_add and put.
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
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/subscript.h"
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
Tensor from_the_end(const Tensor& index, I64 n) {
  return where(lt(index, Scalar(I64{0})), add(index, Scalar(n)), index);
}

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
    throw IndexError(
        detail::str_cat("out of range: tried to access index ", *bad, " on a tensor of ", n, " elements."));
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
             "put_(): self and source expected to have the same dtype, but got self.dtype = ", type_title(self.dtype()),
             " and source.dtype = ", type_title(source.dtype()));
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

// F.one_hot: (*) int64 class indices to (*, num_classes) int64 zeros and
// ones; num_classes -1 reads max + 1 from the values.
Tensor one_hot_kernel(const Tensor& self, std::int64_t num_classes) {
  const char* op = "torch.nn.functional.one_hot";
  WICK_CHECK(self.dtype() == ScalarType::kInt64, RuntimeError, op, ": one_hot is only applicable to index tensor.");
  DimVector shape(self.sizes());
  if (self.numel() == 0) {
    WICK_CHECK(num_classes > 0, RuntimeError, op, ": Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return zeros(IntArrayRef(shape), ScalarType::kInt64, self.device());
  }
  WICK_CHECK(min(self).item<std::int64_t>() >= 0, RuntimeError, op, ": Class values must be non-negative.");
  const std::int64_t top = max(self).item<std::int64_t>();
  if (num_classes == -1) {
    num_classes = checked_add(top, 1, "torch.nn.functional.one_hot: num_classes (the largest class value + 1)");
  } else {
    WICK_CHECK(num_classes > top, RuntimeError, op, ": Class values must be smaller than num_classes.");
  }
  const Tensor classes = arange(0, num_classes, 1, ScalarType::kInt64, self.device());
  return eq(self.unsqueeze(-1), classes).to(ScalarType::kInt64);
}

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
  WICK_CHECK(value.dim() == 0, RuntimeError,
             "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
             " dimension(s).");
  const I64 d = wrap_dim(dim, self.dim());
  const I64 n = size_at(self, d);
  if (const auto bad = first_outside(index, -n, n)) {
    throw IndexError(detail::str_cat("index ", *bad, " is out of bounds for dimension ", d, " with size ", n));
  }
  // A float goes into self's dtype as PyTorch converts it (refused when it does not fit an integer type).
  if (!value.device().is_meta() && is_floating(value.dtype())) check_converts(value.item().to<double>(), self.dtype());
  // A bool per slice, true at the indices, laid along dim.
  const Tensor hit =
      scatter(zeros({n}, ScalarType::kBool, self.device()), 0, from_the_end(index, n).reshape({-1}), Scalar(true));
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
               "(): Source/destination tensor must have same slice shapes. Destination slice shape: ", self.sizes()[k],
               " at dimension ", k, " and source slice shape: ", source.sizes()[k], " at dimension ", k, ".");
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
    throw IndexError(
        detail::str_cat(name, "(): index ", *bad, " is out of bounds for dimension ", d, " with size ", n));
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

// --- advanced indexing: aten.index, index_put --------------------------------------------------
//
// Note [Advanced indexing]
// aten.index(self, indices) reads self at index tensors, one entry per dim
// from the first: int64 positions (negative from the end), a bool mask of k
// dims (its nonzero() columns, one per dim it covers; a 0-dim mask adds a
// dim of size 1 or 0), or None (the dim whole). The index tensors broadcast
// together to a shape B. With the indexed dims moved first and flattened,
// each element of B is one row, at sum(i_k * stride_k); an index_select of
// the rows gives [B..., other dims...], and when the indexed dims were
// adjacent B moves to where they were (x[:, i, j] is [n0, B...]), as in
// PyTorch and NumPy. index_put writes through the same rows with scatter
// (scatter_add with accumulate=True). Gradients are index_select's and
// scatter's.

struct IndexPlan {
  DimVector perm;       // the indexed dims first, then the others (of self, with a dim per 0-dim mask)
  DimVector permuted;   // the sizes of self in that order
  Tensor rows;          // self with the indexed dims first, flattened into one: [N, other dims...]
  Tensor positions;     // int64, shape B: each indexed element's row
  DimVector other;      // the sizes of the dims not indexed, in order
  DimVector shape;      // the result's shape
  DimVector to_result;  // the permutation taking [B..., other...] to the result's order
};

std::string shapes_text(const std::vector<Tensor>& ts) {
  std::string out;
  for (std::size_t k = 0; k < ts.size(); ++k) out += (k ? ", " : "") + format_shape(ts[k].sizes());
  return out;
}

IndexPlan plan_index(Tensor self, const std::vector<std::optional<Tensor>>& indices) {
  // One entry per dim: int64 positions or none.
  std::vector<std::optional<Tensor>> per_dim;
  // A mask covers as many dims as it has (a 0-dim one none); anything else one.
  std::int64_t used = 0;
  for (const std::optional<Tensor>& entry : indices) {
    const bool mask = entry && (entry->dtype() == ScalarType::kBool || entry->dtype() == ScalarType::kUInt8);
    used += mask ? entry->dim() : 1;
  }
  WICK_CHECK(used <= self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim(), " (got ", used,
             ")");
  for (const std::optional<Tensor>& entry : indices) {
    if (!entry) {
      per_dim.emplace_back(std::nullopt);
      continue;
    }
    const ScalarType t = entry->dtype();
    WICK_CHECK(t == ScalarType::kInt64 || t == ScalarType::kBool || t == ScalarType::kUInt8, IndexError,
               "tensors used as indices must be long, byte or bool tensors");
    if (t == ScalarType::kInt64) {
      per_dim.emplace_back(*entry);
      continue;
    }
    Tensor mask = t == ScalarType::kBool ? *entry : ne(*entry, Scalar(0));
    const auto at = static_cast<std::int64_t>(per_dim.size());
    if (mask.dim() == 0) {  // a new dim of size 1, kept or not
      self = self.unsqueeze(at);
      mask = mask.reshape({1});
    }
    for (std::int64_t j = 0; j < mask.dim(); ++j) {
      WICK_CHECK(mask.sizes()[j] == self.sizes()[at + j], IndexError, "The shape of the mask ",
                 format_shape(mask.sizes()), " at index ", j, " does not match the shape of the indexed tensor ",
                 format_shape(self.sizes()), " at index ", at + j);
    }
    WICK_CHECK(!mask.device().is_meta(), NotImplementedError,
               "aten.index: a mask's positions depend on its values, which a meta tensor does not have");
    const Tensor coords = nonzero(mask);
    for (std::int64_t j = 0; j < mask.dim(); ++j) per_dim.emplace_back(coords.select(1, j));
  }
  // Bounds, negative positions, and the broadcast shape B.
  std::vector<Tensor> given;
  std::vector<std::int64_t> dims;
  for (std::size_t d = 0; d < per_dim.size(); ++d) {
    if (!per_dim[d]) continue;
    const std::int64_t n = self.sizes()[static_cast<std::int64_t>(d)];
    if (const auto bad = first_outside(*per_dim[d], -n, n)) {
      // PyTorch names the index tensor's place among the given ones (its
      // kernel moves the indexed dims to the front): x[:, [5]] is "dimension 0".
      throw IndexError(
          detail::str_cat("index ", *bad, " is out of bounds for dimension ", given.size(), " with size ", n));
    }
    // Checked where they are; used on self's device (CPU indices serve any self, as in PyTorch).
    Tensor g = from_the_end(*per_dim[d], n);
    given.push_back(g.device() == self.device() ? g : g.to(self.device()));
    dims.push_back(static_cast<std::int64_t>(d));
  }
  IndexPlan p;
  DimVector b;
  bool broadcasts = true;
  for (const Tensor& g : given) {
    try {
      b = broadcast_shapes(b, g.sizes(), "aten.index");
    } catch (const RuntimeError&) {
      broadcasts = false;
    }
  }
  WICK_CHECK(broadcasts, IndexError, "shape mismatch: indexing tensors could not be broadcast together with shapes ",
             shapes_text(given));
  // The indexed dims first, flattened; each element's row.
  DimVector perm;
  DimVector indexed_sizes;
  for (const std::int64_t d : dims) {
    perm.push_back(d);
    indexed_sizes.push_back(self.sizes()[d]);
  }
  for (std::int64_t d = 0; d < self.dim(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
    perm.push_back(d);
    p.other.push_back(self.sizes()[d]);
  }
  DimVector rows_shape{checked_numel(IntArrayRef(indexed_sizes.data(), indexed_sizes.size()))};
  for (const std::int64_t s : p.other) rows_shape.push_back(s);
  const Tensor moved = self.permute(IntArrayRef(perm.data(), perm.size()));
  p.permuted = DimVector(moved.sizes());
  p.perm = perm;
  p.rows = moved.reshape(IntArrayRef(rows_shape.data(), rows_shape.size()));
  const IntArrayRef bshape(b.data(), b.size());
  Tensor positions = zeros(bshape, ScalarType::kInt64, self.device());
  std::int64_t stride = 1;
  for (std::size_t k = given.size(); k-- > 0;) {
    positions = add(positions, given[k].expand(bshape), Scalar(stride));
    stride = checked_mul(stride, indexed_sizes[k], "aten.index");
  }
  p.positions = positions;
  // Where B goes: in place of adjacent indexed dims, else first.
  const bool adjacent = dims.back() - dims.front() + 1 == static_cast<std::int64_t>(dims.size());
  const std::int64_t lead = adjacent ? dims.front() : 0;
  const auto nb = static_cast<std::int64_t>(b.size());
  const auto no = static_cast<std::int64_t>(p.other.size());
  for (std::int64_t k = 0; k < lead; ++k) p.to_result.push_back(nb + k);  // the other dims before B
  for (std::int64_t k = 0; k < nb; ++k) p.to_result.push_back(k);
  for (std::int64_t k = lead; k < no; ++k) p.to_result.push_back(nb + k);
  for (const std::int64_t k : p.to_result) p.shape.push_back(k < nb ? b[k] : p.other[k - nb]);
  return p;
}

bool any_index(const std::vector<std::optional<Tensor>>& indices) {
  return std::any_of(indices.begin(), indices.end(), [](const std::optional<Tensor>& t) { return t.has_value(); });
}

Tensor index_kernel(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  if (!any_index(indices)) {
    WICK_CHECK(static_cast<std::int64_t>(indices.size()) <= self.dim(), IndexError,
               "too many indices for tensor of dimension ", self.dim(), " (got ", indices.size(), ")");
    return self.clone();
  }
  const IndexPlan p = plan_index(self, indices);
  DimVector gathered(p.positions.sizes());
  for (const std::int64_t s : p.other) gathered.push_back(s);
  const Tensor flat = index_select(p.rows, 0, p.positions.reshape({-1}));
  return flat.reshape(IntArrayRef(gathered.data(), gathered.size()))
      .permute(IntArrayRef(p.to_result.data(), p.to_result.size()))
      .contiguous();
}

Tensor index_put_kernel(const Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                        bool accumulate) {
  WICK_CHECK(self.dtype() == values.dtype(), RuntimeError,
             "Index put requires the source and destination dtypes match, got ", type_title(self.dtype()),
             " for the destination and ", type_title(values.dtype()), " for the source.");
  if (!any_index(indices)) {  // every element, as self[...] = values
    const Tensor v = values.expand(self.sizes());
    return accumulate ? add(self, v) : v.clone();
  }
  const IndexPlan p = plan_index(self, indices);
  const IntArrayRef shape(p.shape.data(), p.shape.size());
  bool fits = true;
  try {
    fits = broadcast_shapes(values.sizes(), shape, "torch.index_put") == p.shape;
  } catch (const RuntimeError&) {
    fits = false;
  }
  WICK_CHECK(fits, RuntimeError, "shape mismatch: value tensor of shape ", format_shape(values.sizes()),
             " cannot be broadcast to indexing result of shape ", format_shape(shape));
  // The values as rows [numel(B), other...], the rows of self as [N, other...], both 2-D.
  const DimVector back = inverse_permutation(p.to_result);
  const std::int64_t count = p.positions.numel();
  const std::int64_t width = checked_numel(IntArrayRef(p.other.data(), p.other.size()));
  const Tensor v = values.expand(shape).permute(IntArrayRef(back.data(), back.size())).reshape({count, width});
  const Tensor rows = p.rows.reshape({p.rows.size(0), width});
  const Tensor where_to = p.positions.reshape({count, 1}).expand({count, width});
  const Tensor written = accumulate ? scatter_add(rows, 0, where_to, v) : scatter(rows, 0, where_to, v);
  // Back to self's layout (a 0-dim mask's dim of size 1 goes with the reshape).
  const DimVector undo = inverse_permutation(p.perm);
  return written.reshape(IntArrayRef(p.permuted.data(), p.permuted.size()))
      .permute(IntArrayRef(undo.data(), undo.size()))
      .reshape(self.sizes());
}

// x[key] (Note [Reading a subscript key] in wick/subscript.h).
Tensor getitem_kernel(const Tensor& self, const Value& key) { return self.index(tensor_index_of(key)); }

// x[key] = value: a tensor, or a Python number as a 0-dim tensor of x's dtype
// (an integer tensor truncates a float, as PyTorch's copy does).
void setitem_kernel(const Tensor& target, const Value& key, const Value& value) {
  Tensor self = target;  // a handle: index_put_ writes target's elements
  const std::vector<indexing::TensorIndex> index = tensor_index_of(key);
  if (value.is_tensor()) {
    self.index_put_(index, value.to_tensor());
    return;
  }
  WICK_CHECK(value.is_number(), TypeError, "can't assign a ", value.type_name(), " to a ",
             legacy_type_name(self.dtype(), self.device()));
  const Scalar v = value.to_scalar();
  WICK_CHECK(!v.is_complex() || is_complex(self.dtype()), RuntimeError, "value cannot be converted to type ",
             cpp_type_name(self.dtype()), " without overflow");
  self.index_put_(index, scalar_in_dtype(v, self.dtype()));
}

}  // namespace

DimVector inverse_permutation(IntArrayRef perm) {
  DimVector inv(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) inv[static_cast<std::size_t>(perm[k])] = static_cast<std::int64_t>(k);
  return inv;
}

const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::kBool:
      return "bool";
    case ScalarType::kUInt8:
      return "unsigned char";
    case ScalarType::kInt8:
      return "signed char";
    case ScalarType::kInt16:
      return "short int";
    case ScalarType::kInt32:
      return "int";
    case ScalarType::kInt64:
      return "long int";
    case ScalarType::kFloat16:
      return "c10::Half";
    case ScalarType::kBFloat16:
      return "c10::BFloat16";
    case ScalarType::kFloat32:
      return "float";
    case ScalarType::kFloat64:
      return "double";
    case ScalarType::kComplex64:
      return "c10::complex<float>";
    case ScalarType::kComplex128:
      return "c10::complex<double>";
    default:
      return type_title(t);
  }
}

std::vector<std::int64_t> host_int64s(const Tensor& t) {
  const Tensor h = t.detach().to(Device()).to(ScalarType::kInt64).contiguous();
  const std::int64_t* p = h.data_ptr<std::int64_t>();
  return std::vector<std::int64_t>(p, p + h.numel());
}

std::string legacy_type_name(ScalarType t, const Device& device) {
  const bool cuda = device.type() == DeviceType::kCUDA;
  if (device.is_meta()) return std::string("Meta") + type_title(t) + "Type";
  if (t == ScalarType::kBool || t == ScalarType::kBFloat16 || is_complex(t))
    return std::string(cuda ? "CUDA" : "CPU") + type_title(t) + "Type";
  return std::string(cuda ? "torch.cuda." : "torch.") + type_title(t) + "Tensor";
}

void check_converts(double value, ScalarType t) {
  double low = 0;
  double high = 0;
  const char* type = nullptr;
  switch (t) {
    case ScalarType::kUInt8:
      low = 0, high = 255, type = "uint8_t";
      break;
    case ScalarType::kInt8:
      low = -128, high = 127, type = "int8_t";
      break;
    case ScalarType::kInt16:
      low = -32768, high = 32767, type = "int16_t";
      break;
    case ScalarType::kInt32:
      low = -2147483648.0, high = 2147483647.0, type = "int";
      break;
    default:
      return;
  }
  WICK_CHECK(value >= low && value <= high, RuntimeError, "value cannot be converted to type ", type,
             " without overflow");
}

Scalar scalar_in_dtype(const Scalar& s, ScalarType t) {
  if (!is_integral(t, false)) return s;
  check_converts(s.to<double>(), t);
  if (!s.is_floating() && !s.is_complex()) return s;
  const double v = std::trunc(s.to<double>());
  constexpr double kInt64Bound = 9223372036854775808.0;  // 2^63: int64 has no check_converts range
  WICK_CHECK(v >= -kInt64Bound && v < kInt64Bound, RuntimeError,
             "value cannot be converted to type int64_t without overflow");
  return Scalar(static_cast<std::int64_t>(v));
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
      .impl("index_add", &index_add_kernel)
      .impl("index_put", &index_put_kernel);
  out.push_back(std::move(lib));
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kCompositeImplicit);
  functional->impl("one_hot", &one_hot_kernel);
  out.push_back(std::move(functional));
  auto aten = std::make_unique<Library>("aten", DispatchKey::kCompositeImplicit);
  aten->impl("index", &index_kernel);
  out.push_back(std::move(aten));
  auto tensor = std::make_unique<Library>("torch.Tensor", DispatchKey::kCompositeImplicit);
  tensor->impl("__getitem__", &getitem_kernel).impl("__setitem__", &setitem_kernel);
  out.push_back(std::move(tensor));
}

}  // namespace wick
