// wick/nn_options.h - what the built-in modules' options are made of: WICK_ARG and ExpandingArray.
/// \file
/// Every built-in module `X` takes an `XOptions` whose fields are set by
/// chained setters named as in libtorch:
///
///   auto opts = nn::Conv2dOptions(3, 8, 3).stride(2).padding("same").bias(false);
///   opts.stride();                               // read back: {2, 2}
///
/// WICK_ARG(type, name) declares such a field: a setter `name(value)`
/// returning the options, and a getter `name()`.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "wick/array_ref.h"
#include "wick/error.h"
#include "wick/export.h"

/// A chainable option field `name_` of type `type`: `opts.name(v)` sets it
/// and returns the options, `opts.name()` reads it. Leaves the class in
/// `private:`; write `WICK_ARG(bool, bias) = true;` for a default.
#define WICK_ARG(type, name)                          \
 public:                                              \
  auto& name(const type& new_##name) {                \
    this->name##_ = new_##name;                       \
    return *this;                                     \
  }                                                   \
  [[nodiscard]] const type& name() const noexcept {   \
    return this->name##_;                             \
  }                                                   \
  [[nodiscard]] type& name() noexcept {               \
    return this->name##_;                             \
  }                                                   \
                                                      \
 private:                                             \
  type name##_  // NOLINT(bugprone-macro-parentheses)

namespace wick::nn {

/// D integers given as one (repeated D times: `3` is (3, 3) for D = 2) or as
/// a braced list of exactly D (`{3, 5}`); ValueError "expected 2 values but
/// got 3" otherwise. Remembers which, since some modules print what was
/// given (MaxPool2d(kernel_size=2, ...)).
template <std::size_t D>
class ExpandingArray {
 public:
  /// `v` in every one of the D places (printed as one integer).
  ExpandingArray(std::int64_t v) : scalar_(true) { values_.fill(v); }  // NOLINT(implicit)
  /// Exactly D values; ValueError "expected D values but got N" for another count.
  ExpandingArray(std::initializer_list<std::int64_t> list) {            // NOLINT(implicit)
    WICK_CHECK(list.size() == D, ValueError, "expected ", D, " values but got ", list.size());
    std::size_t i = 0;
    for (std::int64_t v : list) values_[i++] = v;
  }
  /// The D values of an array, as given.
  ExpandingArray(const std::array<std::int64_t, D>& values) : values_(values) {}  // NOLINT(implicit)
  /// Exactly D values; ValueError "expected D values but got N" for another count.
  ExpandingArray(const std::vector<std::int64_t>& values) {                        // NOLINT(implicit)
    WICK_CHECK(values.size() == D, ValueError, "expected ", D, " values but got ", values.size());
    for (std::size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  /// The D values as an IntArrayRef viewing this object (valid while it lives).
  operator IntArrayRef() const noexcept { return IntArrayRef(values_.data(), D); }  // NOLINT(implicit)
  /// The D values as an IntArrayRef viewing this object (valid while it lives).
  [[nodiscard]] IntArrayRef ref() const noexcept { return IntArrayRef(values_.data(), D); }
  /// Value `i`; std::out_of_range when i >= D.
  [[nodiscard]] std::int64_t operator[](std::size_t i) const { return values_.at(i); }
  /// D, the number of values.
  [[nodiscard]] static constexpr std::size_t size() noexcept { return D; }
  /// Given as one integer.
  [[nodiscard]] bool is_scalar() const noexcept { return scalar_; }
  /// The D values, copied into a vector.
  [[nodiscard]] std::vector<std::int64_t> vec() const { return {values_.begin(), values_.end()}; }
  /// Equal when the values are (whether given as one integer or as a list does not matter).
  friend bool operator==(const ExpandingArray& a, const ExpandingArray& b) { return a.values_ == b.values_; }

 private:
  std::array<std::int64_t, D> values_{};
  bool scalar_ = false;
};

/// An ExpandingArray whose entries may be None (AdaptiveAvgPool2d's
/// output_size {2, std::nullopt}: the input's size there).
template <std::size_t D>
class ExpandingArrayWithOptionalElem {
 public:
  /// `v` in every one of the D places (printed as one integer).
  ExpandingArrayWithOptionalElem(std::int64_t v) : scalar_(true) { values_.fill(v); }  // NOLINT(implicit)
  /// Exactly D values, each an integer or std::nullopt (None); ValueError "expected D values but got N" for another
  /// count.
  ExpandingArrayWithOptionalElem(std::initializer_list<std::optional<std::int64_t>> list) {  // NOLINT(implicit)
    WICK_CHECK(list.size() == D, ValueError, "expected ", D, " values but got ", list.size());
    std::size_t i = 0;
    for (const auto& v : list) values_[i++] = v;
  }
  /// Value `i`, std::nullopt for None; std::out_of_range when i >= D.
  [[nodiscard]] const std::optional<std::int64_t>& operator[](std::size_t i) const { return values_.at(i); }
  /// D, the number of values.
  [[nodiscard]] static constexpr std::size_t size() noexcept { return D; }
  /// Given as one integer.
  [[nodiscard]] bool is_scalar() const noexcept { return scalar_; }

 private:
  std::array<std::optional<std::int64_t>, D> values_{};
  bool scalar_ = false;
};

/// Conv padding: D integers (as ExpandingArray) or "same" / "valid".
template <std::size_t D>
class ConvPadding {
 public:
  /// The same integer for every one of the D dims.
  template <class I>
    requires std::is_integral_v<I>
  ConvPadding(I v) : values_(static_cast<std::int64_t>(v)) {}  // NOLINT(implicit)
  /// Exactly D integers; ValueError "expected D values but got N" for another count.
  ConvPadding(std::initializer_list<std::int64_t> list) : values_(list) {}    // NOLINT(implicit)
  /// D integers as an ExpandingArray.
  ConvPadding(const ExpandingArray<D>& values) : values_(values) {}           // NOLINT(implicit)
  /// "same" or "valid" (any other text is a ValueError from the module's constructor).
  ConvPadding(const char* mode) : values_(0), mode_(mode) {}                  // NOLINT(implicit)
  /// "same" or "valid" (any other text is a ValueError from the module's constructor).
  ConvPadding(std::string mode) : values_(0), mode_(std::move(mode)) {}       // NOLINT(implicit)
  /// "" when given as integers, else "same" or "valid" (checked by the module).
  [[nodiscard]] const std::string& mode() const noexcept { return mode_; }
  /// The D integers; all 0 when given as a mode.
  [[nodiscard]] const ExpandingArray<D>& values() const noexcept { return values_; }

 private:
  ExpandingArray<D> values_;
  std::string mode_;
};

}  // namespace wick::nn
