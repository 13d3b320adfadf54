// tools/wick/eval_number.cpp - Python-number arithmetic and conversions for `wick eval`.
/// \file
/// What Python does with bools, ints, floats and complex numbers, with one
/// difference: ints are 64-bit, so a result outside int64 is an
/// OverflowError instead of a bigger int.
#include "eval_internal.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <system_error>

#include "wick/dispatcher.h"
#include "wick/error.h"
#include "wick/override.h"
#include "wick/scalar_ops.h"
#include "wick/subscript.h"
#include "wick/tensor.h"

namespace wick::eval {
namespace {

constexpr double kTwo63 = 9223372036854775808.0;  // 2**63, exact in a double

[[noreturn]] void int_overflow(const Value& l, std::string_view op, const Value& r) {
  throw OverflowError(detail::str_cat("integer result of ", l.repr(), " ", op, " ", r.repr(),
                                      " does not fit in 64 bits (wick ints are int64)"));
}

std::int64_t int_pow(const Value& lv, const Value& rv) {
  std::int64_t base = lv.to_int();
  std::int64_t exp = rv.to_int();
  std::int64_t result = 1;
  while (exp != 0) {
    if ((exp & 1) != 0 && __builtin_mul_overflow(result, base, &result)) int_overflow(lv, "**", rv);
    exp >>= 1;
    // |base| >= 2 squared past int64 means the result overflows too.
    if (exp != 0 && __builtin_mul_overflow(base, base, &base)) int_overflow(lv, "**", rv);
  }
  return result;
}

double float_pow(double l, double r) {
  if (l == 0.0 && r < 0.0) throw ZeroDivisionError("0.0 cannot be raised to a negative power");
  const bool finite = std::isfinite(l) && std::isfinite(r);
  if (finite && l < 0.0 && r != std::trunc(r)) {
    throw ValueError(detail::str_cat("a negative number cannot be raised to a fractional power (", python_float_repr(l),
                                     " ** ", python_float_repr(r), " is complex: write the base as a complex number)"));
  }
  const double out = std::pow(l, r);
  if (finite && std::isinf(out)) throw OverflowError("(34, 'Numerical result out of range')");
  return out;
}

/// -1, 0, 1, or 2 when unordered (a NaN); ints and floats compare exactly.
int compare_int_double(std::int64_t i, double d) noexcept {
  if (std::isnan(d)) return 2;
  if (d >= kTwo63) return -1;
  if (d < -kTwo63) return 1;
  const double t = std::trunc(d);
  const auto ti = static_cast<std::int64_t>(t);
  if (i != ti) return i < ti ? -1 : 1;
  const double frac = d - t;
  return frac > 0.0 ? -1 : frac < 0.0 ? 1 : 0;
}

int compare_numbers(const Value& l, const Value& r) noexcept {
  if (!l.is_double() && !r.is_double()) {
    const std::int64_t a = l.to_int();
    const std::int64_t b = r.to_int();
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (l.is_double() && r.is_double()) {
    const double a = l.to_double();
    const double b = r.to_double();
    if (std::isnan(a) || std::isnan(b)) return 2;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (l.is_double()) {
    const int c = compare_int_double(r.to_int(), l.to_double());
    return c == 2 ? 2 : -c;
  }
  return compare_int_double(l.to_int(), r.to_double());
}

bool apply_comparison(BinaryOp op, int c) noexcept {
  if (c == 2) return op == BinaryOp::kNe;  // NaN: only != holds
  switch (op) {
    case BinaryOp::kEq:
      return c == 0;
    case BinaryOp::kNe:
      return c != 0;
    case BinaryOp::kLt:
      return c < 0;
    case BinaryOp::kLe:
      return c <= 0;
    case BinaryOp::kGt:
      return c > 0;
    case BinaryOp::kGe:
      return c >= 0;
    default:
      return false;
  }
}

bool is_ascii_space(char c) noexcept { return c == ' ' || (c >= '\t' && c <= '\r'); }

std::string_view strip(std::string_view s) noexcept {
  while (!s.empty() && is_ascii_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ascii_space(s.back())) s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

/// `s` without underscores, or nullopt when one is not between two digits.
std::optional<std::string> drop_underscores(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '_') {
      out += s[i];
      continue;
    }
    const bool ok = i > 0 && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i - 1])) != 0 &&
                    std::isdigit(static_cast<unsigned char>(s[i + 1])) != 0;
    if (!ok) return std::nullopt;
  }
  return out;
}

