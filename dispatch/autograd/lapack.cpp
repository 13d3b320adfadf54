// dispatch/autograd/lapack.cpp - Autograd kernels of lu_factor_ex, lu_solve, solve_triangular, cholesky_ex and eigh.
/// \file
/// The LAPACK operators (Note [LAPACK operators] in
/// dispatch/ops/meta_linalg.cpp); solve, inv, det, slogdet and the others are
/// composites and are differentiated through them. Each backward is written
/// with differentiable operators (solve_triangular, lu_solve, matmul, tril,
/// triu, gather), so double backward works, and each has its forward-mode
/// tangent. Real matrices only, as wick's autograd (no complex gradients).
///
/// Note [LU derivatives]
/// With A = P L U (L unit lower triangular, U upper, packed into LU as
/// L - I + U), a change dA moves the factors by
///   X = L^-1 P^T dA U^-1,   dL = L tril(X, -1),   dU = triu(X) U
/// (L^-1 dL is strictly lower and dU U^-1 upper, so X splits uniquely).
/// Backward is its transpose: with gL = tril(gLU, -1) and gU = triu(gLU),
///   gA = P L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T.
/// For a solve X = A^-1 B, gB = A^-T G and gA = -gB X^T; a gradient gA of
/// the matrix reaches the packed factors as
///   gLU = tril(P^T gA U^T, -1) + triu(L^T P^T gA).
/// Square matrices only: the backward of a rectangular lu_factor raises.
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "dispatch/autograd/support.h"
#include "wick/tensor_util.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;

Tensor mt(T m) { return m.transpose(-2, -1); }

// The row permutation LAPACK's pivots make: row i of P^T A is row perm[i]
// of A (each batch's swaps applied in order to 0..n-1), int64, on the
// pivots' device. Meta tensors have no values: the identity stands in.
Tensor permutation_of(T pivots) {
  const I64 n = pivots.dim() == 0 ? 0 : pivots.size(-1);
  if (pivots.device().is_meta()) {
    return wick::arange(Scalar(0), Scalar(n), Scalar(1), ScalarType::kInt64, pivots.device())
        .expand(pivots.sizes())
        .contiguous();
  }
  const Tensor piv = pivots.to(ScalarType::kInt64).to(Device()).contiguous();
  Tensor perm = wick::empty(piv.sizes(), ScalarType::kInt64);
  const auto* p = static_cast<const I64*>(piv.data_ptr());
  auto* q = static_cast<I64*>(perm.data_ptr());
  // One row of n pivots per matrix, in order.
  for (I64 start = 0; n > 0 && start < piv.numel(); start = checked_add(start, n, "linalg.lu_solve")) {
    I64* row = q + start;
    const I64* swaps = p + start;
    for (I64 i = 0; i < n; ++i) row[i] = i;
    for (I64 i = 0; i < n; ++i) {
      const I64 j = swaps[i] - 1;
      WICK_CHECK(j >= i && j < n, RuntimeError, "linalg.lu_solve: invalid pivot ", j + 1, " at position ", i + 1);
      std::swap(row[i], row[j]);
    }
  }
  return perm.to(pivots.device());
}

// The rows of m ([..., n, k]) reordered: row i of the result is row idx[i].
Tensor take_rows(T m, T idx) {
  DimVector shape(m.sizes());
  Tensor index = idx.unsqueeze(-1);
  // idx's batch dims broadcast against m's.
  DimVector index_shape = broadcast_shapes(index.sizes(), shape, "linalg");
  index_shape[index_shape.size() - 1] = m.size(-1);
  DimVector m_shape = index_shape;
  m_shape[m_shape.size() - 2] = m.size(-2);
  return wick::gather(m.expand(m_shape), -2, index.expand(index_shape));
}

// P^T m and P m for the permutation `perm` of the pivots.
Tensor apply_pt(T m, T perm) { return take_rows(m, perm); }
Tensor apply_p(T m, T perm) { return take_rows(m, wick::argsort(perm, I64{-1})); }

// The unit lower and the upper factor of packed LU.
Tensor lower_of(T lu) {
  const Tensor eye = wick::eye(lu.size(-1), std::nullopt, lu.dtype(), lu.device());
  return wick::add(wick::tril(lu, -1), eye);
}
Tensor upper_of(T lu) { return wick::triu(lu); }

