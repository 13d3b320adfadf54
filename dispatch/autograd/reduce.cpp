// dispatch/autograd_reduce.cpp - Autograd kernels of the reductions and scans.
/// \file
/// prod, max, min, amax, amin, var, std, norm and logsumexp (the scans are
/// in autograd_scan.cpp),
/// with PyTorch's formulas (node names as PyTorch's) in both modes; each
/// backward is written in differentiable ops, so double backward works.
/// Also the CompositeImplicit kernels of torch.var / var.dim / std / std.dim,
/// which call the correction overload, as PyTorch does, and of max.other /
/// min.other (maximum / minimum). argmax, argmin, all
/// and any have integer or bool results: not differentiable.
#include <cmath>
#include <tuple>

#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;
using OptInts = std::optional<IntArrayRef>;
using OptInt = std::optional<std::int64_t>;
using OptDtype = std::optional<ScalarType>;
using Pair = std::tuple<Tensor, Tensor>;

Tensor zeros_as(T x) { return wick::mul(x, scalar(0.0)); }

// What a reduction reduced: restores gradients to the input's shape and
// reduces tangents the same way.
struct Reduced {
  DimVector sizes;
  DimVector dims;
  bool all = true;
  bool keepdim = false;

  static Reduced of(T self, OptInts dim, bool keepdim) {
    Reduced r;
    r.sizes.assign(self.sizes());
    r.all = !dim || dim->empty();
    if (!r.all) r.dims.assign(*dim);
    r.keepdim = keepdim;
    return r;
  }
  static Reduced one(T self, std::int64_t dim, bool keepdim) {
    const std::int64_t dims[] = {dim};
    return of(self, IntArrayRef(dims, 1), keepdim);
  }
  /// A result-shaped `g` at the input's shape.
  [[nodiscard]] Tensor restore(T g) const { return unreduce(g, sizes, all, dims, keepdim); }
  [[nodiscard]] OptInts dim() const { return all ? OptInts() : OptInts(IntArrayRef(dims)); }
  /// Sum over the reduced dims: result-shaped, or with them kept as size 1.
  [[nodiscard]] Tensor sum(T x) const { return wick::sum(x, dim(), keepdim); }
  [[nodiscard]] Tensor sum_kept(T x) const { return wick::sum(x, dim(), true); }
  /// How many elements each result element reduces.
  [[nodiscard]] std::int64_t count() const {
    std::int64_t n = 1;
    const auto rank = static_cast<std::int64_t>(sizes.size());
    if (all) return checked_numel(sizes);
    if (rank > 0) {
      for (std::int64_t d : dims) n = checked_mul(n, sizes[wrap_dim(d, rank)], "reduction count");
    }
    return n;
  }
};

// Records `node` on a floating result (a result of integer dtype asked for
// with dtype= is not differentiable).
template <class N>
bool record(const std::shared_ptr<N>& node, T out) {
  if (!node || !is_differentiable_type(out.dtype())) return false;
  set_history(out, node);
  return true;
}

// Saves what a formula with `r`, `self` (and `result`) needs and records it
// on `out`; false when nothing was recorded.
template <class F>
bool record_reduction(const std::shared_ptr<FormulaNode<F>>& node, T self, T out, const Reduced& r) {
  if (node) {
    node->f.r = r;
    node->f.self = SavedVariable(self, false);
  }
  if (!record(node, out)) return false;
  if constexpr (requires { node->f.result; }) node->f.result = SavedVariable(out, true);
  return true;
}

// --- prod ----------------------------------------------------------------------------------

