// tools/wick/eval_subscript.cpp - `value[index]` in `wick eval`: Python sequences and tensors.
/// \file
/// Note [Subscripts]
/// Sequences (lists, tuples, strings, torch.Size, a named tuple's fields)
/// index as Python does: an int (negative from the end; out of range is
/// IndexError) or a slice with any step, giving the same kind of sequence.
/// A slice (`1:3`) and `...` are values (wick/subscript.h), as in Python.
/// A tensor or tensor-like is subscripted by calling torch.Tensor.__getitem__
/// with the key Python would pass (the one index, or a tuple of several), so
/// an override sees it (Note [Reading a subscript key]). Assignment
/// (`x[0] = 1`) is not in the grammar; `x.__setitem__(0, 1)`,
/// `torch.index_put` and `Tensor.index_put_` write.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "eval.h"
#include "eval_internal.h"
#include "wick/dispatcher.h"
#include "wick/override.h"
#include "wick/subscript.h"

namespace wick::eval {
namespace {

using I64 = std::int64_t;

/// Python's slice.indices(n) for a known step: the first index, the count.
std::pair<I64, I64> slice_range(const SliceObject& s, I64 n, I64 step) {
  auto clamp = [&](std::optional<I64> v, I64 lo_default, I64 hi_default) {
    if (!v) return step > 0 ? lo_default : hi_default;
    I64 x = *v;
    if (x < 0) x = x + n < 0 ? (step > 0 ? 0 : -1) : x + n;
    if (x >= n) x = step > 0 ? n : n - 1;
    return x;
  };
  const I64 start = clamp(s.start(), 0, n - 1);
  const I64 stop = clamp(s.stop(), n, -1);
  // Written so that no step (INT64_MIN and INT64_MAX included) overflows.
  I64 count = 0;
  if (step > 0 && stop > start) count = (stop - start - 1) / step + 1;
  if (step < 0 && stop < start) count = (stop - start + 1) / step + 1;
  return {start, count};
}

// --- sequences -------------------------------------------------------------------

Value sequence_subscript(const Value& base, const Value& index) {
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
  const SliceObject* slice = as_slice(index);
  if (slice == nullptr) {
    if (!(index.is_int() || index.is_bool())) {
      throw TypeError(detail::str_cat(kind, " indices must be integers", kind == "string" ? "" : " or slices",
                                      ", not ", index.type_name()));
    }
    I64 i = index.to_int();
    if (i < 0) i += n;
    if (i < 0 || i >= n) throw IndexError(detail::str_cat(kind, " index out of range"));
    return items[static_cast<std::size_t>(i)];
  }
  const I64 step = slice->to_slice().step();  // ValueError for a zero step
  const auto [start, count] = slice_range(*slice, n, step);
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

}  // namespace

Value subscript(const Value& base, const std::vector<Value>& items) {
  // Python passes one key: the item itself, or a tuple of several.
  const Value key = items.size() == 1 ? items.front() : Value::list(items, /*tuple=*/true);
  if (base.is_tensor() || (base.is_object() && is_tensor_like(base))) {
    return wick::call("torch.Tensor.__getitem__", {base, key});
  }
  if (items.size() != 1) {
    if (base.is_list() || base.is_tuple() || base.is_string()) {
      throw TypeError(detail::str_cat(base.is_string() ? "string" : base.type_name(),
                                      " indices must be integers or slices, not tuple"));
    }
  }
  return sequence_subscript(base, items.front());
}

}  // namespace wick::eval
