// wick/scalar.h - a Python number: bool, int or float.
/// \file
/// `Scalar` carries a number with its Python type so that promotion can tell
/// `2` from `2.0` (`torch.add(int_tensor, 2.0)` is float).
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "wick/dtype.h"
#include "wick/export.h"

namespace wick {

class WICK_API Scalar final {
 public:
  enum class Kind : std::uint8_t { kBool, kInt, kDouble };

  constexpr Scalar() noexcept : kind_(Kind::kInt), i_(0) {}
  constexpr Scalar(bool v) noexcept : kind_(Kind::kBool), i_(v) {}  // NOLINT(implicit)
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  constexpr Scalar(T v) noexcept : kind_(Kind::kInt), i_(static_cast<std::int64_t>(v)) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  constexpr Scalar(T v) noexcept : kind_(Kind::kDouble), d_(static_cast<double>(v)) {}  // NOLINT

  [[nodiscard]] constexpr Kind kind() const noexcept { return kind_; }
  [[nodiscard]] constexpr bool is_bool() const noexcept { return kind_ == Kind::kBool; }
  [[nodiscard]] constexpr bool is_integral() const noexcept { return kind_ != Kind::kDouble; }
  [[nodiscard]] constexpr bool is_floating() const noexcept { return kind_ == Kind::kDouble; }
  /// The dtype a 0-dim tensor made from this number gets (bool, int64, float64).
  [[nodiscard]] constexpr ScalarType dtype() const noexcept {
    return kind_ == Kind::kBool ? ScalarType::kBool
           : kind_ == Kind::kInt ? ScalarType::kInt64 : ScalarType::kFloat64;
  }
  /// The number as T. A float converted to an integer type gives T's lowest
  /// value for NaN, the infinities and values out of T's range, as x86's
  /// conversion does (a plain C++ cast of those is undefined behaviour).
  template <typename T>
  [[nodiscard]] constexpr T to() const noexcept {
    if (kind_ != Kind::kDouble) return static_cast<T>(i_);
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      constexpr double kLow = static_cast<double>(std::numeric_limits<T>::min());  // -2**(bits-1): exact
      if (!(d_ >= kLow && d_ < -kLow)) return std::numeric_limits<T>::min();
    }
    return static_cast<T>(d_);
  }
  /// Python's repr of the number: "2", "2.5", "True".
  [[nodiscard]] std::string repr() const;

 private:
  Kind kind_;
  union {
    std::int64_t i_;
    double d_;
  };
};

}  // namespace wick
