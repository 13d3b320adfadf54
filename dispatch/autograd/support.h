// dispatch/autograd/support.h - private: the pieces every built-in Autograd kernel is made of.
/// \file
/// A built-in formula is a struct with the node's name, the state its
/// backward needs (SavedVariables, sizes, scalars), `backward` and `release`.
/// The Autograd kernel of an operator
///   1. makes a `FormulaNode<F>` when an input requires grad (`make_node`),
///   2. runs the operator below Autograd (`call_below`),
///   3. saves what backward needs and attaches the node to the outputs,
///   4. computes the output's tangent when an input has one (`any_tangent`).
///
///   struct MulBackward {
///     static constexpr const char* kName = "MulBackward0";
///     SavedVariable self, other;
///     tensor_list backward(Node& n, tensor_list& g) {...}
///     void release() { self.reset(); other.reset(); }
///   };
#pragma once

#include <memory>
#include <type_traits>

#include "core/autograd/autograd_meta.h"
#include "dispatch/autograd/formulas.h"
#include "wick/autograd.h"
#include "wick/checked.h"
#include "wick/dispatcher.h"
#include "wick/ops.h"

namespace wick::autograd {

/// True when formula F is written for complex tensors (Note [Complex
/// gradients] in wick/autograd.h): F::kComplex.
template <class F>
constexpr bool handles_complex() {
  if constexpr (requires { F::kComplex; }) {
    return F::kComplex;
  } else {
    return false;
  }
}

template <class F>
class FormulaNode final : public Node {
 public:
  F f;
  tensor_list apply(tensor_list&& grads) override {
    bool any = false;
    for (const Tensor& g : grads) any = any || g.defined();
    if (!any) return tensor_list(num_outputs());
    return f.backward(*this, grads);
  }
  [[nodiscard]] std::string name() const override {
    if constexpr (requires { f.name(); }) {
      return f.name();  // a formula whose name depends on the overload used
    } else {
      return F::kName;
    }
  }
  void release_variables() override { f.release(); }
  [[nodiscard]] bool complex_gradients() const noexcept override { return handles_complex<F>(); }
  /// Unpacks a saved tensor of this node.
  Tensor unpack(const SavedVariable& v) { return v.unpack(shared_from_this()); }
};

inline bool needs_grad(const Tensor& t) noexcept { return t.defined() && t.requires_grad(); }
inline bool needs_grad(const std::optional<Tensor>& t) noexcept { return t && needs_grad(*t); }
inline Edge edge_of(const Tensor& t) { return gradient_edge(t); }
inline Edge edge_of(const std::optional<Tensor>& t) { return t ? gradient_edge(*t) : Edge{}; }

/// A node for formula F with one edge per listed input, or null when none
/// requires grad.
template <class F, class... Ts>
std::shared_ptr<FormulaNode<F>> make_node(const Ts&... inputs) {
  if (!(needs_grad(inputs) || ...)) return nullptr;
  auto n = std::make_shared<FormulaNode<F>>();
  n->mutable_next_edges().reserve(sizeof...(Ts));
  (n->mutable_next_edges().push_back(edge_of(inputs)), ...);
  return n;
}

inline Tensor fw_grad_of(const std::optional<Tensor>& t) { return t ? fw_grad_of(*t) : Tensor(); }

/// True when a dual level is active and an input has a tangent in it.
template <class... Ts>
bool any_tangent(const Ts&... inputs) {
  if (current_dual_level() == 0) return false;
  return (fw_grad_of(inputs).defined() || ...);
}

/// Runs the operator below Autograd (nothing it calls records).
template <class R, class... A>
R call_below(const TypedOperatorHandle<R(A...)>& op, DispatchKeySet ks, std::type_identity_t<A>... args) {
  ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
  return op.redispatch(next_keys(ks), std::forward<A>(args)...);
}

/// Sets `out`'s tangent to `tangent` computed with recording off.
inline void set_tangent(const Tensor& out, const Tensor& tangent) { set_fw_grad(out, tangent); }

/// Tangent arithmetic where undefined means zero.
inline Tensor fw_add(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return wick::add(a, b);
}

/// Forward mode for a binary op: out's tangent is d_self(t_self) +
/// d_other(t_other), each term skipped when that input has no tangent.
/// Computed with recording off.
template <class DSelf, class DOther>
void binary_tangent(const Tensor& out, const Tensor& self, const Tensor& other, DSelf d_self, DOther d_other) {
  if (!any_tangent(self, other)) return;
  ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
  const Tensor ts = fw_grad_of(self);
  const Tensor to = fw_grad_of(other);
  set_tangent(out, fw_add(ts.defined() ? d_self(ts) : Tensor(), to.defined() ? d_other(to) : Tensor()));
}

/// The Autograd kernel's handle of the operator it serves.
template <class Sig>
TypedOperatorHandle<Sig> op_handle(const char* name) {
  return find_op(name).typed<Sig>();
}

/// 0-dim scalar tensor (a wrapped number: promotes like a Python scalar).
inline Tensor scalar(double v) { return wrap_scalar(Scalar(v)); }

/// A boolean tensor as 0/1 in `like`'s dtype.
inline Tensor as_float(const Tensor& cond, const Tensor& like) { return cond.to(like.dtype()); }

/// Where `cond`, else zero (same dtype as `g`).
Tensor mask_grad(const Tensor& g, const Tensor& cond);

/// Brings a reduced gradient back to `sizes`: re-inserts the reduced dims
/// (`all`: every dim; else `dims`) unless `keepdim`, then expands.
Tensor unreduce(const Tensor& g, IntArrayRef sizes, bool all, const DimVector& dims, bool keepdim);

// Note [Product gradients in their operand's layout]
// For C = A B, dA = dC B^T and dB = A^T dC. An operand that is a
// column-major matrix (a transposed view: linear passes weight.t()) gets
// its gradient as the transpose of a product of transposes instead, so that
// the gradient has the operand's own layout: its t() (the weight's
// gradient) is then contiguous, and accumulating it copies nothing. On a
// GPU, copying a 4096 x 4096 transposed gradient cost 12% of a training
// step. Batched operands ([B, n, k]) are judged per matrix.
inline bool column_major(const Tensor& m) {
  const std::int64_t d = m.dim();
  return d >= 2 && m.stride(d - 2) == 1 && m.stride(d - 1) == m.size(d - 2) && m.size(d - 1) > 1;
}
inline Tensor matrix_t(const Tensor& m) { return m.transpose(-2, -1); }
inline Tensor matrix_product(const Tensor& a, const Tensor& b) {
  return a.dim() == 3 ? wick::bmm(a, b) : wick::mm(a, b);
}
/// dA of C = A B, given dC and B; `a_column_major` from A at the forward.
/// Complex operands: dA = dC B^H (Note [Complex gradients] in wick/autograd.h).
inline Tensor product_grad_left(const Tensor& grad, const Tensor& b_in, bool a_column_major) {
  const Tensor b = wick::conj(b_in);
  return a_column_major ? matrix_t(matrix_product(b, matrix_t(grad))) : matrix_product(grad, matrix_t(b));
}
/// dB of C = A B, given dC and A; `b_column_major` from B at the forward.
/// Complex operands: dB = A^H dC.
inline Tensor product_grad_right(const Tensor& grad, const Tensor& a_in, bool b_column_major) {
  const Tensor a = wick::conj(a_in);
  return b_column_major ? matrix_t(matrix_product(matrix_t(grad), a)) : matrix_product(matrix_t(a), grad);
}

// --- one formula per elementwise function (Note [Elementwise formulas]) -----------------------

// Note [Elementwise formulas]
// A unary function's formula is a struct D with kOp (the operator), kName
// (the node's name), kSelf and kOut (what the node saves) and
// `apply(grad, self, out)`, the gradient times f'(self): the same function
// gives the backward gradient and the forward tangent. unary_autograd<D> is
// its Autograd kernel. A binary function's D has kOp, kName and
// `dself(self, other, like)` / `dother(...)`, the partial derivatives
// (binary_autograd<D>); one that PyTorch does not differentiate throws
// there, naming itself, so only a gradient that is asked for fails.
// A unary D with kHolomorphic is analytic, its apply the complex derivative
// too: its backward on complex tensors is grad * conj(f'(z)), computed as
// conj(apply(conj(grad))) (Note [Complex gradients] in wick/autograd.h).
template <class D>
constexpr bool is_holomorphic() {
  if constexpr (requires { D::kHolomorphic; }) {
    return D::kHolomorphic;
  } else {
    return false;
  }
}

template <class D>
struct UnaryBackward {
  static constexpr const char* kName = D::kName;
  static constexpr bool kComplex = is_holomorphic<D>() || handles_complex<D>();
  SavedVariable self, out;
  tensor_list backward(FormulaNode<UnaryBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    if constexpr (is_holomorphic<D>()) {
      if (is_complex(g[0].dtype())) return {wick::conj(D::apply(wick::conj(g[0]), n.unpack(self), n.unpack(out)))};
    }
    return {D::apply(g[0], n.unpack(self), n.unpack(out))};
  }
  void release() {
    self.reset();
    out.reset();
  }
};

template <class D>
Tensor unary_autograd(DispatchKeySet ks, const Tensor& self) {
  static const auto op = op_handle<Tensor(const Tensor&)>(D::kOp);
  auto node = make_node<UnaryBackward<D>>(self);
  Tensor out = call_below(op, ks, self);
  if (node) {
    if constexpr (D::kSelf) node->f.self = SavedVariable(self, false);
    set_history(out, node);
    if constexpr (D::kOut) node->f.out = SavedVariable(out, true);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, D::apply(fw_grad_of(self), self, out));
  }
  return out;
}