void check_square_backward(T lu) {
  WICK_CHECK(lu.size(-1) == lu.size(-2), NotImplementedError,
             "the derivative of linalg.lu_factor_ex is implemented only for square matrices, not ", lu.size(-2), " by ",
             lu.size(-1));
}

// gA of A = P L U from the gradient of the packed factors (Note [LU derivatives]).
Tensor lu_factor_grad(T glu, T lu, T perm) {
  check_square_backward(lu);
  const Tensor l = lower_of(lu);
  const Tensor u = upper_of(lu);
  const Tensor phi = wick::add(wick::tril(wick::matmul(mt(l), wick::tril(glu, -1)), -1),
                               wick::triu(wick::matmul(wick::triu(glu), mt(u))));
  // L^-T phi, then (.) U^-T.
  Tensor x = wick::linalg::solve_triangular(mt(l), phi, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
  x = wick::linalg::solve_triangular(mt(u), x, /*upper=*/false, /*left=*/false, /*unitriangular=*/false);
  return apply_p(x, perm);
}

// The tangent of packed LU for a tangent dA of A.
Tensor lu_factor_tangent(T da, T lu, T perm) {
  const Tensor l = lower_of(lu);
  const Tensor u = upper_of(lu);
  Tensor x = wick::linalg::solve_triangular(l, apply_pt(da, perm), false, true, true);
  x = wick::linalg::solve_triangular(u, x, true, false, false);
  return wick::add(wick::matmul(l, wick::tril(x, -1)), wick::matmul(wick::triu(x), u));
}

// A gradient of the matrix A = P L U carried to its packed factors.
Tensor lu_from_matrix_grad(T ga, T lu, T perm) {
  const Tensor pga = apply_pt(ga, perm);
  return wick::add(wick::tril(wick::matmul(pga, mt(upper_of(lu))), -1), wick::triu(wick::matmul(mt(lower_of(lu)), pga)));
}

// The tangent of A = P L U for a tangent of its packed factors.
Tensor matrix_tangent_of_lu(T dlu, T lu, T perm) {
  const Tensor dl = wick::tril(dlu, -1);
  const Tensor du = wick::triu(dlu);
  return apply_p(wick::add(wick::matmul(dl, upper_of(lu)), wick::matmul(lower_of(lu), du)), perm);
}

// --- lu_factor_ex ---------------------------------------------------------------------------------

struct LuFactorExBackward {
  static constexpr const char* kName = "LinalgLuFactorExBackward0";
  SavedVariable lu;
  Tensor perm;
  tensor_list backward(FormulaNode<LuFactorExBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0) || !g[0].defined()) return {Tensor()};
    return {lu_factor_grad(g[0], n.unpack(lu), perm)};
  }
  void release() { lu.reset(); }
};

std::tuple<Tensor, Tensor, Tensor> lu_factor_ex_autograd(DispatchKeySet ks, T a, bool pivot, bool check_errors) {
  static const auto op =
      op_handle<std::tuple<Tensor, Tensor, Tensor>(T, bool, bool)>("torch.linalg.lu_factor_ex");
  auto node = make_node<LuFactorExBackward>(a);
  auto out = call_below(op, ks, a, pivot, check_errors);
  const Tensor& lu = std::get<0>(out);
  const Tensor& pivots = std::get<1>(out);
  if (node) {
    set_history(lu, node);
    node->f.lu = SavedVariable(lu, true);
    node->f.perm = permutation_of(pivots);
  }
  if (any_tangent(a)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    check_square_backward(lu);
    set_tangent(lu, lu_factor_tangent(fw_grad_of(a), lu, permutation_of(pivots)));
  }
  return out;
}

// --- lu_solve ----------------------------------------------------------------------------------------

// -dA-side term of a solve's gradient: gA from gB and X (see the cases below).
Tensor solve_matrix_grad(T gb, T x, bool left, bool adjoint) {
  if (left) return wick::neg(adjoint ? wick::matmul(x, mt(gb)) : wick::matmul(gb, mt(x)));
  return wick::neg(adjoint ? wick::matmul(mt(gb), x) : wick::matmul(mt(x), gb));
}