std::optional<double> parse_float(std::string_view text) {
  std::string_view s = strip(text);
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  const std::string word = lower(s);
  double v = 0.0;
  if (word == "nan") {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (word == "inf" || word == "infinity") {
    v = std::numeric_limits<double>::infinity();
  } else {
    if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s[0])) != 0 || s[0] == '.')) return std::nullopt;
    const std::optional<std::string> clean = drop_underscores(s);
    if (!clean) return std::nullopt;
    const char* first = clean->data();
    const char* last = first + clean->size();
    auto [ptr, ec] = std::from_chars(first, last, v, std::chars_format::general);
    if (ptr != last) return std::nullopt;
    if (ec == std::errc::result_out_of_range) {
      v = std::strtod(clean->c_str(), nullptr);  // inf, or a (sub)normal near zero
    } else if (ec != std::errc()) {
      return std::nullopt;
    }
  }
  return negative ? -v : v;
}

// Python's conversions of a tensor, or of a tensor-like, are its dunders
// (float(x) is x.__float__()): catalog operators that a tensor-like can
// override (Note [Tensor metadata operators] in dispatch/ops/attributes.ops).
bool converts_by_dunder(const Value& v) { return v.is_tensor() || (v.is_object() && is_tensor_like(v)); }
Value dunder_of(const char* op, const Value& v) { return wick::call(op, {v}); }

/// Python's `%`: the result takes the divisor's sign.
Value python_mod(const Value& l, const Value& r, bool ints) {
  if (ints) {
    const std::int64_t a = l.to_int();
    const std::int64_t b = r.to_int();
    if (b == 0) throw ZeroDivisionError("integer modulo by zero");
    if (b == -1) return Value(std::int64_t{0});  // INT64_MIN % -1 would overflow in C++
    std::int64_t m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) m += b;
    return Value(m);
  }
  const double a = l.to_double();
  const double b = r.to_double();
  if (b == 0.0) throw ZeroDivisionError("float modulo");
  double m = std::fmod(a, b);
  if (m != 0.0) {
    if ((m < 0) != (b < 0)) m += b;
  } else {
    m = std::copysign(0.0, b);
  }
  return Value(m);
}

/// Python's `//`: the quotient rounded down.
Value python_floordiv(const Value& l, const Value& r, bool ints) {
  if (ints) {
    const std::int64_t a = l.to_int();
    const std::int64_t b = r.to_int();
    if (b == 0) throw ZeroDivisionError("integer division or modulo by zero");
    if (a == std::numeric_limits<std::int64_t>::min() && b == -1) {
      throw OverflowError(
          detail::str_cat("integer result of ", a, " // ", b, " does not fit in 64 bits (wick ints are int64)"));
    }
    return Value(scalar_ops::floor_divide(a, b));
  }
  const double b = r.to_double();
  if (b == 0.0) throw ZeroDivisionError("float floor division by zero");
  return Value(scalar_ops::floor_divide(l.to_double(), b));
}

using Complex = std::complex<double>;

/// Python's complex power: an integral exponent up to 100 in magnitude by
/// repeated squaring (so (1+2j)**2 is exactly (-3+4j)), others through exp and log.
Complex complex_pow(Complex a, Complex b) {
  if (b == 0.0) return 1.0;
  if (a == 0.0) {
    if (b.imag() != 0.0 || b.real() < 0.0) throw ZeroDivisionError("0.0 to a negative or complex power");
    return 0.0;
  }
  if (b.imag() == 0.0 && b.real() == std::trunc(b.real()) && std::fabs(b.real()) <= 100.0) {
    auto n = static_cast<std::int64_t>(std::fabs(b.real()));
    Complex result = 1.0;
    Complex base = a;
    for (; n > 0; n >>= 1) {
      if ((n & 1) != 0) result *= base;
      base *= base;
    }
    return b.real() < 0 ? Complex(1.0) / result : result;
  }
  return std::pow(a, b);
}

