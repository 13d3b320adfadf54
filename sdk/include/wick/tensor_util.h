// wick/tensor_util.h - shape and dtype rules shared by backends: broadcasting
// and PyTorch's result-type computation.
/// \file
///   DimVector shape = wick::broadcast_shapes(a.sizes(), b.sizes(), "torch.add");
///   ScalarType t = wick::result_type({a, b});
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "wick/dim_vector.h"
#include "wick/export.h"
#include "wick/tensor.h"

namespace wick {

/// The broadcast of two shapes; RuntimeError naming `op`: "The size of tensor
/// a (3) must match the size of tensor b (4) at non-singleton dimension 1".
[[nodiscard]] WICK_API DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op);
/// A shape as PyTorch's messages write it: "[2, 3]".
[[nodiscard]] WICK_API std::string format_shape(IntArrayRef shape);
/// Strides that view `t` as `shape` (0 for broadcast dims); `shape` must be a
/// broadcast of t's shape.
[[nodiscard]] WICK_API DimVector broadcast_strides(const Tensor& t, IntArrayRef shape);

/// PyTorch's result type: tensors with dims beat 0-dim tensors, which beat
/// wrapped Python numbers; a lower tier only matters when it is of a higher
/// category (bool < integer < floating). An integer tier meeting a floating
/// wrapped number gives the default float dtype.
[[nodiscard]] WICK_API ScalarType result_type(ArrayRef<const Tensor*> tensors);
/// result_type of a list of tensors (see the ArrayRef overload).
[[nodiscard]] WICK_API ScalarType result_type(const std::vector<Tensor>& tensors);
/// `result_type(a, b, ...)` without copying the handles.
template <typename... Ts>
[[nodiscard]] ScalarType result_type(const Tensor& first, const Ts&... rest) {
  const Tensor* ptrs[] = {&first, &rest...};
  return result_type(ArrayRef<const Tensor*>(ptrs, 1 + sizeof...(Ts)));
}

/// Checks that all defined tensors are on one device; RuntimeError like
/// PyTorch's "Expected all tensors to be on the same device, but found at
/// least two devices, cpu and cuda:0!" naming `op`.
WICK_API Device common_device(ArrayRef<const Tensor*> tensors, const char* op);
/// common_device of the listed tensors (see the ArrayRef overload); RuntimeError naming `op` for two devices.
template <typename... Ts>
Device common_device(const char* op, const Tensor& first, const Ts&... rest) {
  const Tensor* ptrs[] = {&first, &rest...};
  return common_device(ArrayRef<const Tensor*>(ptrs, 1 + sizeof...(Ts)), op);
}

}  // namespace wick
