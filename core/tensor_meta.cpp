// core/tensor_meta.cpp - a result's geometry (TensorMeta) and the tensors made from it.
/// \file
#include <cstdint>
#include <limits>

#include "wick/error.h"
#include "wick/meta.h"
#include "wick/storage.h"
#include "wick/tensor_util.h"

namespace wick {

TensorMeta TensorMeta::contiguous(IntArrayRef sizes, ScalarType dtype, Device device) {
  return TensorMeta{DimVector(sizes), contiguous_strides(sizes), dtype, device};
}

TensorMeta TensorMeta::of(const Tensor& t) { return TensorMeta{t.sizes(), t.strides(), t.dtype(), t.device()}; }

Tensor empty_from(const TensorMeta& m) {
  const DimVector contiguous = contiguous_strides(m.sizes);
  if (m.strides.empty() || m.strides.ref().equals(contiguous)) return make_empty(m.sizes, m.dtype, m.device);
  WICK_CHECK(m.strides.size() == m.sizes.size(), RuntimeError, "empty_from: ", m.sizes.size(), " sizes but ",
             m.strides.size(), " strides");
  // A strided result: a storage that spans its largest offset, then a view.
  std::int64_t extent = 1;
  for (std::size_t d = 0; d < m.sizes.size(); ++d) {
    const std::int64_t size = m.sizes[d];
    const std::int64_t stride = m.strides[d];
    WICK_CHECK(size >= 0 && stride >= 0, RuntimeError, "empty_from: negative size or stride");
    if (size == 0) return make_view(make_empty({0}, m.dtype, m.device), m.sizes, m.strides, 0);
    std::int64_t span = 0;
    WICK_CHECK(!__builtin_mul_overflow(size - 1, stride, &span) && !__builtin_add_overflow(extent, span, &extent),
               RuntimeError, "empty_from: the storage of sizes ", format_shape(m.sizes), " and strides ",
               format_shape(m.strides), " overflows int64");
  }
  return make_view(make_empty({extent}, m.dtype, m.device), m.sizes, m.strides, 0);
}

}  // namespace wick
