// core/error.cpp - out-of-line parts of the error hierarchy.
/// \file
#include "wick/error.h"

namespace wick::detail {

void internal_assert_fail(const char* cond, const char* file, int line, const std::string& msg) {
  throw RuntimeError(str_cat("internal assertion failed: ", cond, " at ", file, ":", line,
                             msg.empty() ? "" : ": ", msg,
                             " (this is a bug in wick; please report it)"));
}

}  // namespace wick::detail
