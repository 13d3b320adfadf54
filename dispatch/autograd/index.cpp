// dispatch/autograd/index.cpp - formulas of cat, index_select, interpolate_taps, gather, scatter, scatter_add, scatter_reduce, masked_fill, flip, tril, triu.
/// \file
/// Backwards are written with differentiable operators, so double backward
/// works: index_select and gather send the gradient back with scatter_add,
/// whose own backward gathers again. Forward mode applies the operator (it is
/// linear in its differentiable inputs) to the tangents.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;
using Tensors = const std::vector<Tensor>&;

Tensor zero_like(T t) { return wick::zeros(t.sizes(), t.dtype(), t.device()); }

// `t` padded with zeros at the end of each dim up to `sizes` (a gradient for
// a src larger than its index); differentiable through cat.
Tensor pad_to(Tensor t, IntArrayRef sizes) {
  for (I64 d = 0; d < t.dim(); ++d) {
    if (t.sizes()[d] == sizes[d]) continue;
    DimVector pad(t.sizes());
    pad[d] = sizes[d] - t.sizes()[d];
    t = wick::cat({t, wick::zeros(pad, t.dtype(), t.device())}, d);
  }
  return t;
}

// --- cat --------------------------------------------------------------------------------------

struct CatBackward {
  static constexpr const char* kName = "CatBackward0";
  static constexpr bool kComplex = true;  // linear with real coefficients: the same formula
  I64 dim = 0;
  std::vector<I64> lengths;  // along dim; -1 for a skipped legacy empty tensor
  std::vector<ScalarType> dtypes;
  tensor_list backward(Node& n, tensor_list& g) {
    tensor_list out(lengths.size());
    I64 offset = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      if (lengths[i] < 0) {
        if (n.should_compute_output(i)) out[i] = wick::zeros({0}, dtypes[i], g[0].device());
        continue;
      }
      if (n.should_compute_output(i)) out[i] = g[0].narrow(dim, offset, lengths[i]).to(dtypes[i]);
      offset += lengths[i];
    }
    return out;
  }
  void release() {}
};

Tensor cat_ag(DispatchKeySet ks, Tensors tensors, I64 dim) {
  static const auto op = op_handle<Tensor(Tensors, I64)>("torch.cat");
  bool any_grad = false;
  bool fw = false;
  for (const Tensor& t : tensors) {
    any_grad = any_grad || needs_grad(t);
    fw = fw || any_tangent(t);
  }
  Tensor out = call_below(op, ks, tensors, dim);
  auto legacy = [](T t) { return t.dim() == 1 && t.numel() == 0; };
  I64 d = 0;
  for (const Tensor& t : tensors)
    if (!legacy(t)) {
      d = wrap_dim(dim, t.dim());
      break;
    }
  if (any_grad) {
    auto node = std::make_shared<FormulaNode<CatBackward>>();
    node->mutable_next_edges() = collect_next_edges(tensors);
    node->f.dim = d;
    for (const Tensor& t : tensors) {
      node->f.lengths.push_back(legacy(t) ? -1 : t.sizes()[d]);
      node->f.dtypes.push_back(t.dtype());
    }
    set_history(out, node);
  }
  if (fw) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    std::vector<Tensor> tangents;
    for (const Tensor& t : tensors) {
      Tensor tt = fw_grad_of(t);
      tangents.push_back(tt.defined() ? tt : zero_like(t));
    }
    set_tangent(out, wick::cat(tangents, dim).to(out.dtype()));
  }
  return out;
}

// --- index_select / gather: back with scatter_add ----------------------------------------------

// Sends `g` (gathered along `dim` at `index`, shaped like g) back into zeros of `sizes`.
Tensor scatter_back(T g, IntArrayRef sizes, I64 dim, T index) {
  return wick::scatter_add(wick::zeros(sizes, g.dtype(), g.device()), dim, index, g);
}

