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
  ExpandingArray(std::int64_t v) : scalar_(true) { values_.fill(v); }  // NOLINT(implicit)
  ExpandingArray(std::initializer_list<std::int64_t> list) {            // NOLINT(implicit)
    WICK_CHECK(list.size() == D, ValueError, "expected ", D, " values but got ", list.size());
    std::size_t i = 0;
    for (std::int64_t v : list) values_[i++] = v;
  }
  ExpandingArray(const std::array<std::int64_t, D>& values) : values_(values) {}  // NOLINT(implicit)
  ExpandingArray(const std::vector<std::int64_t>& values) {                        // NOLINT(implicit)
    WICK_CHECK(values.size() == D, ValueError, "expected ", D, " values but got ", values.size());
    for (std::size_t i = 0; i < D; ++i) values_[i] = values[i];
  }
  operator IntArrayRef() const noexcept { return IntArrayRef(values_.data(), D); }  // NOLINT(implicit)
  [[nodiscard]] IntArrayRef ref() const noexcept { return IntArrayRef(values_.data(), D); }
  [[nodiscard]] std::int64_t operator[](std::size_t i) const { return values_.at(i); }
  [[nodiscard]] static constexpr std::size_t size() noexcept { return D; }
  /// Given as one integer.
  [[nodiscard]] bool is_scalar() const noexcept { return scalar_; }
  [[nodiscard]] std::vector<std::int64_t> vec() const { return {values_.begin(), values_.end()}; }
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
  ExpandingArrayWithOptionalElem(std::int64_t v) : scalar_(true) { values_.fill(v); }  // NOLINT(implicit)
  ExpandingArrayWithOptionalElem(std::initializer_list<std::optional<std::int64_t>> list) {  // NOLINT(implicit)
    WICK_CHECK(list.size() == D, ValueError, "expected ", D, " values but got ", list.size());
    std::size_t i = 0;
    for (const auto& v : list) values_[i++] = v;
  }
  [[nodiscard]] const std::optional<std::int64_t>& operator[](std::size_t i) const { return values_.at(i); }
  [[nodiscard]] static constexpr std::size_t size() noexcept { return D; }
  [[nodiscard]] bool is_scalar() const noexcept { return scalar_; }

 private:
  std::array<std::optional<std::int64_t>, D> values_{};
  bool scalar_ = false;
};

/// Conv padding: D integers (as ExpandingArray) or "same" / "valid".
template <std::size_t D>
class ConvPadding {
 public:
  template <class I>
    requires std::is_integral_v<I>
  ConvPadding(I v) : values_(static_cast<std::int64_t>(v)) {}  // NOLINT(implicit)
  ConvPadding(std::initializer_list<std::int64_t> list) : values_(list) {}    // NOLINT(implicit)
  ConvPadding(const ExpandingArray<D>& values) : values_(values) {}           // NOLINT(implicit)
  ConvPadding(const char* mode) : values_(0), mode_(mode) {}                  // NOLINT(implicit)
  ConvPadding(std::string mode) : values_(0), mode_(std::move(mode)) {}       // NOLINT(implicit)
  /// "" when given as integers, else "same" or "valid" (checked by the module).
  [[nodiscard]] const std::string& mode() const noexcept { return mode_; }
  [[nodiscard]] const ExpandingArray<D>& values() const noexcept { return values_; }

 private:
  ExpandingArray<D> values_;
  std::string mode_;
};

}  // namespace wick::nn
