// wick/indexing.h - Python's tensor subscripts in C++: x.index({Slice(1, None, 2), None, Ellipsis, mask}).
/// \file
/// What `x[...]` does in Python, spelled as libtorch spells it:
///
///   using namespace wick::indexing;
///   Tensor row = x[0];                                   // x[0]: a view
///   Tensor y = x.index({Slice(1, None, 2), None, Ellipsis, mask});
///   x.index_put_({Slice(), 0}, 1.5);                     // x[:, 0] = 1.5
///   x.index_put_({idx}, values);                         // x[idx] = values
///
/// Note [Tensor indices]
/// Each entry of an index is an integer, a bool, a Slice, None, Ellipsis or
/// a tensor, read left to right against the tensor's dims as Python reads
/// them:
///   - basic indexing first, each a view: an integer selects (IndexError
///     "index 5 is out of bounds for dimension 0 with size 3"), a Slice
///     slices with any positive step (aten.slice), None inserts a dim of
///     size 1, Ellipsis stands for as many full slices as the dims left
///     over (at most one: IndexError "an index can only have a single
///     ellipsis ('...')"), true/false insert a dim and keep it or empty it;
///   - then every tensor entry (int64 positions, bool or uint8 masks over as
///     many dims as they have) goes to aten.index together: the index
///     tensors broadcast, and their shape replaces the dims they index where
///     those are adjacent, or leads the result where they are not. That
///     result is a copy.
/// `index_put_` writes through the same path: the basic part is a view of
/// the tensor, which copy_ (or fill_ for a number) writes, or which
/// index_put_ writes at the tensor entries. Reads and writes record the
/// graph: gradients flow through x.index(...) and into the values written.
/// More entries than dims: IndexError "too many indices for tensor of
/// dimension 2". A floating-point index tensor: IndexError, as PyTorch.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>

#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::indexing {

/// `None` in an index: a new dim of size 1 (Python's None; libtorch's
/// torch::indexing::None). Also what a Slice bound leaves out.
inline constexpr std::nullopt_t None = std::nullopt;  // NOLINT(readability-identifier-naming): libtorch's name

/// `...` in an index.
struct EllipsisIndexType final {};
/// Ellipsis (`...`) in an index: as many full slices as the dims left over (libtorch's torch::indexing::Ellipsis).
inline constexpr EllipsisIndexType Ellipsis{};  // NOLINT(readability-identifier-naming): libtorch's name

/// Python's `start:stop:step`; a bound left out (None) means "from the
/// start" or "to the end". The step must be positive (ValueError "step must
/// be greater than zero" when the index is used), as for tensors in PyTorch.
class Slice final {
 public:
  /// `start:stop:step`; each left out (None) by default: `Slice()` is `:`. The step is checked when the index is used.
  constexpr Slice(std::optional<std::int64_t> start = std::nullopt,  // NOLINT(google-explicit-constructor)
                  std::optional<std::int64_t> stop = std::nullopt, std::optional<std::int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step) {}
  /// The start, or None for "from the start".
  [[nodiscard]] constexpr std::optional<std::int64_t> start() const noexcept { return start_; }
  /// The stop (exclusive), or None for "to the end".
  [[nodiscard]] constexpr std::optional<std::int64_t> stop() const noexcept { return stop_; }
  /// The step (1 when left out).
  [[nodiscard]] constexpr std::int64_t step() const noexcept { return step_.value_or(1); }

 private:
  std::optional<std::int64_t> start_, stop_, step_;
};

/// One entry of an index (Note [Tensor indices]).
class WICK_API TensorIndex final {
 public:
  /// Which kind of entry this is.
  enum class Kind : std::uint8_t { kNone, kEllipsis, kInteger, kBoolean, kSlice, kTensor };

  /// None: a new dim of size 1.
  TensorIndex(std::nullopt_t) noexcept : kind_(Kind::kNone) {}                 // NOLINT(google-explicit-constructor)
  /// Ellipsis.
  TensorIndex(EllipsisIndexType) noexcept : kind_(Kind::kEllipsis) {}          // NOLINT(google-explicit-constructor)
  /// "..." as an entry, as libtorch takes it.
  TensorIndex(const char* text);                                                // NOLINT(google-explicit-constructor)
  /// An integer: selects one entry of the dim (negative from the end).
  TensorIndex(int i) noexcept : kind_(Kind::kInteger), integer_(i) {}          // NOLINT(google-explicit-constructor)
  /// An integer: selects one entry of the dim (negative from the end).
  TensorIndex(std::int64_t i) noexcept : kind_(Kind::kInteger), integer_(i) {}  // NOLINT(google-explicit-constructor)
  /// true or false: a new dim of size 1, kept (true) or emptied (false).
  TensorIndex(bool b) noexcept : kind_(Kind::kBoolean), integer_(b ? 1 : 0) {}   // NOLINT(google-explicit-constructor)
  /// A slice of the dim.
  TensorIndex(Slice s) noexcept : kind_(Kind::kSlice), slice_(s) {}            // NOLINT(google-explicit-constructor)
  /// An index tensor: int64 positions or a bool/uint8 mask (advanced indexing, a copy).
  TensorIndex(Tensor t) : kind_(Kind::kTensor), tensor_(std::move(t)) {}       // NOLINT(google-explicit-constructor)

  /// Which kind of entry this is.
  [[nodiscard]] Kind kind() const noexcept { return kind_; }
  /// The integer (kInteger; 1 or 0 for kBoolean).
  [[nodiscard]] std::int64_t integer() const noexcept { return integer_; }
  /// The bool (kBoolean).
  [[nodiscard]] bool boolean() const noexcept { return integer_ != 0; }
  /// The slice (kSlice; a full slice otherwise).
  [[nodiscard]] const Slice& slice() const noexcept { return slice_; }
  /// The tensor (kTensor; undefined otherwise).
  [[nodiscard]] const Tensor& tensor() const noexcept { return tensor_; }

 private:
  Kind kind_;
  std::int64_t integer_ = 0;
  Slice slice_;
  Tensor tensor_;
};

/// The basic part of an index applied to `self` (a view), and the tensor
/// entries that aten.index / index_put_ then take for that view's dims
/// (undefined for the dims they leave whole). Errors as Note [Tensor indices].
struct WICK_API Indexed {
  Tensor view; ///< The view after the basic entries (integers, slices, None, Ellipsis, bools).
  std::vector<std::optional<Tensor>> tensors; ///< One entry per dim of `view`: the index tensor for it, or std::nullopt.
};
/// Applies the basic entries of `indices` to `self` and collects the tensor entries (see Indexed); IndexError for too many indices, two ellipses or an out-of-range integer, ValueError for a step below 1.
[[nodiscard]] WICK_API Indexed apply_basic(const Tensor& self, ArrayRef<TensorIndex> indices);

}  // namespace wick::indexing
