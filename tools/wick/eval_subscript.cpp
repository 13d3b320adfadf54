// tools/wick/eval_subscript.cpp - `value[index]` in `wick eval`: Python sequences and tensors.
/// \file
/// Note [Subscripts]
/// Sequences (lists, tuples, strings, torch.Size, a named tuple's fields)
/// index as Python does: an int (negative from the end; out of range is
/// IndexError) or a slice with any step, giving the same kind of sequence.
/// A tensor takes what PyTorch's basic and single-tensor indexing take,
/// each through the operators the catalog has:
///   - an int (or a 0-dim integer tensor): `select` (IndexError "index 5 is
///     out of bounds for dimension 0 with size 3", as PyTorch);
///   - a slice: `narrow` for step 1, a view as in PyTorch; a larger step
///     (`x[::2]`) through `index_select`, a copy (the one divergence: the
///     values are PyTorch's, but writing to it would not reach `x`);
///   - `None`: `unsqueeze`; `...`: as many full slices as the dims left;
///   - an integer index tensor (negative entries from the end): its shape
///     replaces the dim (`index_select`, then `reshape`);
///   - a bool mask over the next dims: the elements where it is true, in
///     order (the mask is read on the host, then `index_select`).
/// More than one index tensor (advanced indexing that broadcasts several)
/// is a NotImplementedError that says so; assignment (`x[0] = 1`) is not in
/// the grammar.
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

bool is_index_tensor(const Value& v) { return v.is_tensor() && v.to_tensor().dim() > 0; }

/// The dims an index consumes of the tensor it indexes.
I64 dims_consumed(const SubscriptIndex& s) {
  if (s.kind == SubscriptIndex::Kind::kSlice) return 1;
  if (s.kind == SubscriptIndex::Kind::kEllipsis || s.value.is_none()) return 0;
  if (is_index_tensor(s.value) && s.value.to_tensor().dtype() == ScalarType::kBool) return s.value.to_tensor().dim();
  return 1;
}

/// The entries of an integer index tensor as int64 on the host, each wrapped
/// into [0, size) or IndexError as PyTorch.
std::vector<I64> index_entries(const Tensor& index, I64 dim, I64 size) {
  const Tensor host = index.cpu().to(ScalarType::kInt64).contiguous();
  const I64* p = host.data_ptr<I64>();
  std::vector<I64> out(p, p + host.numel());
  for (I64& i : out) {
    if (i < -size || i >= size)
      throw IndexError(detail::str_cat("index ", i, " is out of bounds for dimension ", dim, " with size ", size));
    if (i < 0) i += size;
  }
  return out;
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
  int index_tensors = 0;
  for (const SubscriptIndex& s : items_in) {
    consumed += dims_consumed(s);
    ellipses += s.kind == SubscriptIndex::Kind::kEllipsis ? 1 : 0;
    index_tensors += s.kind == SubscriptIndex::Kind::kValue && is_index_tensor(s.value) ? 1 : 0;
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (consumed > t.dim())
    throw IndexError(detail::str_cat("too many indices for tensor of dimension ", t.dim()));
  if (index_tensors > 1) {
    throw NotImplementedError(
        "indexing with more than one index tensor (advanced indexing that broadcasts them) is not implemented "
        "in wick yet");
  }
  std::vector<SubscriptIndex> items;
  for (const SubscriptIndex& s : items_in) {
    if (s.kind != SubscriptIndex::Kind::kEllipsis) {
      items.push_back(s);
      continue;
    }
    for (I64 k = 0; k < t.dim() - consumed; ++k) items.push_back(SubscriptIndex::with_kind(SubscriptIndex::Kind::kSlice));
  }
  I64 dim = 0;
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
    } else if (v.is_tensor() && v.to_tensor().dtype() == ScalarType::kBool) {
      const Tensor mask = v.to_tensor();
      std::vector<I64> shape(t.sizes().begin(), t.sizes().end());
      for (I64 k = 0; k < mask.dim(); ++k) {
        if (mask.size(k) != t.size(dim + k)) {
          throw IndexError(detail::str_cat("The shape of the mask ", format_shape(mask.sizes()), " at index ", k,
                                           " does not match the shape of the indexed tensor ", format_shape(t.sizes()),
                                           " at index ", dim + k));
        }
      }
      // The masked dims as one, then the positions where the mask is true.
      std::vector<I64> flat(shape.begin(), shape.begin() + dim);
      flat.push_back(mask.numel());
      flat.insert(flat.end(), shape.begin() + dim + mask.dim(), shape.end());
      const Tensor host_mask = mask.cpu().contiguous();
      const bool* m = host_mask.data_ptr<bool>();
      std::vector<I64> picks;
      for (I64 k = 0; k < host_mask.numel(); ++k)
        if (m[k]) picks.push_back(k);
      t = t.reshape(flat).index_select(dim, host_index(picks, t.device()));
      ++dim;
    } else if (v.is_tensor() && !is_floating(v.to_tensor().dtype())) {
      const Tensor index = v.to_tensor();
      const std::vector<I64> entries = index_entries(index, dim, t.size(dim));
      std::vector<I64> shape(t.sizes().begin(), t.sizes().end());
      std::vector<I64> out(shape.begin(), shape.begin() + dim);
      out.insert(out.end(), index.sizes().begin(), index.sizes().end());
      out.insert(out.end(), shape.begin() + dim + 1, shape.end());
      t = t.index_select(dim, host_index(entries, t.device())).reshape(out);
      dim += index.dim();
    } else {
      throw IndexError(detail::str_cat("only integers, slices (`:`), ellipsis (`...`), None and long or byte ",
                                       "Variables are valid indices (got ", v.type_name(), ")"));
    }
  }
  return t;
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
