// dispatch/autograd_elementwise.cpp - Autograd kernels of the elementwise, reduction and matrix operators.
/// \file
/// Each kernel records its node (backward formula) and propagates tangents
/// (forward formula); see dispatch/autograd/support.h for the pattern.
/// Broadcasting ops return full-size gradients: the engine sums them down to
/// each input's shape (Note [Gradient shapes]).
#include <algorithm>
#include <complex>

#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;

}  // namespace

Tensor mask_grad(const Tensor& g, const Tensor& cond) { return wick::mul(g, as_float(cond, g)); }

namespace {

// --- add / sub -----------------------------------------------------------------------

template <bool kSub>
struct AddSubBackward {
  static constexpr const char* kName = kSub ? "SubBackward0" : "AddBackward0";
  static constexpr bool kComplex = true;
  Scalar alpha = 1;
  tensor_list backward(Node& n, tensor_list& g) {
    Tensor go;
    if (n.should_compute_output(1)) {
      if (alpha.is_complex()) {  // grad * conj(+-alpha)
        const std::complex<double> a = std::conj(alpha.to<std::complex<double>>());
        go = wick::mul(g[0], wrap_scalar(Scalar(kSub ? -a : a)));
      } else {
        const double a = alpha.to<double>();
        go = kSub ? g[0] * (-a) : (a == 1.0 ? g[0] : g[0] * a);
      }
    }
    return {n.should_compute_output(0) ? g[0] : Tensor(), go};
  }
  void release() {}
};

template <bool kSub>
Tensor add_sub_autograd(DispatchKeySet ks, T self, T other, const Scalar& alpha) {
  static const auto op = op_handle<Tensor(T, T, const Scalar&)>(kSub ? "torch.sub" : "torch.add");
  auto node = make_node<AddSubBackward<kSub>>(self, other);
  Tensor out = call_below(op, ks, self, other, alpha);
  if (node) {
    node->f.alpha = alpha;
    set_history(out, node);
  }
  const double a = kSub ? -alpha.to<double>() : alpha.to<double>();
  binary_tangent(
      out, self, other, [](T ts) { return ts; }, [a](T to) { return to * a; });
  return out;
}

// --- mul / div ---------------------------------------------------------------------------

struct MulBackward {
  static constexpr const char* kName = "MulBackward0";
  static constexpr bool kComplex = true;  // grad * conj(the other factor)
  SavedVariable self, other;
  tensor_list backward(FormulaNode<MulBackward>& n, tensor_list& g) {
    Tensor gs, go;
    if (n.should_compute_output(0)) gs = wick::mul(g[0], wick::conj(n.unpack(other)));
    if (n.should_compute_output(1)) go = wick::mul(g[0], wick::conj(n.unpack(self)));
    return {gs, go};
  }
  void release() {
    self.reset();
    other.reset();
  }
};

Tensor mul_autograd(DispatchKeySet ks, T self, T other) {
  static const auto op = op_handle<Tensor(T, T)>("torch.mul");
  auto node = make_node<MulBackward>(self, other);
  Tensor out = call_below(op, ks, self, other);
  if (node) {
    if (node->should_compute_output(0)) node->f.other = SavedVariable(other, false);
    if (node->should_compute_output(1)) node->f.self = SavedVariable(self, false);
    set_history(out, node);
  }
  binary_tangent(
      out, self, other, [&](T ts) { return wick::mul(ts, other); }, [&](T to) { return wick::mul(to, self); });
  return out;
}

struct DivBackward {
  static constexpr const char* kName = "DivBackward0";
  static constexpr bool kComplex = true;  // grad / conj(b) and -grad * conj(a / b^2)
  SavedVariable self, other;
  bool rounding = false;  // trunc/floor division: piecewise constant
  tensor_list backward(FormulaNode<DivBackward>& n, tensor_list& g) {
    Tensor gs, go;
    if (rounding) {
      if (n.should_compute_output(0)) gs = wick::mul(g[0], scalar(0.0));
      if (n.should_compute_output(1)) go = wick::mul(g[0], scalar(0.0));
      return {gs, go};
    }
    Tensor b = wick::conj(n.unpack(other));
    if (n.should_compute_output(0)) gs = wick::div(g[0], b);
    if (n.should_compute_output(1))
      go = wick::neg(wick::div(wick::mul(g[0], wick::conj(n.unpack(self))), wick::mul(b, b)));
    return {gs, go};
  }
  void release() {
    self.reset();
    other.reset();
  }
};

Tensor div_autograd(DispatchKeySet ks, T self, T other, std::optional<std::string_view> mode) {
  static const auto op = op_handle<Tensor(T, T, std::optional<std::string_view>)>("torch.div");
  auto node = make_node<DivBackward>(self, other);
  Tensor out = call_below(op, ks, self, other, mode);
  if (node) {
    node->f.rounding = mode.has_value();
    node->f.other = SavedVariable(other, false);
    if (node->should_compute_output(1)) node->f.self = SavedVariable(self, false);
    set_history(out, node);
  }
  if (mode) {  // piecewise constant
    binary_tangent(
        out, self, other, [&](T) { return wick::mul(out, scalar(0.0)); },
        [&](T) { return wick::mul(out, scalar(0.0)); });
  } else {
    binary_tangent(
        out, self, other, [&](T ts) { return wick::div(ts, other); },
        [&](T to) { return wick::neg(wick::div(wick::mul(to, out), other)); });
  }
  return out;
}

// --- pow ------------------------------------------------------------------------------------

struct PowBackward {
  static constexpr const char* kName = "PowBackward1";
  SavedVariable self, exponent, result;
  // d/dself = e * s^(e-1); d/de = s^e * log(s), taken as 0 where s == 0.
  static Tensor dself(T s, T e) { return wick::mul(e, wick::pow(s, wick::sub(e, scalar(1.0)))); }
  static Tensor dexp(T s, T r) {
    return wick::where(wick::eq(s, scalar(0.0)), wick::mul(r, scalar(0.0)), wick::mul(r, wick::log(s)));
  }
  tensor_list backward(FormulaNode<PowBackward>& n, tensor_list& g) {
    Tensor gs, ge;
    Tensor s = n.unpack(self);
    Tensor e = n.unpack(exponent);
    if (n.should_compute_output(0)) gs = wick::mul(g[0], dself(s, e));
    if (n.should_compute_output(1)) ge = wick::mul(g[0], dexp(s, n.unpack(result)));
    return {gs, ge};
  }
  void release() {
    self.reset();
    exponent.reset();
    result.reset();
  }
};

Tensor pow_autograd(DispatchKeySet ks, T self, T exponent) {
  static const auto op = op_handle<Tensor(T, T)>("torch.pow");
  auto node = make_node<PowBackward>(self, exponent);
  Tensor out = call_below(op, ks, self, exponent);
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.exponent = SavedVariable(exponent, false);
    set_history(out, node);
    if (node->should_compute_output(1)) node->f.result = SavedVariable(out, true);
  }
  binary_tangent(
      out, self, exponent, [&](T ts) { return wick::mul(ts, PowBackward::dself(self, exponent)); },
      [&](T te) { return wick::mul(te, PowBackward::dexp(self, out)); });
  return out;
}