// For every element, the product of the others in its slice, as PyTorch's
// prod_backward: result / x in a slice without zeros; in a slice with one
// zero, the product of the rest at the zero and 0 elsewhere; with several
// zeros, 0 everywhere.
Tensor prod_others(T x, const Reduced& r) {
  Tensor zero = wick::eq(x, scalar(0.0));
  Tensor count = r.sum_kept(zero);
  Tensor safe = wick::where(zero, scalar(1.0), x);
  Tensor p = r.all ? wick::prod(safe) : wick::prod(safe, r.dims[0], true);
  Tensor z = zeros_as(p);
  Tensor at_zero = wick::where(wick::eq(count, scalar(1.0)), p, z);
  Tensor elsewhere = wick::where(wick::eq(count, scalar(0.0)), wick::div(p, safe), z);
  return wick::where(zero, at_zero, elsewhere);
}

struct ProdBackward {
  [[nodiscard]] const char* name() const { return overload_dim ? "ProdBackward1" : "ProdBackward0"; }
  Reduced r;
  bool overload_dim = false;
  SavedVariable self;
  tensor_list backward(FormulaNode<ProdBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    Tensor x = n.unpack(self);
    return {wick::mul(r.restore(g[0]), prod_others(x, r)).to(x.dtype())};
  }
  void release() { self.reset(); }
};

Tensor prod_record(const std::shared_ptr<FormulaNode<ProdBackward>>& node, T self, T out, const Reduced& r,
                   bool overload_dim) {
  if (node) node->f.overload_dim = overload_dim;
  record_reduction(node, self, out, r);
  if (any_tangent(self) && is_differentiable_type(out.dtype())) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, r.sum(wick::mul(fw_grad_of(self), prod_others(self, r))).to(out.dtype()));
  }
  return out;
}

Tensor prod_autograd(DispatchKeySet ks, T self, OptDtype dtype) {
  static const auto op = op_handle<Tensor(T, OptDtype)>("torch.prod");
  auto node = make_node<ProdBackward>(self);
  Tensor out = call_below(op, ks, self, dtype);
  return prod_record(node, self, out, Reduced::of(self, std::nullopt, false), false);
}

Tensor prod_dim_autograd(DispatchKeySet ks, T self, std::int64_t dim, bool keepdim, OptDtype dtype) {
  static const auto op = op_handle<Tensor(T, std::int64_t, bool, OptDtype)>("torch.prod.dim_int");
  auto node = make_node<ProdBackward>(self);
  Tensor out = call_below(op, ks, self, dim, keepdim, dtype);
  return prod_record(node, self, out, Reduced::one(self, dim, keepdim), true);
}

// --- max() / min() / amax / amin: split evenly among the elements equal to the result ----------

// 1 where x equals its (restored) result, else 0, in x's dtype. For
// max()/min() a NaN result matches the NaNs (PyTorch's
// evenly_distribute_backward); amax/amin compare only (scale_grad_by_count).
Tensor ties(T x, T result, bool nan_matches) {
  Tensor m = wick::eq(x, result);
  if (nan_matches) m = wick::logical_or(m, wick::logical_and(wick::isnan(x), wick::isnan(result)));
  return m.to(x.dtype());
}

template <bool kMax, bool kWhole>
struct SpreadBackward {
  static constexpr const char* kName =
      kWhole ? (kMax ? "MaxBackward1" : "MinBackward1") : (kMax ? "AmaxBackward0" : "AminBackward0");
  Reduced r;
  SavedVariable self, result;
  tensor_list backward(FormulaNode<SpreadBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    Tensor m = ties(n.unpack(self), r.restore(n.unpack(result)), kWhole);
    return {wick::div(wick::mul(r.restore(g[0]), m), r.sum_kept(m))};
  }
  void release() {
    self.reset();
    result.reset();
  }
};

template <bool kMax, bool kWhole>
Tensor spread_record(const std::shared_ptr<FormulaNode<SpreadBackward<kMax, kWhole>>>& node, T self, T out,
                     const Reduced& r) {
  record_reduction(node, self, out, r);
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    Tensor m = ties(self, r.restore(out), kWhole);
    set_tangent(out, wick::div(r.sum(wick::mul(fw_grad_of(self), m)), r.sum(m)));
  }
  return out;
}

