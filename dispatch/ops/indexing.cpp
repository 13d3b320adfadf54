// dispatch/ops/indexing.cpp - x[...] reads and writes through the catalog's views and aten.index (Note [Tensor indices]).
/// \file
/// Also how a boxed subscript key is read (Note [Reading a subscript key] in
/// wick/subscript.h). This is the operator definitions' layer, below the
/// composite kernels, so that torch.Tensor.__getitem__ and __setitem__ can
/// be written with it.
#include "wick/indexing.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "wick/autograd.h"
#include "wick/error.h"
#include "wick/ops.h"
#include "wick/subscript.h"
#include "wick/tensor_util.h"

namespace wick {
namespace indexing {
namespace {

using I64 = std::int64_t;
using Kind = TensorIndex::Kind;

/// The dims of the tensor an entry consumes: a mask (bool or uint8) as
/// many as it has, None, Ellipsis and true/false none, anything else one.
I64 dims_consumed(const TensorIndex& e) {
  switch (e.kind()) {
    case Kind::kNone:
    case Kind::kEllipsis:
    case Kind::kBoolean: return 0;
    case Kind::kTensor: {
      const Tensor& t = e.tensor();
      return t.dtype() == ScalarType::kBool || t.dtype() == ScalarType::kUInt8 ? t.dim() : 1;
    }
    default: return 1;
  }
}

/// A 0-dim integer tensor indexes as the integer it holds (Python's __index__).
bool is_integer_scalar(const Tensor& t) {
  return t.dim() == 0 && !is_floating(t.dtype()) && !is_complex(t.dtype()) && t.dtype() != ScalarType::kBool &&
         t.dtype() != ScalarType::kUInt8;
}

}  // namespace

TensorIndex::TensorIndex(const char* text) : kind_(Kind::kEllipsis) {
  WICK_CHECK(text != nullptr && std::strcmp(text, "...") == 0, TypeError,
             "a string in a tensor index must be \"...\" (Ellipsis), got \"", text == nullptr ? "" : text, "\"");
}

Indexed apply_basic(const Tensor& self, ArrayRef<TensorIndex> indices) {
  WICK_CHECK(self.defined(), RuntimeError, "indexing an undefined tensor");
  I64 consumed = 0;
  int ellipses = 0;
  for (const TensorIndex& e : indices) {
    if (e.kind() == Kind::kTensor) {
      WICK_CHECK(e.tensor().defined(), IndexError, "an undefined tensor is not a valid index");
    }
    consumed += dims_consumed(e);
    ellipses += e.kind() == Kind::kEllipsis ? 1 : 0;
  }
  WICK_CHECK(ellipses <= 1, IndexError, "an index can only have a single ellipsis ('...')");
  WICK_CHECK(consumed <= self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim());

  Indexed out;
  Tensor& t = out.view;
  t = self;
  I64 dim = 0;      // the next dim of the view to index
  I64 covered = 0;  // the view's dims the tensor entries so far account for
  auto add_tensor = [&](const Tensor& index, I64 dims) {
    for (; covered < dim; ++covered) out.tensors.emplace_back(std::nullopt);  // the dims before it whole
    out.tensors.emplace_back(index);
    covered += dims;
    dim += dims;
  };
  for (const TensorIndex& e : indices) {
    switch (e.kind()) {
      case Kind::kEllipsis: dim += self.dim() - consumed; break;
      case Kind::kNone:
        t = t.unsqueeze(dim);
        ++dim;
        break;
      case Kind::kBoolean:
        // x[True] adds a dim of size 1, x[False] one of size 0: the new dim
        // indexed by positions {0} or {} (as PyTorch does, so that a meta
        // tensor, whose mask would have no values, can take it).
        t = t.unsqueeze(dim);
        add_tensor(wick::zeros({e.boolean() ? 1 : 0}, ScalarType::kInt64, t.device()), 1);
        break;
      case Kind::kSlice: {
        const Slice& s = e.slice();
        WICK_CHECK(s.step() > 0, ValueError, "step must be greater than zero");
        t = aten::slice(t, dim, s.start(), s.stop(), s.step());
        ++dim;
        break;
      }
      case Kind::kInteger: {
        const I64 size = t.size(dim);
        const I64 i = e.integer();
        WICK_CHECK(i >= -size && i < size, IndexError, "index ", i, " is out of bounds for dimension ", dim,
                   " with size ", size);
        t = t.select(dim, i);
        break;
      }
      case Kind::kTensor: {
        const Tensor& index = e.tensor();
        if (is_integer_scalar(index)) {
          const I64 size = t.size(dim);
          const I64 i = index.item().to<I64>();
          WICK_CHECK(i >= -size && i < size, IndexError, "index ", i, " is out of bounds for dimension ", dim,
                     " with size ", size);
          t = t.select(dim, i);
          break;
        }
        const ScalarType d = index.dtype();
        WICK_CHECK(d == ScalarType::kInt64 || d == ScalarType::kBool || d == ScalarType::kUInt8, IndexError,
                   "tensors used as indices must be long, byte or bool tensors");
        const bool mask = d == ScalarType::kBool || d == ScalarType::kUInt8;
        add_tensor(index, mask ? index.dim() : 1);
        break;
      }
    }
  }
  return out;
}

}  // namespace indexing

namespace {

bool is_sequence(const Value& v) {
  return v.is_list() || v.is_tuple() || v.is_int_list() || v.is_double_list() || v.is_tensor_list();
}

std::vector<Value> sequence_items(const Value& v) {
  if (v.is_list() || v.is_tuple()) return v.items();
  std::vector<Value> items;
  if (v.is_int_list()) items.assign(v.to_int_list().begin(), v.to_int_list().end());
  if (v.is_double_list()) items.assign(v.to_double_list().begin(), v.to_double_list().end());
  if (v.is_tensor_list()) items.assign(v.to_tensor_list().begin(), v.to_tensor_list().end());
  return items;
}

// A sequence key that is one entry per item (PyTorch's treatSequenceAsTuple):
// a tuple, or a short sequence holding something only an index tuple holds.
bool reads_as_tuple(const Value& key) {
  if (key.is_tuple()) return true;
  if (!is_sequence(key)) return false;
  const std::vector<Value> items = sequence_items(key);
  if (items.size() >= 32) return false;
  return std::any_of(items.begin(), items.end(), [](const Value& item) {
    return item.is_tensor() || item.is_none() || is_sequence(item) || as_slice(item) != nullptr || is_ellipsis(item);
  });
}

// A list read as one index tensor: int64 positions unless its values are bools
// (PyTorch reads [1., 2.] as positions too).
Tensor index_tensor_of(const Value& data) {
  Tensor t = wick::tensor(TensorLiteral(data));
  return t.dtype() == ScalarType::kBool || t.dtype() == ScalarType::kUInt8 ? t : t.to(ScalarType::kInt64);
}

indexing::TensorIndex entry_of(const Value& v) {
  if (v.is_none()) return indexing::None;
  if (is_ellipsis(v)) return indexing::Ellipsis;
  if (const SliceObject* s = as_slice(v)) return s->to_slice();
  if (v.is_bool()) return v.to_bool();
  if (v.is_int()) return v.to_int();
  if (v.is_tensor()) return v.to_tensor();
  if (is_sequence(v)) return index_tensor_of(v);
  WICK_CHECK(!v.is_string(), TypeError, "new(): invalid data type 'str'");
  throw IndexError(detail::str_cat("only integers, slices (`:`), ellipsis (`...`), None and long or byte ",
                                   "Variables are valid indices (got ", v.type_name(), ")"));
}

}  // namespace

std::vector<indexing::TensorIndex> tensor_index_of(const Value& key) {
  std::vector<indexing::TensorIndex> index;
  if (!reads_as_tuple(key)) {
    index.push_back(entry_of(key));
    return index;
  }
  for (const Value& item : sequence_items(key)) index.push_back(entry_of(item));
  return index;
}

Tensor Tensor::operator[](std::int64_t i) const { return index({indexing::TensorIndex(i)}); }

Tensor Tensor::operator[](const Tensor& index) const { return this->index({indexing::TensorIndex(index)}); }

Tensor Tensor::index(std::initializer_list<indexing::TensorIndex> indices) const {
  return index(ArrayRef<indexing::TensorIndex>(indices));
}

Tensor Tensor::index(ArrayRef<indexing::TensorIndex> indices) const {
  indexing::Indexed r = indexing::apply_basic(*this, indices);
  if (r.tensors.empty()) return r.view;
  return aten::index(r.view, r.tensors);
}

Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Tensor& values) {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices), values);
}

