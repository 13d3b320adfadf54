// wick/meta_creation.h - meta results of the creation functions (torch.tensor, torch.arange).
/// \file
/// A creation function's meta function (dispatch/ops/meta_creation.cpp)
/// reads only its arguments: it checks them and gives the result's size,
/// dtype and device (the `device=` argument, the CPU by default), so that
/// `device="meta"` makes a tensor with no data (Note [Meta tensors] in
/// wick/meta.h). eye, linspace and the random functions need no more than
/// `OutputMeta`; these two carry what their impls would otherwise work out
/// again:
///
///   void arange_cpu(const wick::ArangeMeta& m, const Tensor& out, ...) {
///     // out[i] = m.start + i * m.step, in int64 when m.start is integral
///   }
#pragma once

#include <vector>

#include "wick/meta.h"
#include "wick/scalar.h"

namespace wick {

/// torch.tensor: the numbers of a nested list, row-major, as written
/// (converted to `out.dtype` by the impl); empty when the data is a tensor,
/// which the impl copies.
struct FromDataMeta {
  TensorMeta out; ///< the result's geometry
  std::vector<Scalar> values; ///< the data's numbers, row-major (empty when the data is a tensor)
};

/// torch.arange: element i is `start + i * step`. Both are integers when
/// start, end and step all are (the range is then sized and filled in exact
/// integer arithmetic), else both are floating.
struct ArangeMeta {
  TensorMeta out; ///< the result's geometry: ceil((end - start) / step) elements
  Scalar start; ///< the first element
  Scalar step; ///< the difference between neighbours (never 0: the meta function refuses it)
};

}  // namespace wick
