// dispatch/ops/meta_nn.cpp - meta functions of softmax, the nn activations, nll_loss, and layer, batch and group
// norm (Note [Meta functions]).
/// \file
/// Every output is contiguous. softmax and log_softmax compute in `dtype`
/// when given (the input is converted first) and refuse non-float dtypes;
/// the activations, nll_loss and layer_norm keep the input's float dtype.
/// The messages are the CPU backend's (PyTorch's CPU kernel names where a
/// message names one), for every backend. nll_loss's target values are
/// data: the impls check that each lies in [0, C).
#include <algorithm>
#include <utility>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta_nn.h"
#include "wick/nn_functional.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

void check_float(const char* op, const char* kernel, ScalarType t) {
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"", kernel, "\" not implemented for '", type_title(t), "'");
}

// The device of the defined tensors among `tensors` (common_device's rules).
Device device_of(const char* op, std::initializer_list<const Tensor*> tensors) {
  return common_device(ArrayRef<const Tensor*>(tensors.begin(), tensors.size()), op);
}

template <bool kLog>
SoftmaxMeta softmax_meta(const Tensor& input, std::int64_t dim, std::optional<ScalarType> dtype) {
  const char* op = kLog ? "torch.log_softmax" : "torch.softmax";
  SoftmaxMeta m;
  m.dim = wrap_dim(dim, std::max<std::int64_t>(input.dim(), 1));
  const ScalarType t = dtype.value_or(input.dtype());
  check_float(op, kLog ? "log_softmax_lastdim_kernel_impl" : "softmax_lastdim_kernel_impl", t);
  m.out = TensorMeta::contiguous(input.sizes(), t, device_of(op, {&input}));
  if (input.numel() == 0) return m;
  const IntArrayRef sizes = input.sizes();
  m.n = input.dim() == 0 ? 1 : sizes[static_cast<std::size_t>(m.dim)];
  const auto d = static_cast<std::size_t>(m.dim);
  m.outer = checked_numel(IntArrayRef(sizes.data(), d));
  m.inner = input.dim() == 0 ? 1 : checked_numel(IntArrayRef(sizes.data() + d + 1, sizes.size() - d - 1));
  return m;
}

// An elementwise float activation of `self` (`kernel`: PyTorch's CPU kernel, named by the dtype error).
// complex: whether the kernel has complex loops too (silu).
ActivationMeta activation(const char* op, const char* kernel, const Tensor& self, bool inplace, bool complex = false) {
  if (!(complex && is_complex(self.dtype()))) check_float(op, kernel, self.dtype());
  return {TensorMeta::contiguous(self.sizes(), self.dtype(), device_of(op, {&self})), inplace};
}

}  // namespace

namespace meta {

SoftmaxMeta softmax(const Tensor& input, std::int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_meta<false>(input, dim, dtype);
}
SoftmaxMeta log_softmax(const Tensor& input, std::int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_meta<true>(input, dim, dtype);
}

// [n, c, s] with the channel at dim 1; weight, bias and the running
// statistics of c elements and a floating dtype, the running ones required
// in evaluation.
BatchNormMeta native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias, const std::optional<Tensor>& running_mean,
                                const std::optional<Tensor>& running_var, bool training, double /*momentum*/,
                                double /*eps*/) {
  const char* op = "torch.native_batch_norm";
  (void)wrap_dim(1, input.dim());  // PyTorch's IndexError for a 0-dim or 1-D input
  check_float(op, "batch_norm", input.dtype());
  BatchNormMeta m;
  m.n = input.sizes()[0];
  m.c = input.sizes()[1];
  const std::pair<const char*, const std::optional<Tensor>*> params[] = {
      {"weight", &weight}, {"bias", &bias}, {"running_mean", &running_mean}, {"running_var", &running_var}};
  for (const auto& [name, t] : params) {
    if (!*t) continue;
    WICK_CHECK((*t)->numel() == m.c, RuntimeError, op, ": ", name, " should contain ", m.c, " elements not ",
               (*t)->numel());
    WICK_CHECK(is_floating((*t)->dtype()), RuntimeError, op, ": expected ", name, " to have a floating dtype, but got ",
               type_title((*t)->dtype()));
  }
  if (!training) {
    WICK_CHECK(running_mean.has_value(), RuntimeError, op, ": running_mean must be defined in evaluation mode");
    WICK_CHECK(running_var.has_value(), RuntimeError, op, ": running_var must be defined in evaluation mode");
  }
  const Tensor none;
  const auto ptr = [&](const std::optional<Tensor>& t) { return t ? &*t : &none; };
  const Device device = device_of(op, {&input, ptr(weight), ptr(bias), ptr(running_mean), ptr(running_var)});
  const std::int64_t saved = training ? m.c : 0;
  m.outs = {TensorMeta::contiguous(input.sizes(), input.dtype(), device),
            TensorMeta::contiguous(IntArrayRef(saved), input.dtype(), device),
            TensorMeta::contiguous(IntArrayRef(saved), input.dtype(), device)};
  // The sizes after the channel: their product only matters when there is
  // data, and then it fits (an empty input may have any sizes).
  if (input.numel() != 0) m.s = input.numel() / checked_mul(m.n, m.c, op);
  return m;
}