template <bool kMax>
Tensor extreme_all_autograd(DispatchKeySet ks, T self) {
  static const auto op = op_handle<Tensor(T)>(kMax ? "torch.max" : "torch.min");
  auto node = make_node<SpreadBackward<kMax, true>>(self);
  Tensor out = call_below(op, ks, self);
  return spread_record<kMax, true>(node, self, out, Reduced::of(self, std::nullopt, false));
}

template <bool kMax>
Tensor amax_amin_autograd(DispatchKeySet ks, T self, IntArrayRef dim, bool keepdim) {
  static const auto op = op_handle<Tensor(T, IntArrayRef, bool)>(kMax ? "torch.amax" : "torch.amin");
  auto node = make_node<SpreadBackward<kMax, false>>(self);
  Tensor out = call_below(op, ks, self, dim, keepdim);
  return spread_record<kMax, false>(node, self, out, Reduced::of(self, dim, keepdim));
}

// --- max.dim / min.dim: the gradient goes to the index reported ---------------------------------

// True at the selected index of each slice, at the input's shape.
Tensor selected(T indices, IntArrayRef sizes, std::int64_t dim, bool keepdim) {
  const auto rank = static_cast<std::int64_t>(sizes.size());
  const std::int64_t d = wrap_dim(dim, rank);
  Tensor idx = keepdim ? indices : indices.unsqueeze(d);
  DimVector shape(sizes.size(), 1);
  shape[d] = sizes[d];
  Tensor pos = wick::arange(Scalar(sizes[d]), std::nullopt, 1, ScalarType::kInt64, indices.device()).reshape(shape);
  return wick::eq(pos, idx);
}

template <bool kMax>
struct SelectBackward {
  static constexpr const char* kName = kMax ? "MaxBackward0" : "MinBackward0";
  DimVector sizes;
  std::int64_t dim = 0;
  bool keepdim = false;
  SavedVariable indices;
  tensor_list backward(FormulaNode<SelectBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    if (sizes.empty()) return {g[0]};  // a 0-dim input is its own max
    const std::int64_t d = wrap_dim(dim, static_cast<std::int64_t>(sizes.size()));
    Tensor gk = keepdim ? g[0] : g[0].unsqueeze(d);
    return {mask_grad(gk, selected(n.unpack(indices), sizes, dim, keepdim))};
  }
  void release() { indices.reset(); }
};

template <bool kMax>
Pair select_autograd(DispatchKeySet ks, T self, std::int64_t dim, bool keepdim) {
  static const auto op = op_handle<Pair(T, std::int64_t, bool)>(kMax ? "torch.max.dim" : "torch.min.dim");
  auto node = make_node<SelectBackward<kMax>>(self);
  Pair out = call_below(op, ks, self, dim, keepdim);
  const Tensor& values = std::get<0>(out);
  const Tensor& indices = std::get<1>(out);
  if (record(node, values)) {
    node->f.sizes.assign(self.sizes());
    node->f.dim = dim;
    node->f.keepdim = keepdim;
    node->f.indices = SavedVariable(indices, false);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor t = fw_grad_of(self);
    if (self.dim() == 0) {
      set_tangent(values, t);
    } else {
      const std::int64_t dims[] = {dim};
      set_tangent(values, wick::sum(mask_grad(t, selected(indices, self.sizes(), dim, keepdim)), IntArrayRef(dims, 1),
                                    keepdim));
    }
  }
  return out;
}

// --- var / std (the correction overload) -----------------------------------------------------