/// `l op r` when either is complex: arithmetic and (in)equality; ordering,
/// floor division, modulo and bitwise operators are TypeErrors, as in Python.
Value complex_binary(BinaryOp op, const Value& l, const Value& r) {
  const Complex a = l.to_complex();
  const Complex b = r.to_complex();
  switch (op) {
    case BinaryOp::kEq:
      return Value(a == b);
    case BinaryOp::kNe:
      return Value(a != b);
    case BinaryOp::kAdd:
      return Value(a + b);
    case BinaryOp::kSub:
      return Value(a - b);
    case BinaryOp::kMul:
      return Value(a * b);
    case BinaryOp::kDiv:
      if (b == 0.0) throw ZeroDivisionError("complex division by zero");
      return Value(a / b);
    case BinaryOp::kPow:
      return Value(complex_pow(a, b));
    default:
      break;
  }
  if (op >= BinaryOp::kEq) {
    throw TypeError(detail::str_cat("'", op_symbol(op), "' not supported between instances of '", l.type_name(),
                                    "' and '", r.type_name(), "'"));
  }
  throw TypeError(detail::str_cat("unsupported operand type(s) for ", op_symbol(op), ": '", l.type_name(), "' and '",
                                  r.type_name(), "'"));
}

}  // namespace

std::complex<double> to_complex(const Value& v) {
  if (v.is_number()) return v.to_complex();
  if (converts_by_dunder(v)) return dunder_of("torch.Tensor.__complex__", v).to_complex();
  throw TypeError(detail::str_cat("complex() first argument must be a string or a number, not '", v.type_name(), "'"));
}

Value number_binary(BinaryOp op, const Value& l, const Value& r) {
  if (l.is_complex() || r.is_complex()) return complex_binary(op, l, r);
  if (op >= BinaryOp::kEq) return Value(apply_comparison(op, compare_numbers(l, r)));
  const bool ints = !l.is_double() && !r.is_double();
  if (op == BinaryOp::kMatMul) {
    throw TypeError(
        detail::str_cat("unsupported operand type(s) for @: '", l.type_name(), "' and '", r.type_name(), "'"));
  }
  if (op == BinaryOp::kDiv) {
    if (r.to_double() == 0.0) throw ZeroDivisionError(ints ? "division by zero" : "float division by zero");
    return Value(l.to_double() / r.to_double());
  }
  if (op == BinaryOp::kAnd || op == BinaryOp::kOr || op == BinaryOp::kXor) {
    // Python: on ints and bools only; two bools give a bool.
    if (!ints) {
      throw TypeError(detail::str_cat("unsupported operand type(s) for ", op_symbol(op), ": '", l.type_name(),
                                      "' and '", r.type_name(), "'"));
    }
    const std::int64_t a = l.to_int();
    const std::int64_t b = r.to_int();
    const std::int64_t v = op == BinaryOp::kAnd ? (a & b) : op == BinaryOp::kOr ? (a | b) : (a ^ b);
    if (l.is_bool() && r.is_bool()) return Value(v != 0);
    return Value(v);
  }
  if (op == BinaryOp::kLShift || op == BinaryOp::kRShift) {
    // Python: on ints and bools only; a negative count is a ValueError.
    if (!ints) {
      throw TypeError(detail::str_cat("unsupported operand type(s) for ", op_symbol(op), ": '", l.type_name(),
                                      "' and '", r.type_name(), "'"));
    }
    const std::int64_t a = l.to_int();
    const std::int64_t b = r.to_int();
    if (b < 0) throw ValueError("negative shift count");
    if (op == BinaryOp::kRShift) return Value(b >= 63 ? (a < 0 ? std::int64_t{-1} : std::int64_t{0}) : a >> b);
    if (a == 0) return Value(std::int64_t{0});
    // a << b fits in int64 when shifting back gives a again.
    const auto shifted = b >= 63 ? std::int64_t{0} : static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << b);
    if (b >= 63 || (shifted >> b) != a) int_overflow(l, "<<", r);
    return Value(shifted);
  }
  if (op == BinaryOp::kMod) return python_mod(l, r, ints);
  if (op == BinaryOp::kFloorDiv) return python_floordiv(l, r, ints);
  if (op == BinaryOp::kPow) {
    if (ints && r.to_int() >= 0) return Value(int_pow(l, r));
    return Value(float_pow(l.to_double(), r.to_double()));
  }
  if (!ints) {
    const double a = l.to_double();
    const double b = r.to_double();
    return Value(op == BinaryOp::kAdd ? a + b : op == BinaryOp::kSub ? a - b : a * b);
  }
  std::int64_t out = 0;
  const std::int64_t a = l.to_int();
  const std::int64_t b = r.to_int();
  const bool overflow = op == BinaryOp::kAdd   ? __builtin_add_overflow(a, b, &out)
                        : op == BinaryOp::kSub ? __builtin_sub_overflow(a, b, &out)
                                               : __builtin_mul_overflow(a, b, &out);
  if (overflow) int_overflow(l, op_symbol(op), r);
  return Value(out);
}