// (N, C, HxW) with N * C * HxW == input.numel(); weight and bias of C
// elements and the input's dtype; `group` > 0 dividing C.
GroupNormMeta native_group_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& bias, std::int64_t batch, std::int64_t channels,
                                std::int64_t hxw, std::int64_t group, double /*eps*/) {
  const char* op = "torch.native_group_norm";
  WICK_CHECK(group > 0, RuntimeError, op, ": Expected num groups to be greater than 0, got ", group);
  WICK_CHECK(channels % group == 0, RuntimeError, op,
             ": Expected number of channels in input to be divisible by num_groups, but got input of shape ",
             format_shape(input.sizes()), " and num_groups=", group);
  WICK_CHECK(batch >= 0 && channels >= 0 && hxw >= 0 &&
                 checked_mul(checked_mul(batch, channels, op), hxw, op) == input.numel(),
             RuntimeError, op, ": Expected X.numel() == N * C * HxW to be true, but got false.");
  check_float(op, "GroupNormKernelImpl", input.dtype());
  const std::pair<const char*, const std::optional<Tensor>*> affine[] = {{"weight", &weight}, {"bias", &bias}};
  for (const auto& [name, t] : affine) {
    if (!*t) continue;
    WICK_CHECK((*t)->numel() == channels, RuntimeError, op, ": Expected ", name,
               " to be a vector of size equal to the number of channels in input, but got ", name, " of shape ",
               format_shape((*t)->sizes()), " and input of shape ", format_shape(input.sizes()));
    WICK_CHECK((*t)->dtype() == input.dtype(), RuntimeError, op, ": expected scalar type ", type_title(input.dtype()),
               " but found ", type_title((*t)->dtype()));
  }
  const Tensor none;
  const Device device = device_of(op, {&input, weight ? &*weight : &none, bias ? &*bias : &none});
  GroupNormMeta m;
  m.n = batch;
  m.c = channels;
  m.s = hxw;
  m.groups = group;
  (void)checked_mul(batch, group, op);  // the statistics' numel (C may be 0, and `group` anything)
  const std::int64_t stats[] = {batch, group};
  m.outs = {TensorMeta::contiguous(input.sizes(), input.dtype(), device),
            TensorMeta::contiguous(stats, input.dtype(), device), TensorMeta::contiguous(stats, input.dtype(), device)};
  return m;
}

}  // namespace meta