// --- maximum / minimum: the gradient goes to the larger (smaller) input, split on ties ----

template <bool kMax>
struct ExtremumBackward {
  static constexpr const char* kName = kMax ? "MaximumBackward0" : "MinimumBackward0";
  SavedVariable self, other;
  // Share of the gradient that `a` gets against `b`.
  static Tensor weight(T a, T b, const Tensor& like) {
    Tensor wins = kMax ? wick::gt(a, b) : wick::lt(a, b);
    return wick::add(as_float(wins, like), wick::mul(as_float(wick::eq(a, b), like), scalar(0.5)));
  }
  tensor_list backward(FormulaNode<ExtremumBackward>& n, tensor_list& g) {
    Tensor a = n.unpack(self);
    Tensor b = n.unpack(other);
    Tensor gs, go;
    if (n.should_compute_output(0)) gs = wick::mul(g[0], weight(a, b, g[0]));
    if (n.should_compute_output(1)) go = wick::mul(g[0], weight(b, a, g[0]));
    return {gs, go};
  }
  void release() {
    self.reset();
    other.reset();
  }
};

template <bool kMax>
Tensor extremum_autograd(DispatchKeySet ks, T self, T other) {
  static const auto op = op_handle<Tensor(T, T)>(kMax ? "torch.maximum" : "torch.minimum");
  auto node = make_node<ExtremumBackward<kMax>>(self, other);
  Tensor out = call_below(op, ks, self, other);
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.other = SavedVariable(other, false);
    set_history(out, node);
  }
  using B = ExtremumBackward<kMax>;
  binary_tangent(
      out, self, other, [&](T ts) { return wick::mul(ts, B::weight(self, other, out)); },
      [&](T to) { return wick::mul(to, B::weight(other, self, out)); });
  return out;
}

