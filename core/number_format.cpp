// core/number_format.cpp - Python's format(number, spec): the format-specification mini-language.
/// \file
/// Note [Python's format spec]
/// python_format reproduces `format(x, spec)` for Python's bool, int and
/// float (Tensor.__format__ of a one-element tensor formats its item()):
///   [[fill]align][sign][z][#][0][width][grouping][.precision][type]
/// - align `<` `>` `^` `=` with any fill character (numbers align right by
///   default); `0` before the width pads with zeros after the sign;
/// - sign `+`, `-` (default) or ` `; `z` makes a negative zero positive;
/// - grouping `,` or `_` every three digits (every four for b, o, x);
/// - int types b, c, d, o, x, X, n (`#` adds 0b, 0o, 0x), and the float types,
///   to which an int converts; float types e, E, f, F, g, G, n, % and none:
///   repr without a precision, else `g` that keeps one digit after the point.
/// An empty spec is str(x) (a bool's is "True"). Python's ValueErrors, in its
/// words, for a code that does not apply or a spec that does not parse.
/// Divergence: widths and precisions above a million are a ValueError.
/// Complex numbers format each part, as Python's complex.__format__ does.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/number_repr.h"
#include "wick/error.h"
#include "wick/scalar.h"
#include "wick/value.h"

namespace wick {
namespace {

struct Spec {
  char fill = ' ';
  char align = 0;  // 0: the default (right for numbers)
  char sign = '-';
  bool z = false;
  bool alternate = false;
  bool zero = false;
  std::size_t width = 0;
  char grouping = 0;
  int precision = -1;
  char type = 0;
  bool complex_part = false;  // a part of a complex number: no ".0" added without a type
};

bool is_align(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

// A width or a precision. wick caps both at a million, so that a spec cannot
// ask for gigabytes of padding (Python would try to allocate them).
std::size_t digits(std::string_view s, std::size_t& i) {
  constexpr std::size_t kMax = 1000000;
  std::size_t n = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) != 0) {
    n = n * 10 + static_cast<std::size_t>(s[i++] - '0');
    WICK_CHECK(n <= kMax, ValueError, "wick caps format widths and precisions at ", kMax, " (format spec '", s, "')");
  }
  return n;
}

Spec parse(std::string_view s) {
  Spec p;
  std::size_t i = 0;
  if (s.size() >= 2 && is_align(s[1])) {
    p.fill = s[0];
    p.align = s[1];
    i = 2;
  } else if (!s.empty() && is_align(s[0])) {
    p.align = s[0];
    i = 1;
  }
  if (i < s.size() && (s[i] == '+' || s[i] == '-' || s[i] == ' ')) p.sign = s[i++];
  if (i < s.size() && s[i] == 'z') {
    p.z = true;
    ++i;
  }
  if (i < s.size() && s[i] == '#') {
    p.alternate = true;
    ++i;
  }
  if (i < s.size() && s[i] == '0') {
    p.zero = true;
    ++i;
  }
  p.width = digits(s, i);
  if (i < s.size() && (s[i] == ',' || s[i] == '_')) p.grouping = s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    const std::size_t start = i;
    p.precision = static_cast<int>(digits(s, i));
    WICK_CHECK(i > start, ValueError, "Format specifier missing precision");
  }
  if (i < s.size()) p.type = s[i++];
  WICK_CHECK(i == s.size(), ValueError, "Invalid format specifier");
  if (p.grouping != 0 && p.type != 0) {
    const std::string_view refused = p.grouping == ',' ? "bcoxXn" : "cn";
    WICK_CHECK(refused.find(p.type) == std::string_view::npos, ValueError, "Cannot specify '", p.grouping, "' with '",
               p.type, "'.");
  }
  if (p.zero && p.align == 0) {
    p.fill = '0';
    p.align = '=';
  }
  return p;
}

// A run of digits with a separator every `every` of them, from the right.
std::string grouped(const std::string& run, char sep, std::size_t every) {
  std::string out;
  for (std::size_t k = 0; k < run.size(); ++k) {
    if (k > 0 && (run.size() - k) % every == 0) out += sep;
    out += run[k];
  }
  return out;
}

// The width of the sign padded() writes.
std::size_t sign_width(const Spec& p, bool negative) { return negative || p.sign == '+' || p.sign == ' ' ? 1 : 0; }

