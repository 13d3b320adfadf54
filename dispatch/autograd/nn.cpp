// dispatch/autograd_nn.cpp - Autograd kernels of softmax, log_softmax, the nn activations and nll_loss.
/// \file
/// Every backward is written with differentiable operators, so double
/// backward works, and the same expression gives the forward-mode tangent:
///   softmax:      d = y * (g - sum(g * y, dim))
///   log_softmax:  d = g - exp(y) * sum(g, dim); tangent t - sum(exp(y) * t, dim)
///   activations:  d = g * f'(x)
///   nll_loss:     d = g * coef, with coef = -weight[t] at the target class
///                 (zero where ignored), divided by the total weight for
///                 'mean'; coef is built from the target with eq/arange
///                 when backward runs (the node keeps only the target).
/// The pointwise losses' formulas are in dispatch/autograd_loss.cpp.
/// An `inplace=True` activation computes out of place on a copy of its input
/// (which the node saves: the input itself is about to be overwritten) and
/// copies back (the copy records its own node).
#include <numbers>
#include <optional>

#include "dispatch/autograd/support.h"
#include "wick/nn_functional.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;
namespace nnf = wick::nn::functional;

// --- softmax / log_softmax ---------------------------------------------------------------------

// Backward (vector-Jacobian) product; softmax's Jacobian is symmetric, so it
// is also its tangent.
template <bool kLog>
Tensor softmax_derivative(T g, T out, std::int64_t dim) {
  if constexpr (kLog) return wick::sub(g, wick::mul(wick::exp(out), wick::sum(g, IntArrayRef(dim), true)));
  return wick::mul(out, wick::sub(g, wick::sum(wick::mul(g, out), IntArrayRef(dim), true)));
}

// Forward (Jacobian-vector) product.
template <bool kLog>
Tensor softmax_tangent(T t, T out, std::int64_t dim) {
  if constexpr (kLog) return wick::sub(t, wick::sum(wick::mul(wick::exp(out), t), IntArrayRef(dim), true));
  return softmax_derivative<false>(t, out, dim);
}

template <bool kLog>
struct SoftmaxBackward {
  static constexpr const char* kName = kLog ? "LogSoftmaxBackward0" : "SoftmaxBackward0";
  SavedVariable out;
  std::int64_t dim = 0;
  tensor_list backward(FormulaNode<SoftmaxBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {softmax_derivative<kLog>(g[0], n.unpack(out), dim)};
  }
  void release() { out.reset(); }
};

template <bool kLog>
Tensor softmax_autograd(DispatchKeySet ks, T input, std::int64_t dim, std::optional<ScalarType> dtype) {
  static const auto op =
      op_handle<Tensor(T, std::int64_t, std::optional<ScalarType>)>(kLog ? "torch.log_softmax" : "torch.softmax");
  if (dtype && *dtype != input.dtype() && is_floating(input.dtype())) {
    // Convert first (a recorded step), so the gradient returns in the input's dtype.
    Tensor converted = input.to(*dtype);
    return kLog ? wick::log_softmax(converted, dim) : wick::softmax(converted, dim);
  }
  auto node = make_node<SoftmaxBackward<kLog>>(input);
  Tensor out = call_below(op, ks, input, dim, dtype);
  // The wrapped dim is what the formulas reduce over (a 0-dim tensor has dim 0 or -1).
  const std::int64_t d = input.dim() == 0 ? -1 : wrap_dim(dim, input.dim());
  if (node) {
    node->f.dim = d;
    set_history(out, node);
    node->f.out = SavedVariable(out, true);
  }
  if (any_tangent(input)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, softmax_tangent<kLog>(fw_grad_of(input), out, d));
  }
  return out;
}

// --- activations -------------------------------------------------------------------------------

