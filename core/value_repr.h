// core/value_repr.h - private: Python's repr of a boxed value, tensors written by the caller.
/// \file
/// One formatter for every layer: the frontend's `Value::repr` prints the
/// tensors inside a value as PyTorch does; the dispatch layer's call notes
/// describe them by shape and dtype.
#pragma once

#include <string>

#include "wick/value.h"

namespace wick {

/// How a tensor inside a value is written.
using TensorRepr = std::string (*)(const Tensor& t);
/// Python's repr of `value` (None, True, 1, 0.5, 'str', lists, tuples,
/// dicts, torch.float32, device(...), objects), with every tensor written by
/// `tensor_repr`.
[[nodiscard]] std::string value_repr(const Value& value, TensorRepr tensor_repr);

}  // namespace wick