// The part of dB minus the effect of dA on the right-hand side (forward mode).
Tensor solve_rhs_tangent(T db, T da, T x, bool left, bool adjoint) {
  Tensor rhs;
  if (da.defined()) {
    const Tensor a = adjoint ? mt(da) : da;
    rhs = wick::neg(left ? wick::matmul(a, x) : wick::matmul(x, a));
  }
  return fw_add(db, rhs);
}

struct LuSolveBackward {
  static constexpr const char* kName = "LinalgLuSolveBackward0";
  SavedVariable lu, result;
  Tensor pivots, perm;
  bool left = true, adjoint = false;
  tensor_list backward(FormulaNode<LuSolveBackward>& n, tensor_list& g) {
    if (!g[0].defined()) return {Tensor(), Tensor(), Tensor()};
    const Tensor factors = n.unpack(lu);
    // X = op(A)^-1 B (left) or B op(A)^-1: gB solves with the other op.
    const Tensor gb = wick::linalg::lu_solve(factors, pivots, g[0], left, !adjoint);
    Tensor glu;
    if (n.should_compute_output(0))
      glu = lu_from_matrix_grad(solve_matrix_grad(gb, n.unpack(result), left, adjoint), factors, perm);
    return {glu, Tensor(), n.should_compute_output(2) ? gb : Tensor()};
  }
  void release() {
    lu.reset();
    result.reset();
  }
};

Tensor lu_solve_autograd(DispatchKeySet ks, T lu, T pivots, T b, bool left, bool adjoint) {
  static const auto op = op_handle<Tensor(T, T, T, bool, bool)>("torch.linalg.lu_solve");
  auto node = make_node<LuSolveBackward>(lu, pivots, b);
  Tensor out = call_below(op, ks, lu, pivots, b, left, adjoint);
  if (node) {
    auto& f = node->f;
    f.left = left;
    f.adjoint = adjoint;
    f.pivots = pivots;
    f.lu = SavedVariable(lu, false);
    set_history(out, node);
    if (node->should_compute_output(0)) {
      f.perm = permutation_of(pivots);
      f.result = SavedVariable(out, true);
    }
  }
  if (any_tangent(lu, b)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor dlu = fw_grad_of(lu);
    const Tensor da = dlu.defined() ? matrix_tangent_of_lu(dlu, lu, permutation_of(pivots)) : Tensor();
    const Tensor rhs = solve_rhs_tangent(fw_grad_of(b), da, out, left, adjoint);
    set_tangent(out, wick::linalg::lu_solve(lu, pivots, rhs.expand(out.sizes()), left, adjoint));
  }
  return out;
}

// --- solve_triangular --------------------------------------------------------------------------------

// The part of a matrix solve_triangular reads: its triangle, without the
// diagonal when that is taken as ones.
Tensor triangle(T m, bool upper, bool unitriangular) {
  return upper ? wick::triu(m, unitriangular ? 1 : 0) : wick::tril(m, unitriangular ? -1 : 0);
}

struct SolveTriangularBackward {
  static constexpr const char* kName = "LinalgSolveTriangularBackward0";
  SavedVariable self, result;
  bool upper = true, left = true, unitriangular = false;
  ScalarType self_dtype = ScalarType::kFloat32, b_dtype = ScalarType::kFloat32;
  tensor_list backward(FormulaNode<SolveTriangularBackward>& n, tensor_list& g) {
    if (!g[0].defined()) return {Tensor(), Tensor()};
    const Tensor a = n.unpack(self);
    // X = A^-1 B: gB = A^-T G; X = B A^-1: gB = G A^-T.
    const Tensor gb = wick::linalg::solve_triangular(mt(a), g[0], !upper, left, unitriangular);
    Tensor ga;
    if (n.should_compute_output(0))
      ga = triangle(solve_matrix_grad(gb, n.unpack(result), left, false), upper, unitriangular).to(self_dtype);
    return {ga, n.should_compute_output(1) ? gb.to(b_dtype) : Tensor()};
  }
  void release() {
    self.reset();
    result.reset();
  }
};

