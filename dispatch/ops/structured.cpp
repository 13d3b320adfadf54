// dispatch/ops/structured.cpp - the out= rules of the derived kernels (Note [Structured kernels]).
/// \file
#include <cstddef>
#include <cstdint>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/structured.h"
#include "wick/tensor_util.h"

namespace wick::detail {
namespace {

// Whether `in` shares memory with `out` other than element for element
// (x.add_(y) writes each element after reading it; x.add_(x.t()) would not).
bool overlaps_differently(const Tensor& out, const Tensor& in) {
  if (!in.defined() || out.storage().get() != in.storage().get()) return false;
  return !(out.storage_offset() == in.storage_offset() && out.sizes().equals(in.sizes()) &&
           out.strides().equals(in.strides()) && out.dtype() == in.dtype());
}

}  // namespace

bool prepare_out(const Tensor& out, const TensorMeta& m, const char* op, ArrayRef<const Tensor*> inputs) {
  WICK_CHECK(out.defined(), RuntimeError, op, ": out= is an undefined tensor");
  WICK_CHECK(out.device() == m.device, RuntimeError, op,
             ": Expected all tensors to be on the same device, but found at least two devices, ", m.device.str(),
             " and ", out.device().str(), "!");
  WICK_CHECK(can_cast(m.dtype, out.dtype()), RuntimeError, op, ": result type ", type_title(m.dtype),
             " can't be cast to the desired output type ", type_title(out.dtype()));
  if (!out.sizes().equals(m.sizes)) {
    // Resizing an output that is also an input would destroy the input.
    for (const Tensor* in : inputs) {
      WICK_CHECK(!in->defined() || out.storage().get() != in->storage().get(), RuntimeError, op, ": output with shape ",
                 format_shape(out.sizes()), " doesn't match the broadcast shape ", format_shape(m.sizes));
    }
    // Resize, reusing the storage when it is large enough, as PyTorch does.
    const std::size_t need =
        storage_nbytes(m.sizes, contiguous_strides(m.sizes), out.storage_offset(), itemsize(out.dtype()));
    TensorImpl* impl = out.impl();
    if (impl->storage()->nbytes() < need) {
      impl->set_storage(Storage::make(storage_nbytes(m.sizes, itemsize(out.dtype())), out.device()));
      impl->set_geometry(m.sizes, contiguous_strides(m.sizes), 0);
    } else {
      impl->set_geometry(m.sizes, contiguous_strides(m.sizes), impl->storage_offset());
    }
  }
  if (out.dtype() != m.dtype || !out.strides().equals(m.strides)) return false;
  for (const Tensor* in : inputs) {
    if (overlaps_differently(out, *in)) return false;
  }
  return true;
}

}  // namespace wick::detail
