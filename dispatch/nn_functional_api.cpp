// dispatch/nn_functional_api.cpp - the typed API of wick/nn_functional.h.
/// \file
/// Each function looks its operator up once (a function-local static) and
/// makes a typed call; the deprecated size_average / reduce arguments are
/// passed as None.
#include "wick/dispatcher.h"
#include "wick/nn_functional.h"

namespace wick {
namespace {

using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
using OptDtype = std::optional<ScalarType>;
using Str = std::string_view;
using V = const Value&;

template <typename Sig>
TypedOperatorHandle<Sig> typed(const char* name) {
  return find_op(name).typed<Sig>();
}

}  // namespace

#define WICK_NN_OP(NAME, SIG) static const auto op = typed<SIG>(NAME)

Tensor softmax(T input, std::int64_t dim, OptDtype dtype) {
  WICK_NN_OP("torch.softmax", Tensor(T, std::int64_t, OptDtype));
  return op.call(input, dim, dtype);
}
Tensor log_softmax(T input, std::int64_t dim, OptDtype dtype) {
  WICK_NN_OP("torch.log_softmax", Tensor(T, std::int64_t, OptDtype));
  return op.call(input, dim, dtype);
}
Tensor dropout(T input, double p, bool train) {
  WICK_NN_OP("torch.dropout", Tensor(T, double, bool, bool));
  return op.call(input, p, train, false);
}

using Ints = IntArrayRef;

Value padding_value(PaddingMode mode) { return Value(mode == PaddingMode::kSame ? "same" : "valid"); }
using ConvSig = Tensor(T, T, OptTensor, Ints, V, Ints, std::int64_t);

Tensor conv1d(T input, T weight, OptTensor bias, Ints stride, Ints padding, Ints dilation, std::int64_t groups) {
  WICK_NN_OP("torch.conv1d", ConvSig);
  return op.call(input, weight, bias, stride, Value(padding), dilation, groups);
}
Tensor conv2d(T input, T weight, OptTensor bias, Ints stride, Ints padding, Ints dilation, std::int64_t groups) {
  WICK_NN_OP("torch.conv2d", ConvSig);
  return op.call(input, weight, bias, stride, Value(padding), dilation, groups);
}
Tensor conv1d(T input, T weight, OptTensor bias, Ints stride, PaddingMode padding, Ints dilation, std::int64_t groups) {
  WICK_NN_OP("torch.conv1d", ConvSig);
  return op.call(input, weight, bias, stride, padding_value(padding), dilation, groups);
}
Tensor conv2d(T input, T weight, OptTensor bias, Ints stride, PaddingMode padding, Ints dilation, std::int64_t groups) {
  WICK_NN_OP("torch.conv2d", ConvSig);
  return op.call(input, weight, bias, stride, padding_value(padding), dilation, groups);
}
Tensor max_pool2d(T input, Ints kernel_size, Ints stride, Ints padding, Ints dilation, bool ceil_mode) {
  WICK_NN_OP("torch.max_pool2d", Tensor(T, Ints, std::optional<Ints>, Ints, Ints, bool));
  return op.call(input, kernel_size, stride.empty() ? std::nullopt : std::optional<Ints>(stride), padding, dilation,
                 ceil_mode);
}
Tensor avg_pool1d(T input, Ints kernel_size, Ints stride, Ints padding, bool ceil_mode, bool count_include_pad) {
  WICK_NN_OP("torch.avg_pool1d", Tensor(T, Ints, std::optional<Ints>, Ints, bool, bool));
  return op.call(input, kernel_size, stride.empty() ? std::nullopt : std::optional<Ints>(stride), padding, ceil_mode,
                 count_include_pad);
}
Tensor adaptive_avg_pool1d(T input, Ints output_size) {
  WICK_NN_OP("torch.adaptive_avg_pool1d", Tensor(T, Ints));
  return op.call(input, output_size);
}

namespace nn::functional {

using OptInts = std::optional<IntArrayRef>;

Tensor max_pool2d(T input, Ints kernel_size, OptInts stride, Ints padding, Ints dilation, bool ceil_mode) {
  // The entry returns Any: the output, or (output, indices) with return_indices.
  WICK_NN_OP("torch.nn.functional.max_pool2d", Value(T, Ints, OptInts, Ints, Ints, bool, bool));
  return op.call(input, kernel_size, stride, padding, dilation, ceil_mode, false).to_tensor();
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(T input, Ints kernel_size, OptInts stride, Ints padding,
                                                   Ints dilation, bool ceil_mode) {
  using Sig = std::tuple<Tensor, Tensor>(T, Ints, OptInts, Ints, Ints, bool, bool);
  WICK_NN_OP("torch.nn.functional.max_pool2d_with_indices", Sig);
  return op.call(input, kernel_size, stride, padding, dilation, ceil_mode, true);
}
Tensor avg_pool2d(T input, Ints kernel_size, OptInts stride, Ints padding, bool ceil_mode, bool count_include_pad,
                  std::optional<std::int64_t> divisor_override) {
  WICK_NN_OP("torch.nn.functional.avg_pool2d", Tensor(T, Ints, OptInts, Ints, bool, bool, std::optional<std::int64_t>));
  return op.call(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}
Tensor adaptive_avg_pool2d(T input, Ints output_size) {
  WICK_NN_OP("torch.nn.functional.adaptive_avg_pool2d", Tensor(T, Ints));
  return op.call(input, output_size);
}

Tensor linear(T input, T weight, OptTensor bias) {
  WICK_NN_OP("torch.nn.functional.linear", Tensor(T, T, OptTensor));
  return op.call(input, weight, bias);
}
Tensor leaky_relu(T input, double negative_slope, bool inplace) {
  WICK_NN_OP("torch.nn.functional.leaky_relu", Tensor(T, double, bool));
  return op.call(input, negative_slope, inplace);
}
Tensor elu(T input, double alpha, bool inplace) {
  WICK_NN_OP("torch.nn.functional.elu", Tensor(T, double, bool));
  return op.call(input, alpha, inplace);
}
Tensor gelu(T input, Str approximate) {
  WICK_NN_OP("torch.nn.functional.gelu", Tensor(T, Str));
  return op.call(input, approximate);
}
Tensor silu(T input, bool inplace) {
  WICK_NN_OP("torch.nn.functional.silu", Tensor(T, bool));
  return op.call(input, inplace);
}
Tensor logsigmoid(T input) {
  WICK_NN_OP("torch.nn.functional.logsigmoid", Tensor(T));
  return op.call(input);
}
Tensor softmax(T input, std::optional<std::int64_t> dim, OptDtype dtype) {
  WICK_NN_OP("torch.nn.functional.softmax", Tensor(T, std::optional<std::int64_t>, std::int64_t, OptDtype));
  return op.call(input, dim, 3, dtype);
}
Tensor log_softmax(T input, std::optional<std::int64_t> dim, OptDtype dtype) {
  WICK_NN_OP("torch.nn.functional.log_softmax", Tensor(T, std::optional<std::int64_t>, std::int64_t, OptDtype));
  return op.call(input, dim, 3, dtype);
}
Tensor dropout(T input, double p, bool training, bool inplace) {
  WICK_NN_OP("torch.nn.functional.dropout", Tensor(T, double, bool, bool));
  return op.call(input, p, training, inplace);
}
Tensor mse_loss(T input, T target, Str reduction) {
  WICK_NN_OP("torch.nn.functional.mse_loss", Tensor(T, T, V, V, Str));
  return op.call(input, target, Value(), Value(), reduction);
}
Tensor l1_loss(T input, T target, Str reduction) {
  WICK_NN_OP("torch.nn.functional.l1_loss", Tensor(T, T, V, V, Str));
  return op.call(input, target, Value(), Value(), reduction);
}
Tensor nll_loss(T input, T target, OptTensor weight, std::int64_t ignore_index, Str reduction) {
  WICK_NN_OP("torch.nn.functional.nll_loss", Tensor(T, T, OptTensor, V, std::int64_t, V, Str));
  return op.call(input, target, weight, Value(), ignore_index, Value(), reduction);
}
Tensor cross_entropy(T input, T target, OptTensor weight, std::int64_t ignore_index, Str reduction,
                     double label_smoothing) {
  WICK_NN_OP("torch.nn.functional.cross_entropy", Tensor(T, T, OptTensor, V, std::int64_t, V, Str, double));
  return op.call(input, target, weight, Value(), ignore_index, Value(), reduction, label_smoothing);
}
Tensor binary_cross_entropy(T input, T target, OptTensor weight, Str reduction) {
  WICK_NN_OP("torch.nn.functional.binary_cross_entropy", Tensor(T, T, OptTensor, V, V, Str));
  return op.call(input, target, weight, Value(), Value(), reduction);
}
Tensor binary_cross_entropy_with_logits(T input, T target, OptTensor weight, Str reduction, OptTensor pos_weight) {
  WICK_NN_OP("torch.nn.functional.binary_cross_entropy_with_logits", Tensor(T, T, OptTensor, V, V, Str, OptTensor));
  return op.call(input, target, weight, Value(), Value(), reduction, pos_weight);
}

}  // namespace nn::functional

#undef WICK_NN_OP

}  // namespace wick