Tensor solve_triangular_autograd(DispatchKeySet ks, T self, T b, bool upper, bool left, bool unitriangular) {
  static const auto op = op_handle<Tensor(T, T, bool, bool, bool)>("torch.linalg.solve_triangular");
  auto node = make_node<SolveTriangularBackward>(self, b);
  Tensor out = call_below(op, ks, self, b, upper, left, unitriangular);
  if (node) {
    auto& f = node->f;
    f.upper = upper;
    f.left = left;
    f.unitriangular = unitriangular;
    f.self_dtype = self.dtype();
    f.b_dtype = b.dtype();
    f.self = SavedVariable(self, false);
    set_history(out, node);
    if (node->should_compute_output(0)) f.result = SavedVariable(out, true);
  }
  if (any_tangent(self, b)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor ds = fw_grad_of(self);
    const Tensor da = ds.defined() ? triangle(ds, upper, unitriangular) : Tensor();
    const Tensor rhs = solve_rhs_tangent(fw_grad_of(b), da, out, left, false);
    set_tangent(out, wick::linalg::solve_triangular(self, rhs.expand(out.sizes()), upper, left, unitriangular));
  }
  return out;
}

// --- cholesky_ex ---------------------------------------------------------------------------------------
//
// Note [Cholesky and eigh derivatives]
// Both read one triangle of a symmetric A, so a change dA is taken to be
// symmetric and the gradient returned is symmetric, as PyTorch's.
// Cholesky, A = L L^T: X = L^-1 dA L^-T gives dL = L phi(X), where phi keeps
// the lower triangle with its diagonal halved; backward is
// gA = sym(L^-T phi(L^T gL) L^-1). (U = L^T with upper=True.)
// eigh, A = V diag(w) V^T: with F[i][j] = 1 / (w[j] - w[i]) off the
// diagonal and 0 on it, dw = diag(V^T dA V) and dV = V (F o V^T dA V);
// backward is gA = sym(V (diag(gw) + F o V^T gV) V^T).

// The lower triangle with its diagonal halved.
Tensor phi(T x) {
  const Tensor lower = wick::tril(x);
  return wick::sub(lower, wick::mul(wick::triu(lower), scalar(0.5)));
}

Tensor symmetric_part(T x) { return wick::mul(wick::add(x, mt(x)), scalar(0.5)); }

struct CholeskyExBackward {
  static constexpr const char* kName = "LinalgCholeskyExBackward0";
  SavedVariable factor;
  bool upper = false;
  tensor_list backward(FormulaNode<CholeskyExBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0) || !g[0].defined()) return {Tensor()};
    const Tensor f = n.unpack(factor);
    const Tensor l = upper ? mt(f) : f;
    const Tensor gl = upper ? mt(g[0]) : g[0];
    const Tensor p = phi(wick::matmul(mt(l), gl));
    const Tensor y = wick::linalg::solve_triangular(mt(l), p, /*upper=*/true, /*left=*/true, false);
    return {symmetric_part(wick::linalg::solve_triangular(l, y, /*upper=*/false, /*left=*/false, false))};
  }
  void release() { factor.reset(); }
};

std::tuple<Tensor, Tensor> cholesky_ex_autograd(DispatchKeySet ks, T self, bool upper, bool check_errors) {
  static const auto op = op_handle<std::tuple<Tensor, Tensor>(T, bool, bool)>("torch.linalg.cholesky_ex");
  auto node = make_node<CholeskyExBackward>(self);
  auto out = call_below(op, ks, self, upper, check_errors);
  const Tensor& factor = std::get<0>(out);
  if (node) {
    node->f.upper = upper;
    set_history(factor, node);
    node->f.factor = SavedVariable(factor, true);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor l = upper ? mt(factor) : factor;
    Tensor x = wick::linalg::solve_triangular(l, fw_grad_of(self), false, true, false);
    x = wick::linalg::solve_triangular(mt(l), x, true, false, false);
    const Tensor dl = wick::matmul(l, phi(x));
    set_tangent(factor, upper ? mt(dl).contiguous() : dl);
  }
  return out;
}

// --- eigh ------------------------------------------------------------------------------------------------

// F of Note [Cholesky and eigh derivatives]: 1 / (w[j] - w[i]) off the
// diagonal, 0 on it (no infinity anywhere, so double backward stays finite).
Tensor eigen_gaps(T w) {
  const Tensor e = wick::sub(w.unsqueeze(-2), w.unsqueeze(-1));
  const Tensor diag = wick::eye(w.size(-1), std::nullopt, ScalarType::kBool, w.device());
  const Tensor one = wick::ones({}, w.dtype(), w.device());
  const Tensor zero = wick::zeros({}, w.dtype(), w.device());
  return wick::where(diag, zero, wick::reciprocal(wick::where(diag, one, e)));
}

