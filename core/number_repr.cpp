// core/number_repr.cpp - Python's repr of numbers (float, int, bool), and int() of a float.
/// \file
/// `python_float_repr` and `Scalar::repr` reproduce Python's `repr(float)`,
/// `repr(int)` and `repr(bool)`: the shortest digits that round-trip, in
/// positional form for 1e-4 <= |v| < 1e16 and exponent form otherwise.
#include "core/number_repr.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "wick/error.h"
#include "wick/scalar.h"
#include "wick/value.h"

namespace wick {

bool format_nonfinite(double v, std::string& out) {
  if (std::isnan(v)) {
    out = "nan";
    return true;
  }
  if (std::isinf(v)) {
    out = v > 0 ? "inf" : "-inf";
    return true;
  }
  return false;
}

std::int64_t python_int(double v) {
  WICK_CHECK(!std::isnan(v), ValueError, "cannot convert float NaN to integer");
  WICK_CHECK(!std::isinf(v), OverflowError, "cannot convert float infinity to integer");
  const double t = std::trunc(v);
  WICK_CHECK(t >= -0x1p63 && t < 0x1p63, OverflowError, "int(", python_float_repr(v),
             ") does not fit in 64 bits (wick ints are int64)");
  return static_cast<std::int64_t>(t);
}

std::string python_float_repr(double v) {
  std::string out;
  if (format_nonfinite(v, out)) return out;

  // Shortest round-trip digits, as "d[.ddd]e[+-]XX".
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  WICK_INTERNAL_ASSERT(res.ec == std::errc(), "to_chars failed");
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  if (sci.front() == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const std::size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const std::string_view exp_text = sci.substr(e + 1);
  int exp = std::atoi(std::string(exp_text[0] == '+' ? exp_text.substr(1) : exp_text).c_str());

  // Python switches to exponent form outside 1e-4 <= |v| < 1e16.
  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += exp < 0 ? "e-" : "e+";
    const int mag = std::abs(exp);
    if (mag < 10) out += '0';
    out += std::to_string(mag);
  } else if (exp >= 0) {
    const auto int_digits = static_cast<std::size_t>(exp) + 1;
    if (digits.size() <= int_digits) {
      out += digits;
      out.append(int_digits - digits.size(), '0');
      out += ".0";
    } else {
      out.append(digits, 0, int_digits);
      out += '.';
      out.append(digits, int_digits);
    }
  } else {
    out += "0.";
    out.append(static_cast<std::size_t>(-exp - 1), '0');
    out += digits;
  }
  return out;
}

std::string Scalar::repr() const {
  switch (kind_) {
    case Kind::kBool:
      return i_ ? "True" : "False";
    case Kind::kInt:
      return std::to_string(i_);
    case Kind::kDouble:
      return python_float_repr(d_);
    case Kind::kComplex:
      return python_complex_repr(d_, imag_);
  }
  return {};
}

std::string python_complex_repr(double real, double imag) {
  // Python writes each part as repr(float) without a trailing ".0"; a real
  // part of +0 is left out along with the parentheses.
  auto part = [](double v) {
    std::string s = python_float_repr(v);
    if (s.ends_with(".0")) s.resize(s.size() - 2);
    return s;
  };
  std::string im = part(imag);
  if (real == 0 && !std::signbit(real)) return im + "j";
  if (!im.starts_with('-')) im.insert(0, "+");
  return "(" + part(real) + im + "j)";
}

}  // namespace wick