template <bool kStd>
struct VarStdBackward {
  static constexpr const char* kName = kStd ? "StdBackward0" : "VarBackward0";
  Reduced r;
  double correction = 1;
  SavedVariable self, result;
  // d var / d x = 2 (x - mean) / (N - correction).
  static Tensor dvar(T x, const Reduced& r, double c) {
    const double scale = 2.0 / (static_cast<double>(r.count()) - c);
    return wick::mul(wick::sub(x, wick::mean(x, r.dim(), true)), scalar(scale));
  }
  // d std = d var / (2 std), and 0 where std is 0.
  static Tensor std_scale(T v, T std) {
    return wick::where(wick::eq(std, scalar(0.0)), zeros_as(v), wick::div(v, wick::mul(std, scalar(2.0))));
  }
  tensor_list backward(FormulaNode<VarStdBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    Tensor gv = kStd ? std_scale(g[0], n.unpack(result)) : g[0];
    return {wick::mul(r.restore(gv), dvar(n.unpack(self), r, correction))};
  }
  void release() {
    self.reset();
    result.reset();
  }
};

template <bool kStd>
Tensor var_std_autograd(DispatchKeySet ks, T self, OptInts dim, OptInt correction, bool keepdim) {
  using Sig = Tensor(T, OptInts, OptInt, bool);
  static const auto op = op_handle<Sig>(kStd ? "torch.std.correction" : "torch.var.correction");
  using B = VarStdBackward<kStd>;
  auto node = make_node<B>(self);
  Tensor out = call_below(op, ks, self, dim, correction, keepdim);
  const Reduced r = Reduced::of(self, dim, keepdim);
  const auto c = static_cast<double>(correction.value_or(1));
  if (node) node->f.correction = c;
  record_reduction(node, self, out, r);
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    Tensor tv = r.sum(wick::mul(fw_grad_of(self), B::dvar(self, r, c)));
    set_tangent(out, kStd ? B::std_scale(tv, out) : tv);
  }
  return out;
}

// torch.var(self, unbiased) and torch.var.dim: the correction overload with
// correction 1 (unbiased) or 0.
template <bool kStd>
Tensor var_std_whole(T self, bool unbiased) {
  const OptInt c = unbiased ? 1 : 0;
  return kStd ? wick::std_correction(self, std::nullopt, c, false) : wick::var_correction(self, std::nullopt, c, false);
}

// torch.max.other / min.other: torch.maximum / minimum under another name.
template <bool kMax>
Tensor extreme_other(T self, T other) {
  return kMax ? wick::maximum(self, other) : wick::minimum(self, other);
}

template <bool kStd>
Tensor var_std_dim(T self, OptInts dim, bool unbiased, bool keepdim) {
  const OptInt c = unbiased ? 1 : 0;
  return kStd ? wick::std_correction(self, dim, c, keepdim) : wick::var_correction(self, dim, c, keepdim);
}

// --- norm -----------------------------------------------------------------------------------

// d norm / d x at the input's shape (`norm` restored to it), PyTorch's
// norm_backward with a unit gradient: 0 for p = 0, sign(x) for p = 1,
// x / norm for p = 2 (0 where the norm is 0), for p = +-inf sign(x) split
// among the elements of largest (smallest) |x|, else sign(x) |x|^(p-1) /
// norm^(p-1).
Tensor dnorm(T x, T norm, double p, const Reduced& r) {
  if (p == 0.0) return zeros_as(x);
  if (p == 1.0) return wick::sign(x);
  Tensor zero_norm = wick::eq(norm, scalar(0.0));
  if (p == 2.0) return wick::where(zero_norm, zeros_as(x), wick::div(x, norm));
  if (std::isinf(p)) {
    Tensor m = ties(wick::abs(x), norm, true);
    return wick::div(wick::mul(wick::sign(x), m), r.sum_kept(m));
  }
  if (p < 1.0) {
    Tensor ax = wick::where(wick::eq(x, scalar(0.0)), zeros_as(x), wick::pow(wick::abs(x), scalar(p - 1.0)));
    return wick::mul(wick::mul(wick::sign(x), ax), wick::pow(norm, scalar(1.0 - p)));
  }
  Tensor scaled = p < 2.0 ? wick::mul(wick::sign(x), wick::pow(wick::abs(x), scalar(p - 1.0)))
                          : wick::mul(x, wick::pow(wick::abs(x), scalar(p - 2.0)));
  return wick::mul(scaled, wick::where(zero_norm, zeros_as(norm), wick::pow(norm, scalar(1.0 - p))));
}