// A diagonal matrix of each vector of d.
Tensor diagonal_matrix(T d) {
  return wick::mul(wick::eye(d.size(-1), std::nullopt, d.dtype(), d.device()), d.unsqueeze(-2));
}

struct EighBackward {
  static constexpr const char* kName = "LinalgEighBackward0";
  SavedVariable values, vectors;
  tensor_list backward(FormulaNode<EighBackward>& n, tensor_list& g) {
    // Complex eigenvectors have no gradient slot (wick's autograd is real).
    const Tensor gv = g.size() > 1 ? g[1] : Tensor();
    if (!n.should_compute_output(0) || (!g[0].defined() && !gv.defined())) return {Tensor()};
    const Tensor w = n.unpack(values);
    const Tensor v = n.unpack(vectors);
    Tensor inner;
    if (gv.defined()) inner = wick::mul(eigen_gaps(w), wick::matmul(mt(v), gv));
    if (g[0].defined()) inner = fw_add(inner, diagonal_matrix(g[0]));
    return {symmetric_part(wick::matmul(wick::matmul(v, inner), mt(v)))};
  }
  void release() {
    values.reset();
    vectors.reset();
  }
};

std::tuple<Tensor, Tensor> eigh_autograd(DispatchKeySet ks, T self, std::string_view uplo) {
  static const auto op = op_handle<std::tuple<Tensor, Tensor>(T, std::string_view)>("torch.linalg.eigh");
  auto node = make_node<EighBackward>(self);
  auto out = call_below(op, ks, self, uplo);
  const Tensor& w = std::get<0>(out);
  const Tensor& v = std::get<1>(out);
  if (node) {
    set_history(w, node);
    set_history(v, node);
    node->f.values = SavedVariable(w, true);
    node->f.vectors = SavedVariable(v, true);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    const Tensor projected = wick::matmul(wick::matmul(mt(v), fw_grad_of(self)), v);
    set_tangent(w, projected.diagonal(0, -2, -1).contiguous());
    set_tangent(v, wick::matmul(v, wick::mul(eigen_gaps(w), projected)));
  }
  return out;
}

// --- qr (real, reduced or square) ---------------------------------------------------------------------
//
// Note [QR and SVD derivatives]
// QR, A = Q R with m >= n (or mode "complete" of a square A): with
// C = Q^T dA R^-1 and W = tril(C, -1) - tril(C, -1)^T (Q^T dQ, skew),
// dR = (C - W) R and dQ = (dA - Q dR) R^-1. Backward:
// M = R gR^T - gQ^T Q and gA = (gQ + Q sym_lower(M)) R^-T, where
// sym_lower(M) mirrors M's lower triangle.
// SVD, A = U S V^T (reduced, k = min(m, n)): with F[i][j] = 1 / (s_j^2 - s_i^2)
// off the diagonal, backward is
//   gA = U (F o (U^T gU - gU^T U) S + diag(gS) + S F o (V^T gV - gV^T V)) V^T
//        + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T),
// the last two terms only for non-square A.

Tensor sym_lower(T m) {
  const Tensor strict = wick::tril(m, -1);
  return wick::add(wick::add(strict, mt(strict)), wick::sub(wick::tril(m), strict));
}

void check_qr_differentiable(std::string_view mode, I64 m, I64 n) {
  WICK_CHECK(mode != "r", NotImplementedError,
             "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
             "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  WICK_CHECK(!(mode == "complete" && m > n), NotImplementedError,
             "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  WICK_CHECK(m >= n, NotImplementedError,
             "the derivative of linalg.qr of a matrix with more columns than rows is not implemented in wick");
}

