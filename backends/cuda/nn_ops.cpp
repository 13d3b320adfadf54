// backends/cuda/nn_ops.cpp - the nn activations, nll_loss and layer_norm on CUDA.
/// \file
/// The computations of torch.nn.functional's leaky_relu, elu, gelu, silu,
/// logsigmoid, nll_loss and layer_norm, whose meta functions
/// (dispatch/ops/meta_nn.cpp) checked the arguments and gave the output, for
/// the CPU backend too. Kernels in nn_kernels.cu. nll_loss checks its
/// targets on the device before computing (Note [Index checks on the
/// device] in index_ops.cpp).
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include <wick/meta_nn.h>
#include <wick/nn_functional.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "index_kernels.h"
#include "nn_kernels.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;
namespace nnf = wick::nn::functional;

// The nn kernels' loops: float32, float64, float16 and bfloat16 (the
// 16-bit ones in float32, rounded once); others are PyTorch's refusal
// naming `kernel`.
NnType nn_type(ScalarType t, const char* kernel) {
  if (t == ScalarType::kFloat32) return NnType::kFloat32;
  if (t == ScalarType::kFloat64) return NnType::kFloat64;
  if (t == ScalarType::kFloat16) return NnType::kFloat16;
  if (t == ScalarType::kBFloat16) return NnType::kBFloat16;
  throw_not_implemented_for(kernel, t);
}

Tensor contiguous_on(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device());
  if (c.numel() > 0) copy_within_device(c, t);
  return c;
}

// --- activations -------------------------------------------------------------------------------

// out = kind(self) (the derived kernel copies `out` into self for inplace=True).
void activation(const char* op, const char* kernel, const Tensor& out, const Tensor& self, Activation kind,
                double param = 0) {
  const NnType type = nn_type(self.dtype(), kernel);
  if (out.numel() == 0) return;
  const DeviceGuard guard(out.device());
  const Tensor x = contiguous_on(self);
  launch_activation(kind, type, x.data_ptr(), out.data_ptr(), out.numel(), param, current_stream());
  check_launch(op);
}

}  // namespace

void leaky_relu(const ActivationMeta&, const Tensor& out, const Tensor& self, double slope, bool /*inplace*/) {
  activation("torch.nn.functional.leaky_relu", "leaky_relu_cuda", out, self, Activation::kLeakyRelu, slope);
}

void elu(const ActivationMeta&, const Tensor& out, const Tensor& self, double alpha, bool /*inplace*/) {
  activation("torch.nn.functional.elu", "elu_cuda", out, self, Activation::kElu, alpha);
}

void gelu(const ActivationMeta&, const Tensor& out, const Tensor& self, std::string_view approximate) {
  activation("torch.nn.functional.gelu", "GeluCUDAKernelImpl", out, self,
             approximate == "tanh" ? Activation::kGeluTanh : Activation::kGeluErf);
}

void silu(const ActivationMeta&, const Tensor& out, const Tensor& self, bool /*inplace*/) {
  activation("torch.nn.functional.silu", "silu_cuda", out, self, Activation::kSilu);
}

void logsigmoid(const ActivationMeta&, const Tensor& out, const Tensor& self) {
  activation("torch.nn.functional.logsigmoid", "log_sigmoid_forward_cuda", out, self, Activation::kLogSigmoid);
}

namespace {

// --- nll_loss ----------------------------------------------------------------------------------

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

}  // namespace

void nll_loss(const NllLossMeta& sh, const Tensor& out, const Tensor& input, const Tensor& target,
              const std::optional<Tensor>& weight, std::optional<bool> /*size_average*/, I64 ignore_index,
              std::optional<bool> /*reduce*/, std::string_view /*reduction*/) {
  const char* op = "torch.nn.functional.nll_loss";
  const nnf::Reduction red = sh.reduction;
  const NnType type = nn_type(input.dtype(), "nll_loss_forward_out_cuda_template");
  const Device device = out.device();
  const DeviceGuard guard(device);
  const Tensor x = contiguous_on(input);
  const Tensor t = contiguous_on(on_device(target, device));
  std::optional<Tensor> w;
  if (weight) w = contiguous_on(*weight);
  check_targets(op, t, sh.c, ignore_index);
  Tensor scratch = make_empty({2}, ScalarType::kFloat64, device);
  NllArgs a;
  a.input = x.data_ptr();
  a.target = static_cast<const I64*>(t.data_ptr());
  a.weight = w ? w->data_ptr() : nullptr;
  a.out = out.data_ptr();
  a.scratch = static_cast<double*>(scratch.data_ptr());
  a.type = type;
  a.n = sh.n;
  a.c = sh.c;
  a.s = sh.s;
  a.ignore_index = ignore_index;
  a.reduction = red == nnf::Reduction::kNone ? 0 : red == nnf::Reduction::kMean ? 1 : 2;
  launch_nll_loss(a, current_stream());
  check_launch(op);
}

namespace {

// --- layer_norm --------------------------------------------------------------------------------

}  // namespace

void layer_norm(const LayerNormMeta& meta, const Tensor& out, const Tensor& input, IntArrayRef /*normalized_shape*/,
                const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps) {
  const char* op = "torch.nn.functional.layer_norm";
  const NnType type = nn_type(input.dtype(), "LayerNormKernelImpl");
  if (meta.m == 0 || meta.n == 0) return;
  const DeviceGuard guard(out.device());
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
  a.type = type;
  a.m = meta.m;
  a.n = meta.n;
  a.eps = eps;
  launch_layer_norm(a, current_stream());
  check_launch(op);
}

}  // namespace wick::cuda_backend
