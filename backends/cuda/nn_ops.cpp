// backends/cuda/nn_ops.cpp - the nn activations, nll_loss and layer_norm on CUDA.
/// \file
/// torch.nn.functional's leaky_relu, elu, gelu, silu, logsigmoid, nll_loss
/// and layer_norm with the CPU backend's checks and messages
/// (backends/cpu/nn_ops.cpp, norm_ops.cpp; PyTorch's CUDA kernel names
/// where a message names the kernel). Kernels in nn_kernels.cu. nll_loss
/// checks its targets on the device before computing (Note [Index checks
/// on the device] in index_ops.cpp).
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include <wick/nn_functional.h>
#include <wick/tensor_util.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "index_kernels.h"
#include "nn_kernels.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;
namespace nnf = wick::nn::functional;

void check_float(const char* op, const char* kernel, ScalarType t) {
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"", kernel, "\" not implemented for '", type_title(t), "'");
}

NnType nn_type(ScalarType t) { return t == ScalarType::kFloat64 ? NnType::kFloat64 : NnType::kFloat32; }

Tensor contiguous_on(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device());
  if (c.numel() > 0) copy_within_device(c, t);
  return c;
}

// --- activations -------------------------------------------------------------------------------

Tensor activation(const char* op, const char* kernel, const Tensor& self, bool inplace, Activation kind,
                  double param = 0) {
  check_float(op, kernel, self.dtype());
  const Device device = cuda_device_of(op, {&self});
  const DeviceGuard guard(device);
  const Tensor x = contiguous_on(self);
  Tensor r = make_empty(self.sizes(), self.dtype(), device);
  launch_activation(kind, nn_type(self.dtype()), x.data_ptr(), r.data_ptr(), r.numel(), param, current_stream());
  check_launch(op);
  if (!inplace) return r;
  Tensor s = self;
  s.copy_(r);
  return s;
}

Tensor leaky_relu(const Tensor& self, double slope, bool inplace) {
  return activation("torch.nn.functional.leaky_relu", "leaky_relu_cuda", self, inplace, Activation::kLeakyRelu, slope);
}

Tensor elu(const Tensor& self, double alpha, bool inplace) {
  return activation("torch.nn.functional.elu", "elu_cuda", self, inplace, Activation::kElu, alpha);
}

Tensor gelu(const Tensor& self, std::string_view approximate) {
  const char* op = "torch.nn.functional.gelu";
  WICK_CHECK(approximate == "none" || approximate == "tanh", RuntimeError, op,
             ": approximate argument must be either none or tanh.");
  return activation(op, "GeluCUDAKernelImpl", self, false,
                    approximate == "tanh" ? Activation::kGeluTanh : Activation::kGeluErf);
}

Tensor silu(const Tensor& self, bool inplace) {
  return activation("torch.nn.functional.silu", "silu_cuda", self, inplace, Activation::kSilu);
}

Tensor logsigmoid(const Tensor& self) {
  return activation("torch.nn.functional.logsigmoid", "log_sigmoid_forward_cuda", self, false,
                    Activation::kLogSigmoid);
}

// --- nll_loss ----------------------------------------------------------------------------------

struct NllShape {
  I64 n = 1, c = 1, s = 1;
};

NllShape check_nll(const char* op, const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight) {
  WICK_CHECK(input.dim() >= 1, ValueError, op, ": Expected 1 or more dimensions (got ", input.dim(), ")");
  WICK_CHECK(input.dim() == 1 || (target.dim() > 0 && input.sizes()[0] == target.sizes()[0]), ValueError, op,
             ": Expected input batch_size (", input.sizes()[0], ") to match target batch_size (",
             target.dim() == 0 ? 0 : target.sizes()[0], ").");
  NllShape sh;
  if (input.dim() <= 2) {
    WICK_CHECK(target.dim() <= 1, RuntimeError, op, ": 0D or 1D target tensor expected, multi-target not supported");
    const bool no_batch = input.dim() == 1 && target.dim() == 0;
    WICK_CHECK(no_batch || input.sizes()[0] == target.sizes()[0], RuntimeError, op,
               ": size mismatch (got input: ", format_shape(input.sizes()), ", target: ", format_shape(target.sizes()),
               ")");
    sh.n = input.dim() == 1 ? 1 : input.sizes()[0];
    sh.c = input.sizes()[input.dim() - 1];
  } else {
    DimVector want;
    want.push_back(input.sizes()[0]);
    for (I64 i = 2; i < input.dim(); ++i) want.push_back(input.sizes()[i]);
    WICK_CHECK(target.sizes().equals(want), RuntimeError, op, ": Expected target size ", format_shape(want), ", got ",
               format_shape(target.sizes()));
    sh.n = input.sizes()[0];
    sh.c = input.sizes()[1];
    for (I64 i = 2; i < input.dim(); ++i) sh.s *= input.sizes()[i];
  }
  WICK_CHECK(target.dtype() == ScalarType::kInt64, RuntimeError, op, ": expected scalar type Long but found ",
             type_title(target.dtype()));
  check_float(op, "nll_loss_forward_out_cuda_kernel", input.dtype());
  if (weight) {
    WICK_CHECK(weight->numel() == sh.c, RuntimeError, op, ": weight tensor should be defined either for all ", sh.c,
               " classes or no classes but got weight tensor of shape: ", format_shape(weight->sizes()));
    WICK_CHECK(weight->dtype() == input.dtype(), RuntimeError, op, ": expected scalar type ",
               type_title(input.dtype()), " but found ", type_title(weight->dtype()));
  }
  return sh;
}