// --- fmod / remainder / atan2: d(out)/d(self) and d(out)/d(other) from the inputs ------------

struct FmodD {  // x - trunc(x / y) * y
  static constexpr const char* kOp = "torch.fmod";
  static constexpr const char* kName = "FmodBackward1";
  static Tensor dself(T, T, const Tensor& like) { return wick::add(wick::mul(like, scalar(0.0)), scalar(1.0)); }
  static Tensor dother(T x, T y, const Tensor&) { return wick::neg(wick::div(x, y, "trunc")); }
};
struct RemainderD {  // x - floor(x / y) * y
  static constexpr const char* kOp = "torch.remainder";
  static constexpr const char* kName = "RemainderBackward1";
  static Tensor dself(T, T, const Tensor& like) { return wick::add(wick::mul(like, scalar(0.0)), scalar(1.0)); }
  static Tensor dother(T x, T y, const Tensor&) { return wick::neg(wick::div(x, y, "floor")); }
};
struct Atan2D {  // d atan2(x, y) = (y dx - x dy) / (x^2 + y^2)
  static constexpr const char* kOp = "torch.atan2";
  static constexpr const char* kName = "Atan2Backward0";
  static Tensor denom(T x, T y) { return wick::add(wick::mul(x, x), wick::mul(y, y)); }
  static Tensor dself(T x, T y, const Tensor&) { return wick::div(y, denom(x, y)); }
  static Tensor dother(T x, T y, const Tensor&) { return wick::neg(wick::div(x, denom(x, y))); }
};

// --- lerp: self + weight * (end - self) ---------------------------------------------------

struct LerpBackward {
  const char* node_name = "LerpBackward1";
  [[nodiscard]] const char* name() const { return node_name; }
  SavedVariable self, end, weight;
  tensor_list backward(FormulaNode<LerpBackward>& n, tensor_list& g) {
    Tensor s = n.unpack(self);
    Tensor e = n.unpack(end);
    Tensor w = n.unpack(weight);
    Tensor gs, ge, gw;
    if (n.should_compute_output(0)) gs = wick::mul(g[0], wick::rsub(w, scalar(1.0)));
    if (n.should_compute_output(1)) ge = wick::mul(g[0], w);
    if (n.should_compute_output(2)) gw = wick::mul(g[0], wick::sub(e, s));
    return {gs, ge, gw};
  }
  void release() {
    self.reset();
    end.reset();
    weight.reset();
  }
};

