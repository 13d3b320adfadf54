// dispatch/autograd_loss.cpp - Autograd kernels of the pointwise losses: mse_loss, binary_cross_entropy
// and binary_cross_entropy_with_logits.
/// \file
/// Their forwards are the composite kernels (dispatch/nn_composite_ops.cpp),
/// run below Autograd; the node is PyTorch's, with its elementwise
/// derivatives in input (dx) and target (dt):
///   mse_loss:                 dx = 2 (x - t), dt = -dx
///   binary_cross_entropy:     dx = w (x - t) / max(x (1 - x), 1e-12) (finite at 0 and 1),
///                             dt = w (log(1 - x) - log(x))
///   ..._with_logits:          dx = w ((1 + (pw - 1) t) sigmoid(x) - pw t),
///                             dt = w (-x - (pw - 1) logsigmoid(x))
/// The gradient is g * dx (g / numel for 'mean'); the tangent is
/// reduce(dx * tx + dt * tt). The derivatives are differentiable expressions,
/// so double backward works. As in PyTorch, weight and pos_weight are not
/// differentiated: recording a graph through them is refused.
#include <optional>

#include "dispatch/autograd/support.h"
#include "wick/nn_functional.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;
using OptTensor = const std::optional<Tensor>&;
namespace nnf = wick::nn::functional;

enum class Loss { kMse, kBce, kBceWithLogits };

struct Parts {
  Tensor dx, dt;
};

Parts loss_parts(Loss kind, T x, T t, const Tensor& w, const Tensor& pw) {
  Parts p;
  if (kind == Loss::kMse) {
    p.dx = wick::mul(wick::sub(x, t), scalar(2.0));
    p.dt = wick::neg(p.dx);
    return p;
  }
  if (kind == Loss::kBce) {
    p.dx = wick::div(wick::sub(x, t), wick::clamp(wick::mul(x, wick::rsub(x, scalar(1.0))), 1e-12));
    p.dt = wick::sub(wick::log(wick::rsub(x, scalar(1.0))), wick::log(x));
  } else if (pw.defined()) {
    Tensor pw_minus_1 = wick::sub(pw, scalar(1.0));
    Tensor lw = wick::add(wick::mul(pw_minus_1, t), scalar(1.0));
    p.dx = wick::sub(wick::mul(lw, wick::sigmoid(x)), wick::mul(pw, t));
    p.dt = wick::neg(wick::add(x, wick::mul(pw_minus_1, nnf::logsigmoid(x))));
  } else {
    p.dx = wick::sub(wick::sigmoid(x), t);
    p.dt = wick::neg(x);
  }
  if (w.defined()) return {wick::mul(p.dx, w), wick::mul(p.dt, w)};
  return p;
}

struct PointwiseLossBackward {
  SavedVariable self, target;
  Tensor weight, pos_weight;  // constants
  Loss kind = Loss::kMse;
  nnf::Reduction red = nnf::Reduction::kMean;
  [[nodiscard]] std::string name() const {
    if (kind == Loss::kMse) return "MseLossBackward0";
    return kind == Loss::kBce ? "BinaryCrossEntropyBackward0" : "BinaryCrossEntropyWithLogitsBackward0";
  }
  tensor_list backward(FormulaNode<PointwiseLossBackward>& n, tensor_list& g) {
    const Tensor x = n.unpack(self);
    Tensor go = red == nnf::Reduction::kMean ? wick::div(g[0], scalar(static_cast<double>(x.numel()))) : g[0];
    Parts p = loss_parts(kind, x, n.unpack(target), weight, pos_weight);
    return {n.should_compute_output(0) ? wick::mul(go, p.dx) : Tensor(),
            n.should_compute_output(1) ? wick::mul(go, p.dt) : Tensor()};
  }
  void release() {
    self.reset();
    target.reset();
  }
};

Tensor constant(const char* op, const char* arg, OptTensor t) {
  if (!t) return Tensor();
  WICK_CHECK(!t->requires_grad(), RuntimeError, op, ": the derivative for '", arg, "' is not implemented.");
  return t->detach();
}

