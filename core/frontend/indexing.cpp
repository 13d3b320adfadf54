// core/frontend/indexing.cpp - x[...] reads and writes through the catalog's views and aten.index (Note [Tensor indices]).
/// \file
#include "wick/indexing.h"

#include <cstring>
#include <optional>
#include <vector>

#include "wick/error.h"
#include "wick/ops.h"
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
        // x[True] adds a dim of size 1, x[False] one of size 0: a one-entry
        // mask over a new dim.
        t = t.unsqueeze(dim);
        add_tensor(wick::full({1}, e.boolean(), ScalarType::kBool, t.device()), 1);
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

Tensor& Tensor::index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& values) {
  indexing::Indexed r = indexing::apply_basic(*this, indices);
  if (r.tensors.empty()) {
    r.view.copy_(values);
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
