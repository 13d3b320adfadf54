// dispatch/autograd/norm.cpp - the Autograd kernels of layer_norm, native_batch_norm and native_group_norm
// (NativeLayerNormBackward0, NativeBatchNormBackward0, NativeGroupNormBackward0).
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
///
/// native_batch_norm is the same over every dim but the channel one (dim 1),
/// with these differences: in training, a backward that records (create_graph)
/// recomputes the statistics from the input; one that does not takes the
/// mean and invstd the forward returned. In evaluation the running
/// statistics are constants: gx = g * w * rstd. The saved mean and invstd
/// (training) are differentiable too: d mean / dx = 1 / count and d invstd
/// / dx = -invstd^2 xhat / count, per channel (PyTorch leaves them out of
/// the graph). The running statistics get no gradient, as in PyTorch.
///
/// native_group_norm is layer_norm's formula over the input read as
/// [N, group, (C / group) * HxW] (the last dim normalised), with the weight
/// and bias per channel of [N, C, HxW]: gw = sum(g * xhat) and gb = sum(g)
/// over N and HxW. Its backward recomputes the statistics, so double
/// backward works. The groups' means and rstd are differentiable, as
/// batch_norm's.
#include <optional>
#include <tuple>

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

// --- native_batch_norm -------------------------------------------------------------------------

// [1, C, 1, ...]: a [C] vector broadcast against `x` along its channel dim.
DimVector channel_shape(T x) {
  DimVector shape(static_cast<std::size_t>(x.dim()), 1);
  shape[1] = x.sizes()[1];
  return shape;
}
// Every dim of `x` but the channel one.
DimVector batch_axes(T x) {
  DimVector axes;
  for (std::int64_t i = 0; i < x.dim(); ++i) {
    if (i != 1) axes.push_back(i);
  }
  return axes;
}

struct NativeBatchNormBackward {
  static constexpr const char* kName = "NativeBatchNormBackward0";
  SavedVariable input, weight, running_mean, running_var, save_mean, save_invstd;
  bool training = false;
  bool has_weight = false;
  double eps = 1e-5;
  DimVector weight_sizes, bias_sizes;
  ScalarType weight_dtype = ScalarType::kFloat32, bias_dtype = ScalarType::kFloat32;

  // xhat and rstd (broadcast to [1, C, 1, ...]) for the backward of `x`.
  Normalized normalized(FormulaNode<NativeBatchNormBackward>& node, T x) {
    const DimVector shape = channel_shape(x);
    const DimVector axes = batch_axes(x);
    if (!training) {
      const Tensor mu = wick::reshape(node.unpack(running_mean), IntArrayRef(shape)).to(x.dtype());
      const Tensor rstd = wick::rsqrt(
          wick::add(wick::reshape(node.unpack(running_var), IntArrayRef(shape)).to(x.dtype()), scalar(eps)));
      return {wick::mul(wick::sub(x, mu), rstd), rstd};
    }
    if (GradMode::is_enabled()) {  // a recorded backward: the statistics as functions of x
      const Tensor centered = wick::sub(x, wick::mean(x, IntArrayRef(axes), true));
      const Tensor var = wick::mean(wick::mul(centered, centered), IntArrayRef(axes), true);
      const Tensor rstd = wick::rsqrt(wick::add(var, scalar(eps)));
      return {wick::mul(centered, rstd), rstd};
    }
    const Tensor rstd = wick::reshape(node.unpack(save_invstd), IntArrayRef(shape));
    return {wick::mul(wick::sub(x, wick::reshape(node.unpack(save_mean), IntArrayRef(shape))), rstd), rstd};
  }

  // A backward that does not record: aten.native_batch_norm_backward's two sweeps.
  tensor_list fused(FormulaNode<NativeBatchNormBackward>& node, T g) {
    using OptT = const std::optional<Tensor>&;
    using Sig = std::tuple<Tensor, Tensor, Tensor>(T, T, OptT, OptT, OptT, OptT, OptT, bool, double, bool);
    static const auto op = op_handle<Sig>("aten.native_batch_norm_backward");
    const auto opt = [&](const SavedVariable& v) {
      return v.defined() ? std::optional<Tensor>(node.unpack(v)) : std::nullopt;
    };
    const Tensor x = node.unpack(input);
    const bool want_input = node.should_compute_output(0);
    auto [gx, gw, gb] = op.call(g.dtype() == x.dtype() ? g : g.to(x.dtype()), x, opt(weight), opt(running_mean),
                                opt(running_var), opt(save_mean), opt(save_invstd), training, eps, want_input);
    Tensor out_w;
    Tensor out_b;
    if (node.should_compute_output(1)) out_w = wick::reshape(gw, IntArrayRef(weight_sizes)).to(weight_dtype);
    if (node.should_compute_output(2)) out_b = wick::reshape(gb, IntArrayRef(bias_sizes)).to(bias_dtype);
    return {want_input ? gx : Tensor(), out_w, out_b};
  }

