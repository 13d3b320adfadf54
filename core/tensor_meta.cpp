// core/tensor_meta.cpp - a result's geometry (TensorMeta) and the tensors made from it.
/// \file
#include <algorithm>
#include <cstdint>
#include <optional>

#include "core/allocate.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/meta.h"
#include "wick/storage.h"
#include "wick/tensor_util.h"

namespace wick {

TensorMeta TensorMeta::contiguous(IntArrayRef sizes, ScalarType dtype, Device device) {
  return TensorMeta{DimVector(sizes), contiguous_strides(sizes), dtype, device};
}

TensorMeta TensorMeta::of(const Tensor& t) { return TensorMeta{t.sizes(), t.strides(), t.dtype(), t.device()}; }

namespace {

// Whether `strides` are exactly contiguous_strides(sizes), found without
// making them (the common result of a meta function, on every call). A
// product past int64 answers false: contiguous_strides then decides (it
// saturates for an empty tensor and throws otherwise).
bool has_contiguous_strides(IntArrayRef sizes, IntArrayRef strides) noexcept {
  if (sizes.size() != strides.size()) return false;
  std::int64_t expected = 1;
  for (std::size_t i = sizes.size(); i-- > 0;) {
    if (strides[i] != expected) return false;
    const std::optional<std::int64_t> next = try_mul(expected, std::max<std::int64_t>(sizes[i], 1));
    if (!next) return false;
    expected = *next;
  }
  return true;
}

}  // namespace

Tensor empty_from(const TensorMeta& m) {
  if (m.strides.empty()) return make_empty(m.sizes, m.dtype, m.device);
  if (has_contiguous_strides(m.sizes, m.strides)) return allocate_contiguous(m.sizes, m.strides, m.dtype, m.device);
  const DimVector contiguous = contiguous_strides(m.sizes);
  if (m.strides.ref().equals(contiguous)) return make_empty(m.sizes, m.dtype, m.device);
  WICK_CHECK(m.strides.size() == m.sizes.size(), RuntimeError, "empty_from: ", m.sizes.size(), " sizes but ",
             m.strides.size(), " strides");
  // A strided result: a storage that spans its largest offset, then a view
  // (PyTorch's empty_strided; its messages for negative or overflowing
  // geometry).
  const std::int64_t extent = checked_extent(m.sizes, m.strides);
  (void)storage_nbytes(m.sizes, m.strides, 0, itemsize(m.dtype));
  if (extent == 0) return make_view(make_empty({0}, m.dtype, m.device), m.sizes, m.strides, 0);
  return make_view(make_empty({extent}, m.dtype, m.device), m.sizes, m.strides, 0);
}

}  // namespace wick
