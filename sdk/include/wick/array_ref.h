// wick/array_ref.h - a non-owning view of a contiguous array.
/// \file
/// `IntArrayRef` is what operators take for sizes, dims and strides: it binds
/// to a `std::vector`, a braced list (`{2, 3}`), a single value, or a
/// `DimVector`, without copying.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <optional>
#include <type_traits>
#include <vector>

namespace wick {

/// A non-owning view of `size()` contiguous T's (as c10::ArrayRef): cheap to copy, valid only while the viewed storage lives. Indexing is not checked.
template <typename T>
class ArrayRef final {
 public:
  constexpr ArrayRef() noexcept = default;
  /// A view of the single element `one`.
  constexpr ArrayRef(const T& one) noexcept : data_(&one), size_(1) {}  // NOLINT(implicit)
  /// A view of `size` elements from `data`.
  constexpr ArrayRef(const T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  /// A view of a C array.
  template <std::size_t N>
  constexpr ArrayRef(const T (&array)[N]) noexcept : data_(array), size_(N) {}  // NOLINT(implicit)
  /// A view of a vector's elements (valid until the vector changes).
  ArrayRef(const std::vector<T>& v) noexcept : data_(v.data()), size_(v.size()) {}  // NOLINT
  // The list must outlive the ArrayRef: fine for call arguments. std::data,
  // not il.begin(): GCC 12 warns on the latter (-Winit-list-lifetime), and a
  // pragma cannot silence it through a precompiled header (GCC bug 64117).
  /// A view of a braced list's elements.
  constexpr ArrayRef(std::initializer_list<T> il) noexcept  // NOLINT(implicit)
      : data_(std::data(il)), size_(il.size()) {}

  /// Address of the first element (nullptr for a default-constructed view).
  [[nodiscard]] constexpr const T* data() const noexcept { return data_; }
  /// Number of elements.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  /// True when there are no elements.
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  /// Iterator to the first element.
  [[nodiscard]] constexpr const T* begin() const noexcept { return data_; }
  /// Iterator past the last element.
  [[nodiscard]] constexpr const T* end() const noexcept { return data_ + size_; }
  /// Element `i` (not checked).
  [[nodiscard]] constexpr const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  /// The last element (the view must not be empty).
  [[nodiscard]] constexpr const T& back() const noexcept { return data_[size_ - 1]; }
  /// A copy of the elements.
  [[nodiscard]] std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  /// True when both have the same size and equal elements.
  [[nodiscard]] bool equals(ArrayRef other) const noexcept {
    if (size_ != other.size_) return false;
    for (std::size_t i = 0; i < size_; ++i)
      if (!(data_[i] == other.data_[i])) return false;
    return true;
  }
  /// Same as a.equals(b).
  friend bool operator==(ArrayRef a, ArrayRef b) noexcept { return a.equals(b); }

 private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A view of int64 values: sizes, strides, dims.
using IntArrayRef = ArrayRef<std::int64_t>;

/// An optional list of ints, as the typed API takes `int[]?` arguments:
/// None (std::nullopt, the default), a list (braced, std::vector,
/// IntArrayRef), or a single int standing for a one-element list. A single
/// int is kept inside, so `x.sum(0)` never points at a dead temporary (a
/// `std::optional<IntArrayRef>` made from an int would).
class OptionalIntArrayRef final {
 public:
  constexpr OptionalIntArrayRef() noexcept = default;
  /// None.
  constexpr OptionalIntArrayRef(std::nullopt_t) noexcept {}  // NOLINT(implicit)
  /// The list `list` (viewed, not copied).
  constexpr OptionalIntArrayRef(IntArrayRef list) noexcept : has_(true), list_(list) {}  // NOLINT(implicit)
  /// The vector's elements (viewed: the vector must outlive this object).
  OptionalIntArrayRef(const std::vector<std::int64_t>& list) noexcept : has_(true), list_(list) {}  // NOLINT
  /// A braced list (viewed: fine for call arguments).
  constexpr OptionalIntArrayRef(std::initializer_list<std::int64_t> list) noexcept  // NOLINT(implicit)
      : has_(true), list_(list) {}
  /// A single int, kept inside: a one-element list.
  template <typename I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  constexpr OptionalIntArrayRef(I one) noexcept  // NOLINT(implicit)
      : has_(true), single_(true), one_(static_cast<std::int64_t>(one)) {}
  /// None when `o` is empty, else its list (viewed).
  constexpr OptionalIntArrayRef(const std::optional<IntArrayRef>& o) noexcept  // NOLINT(implicit)
      : has_(o.has_value()), list_(o.value_or(IntArrayRef())) {}

  /// False for None.
  [[nodiscard]] constexpr bool has_value() const noexcept { return has_; }
  /// The list (empty when None); valid while this object lives.
  [[nodiscard]] constexpr IntArrayRef value() const noexcept { return single_ ? IntArrayRef(&one_, 1) : list_; }
  /// As the kernels take it.
  [[nodiscard]] constexpr std::optional<IntArrayRef> get() const noexcept {
    return has_ ? std::optional<IntArrayRef>(value()) : std::nullopt;
  }

 private:
  bool has_ = false;
  bool single_ = false;
  std::int64_t one_ = 0;
  IntArrayRef list_;
};

}  // namespace wick
