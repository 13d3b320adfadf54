// wick/subscript.h - Python's subscripts as boxed values: slice and Ellipsis objects, and how x[key] reads its key.
/// \file
/// `x[1:, ..., None]` in Python calls `x.__getitem__((slice(1, None, None),
/// Ellipsis, None))`: the key is one value, a tuple when it has several
/// entries. A boxed call of torch.Tensor.__getitem__ / __setitem__ takes the
/// same key as a Value, so a tensor-like or a subclass that overrides them
/// sees what Python's would:
///
///   wick::Value key = wick::Value::list({wick::make_slice(1, std::nullopt), wick::ellipsis(), {}}, /*tuple=*/true);
///   wick::Tensor y = wick::call("torch.Tensor.__getitem__", {x, key}).to_tensor();
///
/// A slice is a Value holding a SliceObject (kObject, type "slice"),
/// Ellipsis one holding an EllipsisObject (type "ellipsis"); their repr is
/// Python's. C++ code that indexes a tensor itself writes
/// `x.index({Slice(1, None), Ellipsis, None})` (wick/indexing.h), which does
/// not box.
///
/// Note [Reading a subscript key]
/// tensor_index_of reads a key as PyTorch 1.13 reads the key of x[key]:
///   - a tuple is one entry per item; so is a list (or any sequence) that
///     holds a tensor, a list, a slice, None or Ellipsis (NumPy's old rule:
///     `x[[0, slice(1, 3)]]` is `x[0, 1:3]`);
///   - any other list is one index tensor (`x[[0, 2]]`): its values as
///     torch.tensor reads them, then int64 unless they are bools;
///   - each entry: an int, a bool, None, Ellipsis, a slice, a tensor, or a
///     list (an index tensor as above); anything else is IndexError "only
///     integers, slices (`:`), ellipsis (`...`), None and long or byte
///     Variables are valid indices (got float)". A str key is read as data,
///     as PyTorch's sequence rule does: TypeError "new(): invalid data type 'str'".
/// A zero step is ValueError "slice step cannot be zero" (Python's, when the
/// slice is read); a negative one is the tensor's ValueError "step must be
/// greater than zero" (Note [Tensor indices] in wick/indexing.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wick/export.h"
#include "wick/indexing.h"
#include "wick/value.h"

namespace wick {

/// Python's slice object, `slice(start, stop, step)`, as a Value holds it (make_slice). Each part may be left out (None).
class WICK_API SliceObject final : public Object {
 public:
  /// `start:stop:step`, each part None when left out.
  SliceObject(std::optional<std::int64_t> start, std::optional<std::int64_t> stop, std::optional<std::int64_t> step)
      : start_(start), stop_(stop), step_(step) {}
  /// The start, or None.
  [[nodiscard]] std::optional<std::int64_t> start() const noexcept { return start_; }
  /// The stop, or None.
  [[nodiscard]] std::optional<std::int64_t> stop() const noexcept { return stop_; }
  /// The step, or None (1).
  [[nodiscard]] std::optional<std::int64_t> step() const noexcept { return step_; }
  /// "slice".
  [[nodiscard]] std::string type_name() const override { return "slice"; }
  /// Python's repr: "slice(1, None, 2)".
  [[nodiscard]] std::string repr() const override;
  /// The slice as a C++ index entry; ValueError "slice step cannot be zero" for a zero step.
  [[nodiscard]] indexing::Slice to_slice() const;

 private:
  std::optional<std::int64_t> start_, stop_, step_;
};

/// Python's Ellipsis (`...`), as a Value holds it (wick::ellipsis()).
class WICK_API EllipsisObject final : public Object {
 public:
  /// "ellipsis".
  [[nodiscard]] std::string type_name() const override { return "ellipsis"; }
  /// "Ellipsis".
  [[nodiscard]] std::string repr() const override { return "Ellipsis"; }
};

/// A Value holding `slice(start, stop, step)`.
[[nodiscard]] WICK_API Value make_slice(std::optional<std::int64_t> start, std::optional<std::int64_t> stop,
                                        std::optional<std::int64_t> step = std::nullopt);
/// A Value holding Ellipsis.
[[nodiscard]] WICK_API Value ellipsis();
/// The slice `v` holds, or nullptr.
[[nodiscard]] WICK_API const SliceObject* as_slice(const Value& v) noexcept;
/// True when `v` holds Ellipsis.
[[nodiscard]] WICK_API bool is_ellipsis(const Value& v) noexcept;

/// The C++ index that subscript key `key` stands for (Note [Reading a subscript key]); IndexError, TypeError or ValueError for a key PyTorch refuses.
[[nodiscard]] WICK_API std::vector<indexing::TensorIndex> tensor_index_of(const Value& key);

}  // namespace wick