struct LeakyReluD {
  static constexpr const char* kName = "LeakyReluBackward0";
  double p = 0.01;  // negative_slope
  [[nodiscard]] Tensor derivative(T x) const {
    return wick::add(wick::mul(as_float(wick::gt(x, scalar(0.0)), x), scalar(1.0 - p)), scalar(p));
  }
};
struct EluD {
  static constexpr const char* kName = "EluBackward0";
  double p = 1.0;  // alpha
  [[nodiscard]] Tensor derivative(T x) const {
    return wick::where(wick::gt(x, scalar(0.0)), scalar(1.0), wick::mul(wick::exp(x), scalar(p)));
  }
};
struct GeluD {
  static constexpr const char* kName = "GeluBackward0";
  bool use_tanh = false;
  [[nodiscard]] Tensor derivative(T x) const {
    if (use_tanh) {
      // y = x/2 (1 + tanh(u)), u = k (x + c x^3): y' = (1 + th)/2 + x/2 (1 - th^2) k (1 + 3c x^2)
      const double k = std::numbers::sqrt2 * std::numbers::inv_sqrtpi;
      const double c = 0.044715;
      Tensor x2 = wick::mul(x, x);
      Tensor th = wick::tanh(wick::mul(wick::mul(x, wick::add(wick::mul(x2, scalar(c)), scalar(1.0))), scalar(k)));
      Tensor left = wick::mul(wick::add(th, scalar(1.0)), scalar(0.5));
      Tensor du = wick::mul(wick::add(wick::mul(x2, scalar(3 * c)), scalar(1.0)), scalar(0.5 * k));
      return wick::add(left, wick::mul(wick::mul(x, wick::rsub(wick::mul(th, th), scalar(1.0))), du));
    }
    // Phi(x) + x phi(x)
    Tensor cdf =
        wick::mul(wick::add(wick::erf(wick::mul(x, scalar(1.0 / std::numbers::sqrt2))), scalar(1.0)), scalar(0.5));
    Tensor pdf = wick::mul(wick::exp(wick::mul(wick::mul(x, x), scalar(-0.5))),
                           scalar(std::numbers::inv_sqrtpi / std::numbers::sqrt2));
    return wick::add(cdf, wick::mul(x, pdf));
  }
};
struct SiluD {
  static constexpr const char* kName = "SiluBackward0";
  [[nodiscard]] Tensor derivative(T x) const {  // s (1 + x (1 - s))
    Tensor s = wick::sigmoid(x);
    return wick::mul(s, wick::add(wick::mul(x, wick::rsub(s, scalar(1.0))), scalar(1.0)));
  }
};
struct LogSigmoidD {
  static constexpr const char* kName = "LogSigmoidBackward0";
  [[nodiscard]] Tensor derivative(T x) const { return wick::sigmoid(wick::neg(x)); }
};

template <class D>
struct ActivationBackward {
  static constexpr const char* kName = D::kName;
  SavedVariable self;
  D d;
  tensor_list backward(FormulaNode<ActivationBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {wick::mul(g[0], d.derivative(n.unpack(self)))};
  }
  void release() { self.reset(); }
};

// Records D's node around `below()`, the operator run below Autograd.
template <class D, class Below>
Tensor activation(T self, const D& d, Below below) {
  auto node = make_node<ActivationBackward<D>>(self);
  Tensor out = below();
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.d = d;
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard guard(DispatchKey::kAutograd);
    set_tangent(out, wick::mul(fw_grad_of(self), d.derivative(self)));
  }
  return out;
}

Tensor write_back(T self, T result) {
  Tensor s = self;
  s.copy_(result);
  return s;
}

Tensor leaky_relu_ag(DispatchKeySet ks, T self, double slope, bool inplace) {
  static const auto op = op_handle<Tensor(T, double, bool)>("torch.nn.functional.leaky_relu");
  if (inplace) return write_back(self, nnf::leaky_relu(self.clone(), slope, false));
  return activation(self, LeakyReluD{slope}, [&] { return call_below(op, ks, self, slope, false); });
}
Tensor elu_ag(DispatchKeySet ks, T self, double alpha, bool inplace) {
  static const auto op = op_handle<Tensor(T, double, bool)>("torch.nn.functional.elu");
  if (inplace) return write_back(self, nnf::elu(self.clone(), alpha, false));
  return activation(self, EluD{alpha}, [&] { return call_below(op, ks, self, alpha, false); });
}
Tensor gelu_ag(DispatchKeySet ks, T self, std::string_view approximate) {
  static const auto op = op_handle<Tensor(T, std::string_view)>("torch.nn.functional.gelu");
  return activation(self, GeluD{approximate == "tanh"}, [&] { return call_below(op, ks, self, approximate); });
}
Tensor silu_ag(DispatchKeySet ks, T self, bool inplace) {
  static const auto op = op_handle<Tensor(T, bool)>("torch.nn.functional.silu");
  if (inplace) return write_back(self, nnf::silu(self.clone(), false));
  return activation(self, SiluD{}, [&] { return call_below(op, ks, self, false); });
}
Tensor logsigmoid_ag(DispatchKeySet ks, T self) {
  static const auto op = op_handle<Tensor(T)>("torch.nn.functional.logsigmoid");
  return activation(self, LogSigmoidD{}, [&] { return call_below(op, ks, self); });
}

