// core/dtype.cpp - dtype names and the promotion lattice.
/// \file
#include "wick/dtype.h"

#include <string>

#include "wick/error.h"

namespace wick {

std::string_view dtype_name(ScalarType t) noexcept {
  switch (t) {
    case ScalarType::kBool: return "bool";
    case ScalarType::kInt32: return "int32";
    case ScalarType::kInt64: return "int64";
    case ScalarType::kFloat32: return "float32";
    case ScalarType::kFloat64: return "float64";
    default: return "undefined";
  }
}

const char* type_title(ScalarType t) noexcept {
  switch (t) {
    case ScalarType::kBool: return "Bool";
    case ScalarType::kInt32: return "Int";
    case ScalarType::kInt64: return "Long";
    case ScalarType::kFloat32: return "Float";
    case ScalarType::kFloat64: return "Double";
    default: return "Undefined";
  }
}

ScalarType parse_dtype(std::string_view name) {
  if (name.starts_with("torch.")) name.remove_prefix(6);
  if (name == "float32" || name == "float") return ScalarType::kFloat32;
  if (name == "float64" || name == "double") return ScalarType::kFloat64;
  if (name == "int64" || name == "long") return ScalarType::kInt64;
  if (name == "int32" || name == "int") return ScalarType::kInt32;
  if (name == "bool") return ScalarType::kBool;
  throw TypeError(detail::str_cat("unknown dtype 'torch.", name,
                                  "' (wick supports float32, float64, int64, int32, bool)"));
}

ScalarType promote_types(ScalarType a, ScalarType b) noexcept {
  // The five dtypes form a chain: the larger enum value wins.
  return static_cast<int>(a) >= static_cast<int>(b) ? a : b;
}

}  // namespace wick