  tensor_list backward(FormulaNode<NativeBatchNormBackward>& node, tensor_list& g) {
    // The saved mean and invstd are functions of the input too (training).
    const bool stat_grads = training && (g[1].defined() || g[2].defined());
    if (!GradMode::is_enabled() && !stat_grads) return fused(node, g[0]);
    Tensor gx, gw, gb;
    const Tensor x = node.unpack(input);
    const DimVector axes = batch_axes(x);
    const DimVector shape = channel_shape(x);
    const Normalized n = normalized(node, x);
    if (g[0].defined()) {
      if (node.should_compute_output(0)) {
        const Tensor gy = has_weight
                              ? wick::mul(g[0], wick::reshape(node.unpack(weight), IntArrayRef(shape)).to(g[0].dtype()))
                              : g[0];
        if (training) {
          const Tensor mg = wick::mean(gy, IntArrayRef(axes), true);
          const Tensor mgx = wick::mean(wick::mul(gy, n.xhat), IntArrayRef(axes), true);
          gx = wick::mul(n.rstd, wick::sub(wick::sub(gy, mg), wick::mul(n.xhat, mgx)));
        } else {
          gx = wick::mul(gy, n.rstd);
        }
      }
      if (node.should_compute_output(1)) {
        gw = wick::reshape(wick::sum(wick::mul(g[0], n.xhat), IntArrayRef(axes), false), IntArrayRef(weight_sizes))
                 .to(weight_dtype);
      }
      if (node.should_compute_output(2)) {
        gb = wick::reshape(wick::sum(g[0], IntArrayRef(axes), false), IntArrayRef(bias_sizes)).to(bias_dtype);
      }
    }
    if (stat_grads && node.should_compute_output(0) && x.numel() > 0) {
      // d mean / dx = 1 / count; d invstd / dx = -invstd^3 (x - mean) / count = -invstd^2 xhat / count.
      const double count = static_cast<double>(x.numel() / x.sizes()[1]);
      Tensor extra;
      if (g[2].defined()) {
        extra = wick::mul(wick::mul(wick::reshape(g[2], IntArrayRef(shape)), wick::mul(n.rstd, n.rstd)),
                          wick::mul(n.xhat, scalar(-1.0 / count)));
      }
      if (g[1].defined()) {
        const Tensor term = wick::mul(wick::reshape(g[1], IntArrayRef(shape)), scalar(1.0 / count));
        extra = extra.defined() ? wick::add(extra, term) : term.expand(x.sizes()).contiguous();
      }
      gx = gx.defined() ? wick::add(gx, extra) : extra;
    }
    return {gx, gw, gb};
  }
  void release() {
    input.reset();
    weight.reset();
    running_mean.reset();
    running_var.reset();
    save_mean.reset();
    save_invstd.reset();
  }
};

// --- native_group_norm -------------------------------------------------------------------------

struct NativeGroupNormBackward {
  static constexpr const char* kName = "NativeGroupNormBackward0";
  SavedVariable input, weight;
  std::int64_t n = 0, c = 0, s = 0, groups = 1;
  double eps = 1e-5;
  bool has_weight = false;
  DimVector input_sizes;

  // [N, group, D] and [N, C, HxW] views of an input-shaped tensor.
  [[nodiscard]] Tensor grouped(T t) const {
    const std::int64_t d = groups == 0 ? 0 : (c / groups) * s;
    return wick::reshape(t, {n, groups, d});
  }
  [[nodiscard]] Tensor channels(T t) const { return wick::reshape(t, {n, c, s}); }

