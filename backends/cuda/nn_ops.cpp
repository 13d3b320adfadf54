// backends/cuda/nn_ops.cpp - the nn activations, nll_loss, layer_norm, batch_norm and group_norm on CUDA.
/// \file
/// The computations of torch.nn.functional's leaky_relu, elu, gelu, silu,
/// logsigmoid, nll_loss and layer_norm, and aten.interpolate_taps (F.interpolate's passes), whose meta functions
/// (dispatch/ops/meta_nn.cpp) checked the arguments and gave the output, for
/// the CPU backend too. Kernels in nn_kernels.cu. nll_loss checks its
/// targets on the device before computing (Note [Index checks on the
/// device] in index_ops.cpp). native_batch_norm (and its backward) and
/// native_group_norm are composed of the backend's reductions and
/// elementwise kernels (Note [batch_norm on CUDA]).
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

#include <wick/meta_index.h>
#include <wick/meta_nn.h>
#include <wick/nn_functional.h>
#include <wick/ops.h>

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

// --- interpolate_taps: F.interpolate's passes ----------------------------------------------------

namespace {

// The taps on out's device, every index checked to be in [0, rows) first.
Tensor checked_taps(const char* op, const Tensor& out, const Tensor& index, I64 d, I64 rows) {
  Tensor idx = contiguous_on(on_device(index, out.device()));
  if (const auto bad = find_bad(op, idx, 0, rows))
    WICK_CHECK(false, IndexError, op, ": index ", bad->second, " is out of bounds for dimension ", d, " with size ",
               rows);
  return idx;
}

// Either pass's launch arguments but the dtype: out seen as [outer, ., inner]
// along dim d, `in` and `weight` contiguous on its device, rows_in the
// input's rows a slice.
InterpolateTapsArgs taps_args(const Tensor& out, I64 d, const Tensor& in, const Tensor& idx,
                              const std::optional<Tensor>& weight, I64 rows_in, Tensor& keep_in, Tensor& keep_w) {
  keep_in = contiguous_on(on_device(in, out.device()));
  if (weight) keep_w = contiguous_on(on_device(*weight, out.device()));
  InterpolateTapsArgs a;
  a.in = keep_in.data_ptr();
  a.out = out.data_ptr();
  a.index = static_cast<const I64*>(idx.data_ptr());
  a.weight = weight ? keep_w.data_ptr() : nullptr;
  a.outer = 1;
  for (I64 k = 0; k < d; ++k) a.outer *= out.sizes()[k];
  a.inner = 1;
  for (I64 k = d + 1; k < out.dim(); ++k) a.inner *= out.sizes()[k];
  a.n = idx.sizes()[1];
  a.rows_in = rows_in;
  a.taps = idx.sizes()[0];
  return a;
}

}  // namespace

// Without a weight (nearest) the one tap's rows are copied by index_select's kernel.
void interpolate_taps(const DimMeta& m, const Tensor& out, const Tensor& self, I64 /*dim*/, const Tensor& index,
                      const std::optional<Tensor>& weight) {
  const char* op = "aten.interpolate_taps";
  const DeviceGuard guard(out.device());
  const I64 rows_in = self.sizes()[m.dim];
  const Tensor idx = checked_taps(op, out, index, m.dim, rows_in);
  if (out.numel() == 0) return;
  Tensor src;
  Tensor w;
  InterpolateTapsArgs a = taps_args(out, m.dim, self, idx, weight, rows_in, src, w);
  if (!weight) {
    // index_select's kernel moves elements of up to 8 bytes: complex128 is refused.
    if (itemsize(self.dtype()) > 8) throw_not_implemented_for("upsample_cuda", self.dtype());
    IndexSelectArgs copy;
    copy.src = a.in;
    copy.out = a.out;
    copy.idx = a.index;
    copy.elem_size = static_cast<int>(itemsize(self.dtype()));
    copy.outer = a.outer;
    copy.inner = a.inner;
    copy.count = a.n;
    copy.size = rows_in;
    launch_index_select(copy, current_stream());
  } else {
    a.type = nn_type(self.dtype(), "upsample_cuda");
    launch_interpolate_taps(a, current_stream());
  }
  check_launch(op);
}

