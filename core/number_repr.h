// core/number_repr.h - private: Python's spelling of non-finite numbers.
/// \file
#pragma once

#include <string>

namespace wick {

/// Python formats every NaN as "nan" (no sign) and infinities as "inf" /
/// "-inf": sets `out` and returns true for those, false for finite `v`.
bool format_nonfinite(double v, std::string& out);

}  // namespace wick