// Integer digits with separators every `every`, then `rest` (a fraction). With
// the `0` flag the zeros of the padding are digits too, and are grouped, as
// Python's are: format(3, '08,d') is '0,000,003'.
std::string grouped_digits(std::string digits, const std::string& rest, const Spec& p, std::size_t other,
                           std::size_t every) {
  std::string out = grouped(digits, p.grouping, every);
  if (p.fill == '0' && p.align == '=') {
    while (other + out.size() + rest.size() < p.width) {
      digits.insert(digits.begin(), '0');
      out = grouped(digits, p.grouping, every);
    }
  }
  return out + rest;
}

// The sign, the prefix (0x) and the digits padded to the width.
std::string padded(const Spec& p, bool negative, const std::string& prefix, const std::string& body) {
  std::string sign;
  if (negative) {
    sign = "-";
  } else if (p.sign == '+') {
    sign = "+";
  } else if (p.sign == ' ') {
    sign = " ";
  }
  const std::size_t length = sign.size() + prefix.size() + body.size();
  const std::size_t pad = p.width > length ? p.width - length : 0;
  const std::string fill(pad, p.fill);
  switch (p.align) {
    case '<':
      return sign + prefix + body + fill;
    case '^':
      return std::string(pad / 2, p.fill) + sign + prefix + body + std::string(pad - pad / 2, p.fill);
    case '=':
      return sign + prefix + fill + body;
    default:
      return fill + sign + prefix + body;
  }
}

std::string format_int(std::int64_t v, const Spec& p) {
  WICK_CHECK(p.precision < 0, ValueError, "Precision not allowed in integer format specifier");
  WICK_CHECK(!p.z, ValueError, "Negative zero coercion (z) not allowed in integer format specifier");
  const bool negative = v < 0;
  const std::uint64_t magnitude = negative ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
  int base = 10;
  const char* prefix = "";
  switch (p.type) {
    case 'b':
      base = 2;
      prefix = "0b";
      break;
    case 'o':
      base = 8;
      prefix = "0o";
      break;
    case 'x':
    case 'X':
      base = 16;
      prefix = p.type == 'x' ? "0x" : "0X";
      break;
    case 'c': {
      WICK_CHECK(p.sign == '-', ValueError, "Sign not allowed with integer format specifier 'c'");
      WICK_CHECK(v >= 0 && v < 128, OverflowError, "%c arg not in range(0x80) (wick formats ASCII only)");
      return padded(p, false, "", std::string(1, static_cast<char>(v)));
    }
    default:
      break;
  }
  std::string body;
  std::uint64_t m = magnitude;
  do {
    const int d = static_cast<int>(m % static_cast<std::uint64_t>(base));
    body.insert(body.begin(), static_cast<char>(d < 10 ? '0' + d : (p.type == 'X' ? 'A' : 'a') + d - 10));
    m /= static_cast<std::uint64_t>(base);
  } while (m != 0);
  const std::string shown_prefix = p.alternate ? prefix : "";
  if (p.grouping != 0) {
    body = grouped_digits(body, "", p, sign_width(p, negative) + shown_prefix.size(), base == 10 ? 3 : 4);
  }
  return padded(p, negative, shown_prefix, body);
}

std::string printed(const char* format, int precision, double v) {
  char buf[512];
  const int n = std::snprintf(buf, sizeof buf, format, precision, v);
  if (n >= 0 && static_cast<std::size_t>(n) < sizeof buf) return std::string(buf, static_cast<std::size_t>(n));
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), format, precision, v);
  big.pop_back();
  return big;
}

// The float format without a type code and with precision `digits`: `g`,
// except that the exponent form starts at exp >= digits - 1 and that the
// positional form keeps a digit after the point ("3.0", "1e+16").
std::string python_general(double a, int digits, bool alternate, bool add_dot_zero) {
  const std::string sci = printed("%.*e", digits - 1, a);
  const std::size_t e_at = sci.find('e');
  const int exponent = std::atoi(sci.c_str() + e_at + 1);
  const auto trimmed = [alternate](std::string text) {
    if (alternate || text.find('.') == std::string::npos) return text;
    while (text.back() == '0') text.pop_back();
    return text;
  };
  if (exponent >= -4 && exponent < digits - 1) {
    std::string fixed = trimmed(printed("%.*f", std::max(digits - 1 - exponent, 0), a));
    if (!add_dot_zero) {
      if (!alternate && fixed.back() == '.') fixed.pop_back();
      return fixed;
    }
    if (fixed.back() == '.') fixed += '0';
    if (fixed.find('.') == std::string::npos) fixed += ".0";
    return fixed;
  }
  std::string mantissa = trimmed(sci.substr(0, e_at));
  if (!alternate && mantissa.back() == '.') mantissa.pop_back();
  return mantissa + sci.substr(e_at);
}

