// dispatch/autograd/special.cpp - Autograd kernels of the special functions (lgamma, digamma, zeta, igamma, ...).
/// \file
/// PyTorch 1.13's derivatives: lgamma' = digamma, digamma' = polygamma(1),
/// polygamma(n)' = polygamma(n + 1), erfinv' = sqrt(pi) / 2 exp(erfinv^2),
/// i0' = i1, i1' = i0 - i1 / x (1/2 at 0), and the scaled forms with the
/// derivative of exp(-|x|); ndtri' = sqrt(2 pi) exp(ndtri^2 / 2),
/// log_ndtr' = exp(-x^2 / 2 - log_ndtr) / sqrt(2 pi), erfcx' = 2x erfcx - 2 /
/// sqrt(pi). zeta and the incomplete gamma functions are differentiated in
/// their second argument only; asking for the first fails naming it, as in
/// PyTorch (Note [Elementwise formulas] in support.h). mvlgamma and round
/// with decimals are composites: their gradients come from what they call.
#include <cmath>
#include <numbers>

#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;

struct LgammaD {
  static constexpr const char* kOp = "torch.lgamma";
  static constexpr const char* kName = "LgammaBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static Tensor apply(T g, T self, T) { return wick::mul(g, wick::digamma(self)); }
};
struct DigammaD {
  static constexpr const char* kOp = "torch.digamma";
  static constexpr const char* kName = "DigammaBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static Tensor apply(T g, T self, T) { return wick::mul(g, wick::polygamma(1, self)); }
};
struct ErfinvD {
  static constexpr const char* kOp = "torch.erfinv";
  static constexpr const char* kName = "ErfinvBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static Tensor apply(T g, T, T out) {
    return wick::mul(g, wick::mul(wick::exp(wick::mul(out, out)), scalar(std::sqrt(std::numbers::pi) / 2)));
  }
};
struct I0D {
  static constexpr const char* kOp = "torch.i0";
  static constexpr const char* kName = "I0Backward0";
  static constexpr bool kSelf = true, kOut = false;
  static Tensor apply(T g, T self, T) { return wick::mul(g, wick::special::i1(self)); }
};
struct I0eD {  // i1e(x) - sgn(x) i0e(x)
  static constexpr const char* kOp = "torch.special.i0e";
  static constexpr const char* kName = "SpecialI0EBackward0";
  static constexpr bool kSelf = true, kOut = true;
  static Tensor apply(T g, T self, T out) {
    return wick::mul(g, wick::sub(wick::special::i1e(self), wick::mul(wick::sgn(self), out)));
  }
};
// i1'(x) = i0(x) - i1(x) / x, whose limit at 0 is 1/2.
struct I1D {
  static constexpr const char* kOp = "torch.special.i1";
  static constexpr const char* kName = "SpecialI1Backward0";
  static constexpr bool kSelf = true, kOut = true;
  static Tensor apply(T g, T self, T out) {
    const Tensor d = wick::sub(wick::i0(self), wick::div(out, self));
    return wick::mul(g, wick::where(wick::eq(self, scalar(0.0)), scalar(0.5), d));
  }
};
// i1e'(x) = i0e(x) - i1e(x) (sgn(x) + 1 / x), 1/2 at 0.
struct I1eD {
  static constexpr const char* kOp = "torch.special.i1e";
  static constexpr const char* kName = "SpecialI1EBackward0";
  static constexpr bool kSelf = true, kOut = true;
  static Tensor apply(T g, T self, T out) {
    const Tensor d =
        wick::sub(wick::special::i0e(self), wick::mul(out, wick::add(wick::sgn(self), wick::reciprocal(self))));
    return wick::mul(g, wick::where(wick::eq(self, scalar(0.0)), scalar(0.5), d));
  }
};
struct NdtriD {
  static constexpr const char* kOp = "torch.special.ndtri";
  static constexpr const char* kName = "SpecialNdtriBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static Tensor apply(T g, T, T out) {
    return wick::mul(
        g, wick::mul(wick::exp(wick::mul(wick::mul(out, out), scalar(0.5))), scalar(std::sqrt(2 * std::numbers::pi))));
  }
};
struct LogNdtrD {
  static constexpr const char* kOp = "torch.special.log_ndtr";
  static constexpr const char* kName = "SpecialLogNdtrBackward0";
  static constexpr bool kSelf = true, kOut = true;
  static Tensor apply(T g, T self, T out) {
    const Tensor exponent = wick::neg(wick::add(out, wick::mul(wick::mul(self, self), scalar(0.5))));
    return wick::mul(g, wick::mul(wick::exp(exponent), scalar(1 / std::sqrt(2 * std::numbers::pi))));
  }
};
struct ErfcxD {
  static constexpr const char* kOp = "torch.special.erfcx";
  static constexpr const char* kName = "SpecialErfcxBackward0";
  static constexpr bool kSelf = true, kOut = true;
  static Tensor apply(T g, T self, T out) {
    return wick::mul(g, wick::sub(wick::mul(wick::mul(self, out), scalar(2.0)), scalar(2 * std::numbers::inv_sqrtpi)));
  }
};