// torch.norm reaches its kernel through norm.ScalarOpt_dim, as PyTorch's
// through the dim overload: NormBackward1.
struct NormBackward {
  static constexpr const char* kName = "NormBackward1";
  Reduced r;
  double p = 2;
  SavedVariable self, result;
  tensor_list backward(FormulaNode<NormBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {wick::mul(r.restore(g[0]), dnorm(n.unpack(self), r.restore(n.unpack(result)), p, r))};
  }
  void release() {
    self.reset();
    result.reset();
  }
};

Tensor norm_record(const std::shared_ptr<FormulaNode<NormBackward>>& node, T self, T out, const Reduced& r, double p) {
  if (node) node->f.p = p;
  record_reduction(node, self, out, r);
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, r.sum(wick::mul(fw_grad_of(self), dnorm(self, r.restore(out), p, r))));
  }
  return out;
}

Tensor norm_dim_autograd(DispatchKeySet ks, T self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  static const auto op =
      op_handle<Tensor(T, const std::optional<Scalar>&, IntArrayRef, bool)>("torch.norm.ScalarOpt_dim");
  auto node = make_node<NormBackward>(self);
  Tensor out = call_below(op, ks, self, p, dim, keepdim);
  return norm_record(node, self, out, Reduced::of(self, dim, keepdim), p ? p->to<double>() : 2.0);
}

// --- logsumexp: the gradient is softmax-weighted ------------------------------------------------

Tensor softmax_of(T x, T out, const Reduced& r) { return wick::exp(wick::sub(x, r.restore(out))); }

struct LogsumexpBackward {
  static constexpr const char* kName = "LogsumexpBackward0";
  Reduced r;
  SavedVariable self, result;
  tensor_list backward(FormulaNode<LogsumexpBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {wick::mul(r.restore(g[0]), softmax_of(n.unpack(self), n.unpack(result), r))};
  }
  void release() {
    self.reset();
    result.reset();
  }
};

Tensor logsumexp_autograd(DispatchKeySet ks, T self, IntArrayRef dim, bool keepdim) {
  static const auto op = op_handle<Tensor(T, IntArrayRef, bool)>("torch.logsumexp");
  auto node = make_node<LogsumexpBackward>(self);
  Tensor out = call_below(op, ks, self, dim, keepdim);
  const Reduced r = Reduced::of(self, dim, keepdim);
  record_reduction(node, self, out, r);
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, r.sum(wick::mul(fw_grad_of(self), softmax_of(self, out, r))));
  }
  return out;
}

}  // namespace

void register_autograd_reduce(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  lib->impl("prod", &prod_autograd)
      .impl("prod.dim_int", &prod_dim_autograd)
      .impl("max", &extreme_all_autograd<true>)
      .impl("min", &extreme_all_autograd<false>)
      .impl("amax", &amax_amin_autograd<true>)
      .impl("amin", &amax_amin_autograd<false>)
      .impl("max.dim", &select_autograd<true>)
      .impl("min.dim", &select_autograd<false>)
      .impl("var.correction", &var_std_autograd<false>)
      .impl("std.correction", &var_std_autograd<true>)
      .impl("norm.ScalarOpt_dim", &norm_dim_autograd)
      .impl("logsumexp", &logsumexp_autograd);
  out.push_back(std::move(lib));
  auto composite = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  composite->impl("var", &var_std_whole<false>)
      .impl("var.dim", &var_std_dim<false>)
      .impl("std", &var_std_whole<true>)
      .impl("std.dim", &var_std_dim<true>)
      .impl("max.other", &extreme_other<true>)
      .impl("min.other", &extreme_other<false>);
  out.push_back(std::move(composite));
}

}  // namespace wick::autograd