void interpolate_taps_backward(const DimMeta& m, const Tensor& out, const Tensor& grad_output, I64 /*dim*/,
                               const Tensor& index, const std::optional<Tensor>& weight, I64 input_size) {
  const char* op = "aten.interpolate_taps_backward";
  const DeviceGuard guard(out.device());
  const Tensor idx = checked_taps(op, out, index, m.dim, input_size);
  if (out.numel() == 0) return;
  Tensor(out).zero_();
  Tensor g;
  Tensor w;
  InterpolateTapsArgs a = taps_args(out, m.dim, grad_output, idx, weight, input_size, g, w);
  a.type = nn_type(out.dtype(), "upsample_backward_cuda");
  launch_interpolate_taps_backward(a, current_stream());
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

namespace {

// Every dim of `x` but the channel one (dim 1), and [1, C, 1, ...]: what
// batch_norm reduces over and the shape a per-channel vector broadcasts as.
std::pair<DimVector, DimVector> channel_layout(const Tensor& x) {
  DimVector axes;
  DimVector shape(static_cast<std::size_t>(x.dim()), 1);
  shape[1] = x.sizes()[1];
  for (I64 i = 0; i < x.dim(); ++i) {
    if (i != 1) axes.push_back(i);
  }
  return {axes, shape};
}

}  // namespace

// Note [batch_norm on CUDA]
// native_batch_norm runs as the operators it is made of, each on the
// device: the batch mean and the mean of squared deviations over every dim
// but the channel one (or the running statistics), alpha = invstd * weight
// and beta = bias - mean * alpha per channel, and x * alpha + beta. The
// 16-bit floats compute in float32, rounded once into the output. Its own
// one-pass kernel is future work.
void native_batch_norm(const BatchNormMeta& meta, const std::array<Tensor, 3>& outs, const Tensor& input,
                       const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                       const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                       bool training, double momentum, double eps) {
  const I64 c = meta.c;
  const DeviceGuard guard(outs[0].device());
  if (input.numel() == 0) {
    // No values: NaN statistics, as the mean of nothing; the running ones stay.
    if (training && c > 0) {
      for (int k = 1; k <= 2; ++k) {
        Tensor o = outs[k];
        o.fill_(Scalar(NAN));
      }
    }
    return;
  }
  const ScalarType compute = is_reduced_floating(input.dtype()) ? ScalarType::kFloat32 : input.dtype();
  const Tensor x = input.to(compute);
  const std::pair<DimVector, DimVector> layout = channel_layout(x);
  const DimVector& axes = layout.first;
  const DimVector& shape = layout.second;
  const auto vec = [&](const Tensor& t) { return wick::reshape(t, IntArrayRef(c)).to(compute); };
  Tensor mean;
  Tensor var;
  if (training) {
    mean = wick::mean(x, IntArrayRef(axes), false);
    const Tensor centered = wick::sub(x, wick::reshape(mean, IntArrayRef(shape)));
    var = wick::mean(wick::mul(centered, centered), IntArrayRef(axes), false);
  } else {
    mean = vec(*running_mean);
    var = vec(*running_var);
  }
  const Tensor invstd = wick::rsqrt(wick::add(var, wrap_scalar(Scalar(eps))));
  const Tensor alpha = weight ? wick::mul(invstd, vec(*weight)) : invstd;
  const Tensor shift = wick::mul(mean, alpha);
  const Tensor beta = bias ? wick::sub(vec(*bias), shift) : wick::neg(shift);
  Tensor y = outs[0];
  y.copy_(wick::add(wick::mul(x, wick::reshape(alpha, IntArrayRef(shape))), wick::reshape(beta, IntArrayRef(shape))));
  if (!training) return;
  Tensor saved_mean = outs[1];
  Tensor saved_invstd = outs[2];
  saved_mean.copy_(mean);
  saved_invstd.copy_(invstd);
  const double count = static_cast<double>(input.numel() / c);
  const double keep = 1.0 - momentum;
  if (running_mean) {
    Tensor r = *running_mean;
    r.copy_(wick::reshape(
        wick::add(wick::mul(vec(r), wrap_scalar(Scalar(keep))), wick::mul(mean, wrap_scalar(Scalar(momentum)))),
        r.sizes()));
  }
  if (running_var) {
    Tensor r = *running_var;
    const double unbias = count / (count - 1.0);  // count 1: NaN, as on the CPU
    r.copy_(wick::reshape(
        wick::add(wick::mul(vec(r), wrap_scalar(Scalar(keep))), wick::mul(var, wrap_scalar(Scalar(momentum * unbias)))),
        r.sizes()));
  }
}

// aten.native_batch_norm_backward, composed the same way (Note [batch_norm on CUDA]).
void native_batch_norm_backward(const BatchNormMeta& meta, const std::array<Tensor, 3>& outs, const Tensor& grad_out,
                                const Tensor& input, const std::optional<Tensor>& weight,
                                const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                                const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd,
                                bool train, double eps, bool input_grad) {
  const I64 c = meta.c;
  const DeviceGuard guard(outs[1].device());
  Tensor gw_out = outs[1];
  Tensor gb_out = outs[2];
  if (input.numel() == 0) {
    gw_out.zero_();
    gb_out.zero_();
    return;
  }
  const ScalarType compute = is_reduced_floating(input.dtype()) ? ScalarType::kFloat32 : input.dtype();
  const Tensor x = input.to(compute);
  const Tensor g = grad_out.to(compute);
  const std::pair<DimVector, DimVector> layout = channel_layout(x);
  const DimVector& axes = layout.first;
  const DimVector& shape = layout.second;
  const auto vec = [&](const Tensor& t) { return wick::reshape(t, IntArrayRef(c)).to(compute); };
  const auto bc = [&](const Tensor& t) { return wick::reshape(t, IntArrayRef(shape)); };
  const Tensor mean = vec(train ? *save_mean : *running_mean);
  const Tensor invstd = train ? vec(*save_invstd) : wick::rsqrt(wick::add(vec(*running_var), wrap_scalar(Scalar(eps))));
  const Tensor xhat = wick::mul(wick::sub(x, bc(mean)), bc(invstd));
  const Tensor sum_g = wick::sum(g, IntArrayRef(axes), false);
  const Tensor sum_gxhat = wick::sum(wick::mul(g, xhat), IntArrayRef(axes), false);
  gw_out.copy_(sum_gxhat);
  gb_out.copy_(sum_g);
  if (!input_grad) return;
  const Tensor k1 = weight ? wick::mul(invstd, vec(*weight)) : invstd;
  Tensor gx;
  if (train) {
    const double count = static_cast<double>(input.numel() / c);
    const Tensor mg = wick::div(sum_g, wrap_scalar(Scalar(count)));
    const Tensor mgx = wick::div(sum_gxhat, wrap_scalar(Scalar(count)));
    gx = wick::mul(bc(k1), wick::sub(wick::sub(g, bc(mg)), wick::mul(xhat, bc(mgx))));
  } else {
    gx = wick::mul(g, bc(k1));
  }
  Tensor gx_out = outs[0];
  gx_out.copy_(gx);
}

// torch.native_group_norm, composed the same way: the statistics over the
// last dim of the input read as [N, group, (C / group) * HxW], then the
// per-channel alpha and beta of [N, C] over [N, C, HxW].
void native_group_norm(const GroupNormMeta& meta, const std::array<Tensor, 3>& outs, const Tensor& input,
                       const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, I64 batch, I64 channels,
                       I64 hxw, I64 group, double eps) {
  const DeviceGuard guard(outs[0].device());
  if (outs[1].numel() == 0) return;
  if (input.numel() == 0) {
    // Groups of no values: NaN statistics, as the mean of nothing.
    for (int k = 1; k <= 2; ++k) {
      Tensor o = outs[k];
      o.fill_(Scalar(NAN));
    }
    return;
  }
  const ScalarType compute = is_reduced_floating(input.dtype()) ? ScalarType::kFloat32 : input.dtype();
  const I64 per_group = meta.c / meta.groups;
  const Tensor xg = wick::reshape(input.to(compute), {batch, group, per_group * hxw});
  const std::int64_t last[] = {2};
  const Tensor mean = wick::mean(xg, IntArrayRef(last), true);
  const Tensor centered = wick::sub(xg, mean);
  const Tensor rstd = wick::rsqrt(
      wick::add(wick::mean(wick::mul(centered, centered), IntArrayRef(last), true), wrap_scalar(Scalar(eps))));
  // [batch, channels] scale and shift: each group's statistics repeated over its channels.
  const Tensor rstd_c =
      wick::reshape(wick::reshape(rstd, {batch, group, 1}).expand({batch, group, per_group}), {batch, channels});
  const Tensor mean_c =
      wick::reshape(wick::reshape(mean, {batch, group, 1}).expand({batch, group, per_group}), {batch, channels});
  const Tensor alpha = weight ? wick::mul(rstd_c, wick::reshape(weight->to(compute), {1, channels})) : rstd_c;
  const Tensor shift = wick::mul(mean_c, alpha);
  const Tensor beta = bias ? wick::sub(wick::reshape(bias->to(compute), {1, channels}), shift) : wick::neg(shift);
  const Tensor x3 = wick::reshape(input.to(compute), {batch, channels, hxw});
  Tensor y = outs[0];
  y.copy_(wick::reshape(
      wick::add(wick::mul(x3, wick::reshape(alpha, {batch, channels, 1})), wick::reshape(beta, {batch, channels, 1})),
      y.sizes()));
  Tensor saved_mean = outs[1];
  Tensor saved_rstd = outs[2];
  saved_mean.copy_(wick::reshape(mean, {batch, group}));
  saved_rstd.copy_(wick::reshape(rstd, {batch, group}));
}

}  // namespace wick::cuda_backend
