// tools/wick/eval_subscript.cpp - `value[index]` in `wick eval`: Python sequences and tensors.
/// \file
/// Note [Subscripts]
/// Sequences (lists, tuples, strings, torch.Size, a named tuple's fields)
/// index as Python does: an int (negative from the end; out of range is
/// IndexError) or a slice with any step, giving the same kind of sequence.
/// A tensor takes what PyTorch's indexing takes. Basic indexing first, as
/// PyTorch, each through the operators the catalog has:
///   - an int (or a 0-dim integer tensor): `select` (IndexError "index 5 is
///     out of bounds for dimension 0 with size 3", as PyTorch);
///   - a slice: `narrow` for step 1, a view as in PyTorch; a larger step
///     (`x[::2]`) through `index_select`, a copy (the one divergence: the
///     values are PyTorch's, but writing to it would not reach `x`);
///   - `None`: `unsqueeze`; `...`: as many full slices as the dims left;
/// then every index tensor (int64 positions, bool or uint8 masks over the
/// next dims) together through `aten.index` on that view, at the dims they
/// index there (Note [Advanced indexing] in dispatch/composite/index_ops.cpp):
/// they broadcast, and their shape replaces the indexed dims where those are
/// adjacent, or leads the result. Assignment (`x[0] = 1`) is not in the
/// grammar; `torch.index_put` and `Tensor.index_put_` write.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eval.h"
#include "eval_internal.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick::eval {
namespace {

using I64 = std::int64_t;

/// Python's slice.indices(n) for a known step: the first index, the count.
std::pair<I64, I64> slice_range(const SubscriptIndex& s, I64 n, I64 step) {
  auto clamp = [&](std::optional<I64> v, I64 lo_default, I64 hi_default) {
    if (!v) return step > 0 ? lo_default : hi_default;
    I64 x = *v;
    if (x < 0) x = x + n < 0 ? (step > 0 ? 0 : -1) : x + n;
    if (x >= n) x = step > 0 ? n : n - 1;
    return x;
  };
  const I64 start = clamp(s.start, 0, n - 1);
  const I64 stop = clamp(s.stop, n, -1);
  // Written so that no step (INT64_MIN and INT64_MAX included) overflows.
  I64 count = 0;
  if (step > 0 && stop > start) count = (stop - start - 1) / step + 1;
  if (step < 0 && stop < start) count = (stop - start + 1) / step + 1;
  return {start, count};
}

I64 step_of(const SubscriptIndex& s) {
  const I64 step = s.step.value_or(1);
  if (step == 0) throw ValueError("slice step cannot be zero");
  return step;
}

// --- sequences -------------------------------------------------------------------

Value sequence_subscript(const Value& base, const SubscriptIndex& index) {
  std::vector<Value> items;
  std::string kind = base.type_name();
  std::string text;
  if (base.is_list() || base.is_tuple()) {
    items = base.items();
  } else if (base.is_string()) {
    text = base.to_string();
    for (char c : text) items.emplace_back(std::string(1, c));
    kind = "string";
  } else if (base.is_int_list()) {
    for (I64 v : base.to_int_list()) items.emplace_back(v);
  } else if (base.is_tensor_list()) {
    for (const Tensor& t : base.to_tensor_list()) items.emplace_back(t);
  } else if (const auto* size = base.is_object() ? dynamic_cast<const TorchSize*>(base.to_object().get()) : nullptr) {
    for (I64 v : size->sizes()) items.emplace_back(v);
    kind = "tuple";
  } else if (const auto* named = base.is_object() ? dynamic_cast<const NamedTuple*>(base.to_object().get()) : nullptr) {
    items = named->items();
    kind = "tuple";
  } else {
    throw TypeError(detail::str_cat("'", base.type_name(), "' object is not subscriptable"));
  }
  const auto n = static_cast<I64>(items.size());
  if (index.kind == SubscriptIndex::Kind::kValue) {
    const Value& v = index.value;
    if (!(v.is_int() || v.is_bool())) {
      throw TypeError(detail::str_cat(kind == "string" ? "string" : kind, " indices must be integers",
                                      kind == "string" ? "" : " or slices", ", not ", v.type_name()));
    }
    I64 i = v.to_int();
    if (i < 0) i += n;
    if (i < 0 || i >= n) throw IndexError(detail::str_cat(kind, " index out of range"));
    return items[static_cast<std::size_t>(i)];
  }
  if (index.kind == SubscriptIndex::Kind::kEllipsis) {
    throw TypeError(detail::str_cat(kind, " indices must be integers or slices, not ellipsis"));
  }
  const I64 step = step_of(index);
  const auto [start, count] = slice_range(index, n, step);
  std::vector<Value> out;
  for (I64 k = 0; k < count; ++k) out.push_back(items[static_cast<std::size_t>(start + k * step)]);
  if (base.is_string()) {
    std::string s;
    for (const Value& c : out) s += c.to_string();
    return Value(s);
  }
  if (base.is_object() && dynamic_cast<const TorchSize*>(base.to_object().get()) != nullptr) {
    std::vector<I64> sizes;
    for (const Value& v : out) sizes.push_back(v.to_int());
    return Value(std::static_pointer_cast<Object>(std::make_shared<TorchSize>(std::move(sizes))));
  }
  return Value::list(std::move(out), !base.is_list());
}

// --- tensors -----------------------------------------------------------------------

/// The dims an index consumes of the tensor it indexes: a mask (bool or
/// uint8) as many as it has, a 0-dim one none.
I64 dims_consumed(const SubscriptIndex& s) {
  if (s.kind == SubscriptIndex::Kind::kSlice) return 1;
  if (s.kind == SubscriptIndex::Kind::kEllipsis || s.value.is_none()) return 0;
  if (s.value.is_tensor()) {
    const Tensor& t = s.value.to_tensor();
    if (t.dtype() == ScalarType::kBool || t.dtype() == ScalarType::kUInt8) return t.dim();
  }
  return 1;
}

Tensor host_index(const std::vector<I64>& entries, Device device) {
  Tensor t = make_empty({static_cast<I64>(entries.size())}, ScalarType::kInt64);
  std::copy(entries.begin(), entries.end(), t.data_ptr<I64>());
  return device.is_cpu() ? t : t.to(device);
}

Tensor tensor_subscript(Tensor t, const std::vector<SubscriptIndex>& items_in) {
  // '...' becomes the full slices it stands for.
  I64 consumed = 0;
  int ellipses = 0;
  for (const SubscriptIndex& s : items_in) {
    consumed += dims_consumed(s);
    ellipses += s.kind == SubscriptIndex::Kind::kEllipsis ? 1 : 0;
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > t.dim())
    throw IndexError(detail::str_cat("too many indices for tensor of dimension ", t.dim()));
  std::vector<SubscriptIndex> items;
  for (const SubscriptIndex& s : items_in) {
    if (s.kind != SubscriptIndex::Kind::kEllipsis) {
      items.push_back(s);
      continue;
    }
    for (I64 k = 0; k < t.dim() - consumed; ++k) items.push_back(SubscriptIndex::with_kind(SubscriptIndex::Kind::kSlice));
  }
  I64 dim = 0;
  std::vector<std::optional<Tensor>> indices;  // aten.index's, for the view's dims
  I64 covered = 0;                             // the view's dims they cover
  for (const SubscriptIndex& s : items) {
    if (s.kind == SubscriptIndex::Kind::kSlice) {
      const I64 step = step_of(s);
      if (step < 0) throw ValueError("step must be greater than zero");
      const I64 size = t.size(dim);
      const auto [start, count] = slice_range(s, size, step);
      if (step == 1) {
        t = t.narrow(dim, count == 0 ? std::min(start, size) : start, count);
      } else {
        std::vector<I64> picks;
        for (I64 k = 0; k < count; ++k) picks.push_back(start + k * step);
        t = t.index_select(dim, host_index(picks, t.device()));
      }
      ++dim;
      continue;
    }
    const Value& v = s.value;
    if (v.is_none()) {
      t = t.unsqueeze(dim);
      ++dim;
    } else if (v.is_int() || v.is_bool() || (v.is_tensor() && v.to_tensor().dim() == 0 &&
                                             !is_floating(v.to_tensor().dtype()) &&
                                             v.to_tensor().dtype() != ScalarType::kBool)) {
      if (v.is_bool()) throw NotImplementedError("indexing a tensor with True or False is not implemented in wick yet");
      const I64 size = t.size(dim);
      I64 i = v.is_tensor() ? v.to_tensor().item().to<I64>() : v.to_int();
      if (i < -size || i >= size)
        throw IndexError(detail::str_cat("index ", i, " is out of bounds for dimension ", dim, " with size ", size));
      t = t.select(dim, i);
    } else if (v.is_tensor()) {  // aten.index refuses dtypes other than int64, bool and uint8, as PyTorch
      // Index tensors and masks wait for the basic indexing around them: they
      // go to aten.index together, at the dims they index in the view.
      const Tensor index = v.to_tensor();
      const bool mask = index.dtype() == ScalarType::kBool || index.dtype() == ScalarType::kUInt8;
      for (; covered < dim; ++covered) indices.emplace_back(std::nullopt);  // the dims before it whole
      indices.emplace_back(index);
      const I64 k = mask ? index.dim() : 1;  // a mask covers its dims (a 0-dim one adds a dim)
      covered += k;
      dim += k;
    } else {
      throw IndexError(detail::str_cat("only integers, slices (`:`), ellipsis (`...`), None and long or byte ",
                                       "Variables are valid indices (got ", v.type_name(), ")"));
    }
  }
  if (indices.empty()) return t;
  return aten::index(t, indices);
}

}  // namespace

Value subscript(const Value& base, const std::vector<SubscriptIndex>& items) {
  if (base.is_tensor()) return Value(tensor_subscript(base.to_tensor(), items));
  if (items.size() != 1) {
    if (base.is_list() || base.is_tuple() || base.is_string()) {
      throw TypeError(detail::str_cat(base.is_string() ? "string" : base.type_name(),
                                      " indices must be integers or slices, not tuple"));
    }
  }
  return sequence_subscript(base, items.front());
}

}  // namespace wick::eval