[[noreturn]] void not_differentiable(const char* op, const char* what) {
  throw NotImplementedError(std::string(op) + ": the derivative for '" + what + "' is not implemented.");
}

// d/dx P(a, x) = x^(a - 1) e^-x / Gamma(a); Q(a, x) = 1 - P(a, x).
Tensor igamma_dx(T a, T x) {
  return wick::exp(wick::sub(wick::sub(wick::mul(wick::sub(a, scalar(1.0)), wick::log(x)), x), wick::lgamma(a)));
}
struct IgammaD {
  static constexpr const char* kOp = "torch.igamma";
  static constexpr const char* kName = "IgammaBackward0";
  static Tensor dself(T, T, const Tensor&) { not_differentiable(kOp, "igamma: input"); }
  static Tensor dother(T a, T x, const Tensor&) { return igamma_dx(a, x); }
};
struct IgammacD {
  static constexpr const char* kOp = "torch.igammac";
  static constexpr const char* kName = "IgammacBackward0";
  static Tensor dself(T, T, const Tensor&) { not_differentiable(kOp, "igammac: input"); }
  static Tensor dother(T a, T x, const Tensor&) { return wick::neg(igamma_dx(a, x)); }
};
// d/dq zeta(s, q) = -s zeta(s + 1, q)
struct ZetaD {
  static constexpr const char* kOp = "torch.special.zeta";
  static constexpr const char* kName = "SpecialZetaBackward0";
  static Tensor dself(T, T, const Tensor&) { not_differentiable(kOp, "zeta"); }
  static Tensor dother(T s, T q, const Tensor&) {
    return wick::neg(wick::mul(s, wick::special::zeta(wick::add(s, scalar(1.0)), q)));
  }
};

// --- polygamma(n, x): its derivative is polygamma(n + 1, x) ------------------------------------

Tensor polygamma_grad(std::int64_t n, T g, T self) {
  return wick::mul(g, wick::polygamma(checked_add(n, std::int64_t{1}, "torch.polygamma"), self));
}

struct PolygammaBackward {
  static constexpr const char* kName = "PolygammaBackward0";
  SavedVariable self;
  std::int64_t n = 0;
  tensor_list backward(FormulaNode<PolygammaBackward>& node, tensor_list& g) {
    if (!node.should_compute_output(0)) return {Tensor()};
    return {polygamma_grad(n, g[0], node.unpack(self))};
  }
  void release() { self.reset(); }
};

Tensor polygamma_autograd(DispatchKeySet ks, std::int64_t n, T self) {
  static const auto op = op_handle<Tensor(std::int64_t, T)>("torch.polygamma");
  auto node = make_node<PolygammaBackward>(self);
  Tensor out = call_below(op, ks, n, self);
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.n = n;
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, polygamma_grad(n, fw_grad_of(self), self));
  }
  return out;
}

}  // namespace

void register_autograd_special(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  lib->impl("lgamma", &unary_autograd<LgammaD>)
      .impl("digamma", &unary_autograd<DigammaD>)
      .impl("polygamma", &polygamma_autograd)
      .impl("erfinv", &unary_autograd<ErfinvD>)
      .impl("i0", &unary_autograd<I0D>)
      .impl("igamma", &binary_autograd<IgammaD>)
      .impl("igammac", &binary_autograd<IgammacD>);
  out.push_back(std::move(lib));
  auto special = std::make_unique<Library>("torch.special", DispatchKey::kAutograd);
  special->impl("i0e", &unary_autograd<I0eD>)
      .impl("i1", &unary_autograd<I1D>)
      .impl("i1e", &unary_autograd<I1eD>)
      .impl("ndtri", &unary_autograd<NdtriD>)
      .impl("log_ndtr", &unary_autograd<LogNdtrD>)
      .impl("erfcx", &unary_autograd<ErfcxD>)
      .impl("zeta", &binary_autograd<ZetaD>);
  out.push_back(std::move(special));
}

}  // namespace wick::autograd
