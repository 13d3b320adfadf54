// dispatch/ops/meta_sorting.cpp - the meta functions of the sorting kernels: argsort, topk_indices, searchsorted and bucketize.
/// \file
/// argsort's result has self's shape, int64, contiguous; `dim` is wrapped as
/// for a 1-D tensor when self is 0-dim. topk_indices' has k along `dim`
/// (self at least 1-D). Complex numbers have no order: the kernels refuse
/// them with PyTorch's message.
///
/// searchsorted checks its arguments in PyTorch's order and with its
/// messages: the side, the devices, the sorter, then the shapes (1-D
/// boundaries, or boundaries whose leading dims are the values'). The values
/// and boundaries are compared in their promoted dtype; a sorter's values
/// are checked by the kernels, which read them. Its out= takes only the
/// index dtype out_int32 asks for (PyTorch's check, SearchsortedMeta::check_out).
/// bucketize is searchsorted of 1-D boundaries with the arguments swapped.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/meta_index.h"
#include "wick/tensor_util.h"

namespace wick::meta {

DimMeta argsort(const Tensor& self, std::int64_t dim, bool /*descending*/) {
  const std::int64_t d = wrap_dim(dim, std::max<std::int64_t>(self.dim(), 1));
  return {TensorMeta::contiguous(self.sizes(), ScalarType::kInt64, self.device()), d};
}

namespace {

// Whether the dims of a and b before their last agree (b as in PyTorch: the values).
bool leading_dims_match(const Tensor& boundaries, const Tensor& values) {
  if (boundaries.dim() != values.dim()) return false;
  for (std::int64_t k = 0; k + 1 < boundaries.dim(); ++k)
    if (boundaries.sizes()[k] != values.sizes()[k]) return false;
  return true;
}

}  // namespace

SearchsortedMeta searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                              std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  const char* op = "torch.searchsorted(): ";
  if (side) {
    WICK_CHECK(*side == "left" || *side == "right", RuntimeError, op, "side can only be 'left' or 'right' but got ",
               *side);
    WICK_CHECK(!right || *side == "right", RuntimeError, op,
               "side and right can't be set to opposites, got side of ", *side, " while right was True");
  }
  const Device device = sorted_sequence.device();
  // A number (a 0-dim CPU tensor) joins the boundaries' device, as PyTorch's Scalar overload makes it there.
  WICK_CHECK(self.device() == device || (self.dim() == 0 && self.device().is_cpu()), RuntimeError, op,
             "boundaries and input value tensors should have same device type, but got boundaries tensor device "
             "type ",
             device_type_name(device.type()), " and input value tensor device type ",
             device_type_name(self.device().type()));
  if (sorter) {
    WICK_CHECK(sorter->device() == device, RuntimeError, op,
               "sorter and input value tensors should have same device type, but got sorter tensor device type ",
               device_type_name(sorter->device().type()), " and input value tensor device type ",
               device_type_name(self.device().type()));
    WICK_CHECK(sorter->sizes() == sorted_sequence.sizes(), RuntimeError, op,
               "boundary and sorter must have the same size, but got boundary tensor ",
               format_shape(sorted_sequence.sizes()), "and got sorter tensor ", format_shape(sorter->sizes()));
    WICK_CHECK(sorter->dtype() == ScalarType::kInt64, RuntimeError, op,
               "sorter must be a tensor of long dtype but got dtype ", type_title(sorter->dtype()));
  }
  WICK_CHECK(self.dim() > 0 || sorted_sequence.dim() == 1, RuntimeError, op,
             "input value can be a scalar only when boundaries tensor dimension is 1, but we got boundaries tensor "
             "dim(",
             sorted_sequence.dim(), ") and input value's dim(", self.dim(), ") numel(", self.numel(), ")");
  WICK_CHECK(sorted_sequence.dim() != 0, RuntimeError, op,
             "boundaries tensor should have positive dimension, but got 0 dimension");
  WICK_CHECK(sorted_sequence.dim() == 1 || leading_dims_match(sorted_sequence, self), RuntimeError, op,
             "boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries tensor and input "
             "value tensor must match, but we got boundaries tensor ",
             format_shape(sorted_sequence.sizes()), " and input value tensor ", format_shape(self.sizes()));
  if (out_int32) {
    const std::int64_t last = sorted_sequence.sizes()[sorted_sequence.dim() - 1];
    WICK_CHECK(last < std::numeric_limits<std::int32_t>::max(), RuntimeError, op,
               "the size of boundaries' last dimension should be less than ", std::numeric_limits<std::int32_t>::max(),
               ", but we got ", last);
  }
  const ScalarType index = out_int32 ? ScalarType::kInt32 : ScalarType::kInt64;
  return {TensorMeta::contiguous(self.sizes(), index, device), promote_types(sorted_sequence.dtype(), self.dtype()),
          right || (side && *side == "right")};
}

SearchsortedMeta bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  WICK_CHECK(boundaries.dim() == 1, RuntimeError, "torch.bucketize: boundaries tensor must be 1 dimension, but got dim(",
             boundaries.dim(), ")");
  return meta::searchsorted(boundaries, self, out_int32, right, std::nullopt, std::nullopt);
}

}  // namespace wick::meta

namespace aten::meta {

wick::DimMeta topk_indices(const wick::Tensor& self, std::int64_t k, std::int64_t dim, bool /*largest*/) {
  WICK_CHECK(self.dim() > 0, RuntimeError,
             "aten.topk_indices: self must have at least one dimension, got a 0-dim tensor");
  const std::int64_t d = wick::wrap_dim(dim, self.dim());
  WICK_CHECK(k >= 0 && k <= self.sizes()[d], RuntimeError, "torch.topk: selected index k out of range");
  wick::DimVector sizes(self.sizes());
  sizes[d] = k;
  return {wick::TensorMeta::contiguous(sizes, wick::ScalarType::kInt64, self.device()), d};
}

}  // namespace aten::meta
