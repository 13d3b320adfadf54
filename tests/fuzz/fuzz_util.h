// tests/fuzz/fuzz_util.h - what the fuzz targets share: failing loudly.
/// \file
/// A fuzz target reports a bug by aborting (libFuzzer then saves the input):
/// `fuzz_check` for a broken invariant, `fuzz_unexpected` for an exception
/// that is not a `wick::Error`. Header-only; the fuzzers link nothing else.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>
#include <typeinfo>

namespace wick::fuzz {

/// Prints `what` and aborts when `cond` is false.
inline void fuzz_check(bool cond, std::string_view what) {
  if (cond) return;
  std::fprintf(stderr, "fuzz invariant broken: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

/// For an exception the target does not allow (one that is not a
/// wick::Error, or a wick::Error where the API promises none): prints its
/// dynamic type and message, and aborts.
[[noreturn]] inline void fuzz_unexpected(const std::exception& e, std::string_view where) {
  std::fprintf(stderr, "%.*s: unexpected exception %s: %s\n",
               static_cast<int>(where.size()), where.data(), typeid(e).name(), e.what());
  std::abort();
}

}  // namespace wick::fuzz
