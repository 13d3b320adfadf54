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

template <typename T>
class ArrayRef final {
 public:
  constexpr ArrayRef() noexcept = default;
  constexpr ArrayRef(const T& one) noexcept : data_(&one), size_(1) {}  // NOLINT(implicit)
  constexpr ArrayRef(const T* data, std::size_t size) noexcept : data_(data), size_(size) {}
  template <std::size_t N>
  constexpr ArrayRef(const T (&array)[N]) noexcept : data_(array), size_(N) {}  // NOLINT(implicit)
  ArrayRef(const std::vector<T>& v) noexcept : data_(v.data()), size_(v.size()) {}  // NOLINT
  // The list must outlive the ArrayRef: fine for call arguments. std::data,
  // not il.begin(): GCC 12 warns on the latter (-Winit-list-lifetime), and a
  // pragma cannot silence it through a precompiled header (GCC bug 64117).
  constexpr ArrayRef(std::initializer_list<T> il) noexcept  // NOLINT(implicit)
      : data_(std::data(il)), size_(il.size()) {}

  [[nodiscard]] constexpr const T* data() const noexcept { return data_; }
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }
  [[nodiscard]] constexpr bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] constexpr const T* begin() const noexcept { return data_; }
  [[nodiscard]] constexpr const T* end() const noexcept { return data_ + size_; }
  [[nodiscard]] constexpr const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  [[nodiscard]] constexpr const T& back() const noexcept { return data_[size_ - 1]; }
  [[nodiscard]] std::vector<T> vec() const { return std::vector<T>(begin(), end()); }
  [[nodiscard]] bool equals(ArrayRef other) const noexcept {
    if (size_ != other.size_) return false;
    for (std::size_t i = 0; i < size_; ++i)
      if (!(data_[i] == other.data_[i])) return false;
    return true;
  }
  friend bool operator==(ArrayRef a, ArrayRef b) noexcept { return a.equals(b); }

 private:
  const T* data_ = nullptr;
  std::size_t size_ = 0;
};

using IntArrayRef = ArrayRef<std::int64_t>;

/// An optional list of ints, as the typed API takes `int[]?` arguments:
/// None (std::nullopt, the default), a list (braced, std::vector,
/// IntArrayRef), or a single int standing for a one-element list. A single
/// int is kept inside, so `x.sum(0)` never points at a dead temporary (a
/// `std::optional<IntArrayRef>` made from an int would).
class OptionalIntArrayRef final {
 public:
  constexpr OptionalIntArrayRef() noexcept = default;
  constexpr OptionalIntArrayRef(std::nullopt_t) noexcept {}  // NOLINT(implicit)
  constexpr OptionalIntArrayRef(IntArrayRef list) noexcept : has_(true), list_(list) {}  // NOLINT(implicit)
  OptionalIntArrayRef(const std::vector<std::int64_t>& list) noexcept : has_(true), list_(list) {}  // NOLINT
  constexpr OptionalIntArrayRef(std::initializer_list<std::int64_t> list) noexcept  // NOLINT(implicit)
      : has_(true), list_(list) {}
  template <typename I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  constexpr OptionalIntArrayRef(I one) noexcept  // NOLINT(implicit)
      : has_(true), single_(true), one_(static_cast<std::int64_t>(one)) {}
  constexpr OptionalIntArrayRef(const std::optional<IntArrayRef>& o) noexcept  // NOLINT(implicit)
      : has_(o.has_value()), list_(o.value_or(IntArrayRef())) {}

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