Value number_unary(UnaryOp op, const Value& v) {
  if (op == UnaryOp::kInvert) {
    if (v.is_double() || v.is_complex()) throw TypeError("bad operand type for unary ~: '" + v.type_name() + "'");
    return Value(~v.to_int());  // ~True is -2, as in Python
  }
  if (v.is_double()) return Value(op == UnaryOp::kNeg ? -v.to_double() : v.to_double());
  if (v.is_complex()) return Value(op == UnaryOp::kNeg ? -v.to_complex() : v.to_complex());
  const std::int64_t i = v.to_int();
  if (op == UnaryOp::kPos) return Value(i);
  if (i == std::numeric_limits<std::int64_t>::min()) {
    throw OverflowError("integer result of -(-9223372036854775808) does not fit in 64 bits (wick ints are int64)");
  }
  return Value(-i);
}

Value number_abs(const Value& v) {
  if (v.is_double()) return Value(std::fabs(v.to_double()));
  if (v.is_complex()) return Value(std::abs(v.to_complex()));
  if (v.is_int() || v.is_bool()) {
    const std::int64_t i = v.to_int();
    return i < 0 ? number_unary(UnaryOp::kNeg, v) : Value(i);
  }
  throw TypeError(detail::str_cat("bad operand type for abs(): '", v.type_name(), "'"));
}

Value to_float(const Value& v) {
  if (v.is_number() && !v.is_complex()) return Value(v.to_double());
  if (converts_by_dunder(v)) return dunder_of("torch.Tensor.__float__", v);
  if (v.is_string()) {
    if (auto d = parse_float(v.to_string())) return Value(*d);
    throw ValueError("could not convert string to float: " + v.repr());
  }
  throw TypeError(detail::str_cat("float() argument must be a string or a real number, not '", v.type_name(), "'"));
}

Value to_int(const Value& v) {
  if (v.is_int() || v.is_bool()) return Value(v.to_int());
  if (v.is_double()) return Value(python_int(v.to_double()));
  if (converts_by_dunder(v)) return dunder_of("torch.Tensor.__int__", v);
  if (v.is_string()) {
    std::string_view s = strip(v.to_string());
    bool negative = false;
    if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
      negative = s[0] == '-';
      s.remove_prefix(1);
    }
    const std::optional<std::string> clean = drop_underscores(s);
    std::uint64_t u = 0;
    if (clean && !clean->empty()) {
      const char* first = clean->data();
      const char* last = first + clean->size();
      auto [ptr, ec] = std::from_chars(first, last, u);
      if (ptr == last && (ec == std::errc() || ec == std::errc::result_out_of_range)) {
        const std::uint64_t limit =
            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) + (negative ? 1 : 0);
        if (ec != std::errc() || u > limit) {
          throw OverflowError("int(" + v.repr() + ") does not fit in 64 bits (wick ints are int64)");
        }
        return Value(negative ? static_cast<std::int64_t>(0 - u) : static_cast<std::int64_t>(u));
      }
    }
    throw ValueError("invalid literal for int() with base 10: " + v.repr());
  }
  throw TypeError(detail::str_cat("int() argument must be a string, a bytes-like object or a real number, not '",
                                  v.type_name(), "'"));
}