  tensor_list backward(FormulaNode<NativeGroupNormBackward>& node, tensor_list& g) {
    Tensor gx, gw, gb;
    const std::int64_t axes[] = {0, 2};
    const Tensor xg = node.unpack(input).defined() ? grouped(node.unpack(input)) : Tensor();
    if (g[0].defined()) {
      const Tensor gc = channels(g[0]);
      if (node.should_compute_output(0) || node.should_compute_output(1)) {
        const Normalized nrm = normalize(xg, 1, eps);
        if (node.should_compute_output(0)) {
          const Tensor gy = has_weight ? wick::mul(gc, wick::reshape(node.unpack(weight), {1, c, 1})) : gc;
          gx = wick::reshape(project(grouped(gy), nrm, 1), IntArrayRef(input_sizes));
        }
        if (node.should_compute_output(1)) {
          gw = wick::sum(wick::mul(gc, channels(nrm.xhat)), IntArrayRef(axes), false);
        }
      }
      if (node.should_compute_output(2)) gb = wick::sum(gc, IntArrayRef(axes), false);
    }
    if ((g[1].defined() || g[2].defined()) && node.should_compute_output(0) && xg.numel() > 0) {
      // The groups' means and rstd as functions of the input (layer_norm's
      // statistics over each group's d values).
      const Normalized nrm = normalize(xg, 1, eps);
      const double d = static_cast<double>(xg.sizes()[2]);
      Tensor extra;
      if (g[2].defined()) {
        extra = wick::mul(wick::mul(wick::reshape(g[2], {n, groups, 1}), wick::mul(nrm.rstd, nrm.rstd)),
                          wick::mul(nrm.xhat, scalar(-1.0 / d)));
      }
      if (g[1].defined()) {
        const Tensor term = wick::mul(wick::reshape(g[1], {n, groups, 1}), scalar(1.0 / d));
        extra = extra.defined() ? wick::add(extra, term) : term.expand(xg.sizes()).contiguous();
      }
      extra = wick::reshape(extra, IntArrayRef(input_sizes));
      gx = gx.defined() ? wick::add(gx, extra) : extra;
    }
    return {gx, gw, gb};
  }
  void release() {
    input.reset();
    weight.reset();
  }
};

std::tuple<Tensor, Tensor, Tensor> native_group_norm_autograd(DispatchKeySet ks, T input,
                                                              const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias, std::int64_t batch,
                                                              std::int64_t channels, std::int64_t hxw,
                                                              std::int64_t group, double eps) {
  using OptT = const std::optional<Tensor>&;
  using Sig =
      std::tuple<Tensor, Tensor, Tensor>(T, OptT, OptT, std::int64_t, std::int64_t, std::int64_t, std::int64_t, double);
  static const auto op = op_handle<Sig>("torch.native_group_norm");
  auto node = make_node<NativeGroupNormBackward>(input, weight, bias);
  auto out = call_below(op, ks, input, weight, bias, batch, channels, hxw, group, eps);
  const Tensor& y = std::get<0>(out);
  const auto setup = [&](NativeGroupNormBackward& f) {
    f.n = batch;
    f.c = channels;
    f.s = hxw;
    f.groups = group;
    f.eps = eps;
    f.has_weight = weight.has_value();
    f.input_sizes.assign(input.sizes());
  };
  if (node) {
    auto& f = node->f;
    setup(f);
    if (node->should_compute_output(0) || node->should_compute_output(1)) f.input = SavedVariable(input, false);
    if (weight && node->should_compute_output(0)) f.weight = SavedVariable(*weight, false);
    set_history(y, node);
    set_history(std::get<1>(out), node);
    set_history(std::get<2>(out), node);
  }
  if (any_tangent(input, weight, bias)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    NativeGroupNormBackward f;
    setup(f);
    const Tensor tx = fw_grad_of(input);
    const Tensor tw = fw_grad_of(weight);
    const Tensor tb = fw_grad_of(bias);
    const Normalized nrm = normalize(f.grouped(input), 1, eps);
    Tensor tangent;
    if (tx.defined()) {
      tangent = f.channels(project(f.grouped(tx), nrm, 1));
      if (weight) tangent = wick::mul(tangent, wick::reshape(*weight, {1, channels, 1}));
    }
    if (tw.defined()) tangent = fw_add(tangent, wick::mul(f.channels(nrm.xhat), wick::reshape(tw, {1, channels, 1})));
    if (tb.defined()) tangent = fw_add(tangent, wick::reshape(tb, {1, channels, 1}));
    tangent = wick::reshape(tangent.expand({batch, channels, hxw}).contiguous(), y.sizes());
    set_tangent(y, tangent);
    if (tx.defined()) {  // the statistics' tangents: the mean's, and -rstd^2 mean(t * xhat)
      const Tensor txg = f.grouped(tx);
      const std::int64_t last[] = {-1};
      set_tangent(std::get<1>(out), wick::mean(txg, IntArrayRef(last), false));
      set_tangent(std::get<2>(out),
                  wick::neg(wick::mul(wick::reshape(wick::mul(nrm.rstd, nrm.rstd), {batch, group}),
                                      wick::mean(wick::mul(txg, nrm.xhat), IntArrayRef(last), false))));
    }
  }
  return out;
}

using OptT = const std::optional<Tensor>&;