struct QrBackward {
  static constexpr const char* kName = "LinalgQrBackward0";
  SavedVariable q, r;
  std::string mode;
  I64 rows = 0, cols = 0;
  tensor_list backward(FormulaNode<QrBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0) || (!g[0].defined() && !g[1].defined())) return {Tensor()};
    check_qr_differentiable(mode, rows, cols);
    const Tensor qq = n.unpack(q);
    const Tensor rr = n.unpack(r);
    Tensor m;
    if (g[1].defined()) m = wick::matmul(rr, mt(g[1]));
    if (g[0].defined()) m = fw_add(m, wick::neg(wick::matmul(mt(g[0]), qq)));
    Tensor x = wick::matmul(qq, sym_lower(m));
    if (g[0].defined()) x = wick::add(x, g[0]);
    return {wick::linalg::solve_triangular(mt(rr), x, /*upper=*/false, /*left=*/false, false)};
  }
  void release() {
    q.reset();
    r.reset();
  }
};

std::tuple<Tensor, Tensor> qr_autograd(DispatchKeySet ks, T a, std::string_view mode) {
  static const auto op = op_handle<std::tuple<Tensor, Tensor>(T, std::string_view)>("torch.linalg.qr");
  auto node = make_node<QrBackward>(a);
  auto out = call_below(op, ks, a, mode);
  const Tensor& q = std::get<0>(out);
  const Tensor& r = std::get<1>(out);
  if (node) {
    auto& f = node->f;
    f.mode = std::string(mode);
    f.rows = a.size(-2);
    f.cols = a.size(-1);
    set_history(q, node);
    set_history(r, node);
    f.q = SavedVariable(q, true);
    f.r = SavedVariable(r, true);
  }
  if (any_tangent(a)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    check_qr_differentiable(mode, a.size(-2), a.size(-1));
    const Tensor da = fw_grad_of(a);
    const Tensor c = wick::linalg::solve_triangular(r, wick::matmul(mt(q), da), true, false, false);
    const Tensor strict = wick::tril(c, -1);
    const Tensor dr = wick::matmul(wick::sub(c, wick::sub(strict, mt(strict))), r);
    const Tensor dq = wick::linalg::solve_triangular(r, wick::sub(da, wick::matmul(q, dr)), true, false, false);
    set_tangent(q, dq);
    set_tangent(r, dr);
  }
  return out;
}

// --- svd (real) ---------------------------------------------------------------------------------------------

// 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it.
Tensor singular_gaps(T s) {
  const Tensor sq = wick::mul(s, s);
  return eigen_gaps(sq);
}

struct SvdBackward {
  static constexpr const char* kName = "LinalgSvdBackward0";
  SavedVariable u, s, vh;
  bool full_matrices = false;
  I64 rows = 0, cols = 0;
  tensor_list backward(FormulaNode<SvdBackward>& n, tensor_list& g) {
    const Tensor gu = g[0];
    const Tensor gs = g.size() > 1 ? g[1] : Tensor();
    const Tensor gvh = g.size() > 2 ? g[2] : Tensor();
    if (!n.should_compute_output(0) || (!gu.defined() && !gs.defined() && !gvh.defined())) return {Tensor()};
    const I64 k = std::min(rows, cols);
    WICK_CHECK(!full_matrices || rows == cols || (!gu.defined() && !gvh.defined()), NotImplementedError,
               "the derivative of linalg.svd with full_matrices=True of a matrix that is not square is not "
               "implemented: use full_matrices=False");
    // The reduced factors (full ones of a square matrix are reduced ones).
    const Tensor uk = n.unpack(u).narrow(-1, 0, k);
    const Tensor vk = mt(n.unpack(vh).narrow(-2, 0, k));
    const Tensor sv = n.unpack(s);
    const Tensor guk = gu.defined() ? gu.narrow(-1, 0, k) : Tensor();
    const Tensor gvk = gvh.defined() ? mt(gvh.narrow(-2, 0, k)) : Tensor();
    const Tensor f = singular_gaps(sv);
    const Tensor smat = diagonal_matrix(sv);
    Tensor inner = gs.defined() ? diagonal_matrix(gs) : Tensor();
    if (guk.defined()) {
      const Tensor utgu = wick::matmul(mt(uk), guk);
      inner = fw_add(inner, wick::matmul(wick::mul(f, wick::sub(utgu, mt(utgu))), smat));
    }
    if (gvk.defined()) {
      const Tensor vtgv = wick::matmul(mt(vk), gvk);
      inner = fw_add(inner, wick::matmul(smat, wick::mul(f, wick::sub(vtgv, mt(vtgv)))));
    }
    Tensor ga = wick::matmul(wick::matmul(uk, inner), mt(vk));
    const Tensor s_inv = wick::reciprocal(sv).unsqueeze(-2);  // scales columns
    if (guk.defined() && rows > k) {
      const Tensor proj = wick::sub(guk, wick::matmul(uk, wick::matmul(mt(uk), guk)));
      ga = wick::add(ga, wick::matmul(wick::mul(proj, s_inv), mt(vk)));
    }
    if (gvk.defined() && cols > k) {
      const Tensor proj = wick::sub(gvk, wick::matmul(vk, wick::matmul(mt(vk), gvk)));
      ga = wick::add(ga, wick::matmul(uk, mt(wick::mul(proj, s_inv))));
    }
    return {ga};
  }
  void release() {
    u.reset();
    s.reset();
    vh.reset();
  }
};

