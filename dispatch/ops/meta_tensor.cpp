// dispatch/ops/meta_tensor.cpp - meta functions of the in-place tensor methods copy_ and fill_.
/// \file
#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/tensor_util.h"

namespace wick::meta {

// The source broadcasts to self's shape, never self to the source's. A meta
// tensor has no data to copy out of (PyTorch's NotImplementedError).
InplaceMeta copy_(const Tensor& self, const Tensor& src, bool /*non_blocking*/) {
  const char* op = "torch.Tensor.copy_";
  if (src.device().is_meta() && !self.device().is_meta()) {
    throw NotImplementedError(detail::str_cat(op, ": Cannot copy out of meta tensor; no data!"));
  }
  const DimVector shape = broadcast_shapes(self.sizes(), src.sizes(), op);
  WICK_CHECK(shape.ref().equals(self.sizes()), RuntimeError, op, ": output with shape ", format_shape(self.sizes()),
             " doesn't match the broadcast shape ", format_shape(shape));
  return {TensorMeta::of(self)};
}

InplaceMeta fill_(const Tensor& self, const Scalar& /*value*/) { return {TensorMeta::of(self)}; }

}  // namespace wick::meta