// --- nll_loss ------------------------------------------------------------------------------------

// What nll_loss's coefficients are made from: the node keeps these (the
// target, not an input-sized tensor) and builds the coefficients in backward.
struct NllSpec {
  Tensor target, weight;  // constants
  std::int64_t ignore_index = -100;
  nnf::Reduction red = nnf::Reduction::kMean;
  std::int64_t dim = 2;  // the input's
  std::int64_t classes = 0;
  ScalarType dtype = ScalarType::kFloat32;
  Device device;
  [[nodiscard]] std::int64_t cdim() const { return dim == 1 ? 0 : 1; }
};

// -weight[t] (0 where t is ignored) at each target class, in the input's
// shape and dtype; divided by the total weight for 'mean'.
Tensor nll_coefficients(const NllSpec& s) {
  DimVector cshape(static_cast<std::size_t>(s.dim - s.cdim()), 1);
  cshape[0] = s.classes;
  Tensor classes = wick::reshape(wick::arange(0, s.classes, 1, ScalarType::kInt64, s.device), cshape);
  Tensor t = wick::unsqueeze(s.target, s.cdim());
  Tensor coef =
      wick::mul(wick::eq(t, classes).to(s.dtype), wick::ne(t, wrap_scalar(Scalar(s.ignore_index))).to(s.dtype));
  if (s.weight.defined()) coef = wick::mul(coef, wick::reshape(s.weight, cshape));
  if (s.red == nnf::Reduction::kMean) coef = wick::div(coef, wick::sum(coef));
  return wick::neg(coef);
}

struct NllLossBackward {
  static constexpr const char* kName = "NllLossBackward0";
  NllSpec spec;
  tensor_list backward(FormulaNode<NllLossBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    const bool none = spec.red == nnf::Reduction::kNone;
    return {wick::mul(none ? wick::unsqueeze(g[0], spec.cdim()) : g[0], nll_coefficients(spec))};
  }
  void release() { spec = NllSpec(); }
};

Tensor nll_loss_ag(DispatchKeySet ks, T input, T target, const std::optional<Tensor>& weight, std::optional<bool> size_average,
                   std::int64_t ignore_index, std::optional<bool> reduce, std::string_view reduction) {
  using Sig = Tensor(T, T, const std::optional<Tensor>&, std::optional<bool>, std::int64_t, std::optional<bool>, std::string_view);
  static const auto op = op_handle<Sig>("torch.nn.functional.nll_loss");
  WICK_CHECK(!needs_grad(weight), RuntimeError,
             "torch.nn.functional.nll_loss: the derivative for 'weight' is not implemented.");
  auto node = make_node<NllLossBackward>(input);
  Tensor out = call_below(op, ks, input, target, weight, size_average, ignore_index, reduce, reduction);
  if (!node && !any_tangent(input)) return out;
  NllSpec spec{.target = target.detach(),
               .weight = weight ? weight->detach() : Tensor(),
               .ignore_index = ignore_index,
               .red = nnf::resolve_reduction("torch.nn.functional.nll_loss", size_average, reduce, reduction),
               .dim = input.dim(),
               .classes = input.sizes()[input.dim() == 1 ? 0 : 1],
               .dtype = input.dtype(),
               .device = input.device()};
  if (any_tangent(input)) {
    ExcludeDispatchKeyGuard guard(DispatchKey::kAutograd);
    Tensor prod = wick::mul(fw_grad_of(input), nll_coefficients(spec));
    const std::int64_t cdim = spec.cdim();
    set_tangent(out, spec.red == nnf::Reduction::kNone ? wick::sum(prod, IntArrayRef(cdim)) : wick::sum(prod));
  }
  if (node) {
    node->f.spec = std::move(spec);
    set_history(out, node);
  }
  return out;
}

}  // namespace

void register_autograd_nn(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  torch->impl("softmax", &softmax_autograd<false>).impl("log_softmax", &softmax_autograd<true>);
  auto functional = std::make_unique<Library>("torch.nn.functional", DispatchKey::kAutograd);
  functional->impl("leaky_relu", &leaky_relu_ag)
      .impl("elu", &elu_ag)
      .impl("gelu", &gelu_ag)
      .impl("silu", &silu_ag)
      .impl("logsigmoid", &logsigmoid_ag)
      .impl("nll_loss", &nll_loss_ag);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
}

}  // namespace wick::autograd