namespace nn::functional::meta {

ActivationMeta leaky_relu(const Tensor& input, double /*negative_slope*/, bool inplace) {
  return activation("torch.nn.functional.leaky_relu", "leaky_relu_cpu", input, inplace);
}
ActivationMeta elu(const Tensor& input, double /*alpha*/, bool inplace) {
  return activation("torch.nn.functional.elu", "elu_cpu", input, inplace);
}
ActivationMeta gelu(const Tensor& input, std::string_view approximate) {
  const char* op = "torch.nn.functional.gelu";
  WICK_CHECK(approximate == "none" || approximate == "tanh", RuntimeError, op,
             ": approximate argument must be either none or tanh.");
  return activation(op, "GeluKernelImpl", input, false);
}
ActivationMeta silu(const Tensor& input, bool inplace) {
  return activation("torch.nn.functional.silu", "silu_cpu", input, inplace, true);
}
ActivationMeta logsigmoid(const Tensor& input) {
  return activation("torch.nn.functional.logsigmoid", "log_sigmoid_cpu", input, false);
}

// input (C), (N, C) or (N, C, d1, ...); target (), (N) or (N, d1, ...).
NllLossMeta nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                     std::optional<bool> size_average, std::int64_t /*ignore_index*/, std::optional<bool> reduce,
                     std::string_view reduction) {
  const char* op = "torch.nn.functional.nll_loss";
  NllLossMeta m;
  m.reduction = resolve_reduction(op, size_average, reduce, reduction);
  WICK_CHECK(input.dim() >= 1, ValueError, op, ": Expected 1 or more dimensions (got ", input.dim(), ")");
  WICK_CHECK(input.dim() == 1 || (target.dim() > 0 && input.sizes()[0] == target.sizes()[0]), ValueError, op,
             ": Expected input batch_size (", input.sizes()[0], ") to match target batch_size (",
             target.dim() == 0 ? 0 : target.sizes()[0], ").");
  if (input.dim() <= 2) {
    WICK_CHECK(target.dim() <= 1, RuntimeError, op, ": 0D or 1D target tensor expected, multi-target not supported");
    const bool no_batch = input.dim() == 1 && target.dim() == 0;
    WICK_CHECK(no_batch || input.sizes()[0] == target.sizes()[0], RuntimeError, op,
               ": size mismatch (got input: ", format_shape(input.sizes()), ", target: ", format_shape(target.sizes()),
               ")");
    m.n = input.dim() == 1 ? 1 : input.sizes()[0];
    m.c = input.sizes()[input.dim() - 1];
  } else {
    DimVector want;
    want.push_back(input.sizes()[0]);
    for (std::int64_t i = 2; i < input.dim(); ++i) want.push_back(input.sizes()[i]);
    WICK_CHECK(target.sizes().equals(want), RuntimeError, op, ": Expected target size ", format_shape(want), ", got ",
               format_shape(target.sizes()));
    m.n = input.sizes()[0];
    m.c = input.sizes()[1];
    m.s = checked_numel(IntArrayRef(input.sizes().data() + 2, input.sizes().size() - 2));
  }
  WICK_CHECK(target.dtype() == ScalarType::kInt64, RuntimeError, op, ": expected scalar type Long but found ",
             type_title(target.dtype()));
  check_float(op, "nll_loss_out_frame", input.dtype());
  if (weight) {
    WICK_CHECK(weight->numel() == m.c, RuntimeError, op, ": weight tensor should be defined either for all ", m.c,
               " classes or no classes but got weight tensor of shape: ", format_shape(weight->sizes()));
    WICK_CHECK(weight->dtype() == input.dtype(), RuntimeError, op, ": expected scalar type ", type_title(input.dtype()),
               " but found ", type_title(weight->dtype()));
  }
  const Tensor none;
  const Device device = device_of(op, {&input, &target, weight ? &*weight : &none});
  const IntArrayRef sizes = m.reduction == Reduction::kNone ? target.sizes() : IntArrayRef();
  m.out = TensorMeta::contiguous(sizes, input.dtype(), device);
  return m;
}