Tensor& Tensor::index_put_(std::initializer_list<indexing::TensorIndex> indices, const Scalar& value) {
  return index_put_(ArrayRef<indexing::TensorIndex>(indices), value);
}

namespace {

// What x[key] = values writes: values without its leading dims of size 1,
// expanded to x[key]'s sizes (PyTorch's setitem; the error is expand's).
Tensor written_values(const Tensor& values, IntArrayRef sizes) {
  if (values.sizes().vec() == sizes.vec()) return values;
  std::size_t lead = 0;
  while (lead < values.sizes().size() && values.sizes()[lead] == 1) ++lead;
  const std::vector<std::int64_t> kept(values.sizes().begin() + static_cast<std::ptrdiff_t>(lead), values.sizes().end());
  return values.view(kept).expand(sizes);
}

}  // namespace

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& values) {
  // Note [Writing values that need a graph]
  // A view of a tensor without autograd state is not tracked (Note [Views
  // and in-place] in core/autograd/autograd_meta.h), so a write of values
  // that require grad through it would not reach this tensor's history.
  // Such a write goes to the tensor itself instead: put_ at the flat
  // positions x[key] reads, whose formula records it on the tensor, as
  // PyTorch's tracked view would (`out = torch.zeros(3); out[0] = f(w)`).
  // What this does not reach: a write into an untracked view of another
  // tensor (`out[0][1] = f(w)` records on out[0], not on out).
  if (autograd::GradMode::is_enabled() && values.key_set().has(DispatchKey::kAutograd) &&
      !key_set().has(DispatchKey::kAutograd)) {
    const Tensor positions = wick::arange(numel(), std::nullopt, 1, ScalarType::kInt64, device()).reshape(sizes()).index(indices);
    put_(positions, written_values(values, positions.sizes()).to(dtype()));
    return *this;
  }
  indexing::Indexed r = indexing::apply_basic(*this, indices);
  if (r.tensors.empty()) {
    r.view.copy_(written_values(values, r.view.sizes()));
  } else {
    r.view.index_put_(r.tensors, values);
  }
  return *this;
}

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& value) {
  indexing::Indexed r = indexing::apply_basic(*this, indices);
  if (r.tensors.empty()) {
    r.view.fill_(value);
  } else {
    r.view.index_put_(r.tensors, wick::full({}, value, dtype(), device()));
  }
  return *this;
}

}  // namespace wick
