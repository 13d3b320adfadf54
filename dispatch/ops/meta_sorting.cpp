// dispatch/ops/meta_sorting.cpp - the meta function of argsort, the one sorting kernel.
/// \file
/// argsort's result has self's shape, int64, contiguous; `dim` is wrapped as
/// for a 1-D tensor when self is 0-dim. Complex numbers have no order: the
/// kernels refuse them with PyTorch's message.
#include <algorithm>
#include <cstdint>

#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/meta_index.h"

namespace wick::meta {

DimMeta argsort(const Tensor& self, std::int64_t dim, bool /*descending*/) {
  const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(self.dim(), 1));
  return {TensorMeta::contiguous(self.sizes(), ScalarType::kInt64, self.device()), d};
}

}  // namespace wick::meta