// Throws the CPU's IndexError for the first target (row-major) outside
// [0, c) that is not ignore_index; one synchronisation.
void check_targets(const char* op, const Tensor& t, I64 c, I64 ignore_index) {
  if (t.numel() == 0) return;
  Tensor result = make_empty({2}, ScalarType::kInt64, t.device());
  launch_find_bad_index(static_cast<const I64*>(t.data_ptr()), t.numel(), 0, c, true, ignore_index,
                        static_cast<I64*>(result.data_ptr()), current_stream());
  check_launch(op);
  Tensor host = make_empty({2}, ScalarType::kInt64, Device());
  host.copy_(result);
  const I64* r = static_cast<const I64*>(host.data_ptr());
  WICK_CHECK(r[0] == INT64_MAX, IndexError, op, ": Target ", r[1], " is out of bounds.");
}

Tensor nll_loss(const Tensor& input, const Tensor& target, const std::optional<Tensor>& weight,
                std::optional<bool> size_average, I64 ignore_index, std::optional<bool> reduce, std::string_view reduction) {
  const char* op = "torch.nn.functional.nll_loss";
  const nnf::Reduction red = nnf::resolve_reduction(op, size_average, reduce, reduction);
  const NllShape sh = check_nll(op, input, target, weight);
  const Tensor no_weight;
  const Device device = cuda_device_of(op, {&input, &target, weight ? &*weight : &no_weight});
  const DeviceGuard guard(device);
  const Tensor x = contiguous_on(input);
  const Tensor t = contiguous_on(on_device(target, device));
  std::optional<Tensor> w;
  if (weight) w = contiguous_on(*weight);
  check_targets(op, t, sh.c, ignore_index);
  Tensor out = red == nnf::Reduction::kNone ? make_empty(target.sizes(), input.dtype(), device)
                                            : make_empty({}, input.dtype(), device);
  Tensor scratch = make_empty({2}, ScalarType::kFloat64, device);
  NllArgs a;
  a.input = x.data_ptr();
  a.target = static_cast<const I64*>(t.data_ptr());
  a.weight = w ? w->data_ptr() : nullptr;
  a.out = out.data_ptr();
  a.scratch = static_cast<double*>(scratch.data_ptr());
  a.type = nn_type(input.dtype());
  a.n = sh.n;
  a.c = sh.c;
  a.s = sh.s;
  a.ignore_index = ignore_index;
  a.reduction = red == nnf::Reduction::kNone ? 0 : red == nnf::Reduction::kMean ? 1 : 2;
  launch_nll_loss(a, current_stream());
  check_launch(op);
  return out;
}

// --- layer_norm --------------------------------------------------------------------------------

void check_layer_norm(const char* op, const Tensor& input, IntArrayRef shape, const std::optional<Tensor>& weight,
                      const std::optional<Tensor>& bias) {
  const auto k = static_cast<I64>(shape.size());
  WICK_CHECK(k >= 1, RuntimeError, op,
             ": Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got "
             "normalized_shape = ",
             format_shape(shape));
  bool fits = input.dim() >= k;
  for (I64 i = 0; fits && i < k; ++i) fits = input.sizes()[input.dim() - k + i] == shape[i];
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
    WICK_CHECK((*t)->dtype() == input.dtype(), RuntimeError, op, ": expected scalar type ",
               type_title(input.dtype()), " but found ", type_title((*t)->dtype()));
  }
}

Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  const char* op = "torch.nn.functional.layer_norm";
  check_layer_norm(op, input, normalized_shape, weight, bias);
  const Tensor none;
  const Device device = cuda_device_of(op, {&input, weight ? &*weight : &none, bias ? &*bias : &none});
  const DeviceGuard guard(device);
  I64 n = 1;
  for (I64 s : normalized_shape) n *= s;
  const I64 m = n == 0 ? 0 : input.numel() / n;
  Tensor out = make_empty(input.sizes(), input.dtype(), device);
  if (m == 0 || n == 0) return out;
  const Tensor x = contiguous_on(input);
  std::optional<Tensor> w;
  std::optional<Tensor> b;
  if (weight) w = contiguous_on(*weight);
  if (bias) b = contiguous_on(*bias);
  LayerNormArgs a;
  a.x = x.data_ptr();
  a.weight = w ? w->data_ptr() : nullptr;
  a.bias = b ? b->data_ptr() : nullptr;
  a.y = out.data_ptr();
  a.type = nn_type(input.dtype());
  a.m = m;
  a.n = n;
  a.eps = eps;
  launch_layer_norm(a, current_stream());
  check_launch(op);
  return out;
}

}  // namespace

void register_nn_ops(Library& functional) {
  functional.impl("leaky_relu", &leaky_relu)
      .impl("elu", &elu)
      .impl("gelu", &gelu)
      .impl("silu", &silu)
      .impl("logsigmoid", &logsigmoid)
      .impl("nll_loss", &nll_loss)
      .impl("layer_norm", &layer_norm);
}

}  // namespace wick::cuda_backend
