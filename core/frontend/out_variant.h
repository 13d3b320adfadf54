// core/frontend/out_variant.h - private: which schemas are out= variants, for opcheck and the sample lookup.
#pragma once

#include <cstddef>

#include "wick/schema.h"

namespace wick::frontend {

/// Whether `s` is an out= variant: a keyword-only written `Tensor(a!) out`
/// (F.normalize's positional, optional `out` is an argument of an operator,
/// not an out= variant).
[[nodiscard]] inline bool is_out_variant(const FunctionSchema& s) {
  const int i = s.find_argument("out");
  if (i < 0) return false;
  const SchemaArgument& a = s.arguments[static_cast<std::size_t>(i)];
  return a.kwarg_only && a.alias && a.alias->is_write;
}

}  // namespace wick::frontend
