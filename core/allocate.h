// core/allocate.h - private: the one place a tensor on new storage is made.
/// \file
#pragma once

#include "wick/tensor.h"

namespace wick {

/// A tensor on new storage with `sizes` and `strides`, which must be the
/// contiguous strides of `sizes` (`empty_from` has them from a meta function
/// and does not compute them again), or, fewer than the sizes, are computed
/// here (`make_empty`) after the storage size is checked, whose error comes
/// first as in PyTorch.
[[nodiscard]] Tensor allocate_contiguous(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device);

}  // namespace wick
