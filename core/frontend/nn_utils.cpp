// core/frontend/nn_utils.cpp - nn::utils::clip_grad_norm_ and clip_grad_value_.
/// \file
/// As torch.nn.utils 1.13: the total norm is the norm of the per-gradient
/// norms (or the max of the per-gradient maxima), the scale
/// max_norm / (total + 1e-6) is clamped to 1 and multiplies each gradient.
#include "wick/nn_utils.h"

#include <cmath>
#include <optional>

#include "wick/autograd.h"
#include "wick/error.h"
#include "wick/ops.h"
#include "wick/value.h"

namespace wick::nn::utils {

Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type, bool error_if_nonfinite) {
  NoGradGuard no_grad;
  std::vector<Tensor> grads;
  for (const Tensor& p : params) {
    if (p.defined() && p.grad().defined()) grads.push_back(p.grad().detach());
  }
  if (grads.empty()) return zeros({}, ScalarType::kFloat32);
  const Device device = grads[0].device();
  Tensor total;
  std::vector<Tensor> norms;
  if (std::isinf(norm_type) && norm_type > 0) {
    for (const Tensor& g : grads) norms.push_back(g.abs().max().to(device));
    total = norms.size() == 1 ? norms[0] : stack(norms).max();
  } else {
    for (const Tensor& g : grads) norms.push_back(g.norm(norm_type).to(device));
    total = stack(norms).norm(norm_type);
  }
  if (error_if_nonfinite) {
    const double t = total.item<double>();
    WICK_CHECK(std::isfinite(t), RuntimeError, "The total norm of order ", python_float_repr(norm_type),
               " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this error and "
               "scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  }
  // Python's `number / tensor` is reciprocal(tensor) * number.
  const Tensor coef = total.add(wrap_scalar(1e-6))
                          .reciprocal()
                          .mul(max_norm)
                          .clamp(std::optional<Scalar>(), std::optional<Scalar>(1.0));
  for (Tensor& g : grads) g.mul_(coef.to(g.device()));
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& params, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : params) {
    if (!p.defined() || !p.grad().defined()) continue;
    Tensor g = p.grad().detach();
    g.clamp_(std::optional<Scalar>(-clip_value), std::optional<Scalar>(clip_value));
  }
}

}  // namespace wick::nn::utils
