// dispatch/norm_api.cpp - the typed API of the norms, embedding and pad (nn_functional.h) and torch.linalg (ops.h).
/// \file
/// Each function looks its operator up once (a function-local static) and
/// makes a typed call.
#include "wick/dispatcher.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick {
namespace {

using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using OptDtype = std::optional<ScalarType>;

}  // namespace

#define WICK_NORM_OP(NAME, SIG) static const auto op = find_op(NAME).typed<SIG>()

namespace nn::functional {

Tensor layer_norm(T input, IntArrayRef normalized_shape, OptTensor weight, OptTensor bias, double eps) {
  WICK_NORM_OP("torch.nn.functional.layer_norm", Tensor(T, IntArrayRef, OptTensor, OptTensor, double));
  return op.call(input, normalized_shape, weight, bias, eps);
}
Tensor batch_norm(T input, OptTensor running_mean, OptTensor running_var, OptTensor weight, OptTensor bias,
                  bool training, double momentum, double eps) {
  WICK_NORM_OP("torch.nn.functional.batch_norm",
               Tensor(T, OptTensor, OptTensor, OptTensor, OptTensor, bool, double, double));
  return op.call(input, running_mean, running_var, weight, bias, training, momentum, eps);
}
Tensor group_norm(T input, std::int64_t num_groups, OptTensor weight, OptTensor bias, double eps) {
  WICK_NORM_OP("torch.nn.functional.group_norm", Tensor(T, std::int64_t, OptTensor, OptTensor, double));
  return op.call(input, num_groups, weight, bias, eps);
}
Tensor embedding(T input, T weight, std::optional<std::int64_t> padding_idx) {
  WICK_NORM_OP("torch.nn.functional.embedding", Tensor(T, T, std::optional<std::int64_t>, std::optional<double>,
                                                       double, bool, bool));
  return op.call(input, weight, padding_idx, std::nullopt, 2.0, false, false);
}
Tensor pad(T input, IntArrayRef pad, std::string_view mode, std::optional<double> value) {
  WICK_NORM_OP("torch.nn.functional.pad", Tensor(T, IntArrayRef, std::string_view, std::optional<double>));
  return op.call(input, pad, mode, value);
}

}  // namespace nn::functional

namespace linalg {

Tensor vector_norm(T input, const Scalar& ord, std::optional<IntArrayRef> dim, bool keepdim, OptDtype dtype) {
  WICK_NORM_OP("torch.linalg.vector_norm",
               Tensor(T, const Scalar&, std::optional<IntArrayRef>, bool, OptDtype));
  return op.call(input, ord, dim, keepdim, dtype);
}
Tensor matrix_norm(T input, std::string_view ord, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  WICK_NORM_OP("torch.linalg.matrix_norm", Tensor(T, const Value&, IntArrayRef, bool, OptDtype));
  return op.call(input, Value(std::string(ord)), dim, keepdim, dtype);
}
Tensor matrix_norm(T input, double ord, IntArrayRef dim, bool keepdim, OptDtype dtype) {
  WICK_NORM_OP("torch.linalg.matrix_norm", Tensor(T, const Value&, IntArrayRef, bool, OptDtype));
  return op.call(input, Value(ord), dim, keepdim, dtype);
}

}  // namespace linalg
}  // namespace wick