Tensor lerp_autograd(DispatchKeySet ks, T self, T end, T weight) {
  static const auto op = op_handle<Tensor(T, T, T)>("torch.lerp");
  auto node = make_node<LerpBackward>(self, end, weight);
  Tensor out = call_below(op, ks, self, end, weight);
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.end = SavedVariable(end, false);
    node->f.weight = SavedVariable(weight, false);
    if (weight.impl()->is_wrapped_number()) node->f.node_name = "LerpBackward0";  // PyTorch's Scalar overload
    set_history(out, node);
  }
  if (any_tangent(self, end) || any_tangent(weight)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor ts = fw_grad_of(self);
    const Tensor te = fw_grad_of(end);
    const Tensor tw = fw_grad_of(weight);
    Tensor t = ts.defined() ? wick::mul(ts, wick::rsub(weight, scalar(1.0))) : Tensor();
    t = fw_add(t, te.defined() ? wick::mul(te, weight) : Tensor());
    t = fw_add(t, tw.defined() ? wick::mul(tw, wick::sub(end, self)) : Tensor());
    set_tangent(out, t);
  }
  return out;
}

// --- where ----------------------------------------------------------------------------------

struct WhereBackward {
  static constexpr const char* kName = "WhereBackward0";
  static constexpr bool kComplex = true;  // linear with real coefficients: the same formula
  SavedVariable condition;
  tensor_list backward(FormulaNode<WhereBackward>& n, tensor_list& g) {
    Tensor c = n.unpack(condition);
    Tensor gs, go;
    if (n.should_compute_output(1)) gs = mask_grad(g[0], c);
    if (n.should_compute_output(2)) go = mask_grad(g[0], wick::eq(c, wrap_scalar(Scalar(false))));
    return {Tensor(), gs, go};
  }
  void release() { condition.reset(); }
};

Tensor where_autograd(DispatchKeySet ks, T condition, T self, T other) {
  static const auto op = op_handle<Tensor(T, T, T)>("torch.where");
  auto node = make_node<WhereBackward>(condition, self, other);
  Tensor out = call_below(op, ks, condition, self, other);
  if (node) {
    node->f.condition = SavedVariable(condition, false);
    set_history(out, node);
  }
  if (any_tangent(self, other)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    Tensor ts = fw_grad_of(self);
    Tensor to = fw_grad_of(other);
    Tensor zero = wick::mul(out, scalar(0.0));
    set_tangent(out, wick::where(condition, ts.defined() ? ts : zero, to.defined() ? to : zero));
  }
  return out;
}

// --- sum / mean -------------------------------------------------------------------------------

}  // namespace

Tensor unreduce(const Tensor& g, IntArrayRef sizes, bool all, const DimVector& dims, bool keepdim) {
  Tensor r = g;
  const auto rank = static_cast<std::int64_t>(sizes.size());
  if (!keepdim && rank > 0) {
    if (all) {
      r = r.reshape(DimVector(sizes.size(), 1));
    } else {
      DimVector sorted;
      for (std::int64_t d : dims) sorted.push_back(wrap_dim(d, rank));
      std::sort(sorted.begin(), sorted.end());
      for (std::int64_t d : sorted) r = r.unsqueeze(d);
    }
  }
  return r.expand(sizes);
}

namespace {

template <bool kMean>
struct ReduceBackward {
  static constexpr bool kComplex = true;  // linear with real coefficients: the same formula
  // PyTorch's names: 0 for the full reduction, 1 for the dim overload.
  [[nodiscard]] const char* name() const {
    if (all) return kMean ? "MeanBackward0" : "SumBackward0";
    return kMean ? "MeanBackward1" : "SumBackward1";
  }
  DimVector sizes;
  DimVector dims;
  bool all = true;
  bool keepdim = false;
  std::int64_t count = 1;
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    Tensor r = unreduce(g[0], sizes, all, dims, keepdim);
    if (kMean) r = wick::div(r, scalar(static_cast<double>(count)));
    return {r};
  }
  void release() {}
};

