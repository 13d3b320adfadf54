// core/frontend/value_repr.cpp - Value::repr: Python's repr of a boxed value.
/// \file
/// In the frontend layer because it prints the tensors inside a value as
/// PyTorch does (printing.cpp); the formatting itself is core/value_repr.cpp.
#include <string>

#include "core/value_repr.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick {

std::string Value::repr() const {
  return value_repr(*this, [](const Tensor& t) { return t.defined() ? t.repr() : std::string("None"); });
}

}  // namespace wick