struct IndexSelectBackward {
  static constexpr const char* kName = "IndexSelectBackward0";
  static constexpr bool kComplex = true;  // linear with real coefficients: the same formula
  DimVector sizes;
  I64 dim = 0;
  Tensor index;  // int64
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    if (sizes.empty()) return {g[0]};  // a 0-dim self: the result is self
    DimVector shape(sizes.size(), 1);
    shape[dim] = index.numel();
    return {scatter_back(g[0], sizes, dim, index.reshape(shape).expand(g[0].sizes()))};
  }
  void release() {}
};

Tensor index_select_ag(DispatchKeySet ks, T self, I64 dim, T index) {
  static const auto op = op_handle<Tensor(T, I64, T)>("torch.index_select");
  auto node = make_node<IndexSelectBackward>(self);
  Tensor out = call_below(op, ks, self, dim, index);
  if (node) {
    node->f.sizes = DimVector(self.sizes());
    node->f.dim = wrap_dim(dim, std::max<I64>(self.dim(), 1));
    node->f.index = index.to(ScalarType::kInt64);
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, wick::index_select(fw_grad_of(self), dim, index));
  }
  return out;
}

// --- interpolate_taps: F.interpolate's passes --------------------------------------------------

// d/d weight[k, i] of the taps' sum read from `x` under the gradient `g`:
// row i of g times row index[k, i] of x, summed over every dim but `dim`.
Tensor tap_weight_grad(T x, T g, I64 dim, T index) {
  std::vector<I64> others;
  for (I64 d = 0; d < g.dim(); ++d)
    if (d != dim) others.push_back(d);
  std::vector<Tensor> rows;
  for (I64 k = 0; k < index.sizes()[0]; ++k) {
    const Tensor picked = wick::mul(g, wick::index_select(x, dim, index.select(0, k)));
    rows.push_back(others.empty() ? picked : wick::sum(picked, IntArrayRef(others)));
  }
  return wick::stack(rows, 0);
}

// self's gradient: aten.interpolate_taps_backward adds each tap's weighted
// gradient back at its rows; the weight's: tap_weight_grad.
struct InterpolateTapsBackward {
  static constexpr const char* kName = "InterpolateTapsBackward0";
  I64 rows = 0;  // self's size along dim
  I64 dim = 0;
  Tensor index;  // [taps, n] int64
  SavedVariable self, weight;
  bool weighted = false;
  tensor_list backward(FormulaNode<InterpolateTapsBackward>& n, tensor_list& g) {
    Tensor gs, gw;
    if (n.should_compute_output(0)) {
      const std::optional<Tensor> w = weighted ? std::optional<Tensor>(n.unpack(weight)) : std::nullopt;
      gs = aten::interpolate_taps_backward(g[0], dim, index, w, rows);
    }
    if (weighted && n.should_compute_output(1)) gw = tap_weight_grad(n.unpack(self), g[0], dim, index);
    return {gs, gw};
  }
  void release() {
    self.reset();
    weight.reset();
  }
};

Tensor interpolate_taps_ag(DispatchKeySet ks, T self, I64 dim, T index, const std::optional<Tensor>& weight) {
  static const auto op = op_handle<Tensor(T, I64, T, const std::optional<Tensor>&)>("aten.interpolate_taps");
  auto node = make_node<InterpolateTapsBackward>(self, weight);
  Tensor out = call_below(op, ks, self, dim, index, weight);
  if (node) {
    node->f.dim = wrap_dim(dim, self.dim());
    node->f.rows = self.sizes()[static_cast<std::size_t>(node->f.dim)];
    node->f.index = index;
    node->f.weighted = weight.has_value();
    if (weight && node->should_compute_output(0)) node->f.weight = SavedVariable(*weight, false);
    if (weight && node->should_compute_output(1)) node->f.self = SavedVariable(self, false);
    set_history(out, node);
  }
  binary_tangent(
      out, self, weight ? *weight : Tensor(), [&](T ts) { return aten::interpolate_taps(ts, dim, index, weight); },
      [&](T tw) { return aten::interpolate_taps(self, dim, index, tw); });
  return out;
}