bool truth(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kNone:
      return false;
    case Value::Kind::kBool:
    case Value::Kind::kInt:
      return v.to_int() != 0;
    case Value::Kind::kDouble:
      return v.to_double() != 0.0;  // NaN is true
    case Value::Kind::kComplex:
      return v.to_complex() != 0.0;
    case Value::Kind::kString:
      return !v.to_string().empty();
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      return !v.items().empty();
    case Value::Kind::kTensorList:
      return !v.to_tensor_list().empty();
    case Value::Kind::kIntList:
      return !v.to_int_list().empty();
    case Value::Kind::kDoubleList:
      return !v.to_double_list().empty();
    case Value::Kind::kDict:
      return !v.dict_items().empty();
    case Value::Kind::kTensor:
      return dunder_of("torch.Tensor.__bool__", v).to_bool();
    case Value::Kind::kObject:
      return !converts_by_dunder(v) || dunder_of("torch.Tensor.__bool__", v).to_bool();
    default:
      return true;
  }
}

bool values_equal(const Value& l, const Value& r) {
  if (l.is_complex() || r.is_complex()) return l.is_number() && r.is_number() && l.to_complex() == r.to_complex();
  if (l.is_number() && r.is_number()) return compare_numbers(l, r) == 0;
  if (const PyType* a = as_type(l)) {
    const PyType* b = as_type(r);
    return b != nullptr && a->name() == b->name() && a->info() == b->info();
  }
  if (as_type(r) != nullptr) return false;
  // Objects other than tensor-likes (torch.strided, a grad_fn, a slice) are
  // equal as Python's are: slices by their parts, the others by identity.
  const auto plain_object = [](const Value& v) { return v.is_object() && v.to_object()->override_type() == nullptr; };
  if (plain_object(l) || plain_object(r)) {
    if (!plain_object(l) || !plain_object(r)) return false;
    const SliceObject* a = as_slice(l);
    const SliceObject* b = as_slice(r);
    if (a != nullptr || b != nullptr) {
      return a != nullptr && b != nullptr && a->start() == b->start() && a->stop() == b->stop() &&
             a->step() == b->step();
    }
    return l.to_object() == r.to_object();
  }
  if (l.is_tensor() || r.is_tensor() || l.is_object() || r.is_object()) {
    throw TypeError("comparing lists that hold tensors is not supported; compare the tensors");
  }
  if (l.kind() != r.kind()) return false;
  switch (l.kind()) {
    case Value::Kind::kNone:
      return true;
    case Value::Kind::kString:
      return l.to_string() == r.to_string();
    case Value::Kind::kDtype:
      return l.to_dtype() == r.to_dtype();
    case Value::Kind::kDevice:
      return l.to_device() == r.to_device();
    case Value::Kind::kIntList:
      return l.to_int_list() == r.to_int_list();
    case Value::Kind::kDoubleList:
      return l.to_double_list() == r.to_double_list();
    case Value::Kind::kList:
    case Value::Kind::kTuple: {
      const auto& a = l.items();
      const auto& b = r.items();
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i) {
        if (!values_equal(a[i], b[i])) return false;
      }
      return true;
    }
    case Value::Kind::kDict: {  // the same keys with equal values, in any order
      if (l.dict_items().size() != r.dict_items().size()) return false;
      for (const auto& [key, value] : l.dict_items()) {
        const Value* other = r.dict_get(key);
        if (other == nullptr || !values_equal(value, *other)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

}  // namespace wick::eval