// Records the node of `kind` around `below()`, the composite forward.
template <class Below>
Tensor pointwise_loss(const char* op, Loss kind, T input, T target, OptTensor weight, OptTensor pos_weight,
                      nnf::Reduction red, Below below) {
  const Tensor w = constant(op, "weight", weight);
  const Tensor pw = constant(op, "pos_weight", pos_weight);
  auto node = make_node<PointwiseLossBackward>(input, target);
  Tensor out = below();
  if (node) {
    node->f.self = SavedVariable(input, false);
    node->f.target = SavedVariable(target, false);
    node->f.weight = w;
    node->f.pos_weight = pw;
    node->f.kind = kind;
    node->f.red = red;
    set_history(out, node);
  }
  if (any_tangent(input, target)) {
    ExcludeDispatchKeyGuard guard(DispatchKey::kAutograd);
    Parts p = loss_parts(kind, input, target, w, pw);
    const Tensor tx = fw_grad_of(input);
    const Tensor tt = fw_grad_of(target);
    Tensor d = fw_add(tx.defined() ? wick::mul(tx, p.dx) : Tensor(), tt.defined() ? wick::mul(tt, p.dt) : Tensor());
    if (red == nnf::Reduction::kSum) d = wick::sum(d);
    if (red == nnf::Reduction::kMean) d = wick::mean(d);
    set_tangent(out, d);
  }
  return out;
}

Tensor mse_ag(DispatchKeySet ks, T input, T target, std::optional<bool> size_average, std::optional<bool> reduce,
              std::string_view reduction) {
  const char* name = "torch.nn.functional.mse_loss";
  static const auto op = op_handle<Tensor(T, T, std::optional<bool>, std::optional<bool>, std::string_view)>(name);
  const auto red = nnf::resolve_reduction(name, size_average, reduce, reduction);
  return pointwise_loss(name, Loss::kMse, input, target, std::nullopt, std::nullopt, red,
                        [&] { return call_below(op, ks, input, target, size_average, reduce, reduction); });
}

Tensor bce_ag(DispatchKeySet ks, T input, T target, OptTensor weight, std::optional<bool> size_average, std::optional<bool> reduce,
              std::string_view reduction) {
  const char* name = "torch.nn.functional.binary_cross_entropy";
  static const auto op = op_handle<Tensor(T, T, OptTensor, std::optional<bool>, std::optional<bool>, std::string_view)>(name);
  const auto red = nnf::resolve_reduction(name, size_average, reduce, reduction);
  return pointwise_loss(name, Loss::kBce, input, target, weight, std::nullopt, red,
                        [&] { return call_below(op, ks, input, target, weight, size_average, reduce, reduction); });
}

Tensor bce_logits_ag(DispatchKeySet ks, T input, T target, OptTensor weight, std::optional<bool> size_average,
                     std::optional<bool> reduce, std::string_view reduction, OptTensor pos_weight) {
  const char* name = "torch.nn.functional.binary_cross_entropy_with_logits";
  static const auto op =
      op_handle<Tensor(T, T, OptTensor, std::optional<bool>, std::optional<bool>, std::string_view, OptTensor)>(name);
  const auto red = nnf::resolve_reduction(name, size_average, reduce, reduction);
  return pointwise_loss(name, Loss::kBceWithLogits, input, target, weight, pos_weight, red, [&] {
    return call_below(op, ks, input, target, weight, size_average, reduce, reduction, pos_weight);
  });
}

}  // namespace

void register_autograd_loss(std::vector<std::unique_ptr<Library>>& out) {
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kAutograd);
  functional->impl("mse_loss", &mse_ag)
      .impl("binary_cross_entropy", &bce_ag)
      .impl("binary_cross_entropy_with_logits", &bce_logits_ag);
  out.push_back(std::move(functional));
}

}  // namespace wick::autograd