// The backward is linear in grad_output and in weight: its grad_output's
// gradient is the forward pass of the incoming gradient, its weight's
// tap_weight_grad of the incoming gradient under grad_output.
struct InterpolateTapsBackwardBackward {
  static constexpr const char* kName = "InterpolateTapsBackwardBackward0";
  I64 dim = 0;
  Tensor index;
  SavedVariable grad_output, weight;
  bool weighted = false;
  tensor_list backward(FormulaNode<InterpolateTapsBackwardBackward>& n, tensor_list& g) {
    Tensor gg, gw;
    if (n.should_compute_output(0)) {
      const std::optional<Tensor> w = weighted ? std::optional<Tensor>(n.unpack(weight)) : std::nullopt;
      gg = aten::interpolate_taps(g[0], dim, index, w);
    }
    if (weighted && n.should_compute_output(1)) gw = tap_weight_grad(g[0], n.unpack(grad_output), dim, index);
    return {gg, gw};
  }
  void release() {
    grad_output.reset();
    weight.reset();
  }
};

Tensor interpolate_taps_backward_ag(DispatchKeySet ks, T grad_output, I64 dim, T index,
                                    const std::optional<Tensor>& weight, I64 input_size) {
  static const auto op = op_handle<Tensor(T, I64, T, const std::optional<Tensor>&, I64)>(
      "aten.interpolate_taps_backward");
  auto node = make_node<InterpolateTapsBackwardBackward>(grad_output, weight);
  Tensor out = call_below(op, ks, grad_output, dim, index, weight, input_size);
  if (node) {
    node->f.dim = wrap_dim(dim, grad_output.dim());
    node->f.index = index;
    node->f.weighted = weight.has_value();
    if (weight && node->should_compute_output(0)) node->f.weight = SavedVariable(*weight, false);
    if (weight && node->should_compute_output(1)) node->f.grad_output = SavedVariable(grad_output, false);
    set_history(out, node);
  }
  binary_tangent(
      out, grad_output, weight ? *weight : Tensor(),
      [&](T tg) { return aten::interpolate_taps_backward(tg, dim, index, weight, input_size); },
      [&](T tw) { return aten::interpolate_taps_backward(grad_output, dim, index, tw, input_size); });
  return out;
}

struct GatherBackward {
  static constexpr const char* kName = "GatherBackward0";
  DimVector sizes;
  I64 dim = 0;
  Tensor index;
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {scatter_back(g[0], sizes, dim, index)};
  }
  void release() {}
};

Tensor gather_ag(DispatchKeySet ks, T self, I64 dim, T index, bool sparse_grad) {
  static const auto op = op_handle<Tensor(T, I64, T, bool)>("torch.gather");
  auto node = make_node<GatherBackward>(self);
  Tensor out = call_below(op, ks, self, dim, index, sparse_grad);
  if (node) {
    node->f.sizes = DimVector(self.sizes());
    node->f.dim = dim;
    node->f.index = index;
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, wick::gather(fw_grad_of(self), dim, index));
  }
  return out;
}

// --- scatter / scatter_add ----------------------------------------------------------------------

template <bool kAdd>
struct ScatterBackward {
  I64 dim = 0;
  Tensor index;
  DimVector src_sizes;
  bool value = false;  // scatter's value overload: no src gradient
  [[nodiscard]] std::string name() const {
    return kAdd ? "ScatterAddBackward0" : value ? "ScatterBackward1" : "ScatterBackward0";
  }
  tensor_list backward(Node& n, tensor_list& g) {
    Tensor gs, gsrc;
    if (n.should_compute_output(0)) gs = kAdd ? g[0] : wick::scatter(g[0], dim, index, wrap_scalar(Scalar(0.0)));
    if (!value && n.should_compute_output(1)) gsrc = pad_to(wick::gather(g[0], dim, index), src_sizes);
    return {gs, gsrc};
  }
  void release() {}
};