std::tuple<Tensor, Tensor, Tensor> native_batch_norm_autograd(DispatchKeySet ks, T input, OptT weight, OptT bias,
                                                              OptT running_mean, OptT running_var, bool training,
                                                              double momentum, double eps) {
  using Sig = std::tuple<Tensor, Tensor, Tensor>(T, OptT, OptT, OptT, OptT, bool, double, double);
  static const auto op = op_handle<Sig>("torch.native_batch_norm");
  auto node = make_node<NativeBatchNormBackward>(input, weight, bias);
  auto out = call_below(op, ks, input, weight, bias, running_mean, running_var, training, momentum, eps);
  const Tensor& y = std::get<0>(out);
  if (node) {
    auto& f = node->f;
    f.training = training;
    f.eps = eps;
    f.has_weight = weight.has_value();
    if (weight) {
      f.weight_sizes.assign(weight->sizes());
      f.weight_dtype = weight->dtype();
    }
    if (bias) {
      f.bias_sizes.assign(bias->sizes());
      f.bias_dtype = bias->dtype();
    }
    f.input = SavedVariable(input, false);
    if (weight && node->should_compute_output(0)) f.weight = SavedVariable(*weight, false);
    set_history(y, node);
    set_history(std::get<1>(out), node);
    set_history(std::get<2>(out), node);
    if (training) {
      f.save_mean = SavedVariable(std::get<1>(out), true);
      f.save_invstd = SavedVariable(std::get<2>(out), true);
    } else {
      f.running_mean = SavedVariable(*running_mean, false);
      f.running_var = SavedVariable(*running_var, false);
    }
  }
  if (any_tangent(input, weight, bias)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor tx = fw_grad_of(input);
    const Tensor tw = fw_grad_of(weight);
    const Tensor tb = fw_grad_of(bias);
    const DimVector shape = channel_shape(input);
    const DimVector axes = batch_axes(input);
    Tensor xhat;
    Tensor rstd;
    if (training) {
      const Tensor centered = wick::sub(input, wick::mean(input, IntArrayRef(axes), true));
      rstd = wick::rsqrt(wick::add(wick::mean(wick::mul(centered, centered), IntArrayRef(axes), true), scalar(eps)));
      xhat = wick::mul(centered, rstd);
    } else {
      rstd = wick::rsqrt(wick::add(wick::reshape(*running_var, IntArrayRef(shape)).to(input.dtype()), scalar(eps)));
      xhat = wick::mul(wick::sub(input, wick::reshape(*running_mean, IntArrayRef(shape)).to(input.dtype())), rstd);
    }
    Tensor tangent;
    if (tx.defined()) {
      if (training) {
        const Tensor mt = wick::mean(tx, IntArrayRef(axes), true);
        const Tensor mtx = wick::mean(wick::mul(tx, xhat), IntArrayRef(axes), true);
        tangent = wick::mul(rstd, wick::sub(wick::sub(tx, mt), wick::mul(xhat, mtx)));
      } else {
        tangent = wick::mul(tx, rstd);
      }
      if (weight) tangent = wick::mul(tangent, wick::reshape(*weight, IntArrayRef(shape)).to(input.dtype()));
    }
    if (tw.defined()) tangent = fw_add(tangent, wick::mul(xhat, wick::reshape(tw, IntArrayRef(shape))));
    if (tb.defined()) tangent = fw_add(tangent, wick::reshape(tb, IntArrayRef(shape)));
    set_tangent(y, tangent.sizes().equals(y.sizes()) ? tangent.to(y.dtype())
                                                     : tangent.expand(y.sizes()).contiguous().to(y.dtype()));
    if (training && tx.defined()) {  // the statistics' tangents: the mean's, and -rstd^2 mean(t * xhat)
      const auto c = IntArrayRef(input.sizes()[1]);
      set_tangent(std::get<1>(out), wick::reshape(wick::mean(tx, IntArrayRef(axes), false), c).to(y.dtype()));
      set_tangent(
          std::get<2>(out),
          wick::reshape(
              wick::neg(wick::mul(wick::mul(rstd, rstd), wick::mean(wick::mul(tx, xhat), IntArrayRef(axes), true))), c)
              .to(y.dtype()));
    }
  }
  return out;
}

}  // namespace

void register_autograd_norm(std::vector<std::unique_ptr<Library>>& out) {
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kAutograd);
  functional->impl("layer_norm", &layer_norm_autograd);
  out.push_back(std::move(functional));
  auto torch = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  torch->impl("native_batch_norm", &native_batch_norm_autograd).impl("native_group_norm", &native_group_norm_autograd);
  out.push_back(std::move(torch));
}

}  // namespace wick::autograd
