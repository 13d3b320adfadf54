// dispatch/autograd_unary.cpp - Autograd kernels of the unary elementwise operators and clamp.
/// \file
/// One template serves every unary function: the node saves what the
/// formula needs (self and/or the result) and the same formula gives the
/// backward gradient and the forward tangent: d(out) = f'(self, out) * d(self).
/// See dispatch/autograd/support.h for the pattern.
#include <numbers>
#include <optional>

#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;

struct NegD {
  static constexpr const char* kOp = "torch.neg";
  static constexpr const char* kName = "NegBackward0";
  static constexpr bool kSelf = false, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T) { return wick::neg(g); }
};
struct ExpD {
  static constexpr const char* kOp = "torch.exp";
  static constexpr const char* kName = "ExpBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) { return wick::mul(g, out); }
};
struct LogD {
  static constexpr const char* kOp = "torch.log";
  static constexpr const char* kName = "LogBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::div(g, self); }
};
struct AbsD {
  static constexpr const char* kOp = "torch.abs";
  static constexpr const char* kName = "AbsBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kComplex = true;  // |z|' is sgn(z) = z / |z|: the gradient of |z| over (re, im)
  static Tensor apply(T g, T self, T) {
    if (is_complex(self.dtype())) return wick::mul(g, wick::sgn(self));
    Tensor zero = scalar(0.0);
    Tensor sign = wick::sub(as_float(wick::gt(self, zero), g), as_float(wick::lt(self, zero), g));
    return wick::mul(g, sign);
  }
};
struct SqrtD {
  static constexpr const char* kOp = "torch.sqrt";
  static constexpr const char* kName = "SqrtBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) { return wick::div(g, wick::mul(out, scalar(2.0))); }
};
struct SinD {
  static constexpr const char* kOp = "torch.sin";
  static constexpr const char* kName = "SinBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::mul(g, wick::cos(self)); }
};
struct CosD {
  static constexpr const char* kOp = "torch.cos";
  static constexpr const char* kName = "CosBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::neg(wick::mul(g, wick::sin(self))); }
};
struct TanhD {
  static constexpr const char* kOp = "torch.tanh";
  static constexpr const char* kName = "TanhBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) { return wick::mul(g, wick::rsub(wick::mul(out, out), scalar(1.0))); }
};
struct SigmoidD {
  static constexpr const char* kOp = "torch.sigmoid";
  static constexpr const char* kName = "SigmoidBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) { return wick::mul(g, wick::mul(out, wick::rsub(out, scalar(1.0)))); }
};
// relu's gradient passes where the result is positive (or NaN): one
// threshold_backward pass, as PyTorch's ReluBackward0.
Tensor threshold_backward(T grad, T self, const Scalar& threshold) {
  static const auto op = op_handle<Tensor(T, T, const Scalar&)>("aten.threshold_backward");
  return op.call(grad, self, threshold);
}
struct ReluD {
  static constexpr const char* kOp = "torch.relu";
  static constexpr const char* kName = "ReluBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static Tensor apply(T g, T, T out) { return threshold_backward(g, out, Scalar(0)); }
};