template <bool kAdd>
Tensor scatter_ag(DispatchKeySet ks, T self, I64 dim, T index, T src) {
  static const auto op = op_handle<Tensor(T, I64, T, T)>(kAdd ? "torch.scatter_add" : "torch.scatter");
  auto node = make_node<ScatterBackward<kAdd>>(self, src);
  Tensor out = call_below(op, ks, self, dim, index, src);
  if (node) {
    node->f.dim = dim;
    node->f.index = index;
    node->f.src_sizes = DimVector(src.sizes());
    node->f.value = !kAdd && src.impl()->is_wrapped_number();
    set_history(out, node);
  }
  if (any_tangent(self, src)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    Tensor ts = fw_grad_of(self);
    Tensor tsrc = fw_grad_of(src);
    if (!ts.defined()) ts = zero_like(self);
    if (!tsrc.defined()) tsrc = src.impl()->is_wrapped_number() ? wrap_scalar(Scalar(0.0)) : zero_like(src);
    set_tangent(out, kAdd ? wick::scatter_add(ts, dim, index, tsrc) : wick::scatter(ts, dim, index, tsrc));
  }
  return out;
}

// --- scatter_reduce ----------------------------------------------------------------------------

// Note [scatter_reduce's derivatives]
// The derivative of each target with respect to self's element there (d_self,
// self's shape) and to each src entry of index (d_src, index's shape), as
// PyTorch 1.13's scatter_reduce_backward: 1 for sum; 1 / count for mean;
// amax and amin share among the entries equal to the result (self counted
// when equal, even without include_self, as PyTorch counts it); prod is the
// product of the others, with a single zero among a target's src entries
// excluded explicitly (several zeros: 0). Without include_self d_self is 0
// where an entry lands. Both backward (grad * d) and forward mode (tangent
// * d, summed into the targets) use them.
struct ReduceDerivatives {
  Tensor d_self, d_src;
};

ReduceDerivatives scatter_reduce_derivatives(T self, T src, T index, T out, I64 dim, std::string_view reduce,
                                             bool include_self) {
  Tensor used = src;  // src's entries that index reaches
  for (I64 d = 0; d < index.dim() && d < src.dim(); ++d) used = used.narrow(d, 0, index.sizes()[d]);
  const ScalarType t = self.dtype();
  const Tensor zero = wrap_scalar(Scalar(0.0));
  Tensor ds;
  Tensor dsrc;
  if (reduce == "sum") {
    ds = wick::ones_like(self);
    dsrc = wick::ones(index.sizes(), t, self.device());
  } else if (reduce == "mean") {
    const ScalarType counting = is_complex(t) ? to_real_dtype(t) : t;  // clamp has no complex loop
    const Tensor unit = wick::ones(self.sizes(), counting, self.device());
    const Tensor start = include_self ? unit : wick::scatter(unit, dim, index, zero);
    ds = wick::scatter_add(start, dim, index, wick::ones(index.sizes(), counting, self.device())).clamp_min(1).reciprocal();
    dsrc = wick::gather(ds, dim, index);
  } else if (reduce == "amax" || reduce == "amin") {
    const Tensor self_is = wick::eq(self, out).to(t);
    const Tensor src_is = wick::eq(used, wick::gather(out, dim, index)).to(t);
    const Tensor share = wick::scatter_add(self_is, dim, index, src_is);
    ds = wick::div(self_is, share);
    dsrc = wick::div(src_is, wick::gather(share, dim, index));
  } else {  // prod
    const Tensor self_zero = wick::eq(self, zero);
    const Tensor masked_self = wick::masked_fill(self, self_zero, wrap_scalar(Scalar(1.0)));
    const Tensor without_self_zero = wick::scatter_reduce(masked_self, dim, index, src, "prod", include_self);
    ds = wick::where(self_zero, without_self_zero, wick::div(out, masked_self));
    const Tensor src_zero = wick::eq(used, zero);
    const Tensor zeros_there =
        wick::gather(wick::scatter_add(zero_like(self), dim, index, src_zero.to(t)), dim, index);
    const Tensor single = wick::logical_and(src_zero, wick::eq(zeros_there, wrap_scalar(Scalar(1))));
    const Tensor without_src_zero = wick::scatter_reduce(
        self, dim, index, wick::masked_fill(used, single, wrap_scalar(Scalar(1.0))), "prod", include_self);
    dsrc = wick::where(single, wick::gather(without_src_zero, dim, index),
                       wick::div(wick::gather(out, dim, index),
                                 wick::masked_fill(used, src_zero, wrap_scalar(Scalar(1.0)))));
  }
  if (!include_self) ds = wick::scatter(ds, dim, index, zero);
  return {ds, dsrc};
}

