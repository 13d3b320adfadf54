// dispatch/autograd_norm.cpp - layer_norm's Autograd kernel (NativeLayerNormBackward0).
/// \file
/// With axes the trailing `normalized_shape` dims, mu and rstd the mean and
/// 1/sqrt(biased var + eps) over them, xhat = (x - mu) * rstd and y = xhat
/// * w + b:
///   gx = rstd * (gh - mean(gh) - xhat * mean(gh * xhat)),  gh = g * w
///   gw = sum(g * xhat) and gb = sum(g) over the leading dims.
/// The tangent is the same projection of the input's tangent, plus
/// xhat * tw + tb. The node keeps the input and the weight; backward
/// recomputes mu and rstd from them with differentiable operators, so
/// double backward works.
#include <optional>

#include "dispatch/autograd/support.h"
#include "wick/nn_functional.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;

// x - mu and rstd over the last k dims (kept), from differentiable operators.
struct Normalized {
  Tensor xhat, rstd;
};
Normalized normalize(T x, std::int64_t k, double eps) {
  DimVector axes;
  for (std::int64_t i = -k; i < 0; ++i) axes.push_back(i);
  Tensor centered = wick::sub(x, wick::mean(x, IntArrayRef(axes), true));
  Tensor var = wick::mean(wick::mul(centered, centered), IntArrayRef(axes), true);
  Tensor rstd = wick::rsqrt(wick::add(var, scalar(eps)));
  return {wick::mul(centered, rstd), rstd};
}

// rstd * (h - mean(h) - xhat * mean(h * xhat)) over the last k dims.
Tensor project(T h, const Normalized& n, std::int64_t k) {
  DimVector axes;
  for (std::int64_t i = -k; i < 0; ++i) axes.push_back(i);
  Tensor mh = wick::mean(h, IntArrayRef(axes), true);
  Tensor mhx = wick::mean(wick::mul(h, n.xhat), IntArrayRef(axes), true);
  return wick::mul(n.rstd, wick::sub(wick::sub(h, mh), wick::mul(n.xhat, mhx)));
}

// Sums the leading dims of `t` away, leaving the trailing k (the affine shape).
Tensor sum_leading(T t, std::int64_t k) {
  const std::int64_t lead = t.dim() - k;
  if (lead == 0) return t;
  DimVector dims;
  for (std::int64_t i = 0; i < lead; ++i) dims.push_back(i);
  return wick::sum(t, IntArrayRef(dims), false);
}

struct NativeLayerNormBackward {
  static constexpr const char* kName = "NativeLayerNormBackward0";
  SavedVariable input, weight;
  std::int64_t k = 1;
  double eps = 1e-5;
  bool has_weight = false;
  tensor_list backward(FormulaNode<NativeLayerNormBackward>& node, tensor_list& g) {
    Tensor gx, gw, gb;
    if (node.should_compute_output(0) || node.should_compute_output(1)) {
      const Normalized n = normalize(node.unpack(input), k, eps);
      if (node.should_compute_output(0)) gx = project(has_weight ? wick::mul(g[0], node.unpack(weight)) : g[0], n, k);
      if (node.should_compute_output(1)) gw = sum_leading(wick::mul(g[0], n.xhat), k);
    }
    if (node.should_compute_output(2)) gb = sum_leading(g[0], k);
    return {gx, gw, gb};
  }
  void release() {
    input.reset();
    weight.reset();
  }
};

Tensor layer_norm_autograd(DispatchKeySet ks, T input, IntArrayRef normalized_shape,
                           const std::optional<Tensor>& weight, const std::optional<Tensor>& bias, double eps) {
  using Sig = Tensor(T, IntArrayRef, const std::optional<Tensor>&, const std::optional<Tensor>&, double);
  static const auto op = op_handle<Sig>("torch.nn.functional.layer_norm");
  auto node = make_node<NativeLayerNormBackward>(input, weight, bias);
  Tensor out = call_below(op, ks, input, normalized_shape, weight, bias, eps);
  const auto k = static_cast<std::int64_t>(normalized_shape.size());
  if (node) {
    auto& f = node->f;
    f.k = k;
    f.eps = eps;
    f.has_weight = weight.has_value();
    if (node->should_compute_output(0) || node->should_compute_output(1)) f.input = SavedVariable(input, false);
    if (weight && node->should_compute_output(0)) f.weight = SavedVariable(*weight, false);
    set_history(out, node);
  }
  if (any_tangent(input, weight, bias)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor tx = fw_grad_of(input);
    const Tensor tw = fw_grad_of(weight);
    const Tensor tb = fw_grad_of(bias);
    const Normalized n = normalize(input, k, eps);
    Tensor tangent;
    if (tx.defined()) tangent = project(tx, n, k);
    if (tangent.defined() && weight) tangent = wick::mul(tangent, *weight);
    if (tw.defined()) tangent = fw_add(tangent, wick::mul(n.xhat, tw));
    if (tb.defined()) tangent = fw_add(tangent, tb.expand(out.sizes()).contiguous());
    set_tangent(out, tangent.sizes().equals(out.sizes()) ? tangent : tangent.expand(out.sizes()).contiguous());
  }
  return out;
}

}  // namespace

void register_autograd_norm(std::vector<std::unique_ptr<Library>>& out) {
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kAutograd);
  functional->impl("layer_norm", &layer_norm_autograd);
  out.push_back(std::move(functional));
}

}  // namespace wick::autograd