// The rest of the float functions. ln2, ln10 and 2/sqrt(pi) as doubles: a
// wrapped number keeps the gradient's dtype.
struct Exp2D {
  static constexpr const char* kOp = "torch.exp2";
  static constexpr const char* kName = "Exp2Backward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) { return wick::mul(g, wick::mul(out, scalar(std::numbers::ln2))); }
};
struct Expm1D {
  static constexpr const char* kOp = "torch.expm1";
  static constexpr const char* kName = "Expm1Backward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) { return wick::mul(g, wick::add(out, scalar(1.0))); }
};
struct Log2D {
  static constexpr const char* kOp = "torch.log2";
  static constexpr const char* kName = "Log2Backward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::div(g, wick::mul(self, scalar(std::numbers::ln2))); }
};
struct Log10D {
  static constexpr const char* kOp = "torch.log10";
  static constexpr const char* kName = "Log10Backward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::div(g, wick::mul(self, scalar(std::numbers::ln10))); }
};
struct Log1pD {
  static constexpr const char* kOp = "torch.log1p";
  static constexpr const char* kName = "Log1PBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::div(g, wick::add(self, scalar(1.0))); }
};
struct RsqrtD {  // d(x^-1/2) = -1/2 x^-3/2 = -1/2 out^3
  static constexpr const char* kOp = "torch.rsqrt";
  static constexpr const char* kName = "RsqrtBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) {
    return wick::mul(g, wick::mul(wick::mul(out, wick::mul(out, out)), scalar(-0.5)));
  }
};
struct ReciprocalD {  // d(1/x) = -1/x^2 = -out^2
  static constexpr const char* kOp = "torch.reciprocal";
  static constexpr const char* kName = "ReciprocalBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) { return wick::neg(wick::mul(g, wick::mul(out, out))); }
};
struct TanD {  // 1 + tan^2
  static constexpr const char* kOp = "torch.tan";
  static constexpr const char* kName = "TanBackward0";
  static constexpr bool kSelf = false, kOut = true;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T, T out) { return wick::mul(g, wick::add(wick::mul(out, out), scalar(1.0))); }
};
struct AsinD {  // 1 / sqrt(1 - x^2)
  static constexpr const char* kOp = "torch.asin";
  static constexpr const char* kName = "AsinBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) {
    return wick::div(g, wick::sqrt(wick::rsub(wick::mul(self, self), scalar(1.0))));
  }
};
struct AcosD {
  static constexpr const char* kOp = "torch.acos";
  static constexpr const char* kName = "AcosBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) {
    return wick::neg(wick::div(g, wick::sqrt(wick::rsub(wick::mul(self, self), scalar(1.0)))));
  }
};
struct AtanD {  // 1 / (1 + x^2)
  static constexpr const char* kOp = "torch.atan";
  static constexpr const char* kName = "AtanBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::div(g, wick::add(wick::mul(self, self), scalar(1.0))); }
};
struct SinhD {
  static constexpr const char* kOp = "torch.sinh";
  static constexpr const char* kName = "SinhBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::mul(g, wick::cosh(self)); }
};
struct CoshD {
  static constexpr const char* kOp = "torch.cosh";
  static constexpr const char* kName = "CoshBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::mul(g, wick::sinh(self)); }
};
struct ErfD {  // 2/sqrt(pi) exp(-x^2)
  static constexpr const char* kOp = "torch.erf";
  static constexpr const char* kName = "ErfBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static Tensor apply(T g, T self, T) {
    return wick::mul(g, wick::mul(wick::exp(wick::neg(wick::mul(self, self))), scalar(std::numbers::inv_sqrtpi * 2)));
  }
};
struct ErfcD {  // -2/sqrt(pi) exp(-x^2)
  static constexpr const char* kOp = "torch.erfc";
  static constexpr const char* kName = "ErfcBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static Tensor apply(T g, T self, T) {
    return wick::mul(g, wick::mul(wick::exp(wick::neg(wick::mul(self, self))), scalar(-std::numbers::inv_sqrtpi * 2)));
  }
};
struct AcoshD {  // 1 / sqrt(x^2 - 1)
  static constexpr const char* kOp = "torch.acosh";
  static constexpr const char* kName = "AcoshBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) {
    return wick::div(g, wick::sqrt(wick::sub(wick::mul(self, self), scalar(1.0))));
  }
};
struct AsinhD {  // 1 / sqrt(x^2 + 1)
  static constexpr const char* kOp = "torch.asinh";
  static constexpr const char* kName = "AsinhBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) {
    return wick::div(g, wick::sqrt(wick::add(wick::mul(self, self), scalar(1.0))));
  }
};
struct AtanhD {  // 1 / (1 - x^2)
  static constexpr const char* kOp = "torch.atanh";
  static constexpr const char* kName = "AtanhBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::div(g, wick::rsub(wick::mul(self, self), scalar(1.0))); }
};
struct SquareD {  // PyTorch records square as pow(self, 2)
  static constexpr const char* kOp = "torch.square";
  static constexpr const char* kName = "PowBackward0";
  static constexpr bool kSelf = true, kOut = false;
  static constexpr bool kHolomorphic = true;
  static Tensor apply(T g, T self, T) { return wick::mul(g, wick::mul(self, scalar(2.0))); }
};

struct FracD {  // self - trunc(self): the gradient passes unchanged
  static constexpr const char* kOp = "torch.frac";
  static constexpr const char* kName = "FracBackward0";
  static constexpr bool kSelf = false, kOut = false;
  static Tensor apply(T g, T, T) { return g; }
};

// Piecewise constant: the gradient is zero (where it exists).
template <const char* kOpName, const char* kNodeName>
struct ZeroD {
  static constexpr const char* kOp = kOpName;
  static constexpr const char* kName = kNodeName;
  static constexpr bool kSelf = false, kOut = false;
  static Tensor apply(T g, T, T) { return wick::mul(g, scalar(0.0)); }
};
constexpr char kFloor[] = "torch.floor", kFloorNode[] = "FloorBackward0";
constexpr char kCeil[] = "torch.ceil", kCeilNode[] = "CeilBackward0";
constexpr char kRound[] = "torch.round", kRoundNode[] = "RoundBackward0";
constexpr char kTrunc[] = "torch.trunc", kTruncNode[] = "TruncBackward0";
constexpr char kSign[] = "torch.sign", kSignNode[] = "SignBackward0";

// --- clamp: the gradient passes where min <= self <= max (bounds included) --------------