struct ScatterReduceBackward {
  static constexpr const char* kName = "ScatterReduceBackward0";
  SavedVariable self, src, out;
  Tensor index;
  I64 dim = 0;
  std::string reduce;
  bool include_self = true;
  tensor_list backward(FormulaNode<ScatterReduceBackward>& n, tensor_list& g) {
    const Tensor s = n.unpack(src);
    const ReduceDerivatives d =
        scatter_reduce_derivatives(n.unpack(self), s, index, n.unpack(out), dim, reduce, include_self);
    Tensor gs;
    Tensor gsrc;
    if (n.should_compute_output(0)) gs = wick::mul(g[0], d.d_self);
    if (n.should_compute_output(1)) gsrc = pad_to(wick::mul(wick::gather(g[0], dim, index), d.d_src), s.sizes());
    return {gs, gsrc};
  }
  void release() {
    self.reset();
    src.reset();
    out.reset();
  }
};

Tensor scatter_reduce_ag(DispatchKeySet ks, T self, I64 dim, T index, T src, std::string_view reduce,
                         bool include_self) {
  static const auto op = op_handle<Tensor(T, I64, T, T, std::string_view, bool)>("torch.scatter_reduce");
  auto node = make_node<ScatterReduceBackward>(self, src);
  Tensor out = call_below(op, ks, self, dim, index, src, reduce, include_self);
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.src = SavedVariable(src, false);
    node->f.index = index;
    node->f.dim = dim;
    node->f.reduce = std::string(reduce);
    node->f.include_self = include_self;
    set_history(out, node);
    node->f.out = SavedVariable(out, true);
  }
  if (any_tangent(self, src)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const ReduceDerivatives d = scatter_reduce_derivatives(self, src, index, out, dim, reduce, include_self);
    const Tensor ts = fw_grad_of(self);
    Tensor tsrc = fw_grad_of(src);
    Tensor t = ts.defined() ? wick::mul(ts, d.d_self) : zero_like(out);
    if (tsrc.defined()) {
      for (I64 k = 0; k < index.dim() && k < tsrc.dim(); ++k) tsrc = tsrc.narrow(k, 0, index.sizes()[k]);
      t = wick::scatter_add(t, dim, index, wick::mul(tsrc, d.d_src));
    }
    set_tangent(out, t);
  }
  return out;
}

// --- masked_fill -------------------------------------------------------------------------------

struct MaskedFillBackward {
  DimVector sizes;
  Tensor mask;  // bool
  ScalarType value_dtype = ScalarType::kFloat32;
  bool tensor_value = false;
  [[nodiscard]] std::string name() const { return tensor_value ? "MaskedFillBackward1" : "MaskedFillBackward0"; }
  tensor_list backward(Node& n, tensor_list& g) {
    Tensor gs, gv;
    const Tensor zero = wrap_scalar(Scalar(0.0));
    if (n.should_compute_output(0)) gs = sum_to(wick::masked_fill(g[0], mask, zero), sizes);
    if (n.should_compute_output(2))
      gv = wick::sum(wick::masked_fill(g[0], wick::logical_not(mask), zero)).to(value_dtype);
    return {gs, Tensor(), gv};
  }
  void release() {}
};