std::tuple<Tensor, Tensor, Tensor> svd_autograd(DispatchKeySet ks, T a, bool full_matrices,
                                                std::optional<std::string_view> driver) {
  static const auto op =
      op_handle<std::tuple<Tensor, Tensor, Tensor>(T, bool, std::optional<std::string_view>)>(
          "torch.linalg.svd");
  auto node = make_node<SvdBackward>(a);
  auto out = call_below(op, ks, a, full_matrices, driver);
  const Tensor& u = std::get<0>(out);
  const Tensor& s = std::get<1>(out);
  const Tensor& vh = std::get<2>(out);
  if (node) {
    auto& f = node->f;
    f.full_matrices = full_matrices;
    f.rows = a.size(-2);
    f.cols = a.size(-1);
    set_history(u, node);
    set_history(s, node);
    set_history(vh, node);
    f.u = SavedVariable(u, true);
    f.s = SavedVariable(s, true);
    f.vh = SavedVariable(vh, true);
  }
  if (any_tangent(a)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    WICK_CHECK(!full_matrices || a.size(-2) == a.size(-1), NotImplementedError,
               "the forward derivative of linalg.svd with full_matrices=True of a matrix that is not square is not "
               "implemented: use full_matrices=False");
    // dP = U^T dA V; dS = diag(dP); dU = U (F o (dP S + S dP^T)) + (I - U U^T) dA V S^-1;
    // dV = V (F o (S dP + dP^T S)) + (I - V V^T) dA^T U S^-1.
    const Tensor v = mt(vh);
    const Tensor da = fw_grad_of(a);
    const Tensor dp = wick::matmul(wick::matmul(mt(u), da), v);
    const Tensor f = singular_gaps(s);
    const Tensor smat = diagonal_matrix(s);
    const Tensor s_inv = wick::reciprocal(s).unsqueeze(-2);
    Tensor du = wick::matmul(u, wick::mul(f, wick::add(wick::matmul(dp, smat), wick::matmul(smat, mt(dp)))));
    Tensor dv = wick::matmul(v, wick::mul(f, wick::add(wick::matmul(smat, dp), wick::matmul(mt(dp), smat))));
    if (a.size(-2) > a.size(-1)) {
      const Tensor dav = wick::matmul(da, v);
      du = wick::add(du, wick::mul(wick::sub(dav, wick::matmul(u, wick::matmul(mt(u), dav))), s_inv));
    }
    if (a.size(-1) > a.size(-2)) {
      const Tensor datu = wick::matmul(mt(da), u);
      dv = wick::add(dv, wick::mul(wick::sub(datu, wick::matmul(v, wick::matmul(mt(v), datu))), s_inv));
    }
    set_tangent(u, du);
    set_tangent(s, dp.diagonal(0, -2, -1).contiguous());
    set_tangent(vh, mt(dv).contiguous());
  }
  return out;
}

}  // namespace

void register_autograd_lapack(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch.linalg", DispatchKey::kAutograd);
  lib->impl("lu_factor_ex", &lu_factor_ex_autograd)
      .impl("lu_solve", &lu_solve_autograd)
      .impl("solve_triangular", &solve_triangular_autograd)
      .impl("cholesky_ex", &cholesky_ex_autograd)
      .impl("eigh", &eigh_autograd)
      .impl("qr", &qr_autograd)
      .impl("svd", &svd_autograd);
  out.push_back(std::move(lib));
}

}  // namespace wick::autograd