struct ClampBackward {
  static constexpr const char* kName = "ClampBackward1";
  SavedVariable self;
  std::optional<Scalar> lo, hi;
  static Tensor pass(T self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
    Tensor keep;  // NaN compares false: no gradient there
    if (lo) keep = wick::ge(self, wrap_scalar(*lo));
    if (hi) {
      Tensor below = wick::le(self, wrap_scalar(*hi));
      keep = keep.defined() ? wick::mul(keep, below) : below;
    }
    return keep;
  }
  tensor_list backward(FormulaNode<ClampBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {mask_grad(g[0], pass(n.unpack(self), lo, hi))};
  }
  void release() { self.reset(); }
};

Tensor clamp_autograd(DispatchKeySet ks, T self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  static const auto op =
      op_handle<Tensor(T, const std::optional<Scalar>&, const std::optional<Scalar>&)>("torch.clamp");
  auto node = make_node<ClampBackward>(self);
  Tensor out = call_below(op, ks, self, lo, hi);
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.lo = lo;
    node->f.hi = hi;
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, mask_grad(fw_grad_of(self), ClampBackward::pass(self, lo, hi)));
  }
  return out;
}

// --- threshold_backward: linear in grad_output, constant in self ------------------------

struct ThresholdBackwardBackward {
  static constexpr const char* kName = "ThresholdBackwardBackward0";
  SavedVariable self;
  Scalar threshold;
  DimVector grad_sizes;
  tensor_list backward(FormulaNode<ThresholdBackwardBackward>& n, tensor_list& g) {
    Tensor gg;
    if (n.should_compute_output(0)) gg = sum_to(threshold_backward(g[0], n.unpack(self), threshold), grad_sizes);
    return {gg, Tensor()};  // piecewise constant in self: no gradient
  }
  void release() { self.reset(); }
};

Tensor threshold_backward_autograd(DispatchKeySet ks, T grad, T self, const Scalar& threshold) {
  static const auto op = op_handle<Tensor(T, T, const Scalar&)>("aten.threshold_backward");
  auto node = make_node<ThresholdBackwardBackward>(grad, self);
  Tensor out = call_below(op, ks, grad, self, threshold);
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.threshold = threshold;
    node->f.grad_sizes = DimVector(grad.sizes());
    set_history(out, node);
  }
  if (any_tangent(grad)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, threshold_backward(fw_grad_of(grad), self, threshold));
  }
  return out;
}

}  // namespace

void register_autograd_unary(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  lib->impl("neg", &unary_autograd<NegD>)
      .impl("exp", &unary_autograd<ExpD>)
      .impl("exp2", &unary_autograd<Exp2D>)
      .impl("expm1", &unary_autograd<Expm1D>)
      .impl("log", &unary_autograd<LogD>)
      .impl("log2", &unary_autograd<Log2D>)
      .impl("log10", &unary_autograd<Log10D>)
      .impl("log1p", &unary_autograd<Log1pD>)
      .impl("abs", &unary_autograd<AbsD>)
      .impl("sqrt", &unary_autograd<SqrtD>)
      .impl("rsqrt", &unary_autograd<RsqrtD>)
      .impl("reciprocal", &unary_autograd<ReciprocalD>)
      .impl("square", &unary_autograd<SquareD>)
      .impl("sin", &unary_autograd<SinD>)
      .impl("cos", &unary_autograd<CosD>)
      .impl("tan", &unary_autograd<TanD>)
      .impl("asin", &unary_autograd<AsinD>)
      .impl("acos", &unary_autograd<AcosD>)
      .impl("atan", &unary_autograd<AtanD>)
      .impl("sinh", &unary_autograd<SinhD>)
      .impl("cosh", &unary_autograd<CoshD>)
      .impl("tanh", &unary_autograd<TanhD>)
      .impl("erf", &unary_autograd<ErfD>)
      .impl("erfc", &unary_autograd<ErfcD>)
      .impl("acosh", &unary_autograd<AcoshD>)
      .impl("asinh", &unary_autograd<AsinhD>)
      .impl("atanh", &unary_autograd<AtanhD>)
      .impl("sigmoid", &unary_autograd<SigmoidD>)
      .impl("relu", &unary_autograd<ReluD>)
      .impl("floor", &unary_autograd<ZeroD<kFloor, kFloorNode>>)
      .impl("ceil", &unary_autograd<ZeroD<kCeil, kCeilNode>>)
      .impl("round", &unary_autograd<ZeroD<kRound, kRoundNode>>)
      .impl("trunc", &unary_autograd<ZeroD<kTrunc, kTruncNode>>)
      .impl("frac", &unary_autograd<FracD>)
      .impl("sign", &unary_autograd<ZeroD<kSign, kSignNode>>)
      .impl("clamp", &clamp_autograd);
  out.push_back(std::move(lib));
  auto aten = std::make_unique<Library>("aten", DispatchKey::kAutograd);
  aten->impl("threshold_backward", &threshold_backward_autograd);
  out.push_back(std::move(aten));
}

}  // namespace wick::autograd