Tensor masked_fill_ag(DispatchKeySet ks, T self, T mask, T value) {
  static const auto op = op_handle<Tensor(T, T, T)>("torch.masked_fill");
  auto node = make_node<MaskedFillBackward>(self, mask, value);
  Tensor out = call_below(op, ks, self, mask, value);
  const bool fw = any_tangent(self, value);
  if (!node && !fw) return out;
  ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
  const Tensor m = mask.dtype() == ScalarType::kBool ? mask : wick::ne(mask, wrap_scalar(Scalar(0)));
  if (node) {
    node->f.sizes = DimVector(self.sizes());
    node->f.mask = m;
    node->f.value_dtype = value.dtype();
    node->f.tensor_value = !value.impl()->is_wrapped_number();
    set_history(out, node);
  }
  if (fw) {
    Tensor ts = fw_grad_of(self);
    Tensor tv = fw_grad_of(value);
    set_tangent(out, wick::masked_fill(ts.defined() ? ts.expand(out.sizes()) : zero_like(out), m,
                                       tv.defined() ? tv : wrap_scalar(Scalar(0.0))));
  }
  return out;
}

// --- flip, tril, triu: linear maps that are their own adjoint -------------------------------------

template <class D>
struct SelfAdjointBackward {
  static constexpr const char* kName = D::kName;
  // Each of them (flip, tril, triu) moves or zeroes elements: linear with
  // real coefficients, the same formula for complex tensors.
  static constexpr bool kComplex = true;
  typename D::Arg arg{};
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {D::apply(g[0], arg)};
  }
  void release() {}
};

template <class D>
Tensor self_adjoint_ag(DispatchKeySet ks, T self, typename D::Param arg) {
  static const auto op = op_handle<Tensor(T, typename D::Param)>(D::kOp);
  auto node = make_node<SelfAdjointBackward<D>>(self);
  Tensor out = call_below(op, ks, self, arg);
  if (node) {
    node->f.arg = typename D::Arg(arg);
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, D::apply(fw_grad_of(self), arg));
  }
  return out;
}

struct FlipD {
  static constexpr const char* kOp = "torch.flip";
  static constexpr const char* kName = "FlipBackward0";
  using Param = IntArrayRef;
  using Arg = DimVector;
  static Tensor apply(T t, IntArrayRef dims) { return wick::flip(t, dims); }
};
template <bool kLower>
struct TriangleD {
  static constexpr const char* kOp = kLower ? "torch.tril" : "torch.triu";
  static constexpr const char* kName = kLower ? "TrilBackward0" : "TriuBackward0";
  using Param = I64;
  using Arg = I64;
  static Tensor apply(T t, I64 k) { return kLower ? wick::tril(t, k) : wick::triu(t, k); }
};

}  // namespace

void register_autograd_index(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  torch->impl("cat", &cat_ag)
      .impl("index_select", &index_select_ag)
      .impl("gather", &gather_ag)
      .impl("scatter", &scatter_ag<false>)
      .impl("scatter_add", &scatter_ag<true>)
      .impl("scatter_reduce", &scatter_reduce_ag)
      .impl("masked_fill", &masked_fill_ag)
      .impl("flip", &self_adjoint_ag<FlipD>)
      .impl("tril", &self_adjoint_ag<TriangleD<true>>)
      .impl("triu", &self_adjoint_ag<TriangleD<false>>);
  out.push_back(std::move(torch));
  auto aten = std::make_unique<Library>("aten", DispatchKey::kAutograd);
  aten->impl("interpolate_taps", &interpolate_taps_ag)
      .impl("interpolate_taps_backward", &interpolate_taps_backward_ag);
  out.push_back(std::move(aten));
}

}  // namespace wick::autograd
