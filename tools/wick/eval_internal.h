// tools/wick/eval_internal.h - Python-number semantics shared by the eval sources.
/// \file
/// Arithmetic, comparison and conversions on Python numbers (bool, int,
/// float) as Python does them, for operands that are not tensors. Private to
/// `wick_eval`.
#pragma once

#include "wick/eval.h"
#include "wick/value.h"

namespace wick::eval {

/// `l op r` for two numbers: int stays int for + - * and ** with a
/// non-negative exponent, `/` is float, comparisons are bool. Throws
/// ZeroDivisionError, OverflowError (int64 overflow), wick::ValueError (a
/// negative number to a fractional power), TypeError (`@`).
[[nodiscard]] Value number_binary(BinaryOp op, const Value& l, const Value& r);
/// `-v` / `+v` of a number (a bool becomes an int).
[[nodiscard]] Value number_unary(UnaryOp op, const Value& v);
/// `abs(v)`; TypeError for a non-number.
[[nodiscard]] Value number_abs(const Value& v);
/// `float(v)`: a number, a string ("1.5", "nan", "-inf", any case), or a
/// one-element tensor. ValueError / TypeError as Python.
[[nodiscard]] Value to_float(const Value& v);
/// `int(v)`: a number (floats truncate), a decimal string, or a one-element tensor.
[[nodiscard]] Value to_int(const Value& v);
/// `bool(v)`: Python truthiness; a tensor must have exactly one element.
[[nodiscard]] bool truth(const Value& v);
/// `l == r` for values that are not tensors: numbers by value, strings,
/// None, dtypes, lists/tuples item by item, dicts key by key.
[[nodiscard]] bool values_equal(const Value& l, const Value& r);

}  // namespace wick::eval
