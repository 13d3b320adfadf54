// dispatch/autograd_linalg.cpp - Autograd kernels of addmm, mv and dot.
/// \file
/// mm and bmm live with the elementwise formulas (they share the matrix
/// product helpers there); outer and matmul are composites, differentiated
/// through the operators they call. Backward formulas are written with
/// differentiable operators, so double backward works; see
/// dispatch/autograd/support.h for the pattern.
#include <complex>

#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;

// --- addmm: beta * self + alpha * mat1 @ mat2 ----------------------------------------------

struct AddmmBackward {
  static constexpr const char* kName = "AddmmBackward0";
  static constexpr bool kComplex = true;  // conj(beta), conj(alpha), and products with B^H and A^H
  SavedVariable mat1, mat2;
  Scalar beta = 1, alpha = 1;
  bool mat1_column_major = false, mat2_column_major = false;  // Note [Product gradients in their operand's layout]
  tensor_list backward(FormulaNode<AddmmBackward>& n, tensor_list& g) {
    Tensor gs, g1, g2;
    // self was broadcast to the product's shape: the engine sums the gradient
    // back down (Note [Gradient shapes]).
    if (n.should_compute_output(0)) gs = scaled(g[0], beta);
    if (n.should_compute_output(1)) g1 = scaled(product_grad_left(g[0], n.unpack(mat2), mat1_column_major), alpha);
    if (n.should_compute_output(2)) g2 = scaled(product_grad_right(g[0], n.unpack(mat1), mat2_column_major), alpha);
    return {gs, g1, g2};
  }
  void release() {
    mat1.reset();
    mat2.reset();
  }
  static Tensor scaled(const Tensor& x, const Scalar& s) {
    if (s.is_complex()) return wick::mul(x, wrap_scalar(Scalar(std::conj(s.to<std::complex<double>>()))));
    return s.to<double>() == 1.0 ? x : wick::mul(x, wrap_scalar(s));
  }
};

Tensor addmm_autograd(DispatchKeySet ks, T self, T mat1, T mat2, const Scalar& beta, const Scalar& alpha) {
  static const auto op = op_handle<Tensor(T, T, T, const Scalar&, const Scalar&)>("torch.addmm");
  auto node = make_node<AddmmBackward>(self, mat1, mat2);
  Tensor out = call_below(op, ks, self, mat1, mat2, beta, alpha);
  if (node) {
    auto& f = node->f;
    f.beta = beta;
    f.alpha = alpha;
    f.mat1_column_major = column_major(mat1);
    f.mat2_column_major = column_major(mat2);
    if (node->should_compute_output(2)) f.mat1 = SavedVariable(mat1, false);
    if (node->should_compute_output(1)) f.mat2 = SavedVariable(mat2, false);
    set_history(out, node);
  }
  if (any_tangent(self, mat1, mat2)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor ts = fw_grad_of(self);
    const Tensor t1 = fw_grad_of(mat1);
    const Tensor t2 = fw_grad_of(mat2);
    Tensor prod = fw_add(t1.defined() ? wick::mm(t1, mat2) : Tensor(), t2.defined() ? wick::mm(mat1, t2) : Tensor());
    Tensor tangent = fw_add(ts.defined() ? AddmmBackward::scaled(ts, beta) : Tensor(),
                            prod.defined() ? AddmmBackward::scaled(prod, alpha) : Tensor());
    // A tangent of self alone keeps self's (broadcastable) shape: give it the output's.
    set_tangent(out, tangent.sizes().vec() == out.sizes().vec() ? tangent : tangent.expand(out.sizes()).contiguous());
  }
  return out;
}

// --- mv: self @ vec ----------------------------------------------------------------------------

struct MvBackward {
  static constexpr const char* kName = "MvBackward0";
  static constexpr bool kComplex = true;
  SavedVariable self, vec;
  tensor_list backward(FormulaNode<MvBackward>& n, tensor_list& g) {
    Tensor gs, gv;
    if (n.should_compute_output(0)) gs = wick::outer(g[0], wick::conj(n.unpack(vec)));
    if (n.should_compute_output(1)) gv = wick::mv(wick::conj(n.unpack(self)).t(), g[0]);
    return {gs, gv};
  }
  void release() {
    self.reset();
    vec.reset();
  }
};

Tensor mv_autograd(DispatchKeySet ks, T self, T vec) {
  static const auto op = op_handle<Tensor(T, T)>("torch.mv");
  auto node = make_node<MvBackward>(self, vec);
  Tensor out = call_below(op, ks, self, vec);
  if (node) {
    if (node->should_compute_output(1)) node->f.self = SavedVariable(self, false);
    if (node->should_compute_output(0)) node->f.vec = SavedVariable(vec, false);
    set_history(out, node);
  }
  binary_tangent(
      out, self, vec, [&](T ts) { return wick::mv(ts, vec); }, [&](T tv) { return wick::mv(self, tv); });
  return out;
}

// --- dot: sum(self * tensor) as a 0-dim tensor --------------------------------------------------

struct DotBackward {
  static constexpr const char* kName = "DotBackward0";
  static constexpr bool kComplex = true;
  SavedVariable self, tensor;
  tensor_list backward(FormulaNode<DotBackward>& n, tensor_list& g) {
    Tensor gs, gt;
    if (n.should_compute_output(0)) gs = wick::mul(g[0], wick::conj(n.unpack(tensor)));
    if (n.should_compute_output(1)) gt = wick::mul(g[0], wick::conj(n.unpack(self)));
    return {gs, gt};
  }
  void release() {
    self.reset();
    tensor.reset();
  }
};

Tensor dot_autograd(DispatchKeySet ks, T self, T tensor) {
  static const auto op = op_handle<Tensor(T, T)>("torch.dot");
  auto node = make_node<DotBackward>(self, tensor);
  Tensor out = call_below(op, ks, self, tensor);
  if (node) {
    if (node->should_compute_output(1)) node->f.self = SavedVariable(self, false);
    if (node->should_compute_output(0)) node->f.tensor = SavedVariable(tensor, false);
    set_history(out, node);
  }
  binary_tangent(
      out, self, tensor, [&](T ts) { return wick::dot(ts, tensor); }, [&](T tt) { return wick::dot(self, tt); });
  return out;
}

}  // namespace

void register_autograd_linalg(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  lib->impl("addmm", &addmm_autograd).impl("mv", &mv_autograd).impl("dot", &dot_autograd);
  out.push_back(std::move(lib));
}

}  // namespace wick::autograd