template <bool kMean>
Tensor reduce_autograd(DispatchKeySet ks, T self, std::optional<IntArrayRef> dim, bool keepdim,
                       std::optional<ScalarType> dtype) {
  using Sig = Tensor(T, std::optional<IntArrayRef>, bool, std::optional<ScalarType>);
  static const auto op = op_handle<Sig>(kMean ? "torch.mean" : "torch.sum");
  auto node = make_node<ReduceBackward<kMean>>(self);
  Tensor out = call_below(op, ks, self, dim, keepdim, dtype);
  const bool all = !dim || dim->empty();
  std::int64_t count = 1;
  if (all) {
    count = self.numel();
  } else {
    for (std::int64_t d : *dim) count *= self.dim() == 0 ? 1 : self.sizes()[wrap_dim(d, self.dim())];
  }
  if (node) {
    auto& f = node->f;
    f.sizes.assign(self.sizes());
    f.all = all;
    if (!all) f.dims.assign(*dim);
    f.keepdim = keepdim;
    f.count = count;
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, op.call(fw_grad_of(self), dim, keepdim, dtype));
  }
  return out;
}

// --- mm / bmm ---------------------------------------------------------------------------------

template <bool kBatched>
struct MatmulBackward {
  static constexpr bool kComplex = true;  // product_grad_* conjugate the other operand
  static constexpr const char* kName = kBatched ? "BmmBackward0" : "MmBackward0";
  SavedVariable self, mat2;
  bool self_column_major = false, mat2_column_major = false;  // Note [Product gradients in their operand's layout]
  static Tensor mm(T a, T b) { return kBatched ? wick::bmm(a, b) : wick::mm(a, b); }
  tensor_list backward(FormulaNode<MatmulBackward>& n, tensor_list& g) {
    Tensor gs, gm;
    if (n.should_compute_output(0)) gs = product_grad_left(g[0], n.unpack(mat2), self_column_major);
    if (n.should_compute_output(1)) gm = product_grad_right(g[0], n.unpack(self), mat2_column_major);
    return {gs, gm};
  }
  void release() {
    self.reset();
    mat2.reset();
  }
};

template <bool kBatched>
Tensor matmul_autograd(DispatchKeySet ks, T self, T mat2) {
  static const auto op = op_handle<Tensor(T, T)>(kBatched ? "torch.bmm" : "torch.mm");
  using B = MatmulBackward<kBatched>;
  auto node = make_node<B>(self, mat2);
  Tensor out = call_below(op, ks, self, mat2);
  if (node) {
    if (node->should_compute_output(1)) node->f.self = SavedVariable(self, false);
    if (node->should_compute_output(0)) node->f.mat2 = SavedVariable(mat2, false);
    node->f.self_column_major = column_major(self);
    node->f.mat2_column_major = column_major(mat2);
    set_history(out, node);
  }
  binary_tangent(
      out, self, mat2, [&](T ts) { return B::mm(ts, mat2); }, [&](T tm) { return B::mm(self, tm); });
  return out;
}

}  // namespace

void register_autograd_elementwise(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  lib->impl("add", &add_sub_autograd<false>)
      .impl("sub", &add_sub_autograd<true>)
      .impl("mul", &mul_autograd)
      .impl("div", &div_autograd)
      .impl("pow", &pow_autograd)
      .impl("maximum", &extremum_autograd<true>)
      .impl("minimum", &extremum_autograd<false>)
      .impl("where", &where_autograd)
      .impl("fmod", &binary_autograd<FmodD>)
      .impl("remainder", &binary_autograd<RemainderD>)
      .impl("atan2", &binary_autograd<Atan2D>)
      .impl("lerp", &lerp_autograd)
      .impl("sum", &reduce_autograd<false>)
      .impl("mean", &reduce_autograd<true>)
      .impl("mm", &matmul_autograd<false>)
      .impl("bmm", &matmul_autograd<true>);
  out.push_back(std::move(lib));
}

}  // namespace wick::autograd