template <class D>
struct BinaryBackward {
  static constexpr const char* kName = D::kName;
  SavedVariable self, other;
  tensor_list backward(FormulaNode<BinaryBackward>& n, tensor_list& g) {
    Tensor x = n.unpack(self);
    Tensor y = n.unpack(other);
    Tensor gs, go;
    if (n.should_compute_output(0)) gs = wick::mul(g[0], D::dself(x, y, g[0]));
    if (n.should_compute_output(1)) go = wick::mul(g[0], D::dother(x, y, g[0]));
    return {gs, go};
  }
  void release() {
    self.reset();
    other.reset();
  }
};

template <class D>
Tensor binary_autograd(DispatchKeySet ks, const Tensor& self, const Tensor& other) {
  static const auto op = op_handle<Tensor(const Tensor&, const Tensor&)>(D::kOp);
  auto node = make_node<BinaryBackward<D>>(self, other);
  Tensor out = call_below(op, ks, self, other);
  if (node) {
    node->f.self = SavedVariable(self, false);
    node->f.other = SavedVariable(other, false);
    set_history(out, node);
  }
  binary_tangent(
      out, self, other, [&](const Tensor& ts) { return wick::mul(ts, D::dself(self, other, out)); },
      [&](const Tensor& to) { return wick::mul(to, D::dother(self, other, out)); });
  return out;
}

}  // namespace wick::autograd
