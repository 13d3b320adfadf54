// wick/scalar.h - a Python number: bool, int, float or complex.
/// \file
/// `Scalar` carries a number with its Python type so that promotion can tell
/// `2` from `2.0` (`torch.add(int_tensor, 2.0)` is float) and `1j` from
/// both (`torch.add(float_tensor, 1j)` is complex64).
#pragma once

#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

#include "wick/dtype.h"
#include "wick/export.h"

namespace wick {

/// A Python number (bool, int, float or complex) as an operator argument, as c10::Scalar: int64, double or complex<double> storage, its kind kept. Default 0 (an int).
class WICK_API Scalar final {
 public:
  /// Which Python type the number is: bool, int, float (kDouble) or complex.
  enum class Kind : std::uint8_t { kBool, kInt, kDouble, kComplex };

  constexpr Scalar() noexcept : kind_(Kind::kInt), i_(0) {}
  /// A bool.
  constexpr Scalar(bool v) noexcept : kind_(Kind::kBool), i_(v) {}  // NOLINT(implicit)
  /// An integer of any C++ integral type (an int; widened to int64).
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  constexpr Scalar(T v) noexcept : kind_(Kind::kInt), i_(static_cast<std::int64_t>(v)) {}  // NOLINT
  /// A float or double (a Python float, widened to double).
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  constexpr Scalar(T v) noexcept : kind_(Kind::kDouble), d_(static_cast<double>(v)) {}  // NOLINT
  /// A 16-bit float (its value, exactly, as a float).
  constexpr Scalar(Half v) noexcept : kind_(Kind::kDouble), d_(static_cast<float>(v)) {}  // NOLINT(implicit)
  /// A bfloat16 (its value, exactly, as a float).
  constexpr Scalar(BFloat16 v) noexcept : kind_(Kind::kDouble), d_(static_cast<float>(v)) {}  // NOLINT(implicit)
  /// A complex number (widened to complex<double>).
  template <typename T>
  constexpr Scalar(std::complex<T> v) noexcept  // NOLINT(implicit)
      : kind_(Kind::kComplex), d_(static_cast<double>(v.real())), imag_(static_cast<double>(v.imag())) {}

  /// Which Python type the number is.
  [[nodiscard]] constexpr Kind kind() const noexcept { return kind_; }
  /// True for a bool.
  [[nodiscard]] constexpr bool is_bool() const noexcept { return kind_ == Kind::kBool; }
  /// True for an int or a bool (bools are integers, as in Python).
  [[nodiscard]] constexpr bool is_integral() const noexcept { return kind_ == Kind::kBool || kind_ == Kind::kInt; }
  /// True for a float.
  [[nodiscard]] constexpr bool is_floating() const noexcept { return kind_ == Kind::kDouble; }
  /// True for a complex number.
  [[nodiscard]] constexpr bool is_complex() const noexcept { return kind_ == Kind::kComplex; }
  /// The dtype a 0-dim tensor made from this number gets (bool, int64,
  /// float64, complex128).
  [[nodiscard]] constexpr ScalarType dtype() const noexcept {
    constexpr ScalarType kTypes[] = {ScalarType::kBool, ScalarType::kInt64, ScalarType::kFloat64,
                                     ScalarType::kComplex128};
    return kTypes[static_cast<int>(kind_)];
  }
  /// The number as T, converted as a tensor's elements are (`wick::convert`
  /// in wick/dtype.h): a float converted to an integer type gives x86's
  /// results for NaN, the infinities and values out of range (a plain C++
  /// cast of those is undefined behaviour); a complex number converted to a
  /// real type keeps its real part.
  template <typename T>
  [[nodiscard]] constexpr T to() const noexcept {
    switch (kind_) {
      case Kind::kBool: return convert<T>(i_ != 0);
      case Kind::kInt: return convert<T>(i_);
      case Kind::kDouble: return convert<T>(d_);
      case Kind::kComplex: break;
    }
    return convert<T>(std::complex<double>(d_, imag_));
  }
  /// Python's repr of the number: "2", "2.5", "True", "(1+2j)".
  [[nodiscard]] std::string repr() const;

 private:
  Kind kind_;
  union {
    std::int64_t i_;
    double d_;  // a complex number's real part
  };
  double imag_ = 0;
};

}  // namespace wick
