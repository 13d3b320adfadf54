// core/number_repr.h - private: Python's spelling of non-finite numbers, and its format() of numbers.
/// \file
#pragma once

#include <string>
#include <string_view>

#include "wick/scalar.h"

namespace wick {

/// Python formats every NaN as "nan" (no sign) and infinities as "inf" /
/// "-inf": sets `out` and returns true for those, false for finite `v`.
bool format_nonfinite(double v, std::string& out);

/// Python's `format(x, spec)` of a bool, int or float (Note [Python's format
/// spec], core/number_format.cpp); ValueError for a spec Python refuses.
[[nodiscard]] std::string python_format(const Scalar& x, std::string_view spec);

}  // namespace wick