// Rows of the trailing normalized_shape dims; weight and bias of that shape.
LayerNormMeta layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                         const std::optional<Tensor>& bias, double /*eps*/) {
  const char* op = "torch.nn.functional.layer_norm";
  const IntArrayRef shape = normalized_shape;
  const auto k = static_cast<std::int64_t>(shape.size());
  WICK_CHECK(k >= 1, RuntimeError, op,
             ": Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
             "normalized_shape = ",
             format_shape(shape));
  bool fits = input.dim() >= k;
  for (std::int64_t i = 0; fits && i < k; ++i) fits = input.sizes()[input.dim() - k + i] == shape[i];
  WICK_CHECK(fits, RuntimeError, op, ": Given normalized_shape=", format_shape(shape),
             ", expected input with shape [*, ", format_shape(shape).substr(1), ", but got input of size",
             format_shape(input.sizes()));
  WICK_CHECK(is_floating(input.dtype()), RuntimeError, op, ": \"LayerNormKernelImpl\" not implemented for '",
             type_title(input.dtype()), "'");
  const std::pair<const char*, const std::optional<Tensor>*> affine[] = {{"weight", &weight}, {"bias", &bias}};
  for (const auto& [name, t] : affine) {
    if (!*t) continue;
    WICK_CHECK((*t)->sizes().equals(shape), RuntimeError, op, ": Expected ", name,
               " to be of same shape as normalized_shape, but got ", name, " of shape ", format_shape((*t)->sizes()),
               " and normalized_shape = ", format_shape(shape));
    WICK_CHECK((*t)->dtype() == input.dtype(), RuntimeError, op, ": expected scalar type ", type_title(input.dtype()),
               " but found ", type_title((*t)->dtype()));
  }
  const Tensor none;
  LayerNormMeta m;
  m.out = TensorMeta::contiguous(input.sizes(), input.dtype(),
                                 device_of(op, {&input, weight ? &*weight : &none, bias ? &*bias : &none}));
  if (input.numel() != 0) {
    m.n = checked_numel(shape);
    m.m = input.numel() / m.n;
  }
  return m;
}

}  // namespace nn::functional::meta
}  // namespace wick

namespace aten::meta {

// grad_out of the input's shape and dtype; the statistics the forward used.
wick::BatchNormMeta native_batch_norm_backward(const wick::Tensor& grad_out, const wick::Tensor& input,
                                               const std::optional<wick::Tensor>& weight,
                                               const std::optional<wick::Tensor>& running_mean,
                                               const std::optional<wick::Tensor>& running_var,
                                               const std::optional<wick::Tensor>& save_mean,
                                               const std::optional<wick::Tensor>& save_invstd, bool train,
                                               double /*eps*/, bool input_grad) {
  const char* op = "aten.native_batch_norm_backward";
  (void)wick::wrap_dim(1, input.dim());
  wick::check_float(op, "batch_norm_backward", input.dtype());
  WICK_CHECK(grad_out.sizes().equals(input.sizes()) && grad_out.dtype() == input.dtype(), RuntimeError, op,
             ": expected grad_out of the input's shape ", wick::format_shape(input.sizes()), " and dtype ",
             wick::type_title(input.dtype()), ", but got ", wick::format_shape(grad_out.sizes()), " and ",
             wick::type_title(grad_out.dtype()));
  wick::BatchNormMeta m;
  m.n = input.sizes()[0];
  m.c = input.sizes()[1];
  const std::pair<const char*, const std::optional<wick::Tensor>*> stats[] = {
      {train ? "save_mean" : "running_mean", train ? &save_mean : &running_mean},
      {train ? "save_invstd" : "running_var", train ? &save_invstd : &running_var}};
  for (const auto& [name, t] : stats) {
    WICK_CHECK(t->has_value(), RuntimeError, op, ": ", name, " must be defined");
  }
  const std::pair<const char*, const std::optional<wick::Tensor>*> params[] = {
      {"weight", &weight}, {stats[0].first, stats[0].second}, {stats[1].first, stats[1].second}};
  for (const auto& [name, t] : params) {
    if (!*t) continue;
    WICK_CHECK((*t)->numel() == m.c, RuntimeError, op, ": ", name, " should contain ", m.c, " elements not ",
               (*t)->numel());
    WICK_CHECK(wick::is_floating((*t)->dtype()), RuntimeError, op, ": expected ", name,
               " to have a floating dtype, but got ", wick::type_title((*t)->dtype()));
  }
  const wick::Tensor none;
  const auto ptr = [&](const std::optional<wick::Tensor>& t) { return t ? &*t : &none; };
  const wick::Device device =
      wick::device_of(op, {&grad_out, &input, ptr(weight), ptr(*stats[0].second), ptr(*stats[1].second)});
  m.outs = {wick::TensorMeta::contiguous(input_grad ? input.sizes() : wick::IntArrayRef(std::int64_t{0}), input.dtype(),
                                         device),
            wick::TensorMeta::contiguous(wick::IntArrayRef(m.c), input.dtype(), device),
            wick::TensorMeta::contiguous(wick::IntArrayRef(m.c), input.dtype(), device)};
  if (input.numel() != 0) m.s = input.numel() / wick::checked_mul(m.n, m.c, op);
  return m;
}

}  // namespace aten::meta