std::string format_float(double v, const Spec& p) {
  const bool nonfinite = !std::isfinite(v);
  bool negative = std::signbit(v) && !std::isnan(v);
  double a = std::fabs(v);
  std::string body;
  char type = p.type;
  if (nonfinite) {
    body = std::isnan(v) ? "nan" : "inf";
    if (type == 'E' || type == 'F' || type == 'G') body = std::isnan(v) ? "NAN" : "INF";
    if (type == '%') body += '%';
  } else if (type == 0 && p.precision < 0) {
    body = python_float_repr(a);
  } else {
    const int precision = p.precision < 0 ? 6 : p.precision;
    const std::string alt = p.alternate ? "#" : "";
    switch (type) {
      case 'e':
      case 'E':
        body = printed(("%" + alt + ".*" + std::string(1, type)).c_str(), precision, a);
        break;
      case 'f':
      case 'F':
        body = printed(("%" + alt + ".*f").c_str(), precision, a);
        break;
      case '%':
        body = printed(("%" + alt + ".*f").c_str(), precision, a * 100) + "%";
        break;
      case 'g':
      case 'G':
      case 'n':
        body = printed(("%" + alt + ".*" + std::string(1, type == 'G' ? 'G' : 'g')).c_str(),
                       precision == 0 ? 1 : precision, a);
        break;
      default:  // none, with a precision
        body = python_general(a, precision == 0 ? 1 : precision, p.alternate, !p.complex_part);
        break;
    }
  }
  // z: a value that rounds to zero prints without its sign.
  if (p.z && negative && !nonfinite && body.find_first_of("123456789") == std::string::npos) negative = false;
  if (p.grouping != 0 && !nonfinite) {
    const std::size_t point = body.find_first_of(".eE%");
    body = grouped_digits(body.substr(0, point), point == std::string::npos ? "" : body.substr(point), p,
                          sign_width(p, negative), 3);
  }
  return padded(p, negative, "", body);
}

// Python's complex format: each part in the spec's type and precision, the
// imaginary one always signed, then "j"; without a type, repr's parts (or g's
// with a precision) in parentheses, and no real part when it is +0.
std::string format_complex(double re, double im, const Spec& p) {
  WICK_CHECK(p.type != '%', ValueError, "Unknown format code '%' for object of type 'complex'");
  WICK_CHECK(p.align != '=', ValueError,
             p.fill == '0' ? "Zero padding is not allowed in complex format specifier"
                           : "'=' alignment flag is not allowed in complex format specifier");
  Spec whole = p;
  whole.sign = '-';
  if (p.type == 0 && p.precision < 0) return padded(whole, false, "", python_complex_repr(re, im));  // repr's parts
  Spec part = p;
  part.width = 0;
  part.align = 0;
  part.fill = ' ';
  part.complex_part = true;
  const bool bare = p.type == 0;
  const bool skip_real = bare && re == 0.0 && !std::signbit(re);
  Spec imaginary = part;
  if (!skip_real) imaginary.sign = '+';
  std::string text = (skip_real ? "" : format_float(re, part)) + format_float(im, imaginary) + "j";
  if (bare && !skip_real) text = "(" + text + ")";
  return padded(whole, false, "", text);
}

}  // namespace

std::string python_format(const Scalar& x, std::string_view spec) {
  if (spec.empty()) {
    if (x.is_bool()) return x.to<bool>() ? "True" : "False";
    return x.repr();
  }
  const Spec p = parse(spec);
  if (x.is_complex()) {
    const auto z = x.to<std::complex<double>>();
    return format_complex(z.real(), z.imag(), p);
  }
  const bool floating = x.is_floating();
  constexpr std::string_view kIntTypes = "bcdoxXn";
  constexpr std::string_view kFloatTypes = "eEfFgGn%";
  const char* type_name = floating ? "float" : x.is_bool() ? "bool" : "int";
  if (p.type != 0) {
    const bool known = floating ? kFloatTypes.find(p.type) != std::string_view::npos
                                : (kIntTypes.find(p.type) != std::string_view::npos ||
                                   kFloatTypes.find(p.type) != std::string_view::npos);
    WICK_CHECK(known, ValueError, "Unknown format code '", p.type, "' for object of type '", type_name, "'");
  }
  if (floating) return format_float(x.to<double>(), p);
  if (p.type != 0 && kFloatTypes.find(p.type) != std::string_view::npos && p.type != 'n')
    return format_float(static_cast<double>(x.to<std::int64_t>()), p);
  return format_int(x.to<std::int64_t>(), p);
}

}  // namespace wick
