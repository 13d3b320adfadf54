// dispatch/composite/aten_entry_ops.cpp - ATen's entry points behind the layers: convolution, native_layer_norm, norm_except_dim, torch.ctc_loss, and the deprecated symeig.
/// \file
/// The functions PyTorch's own layers call, which `torch` exposes too:
/// `convolution` (the one convolution behind conv{1,2,3}d and
/// conv_transpose{1,2,3}d), `native_layer_norm` (layer_norm with its
/// statistics), `norm_except_dim` (weight_norm's g), `ctc_loss` with ATen's
/// integer reduction, and `symeig` (eigh with the upper triangle by default).
/// Each is composed from the public operators, so every backend and the
/// autograd formulas of its parts serve it.
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/log.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;

// A per-dim argument of torch.convolution: one value for every spatial dim,
// or that many values (PyTorch's message otherwise).
void check_conv_param(IntArrayRef values, const char* name, I64 dims) {
  if (values.size() == 1 || static_cast<I64>(values.size()) == dims) return;
  throw RuntimeError(detail::str_cat("expected ", name, " to be a single integer value or a list of ", dims,
                                     " values to match the convolution dimensions, but got ", name, "=",
                                     format_shape(values)));
}

Tensor convolution_kernel(T input, T weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                          IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                          I64 groups) {
  const I64 dims = weight.dim() - 2;
  WICK_CHECK(dims >= 1 && dims <= 3, RuntimeError, "weight should have at least three dimensions and at most five, "
             "got ", weight.dim());
  check_conv_param(stride, "stride", dims);
  check_conv_param(padding, "padding", dims);
  check_conv_param(dilation, "dilation", dims);
  check_conv_param(output_padding, "output_padding", dims);
  if (transposed) {
    if (dims == 1) return conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation);
    if (dims == 2) return conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation);
    return conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation);
  }
  // A plain convolution has no output_padding: PyTorch ignores it there too.
  if (dims == 1) return conv1d(input, weight, bias, stride, padding, dilation, groups);
  if (dims == 2) return conv2d(input, weight, bias, stride, padding, dilation, groups);
  return conv3d(input, weight, bias, stride, padding, dilation, groups);
}

// layer_norm, and the mean and 1 / sqrt(biased var + eps) over the normalized
// dims, kept as size-1 dims (PyTorch's shapes).
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_kernel(T input, IntArrayRef normalized_shape,
                                                            const std::optional<Tensor>& weight,
                                                            const std::optional<Tensor>& bias, double eps) {
  Tensor out = layer_norm(input, normalized_shape, weight, bias, eps);  // checks the arguments
  std::vector<I64> dims;
  for (I64 d = input.dim() - static_cast<I64>(normalized_shape.size()); d < input.dim(); ++d) dims.push_back(d);
  Tensor mean = wick::mean(input, dims, /*keepdim=*/true);
  Tensor rstd = rsqrt(add(var(input, dims, /*unbiased=*/false, /*keepdim=*/true), Scalar(eps)));
  return {std::move(out), std::move(mean), std::move(rstd)};
}

// PyTorch's recursion: the whole norm for dim -1; dim 0 and the last dim by
// a 2-D view; any other dim moved to the front and back.
Tensor norm_except_dim_kernel(T v, I64 pow, I64 dim) {
  const auto p = static_cast<double>(pow);
  if (dim == -1) return norm(v, p);
  if (dim == 0) {
    std::vector<I64> sizes(static_cast<std::size_t>(v.dim()), 1);
    sizes.front() = v.size(0);
    return norm(v.contiguous().view({v.size(0), -1}), p, std::vector<I64>{1}).view(sizes);
  }
  if (dim == v.dim() - 1) {
    std::vector<I64> sizes(static_cast<std::size_t>(v.dim()), 1);
    sizes.back() = v.size(-1);
    return norm(v.contiguous().view({-1, v.size(-1)}), p, std::vector<I64>{0}).view(sizes);
  }
  return norm_except_dim_kernel(v.transpose(0, dim), pow, 0).transpose(0, dim);
}

// torch.ctc_loss: F.ctc_loss with ATen's reduction enum (1 mean, 2 sum, any other none).
Tensor ctc_loss_kernel(T log_probs, T targets, const Value& input_lengths, const Value& target_lengths, I64 blank,
                       I64 reduction, bool zero_infinity) {
  const char* mode = reduction == 1 ? "mean" : reduction == 2 ? "sum" : "none";
  return call("torch.nn.functional.ctc_loss", {Value(log_probs), Value(targets), input_lengths, target_lengths,
                                               Value(blank), Value(mode), Value(zero_infinity)})
      .to_tensor();
}

// The deprecated symeig: eigh with UPLO from `upper`; without eigenvectors
// an empty tensor in their place (and the eigenvalues from eigvalsh).
std::tuple<Tensor, Tensor> symeig_kernel(T self, bool eigenvectors, bool upper) {
  static std::once_flag warned;
  std::call_once(warned, [] {
    logging::warn("torch.symeig is deprecated: use torch.linalg.eigh(A, UPLO='U' if upper else 'L') for the "
                  "eigenvalues and eigenvectors, torch.linalg.eigvalsh for the eigenvalues alone");
  });
  const char* uplo = upper ? "U" : "L";
  if (eigenvectors) return linalg::eigh(self, uplo);
  return {linalg::eigvalsh(self, uplo), empty({0}, self.dtype(), self.device())};
}

}  // namespace

void register_aten_entry_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("convolution", &convolution_kernel)
      .impl("native_layer_norm", &native_layer_norm_kernel)
      .impl("norm_except_dim", &norm_except_dim_kernel)
      .impl("ctc_loss", &ctc_loss_kernel)
      .impl("symeig", &symeig_kernel);
  out.push_back(std::move(torch));
}

}  // namespace wick
