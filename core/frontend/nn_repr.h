// core/frontend/nn_repr.h - how the built-in modules write their options in extra_repr, as Python prints them.
/// \file
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wick/array_ref.h"
#include "wick/nn_options.h"
#include "wick/value.h"

namespace wick::nn::detail {

/// Python's repr of a float: 0.1, 1e-05, 1.0.
inline std::string py(double v) { return python_float_repr(v); }
inline std::string py(bool v) { return v ? "True" : "False"; }
inline std::string py(std::int64_t v) { return std::to_string(v); }
inline std::string py(const std::optional<double>& v) { return v ? py(*v) : "None"; }
inline std::string py(const std::optional<std::int64_t>& v) { return v ? py(*v) : "None"; }

/// A Python tuple of ints: (3,), (2, 3), ().
inline std::string py_tuple(IntArrayRef values) {
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + (values.size() == 1 ? ",)" : ")");
}

/// As given: `2` when given as one int, else a tuple.
template <std::size_t D>
std::string py_given(const ExpandingArray<D>& a) {
  return a.is_scalar() ? std::to_string(a[0]) : py_tuple(a.ref());
}

template <std::size_t D>
std::string py_given(const ExpandingArrayWithOptionalElem<D>& a) {
  if (a.is_scalar()) return py(a[0]);
  std::string out = "(";
  for (std::size_t i = 0; i < D; ++i) {
    if (i > 0) out += ", ";
    out += py(a[i]);
  }
  return out + (D == 1 ? ",)" : ")");
}

/// True when every entry of `a` is `v`.
inline bool all_equal(IntArrayRef a, std::int64_t v) {
  for (std::int64_t x : a) {
    if (x != v) return false;
  }
  return true;
}

}  // namespace wick::nn::detail
