// dispatch/composite/linalg_ops.cpp - inner, vdot, trace, kron, diagonal; solve, inv, det, slogdet, logdet, cholesky, cholesky_solve, cholesky_inverse, householder_product, orgqr, ormqr, ldl_factor, eigvalsh, svdvals, pinv, matrix_rank, cond, matrix_exp, lu_unpack, lu, tensorinv, tensorsolve, matrix_power, multi_dot, cross, vecdot.
/// \file
/// Matrix functions composed from the products, the reductions and the
/// LAPACK operators lu_factor_ex, lu_solve, solve_triangular, cholesky_ex,
/// eigh, qr and svd
/// (dispatch/ops/linalg.ops, Note [LAPACK operators]): they run on every
/// backend with those kernels and get their gradients from their parts.
/// Checks and messages are PyTorch 1.13's.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "dispatch/composite/composite.h"
#include "dispatch/ops/linalg_checks.h"
#include "wick/autocast.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/meta_linalg.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;

// The sums of products over the last dims: self's leading dims, then other's.
Tensor inner_kernel(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return mul(self, other);
  const I64 k = self.sizes()[self.dim() - 1];
  WICK_CHECK(k == other.sizes()[other.dim() - 1], RuntimeError,
             "inner() the last dimension must match on both input tensors but got shapes ", format_shape(self.sizes()),
             " and ", format_shape(other.sizes()));
  WICK_CHECK(self.dtype() == other.dtype(), RuntimeError, "expected scalar type ", type_title(self.dtype()),
             " but found ", type_title(other.dtype()));
  DimVector shape;
  for (I64 d = 0; d + 1 < self.dim(); ++d) shape.push_back(self.sizes()[d]);
  for (I64 d = 0; d + 1 < other.dim(); ++d) shape.push_back(other.sizes()[d]);
  const Tensor rows = self.reshape({-1, k});
  const Tensor cols = other.reshape({-1, k}).t();
  return matmul(rows, cols).reshape(shape);
}

Tensor vdot_kernel(const Tensor& self, const Tensor& other) {
  WICK_CHECK(self.dim() == 1 && other.dim() == 1, RuntimeError, "1D tensors expected, but got ", self.dim(), "D and ",
             other.dim(), "D tensors");
  return dot(is_complex(self.dtype()) ? conj_physical(self) : self, other);
}

// The main diagonal, read from the flattened matrix every columns + 1 elements.
Tensor trace_kernel(const Tensor& self) {
  WICK_CHECK(self.dim() == 2, RuntimeError, "trace: expected a matrix, but got tensor with dim ", self.dim());
  const ScalarType t = self.dtype();
  WICK_CHECK(t != ScalarType::kBool && t != ScalarType::kFloat16 && t != ScalarType::kBFloat16, RuntimeError,
             "\"trace\" not implemented for '", type_title(t), "'");
  const I64 n = std::min(self.sizes()[0], self.sizes()[1]);
  const I64 step = checked_add(self.sizes()[1], 1, "torch.trace");
  const Tensor positions = arange(Scalar(0), Scalar(checked_mul(n, step, "torch.trace")), Scalar(step),
                                  ScalarType::kInt64, self.device());
  return sum(index_select(self.reshape({-1}), 0, positions));
}

// The Kronecker product: with both padded to the same rank, element
// (i0 * q0 + j0, i1 * q1 + j1, ...) is self[i] * other[j].
Tensor kron_kernel(const Tensor& self, const Tensor& other) {
  const I64 rank = std::max(self.dim(), other.dim());
  DimVector a_shape(static_cast<std::size_t>(2 * rank), 1);
  DimVector b_shape(static_cast<std::size_t>(2 * rank), 1);
  DimVector shape(static_cast<std::size_t>(rank), 1);
  for (I64 d = 0; d < rank; ++d) {
    const I64 a_dim = d - (rank - self.dim());
    const I64 b_dim = d - (rank - other.dim());
    const I64 p = a_dim >= 0 ? self.sizes()[a_dim] : 1;
    const I64 q = b_dim >= 0 ? other.sizes()[b_dim] : 1;
    a_shape[static_cast<std::size_t>(2 * d)] = p;
    b_shape[static_cast<std::size_t>(2 * d + 1)] = q;
    shape[static_cast<std::size_t>(d)] = checked_mul(p, q, "torch.kron");
  }
  return mul(self.reshape(a_shape), other.reshape(b_shape)).reshape(shape);
}

// The view of the diagonal of dims dim1 and dim2, offset above (below) it:
// those dims go, the diagonal becomes the last.
Tensor diagonal_kernel(const Tensor& self, I64 offset, I64 dim1, I64 dim2) {
  const I64 d1 = wrap_dim(dim1, self.dim());
  const I64 d2 = wrap_dim(dim2, self.dim());
  WICK_CHECK(d1 != d2, RuntimeError, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  const I64 n1 = self.sizes()[d1];
  const I64 n2 = self.sizes()[d2];
  // The diagonal's length: 0 when the offset leaves the matrix.
  I64 length = 0;
  if (offset >= 0 && offset < n2) length = std::min(n1, n2 - offset);
  if (offset < 0 && offset > -n1) length = std::min(checked_add(n1, offset, "torch.diagonal"), n2);
  I64 start = self.storage_offset();
  if (length > 0) {
    start = checked_add(
        start, offset >= 0 ? checked_mul(offset, self.strides()[d2], "torch.diagonal")
                           : checked_mul(-offset, self.strides()[d1], "torch.diagonal"),
        "torch.diagonal");
  }
  DimVector sizes;
  DimVector strides;
  for (I64 d = 0; d < self.dim(); ++d) {
    if (d == d1 || d == d2) continue;
    sizes.push_back(self.sizes()[d]);
    strides.push_back(self.strides()[d]);
  }
  sizes.push_back(length);
  strides.push_back(checked_add(self.strides()[d1], self.strides()[d2], "torch.diagonal"));
  return make_view(self, sizes, strides, start);
}

Tensor linalg_diagonal_kernel(const Tensor& a, I64 offset, I64 dim1, I64 dim2) {
  return diagonal(a, offset, dim1, dim2);
}

// --- the LU family --------------------------------------------------------------------------------

// A batch of square matrices (the message names it A).
void check_square(const char* op, const Tensor& a) {
  linalg_checks::check_matrix(op, "A", a);
  linalg_checks::check_square(op, a);
}

void check_floating(const char* op, const Tensor& a) { linalg_checks::check_floating(op, a.dtype()); }

// PyTorch's inv and slogdet refuse 16-bit floats before LAPACK would.
void check_not_low_precision(const char* op, const Tensor& a) {
  WICK_CHECK(a.dtype() != ScalarType::kFloat16 && a.dtype() != ScalarType::kBFloat16, RuntimeError, op,
             ": Low precision dtypes not supported. Got ", type_title(a.dtype()));
}

using Pair = std::tuple<Tensor, Tensor>;

Pair lu_factor_kernel(const Tensor& a, bool pivot) {
  auto [lu, pivots, info] = linalg::lu_factor_ex(a, pivot, false);
  check_linalg_info("torch.linalg.lu_factor", info, LinalgFailure::kLuFactor);
  return {lu, pivots};
}

// B is a batch of vectors when it is 1-D, or has A's shape without the last dim.
bool vector_rhs(const Tensor& a, const Tensor& b) {
  if (b.dim() == 1) return true;
  if (b.dim() != a.dim() - 1) return false;
  for (I64 d = 0; d < b.dim(); ++d)
    if (b.size(d) != a.size(d)) return false;
  return true;
}

Pair solve_ex_kernel(const Tensor& a, const Tensor& b, bool left, bool check_errors) {
  const char* op = "linalg.solve";
  check_square(op, a);
  WICK_CHECK(a.dtype() == b.dtype(), RuntimeError, op, ": Expected A and B to have the same dtype, but found A of type ",
             type_title(a.dtype()), " and B of type ", type_title(b.dtype()), " instead");
  check_floating(op, a);
  const bool vector = vector_rhs(a, b);
  const Tensor rhs = vector ? b.unsqueeze(left ? -1 : -2) : b;
  WICK_CHECK(rhs.dim() >= 2 && (left ? rhs.size(-2) : rhs.size(-1)) == a.size(-1), RuntimeError, op,
             ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", a.size(-2), "x",
             a.size(-1), " and ", rhs.dim() >= 2 ? rhs.size(-2) : rhs.size(-1), "x", rhs.size(-1), ")");
  auto [lu, pivots, info] = linalg::lu_factor_ex(a, true, false);
  Tensor x = linalg::lu_solve(lu, pivots, rhs, left, false);
  if (vector) x = x.squeeze(left ? -1 : -2);
  if (check_errors) check_linalg_info("torch.linalg.solve_ex", info, LinalgFailure::kSolve);
  return {x, info};
}

Tensor solve_kernel(const Tensor& a, const Tensor& b, bool left) {
  auto [x, info] = linalg::solve_ex(a, b, left, false);
  check_linalg_info("torch.linalg.solve", info, LinalgFailure::kSolve);
  return x;
}

Pair inv_ex_kernel(const Tensor& a, bool check_errors) {
  const char* op = "linalg.inv";
  check_square(op, a);
  check_floating(op, a);
  check_not_low_precision(op, a);
  auto [lu, pivots, info] = linalg::lu_factor_ex(a, true, false);
  const Tensor identity = eye(a.size(-1), std::nullopt, a.dtype(), a.device());
  Tensor inverse = linalg::lu_solve(lu, pivots, identity, true, false);
  if (check_errors) check_linalg_info("linalg.inv_ex", info, LinalgFailure::kInverse);
  return {inverse, info};
}

Tensor inv_kernel(const Tensor& a) {
  auto [inverse, info] = linalg::inv_ex(a, false);
  check_linalg_info("linalg.inv", info, LinalgFailure::kInverse);
  return inverse;
}

Tensor inverse_kernel(const Tensor& self) { return linalg::inv(self); }

// The sign of the row permutation LAPACK's pivots describe: -1 for an odd
// number of swaps (pivots[i] != i + 1), in `dtype`.
Tensor permutation_sign(const Tensor& pivots, ScalarType dtype) {
  const I64 n = pivots.size(-1);
  const Tensor rows =
      arange(Scalar(1), Scalar(checked_add(n, 1, "linalg.det")), Scalar(1), ScalarType::kInt32, pivots.device());
  const Tensor swaps = sum(ne(pivots, rows), I64{-1});
  return add(mul(remainder(swaps, 2), -2), 1).to(dtype);
}

// The LU factors of a square floating matrix, for the determinants.
std::tuple<Tensor, Tensor> lu_diagonal(const char* op, const Tensor& a, bool low_precision_check) {
  check_square(op, a);
  check_floating(op, a);
  if (low_precision_check) check_not_low_precision(op, a);
  auto [lu, pivots, info] = linalg::lu_factor_ex(a, true, false);
  return {lu.diagonal(0, -2, -1), permutation_sign(pivots, a.dtype())};
}

Tensor det_kernel(const Tensor& a) {
  auto [diag, sign] = lu_diagonal("linalg.det", a, false);
  return mul(prod(diag, -1), sign);
}

Tensor torch_det_kernel(const Tensor& self) { return linalg::det(self); }

// The sign is the product of the diagonal's signs (phases) and the
// permutation's; log|det| sums the logs of the diagonal's magnitudes.
Pair slogdet_for(const char* op, const Tensor& a) {
  auto [diag, perm] = lu_diagonal(op, a, true);
  const Tensor sign = mul(prod(sgn(diag), -1), perm);
  const Tensor logabsdet = sum(log(abs(diag)), I64{-1});
  return {sign, logabsdet};
}

Pair linalg_slogdet_kernel(const Tensor& a) { return slogdet_for("linalg.slogdet", a); }
Pair slogdet_kernel(const Tensor& self) { return slogdet_for("linalg.slogdet", self); }

// log(det): NaN for a negative real determinant, -inf for a zero one; the
// phase's log for complex ones.
Tensor logdet_kernel(const Tensor& self) {
  auto [sign, logabsdet] = slogdet_for("logdet", self);
  if (is_complex(self.dtype())) return add(log(sign), logabsdet);
  const Tensor nan = full({}, Scalar(std::numeric_limits<double>::quiet_NaN()), logabsdet.dtype(), self.device());
  return where(lt(sign, 0), nan, logabsdet);
}

// --- Cholesky and eigh --------------------------------------------------------------------------------

Tensor linalg_cholesky_kernel(const Tensor& self, bool upper) {
  auto [factor, info] = linalg::cholesky_ex(self, upper, false);
  check_linalg_info("linalg.cholesky", info, LinalgFailure::kCholesky);
  return factor;
}

// PyTorch's LAPACK kernels refuse other dtypes by their kernel's name.
void check_lapack_dtype(const char* kernel, const Tensor& t) { linalg_checks::check_lapack_type(kernel, t.dtype()); }

Tensor cholesky_kernel(const Tensor& self, bool upper) {
  check_lapack_dtype("cholesky_cpu", self);
  auto [factor, info] = linalg::cholesky_ex(self, upper, false);
  check_linalg_info("cholesky", info, LinalgFailure::kCholesky);
  return factor;
}

// The conjugate transpose of each matrix.
Tensor adjoint_of(const Tensor& m) {
  const Tensor t = m.transpose(-2, -1);
  return is_complex(m.dtype()) ? conj_physical(t) : t;
}

// X with A X = b for A = L L^H (U^H U with upper), by two triangular solves.
Tensor cholesky_solve_kernel(const Tensor& self, const Tensor& input2, bool upper) {
  WICK_CHECK(self.dim() >= 2, RuntimeError, "b should have at least 2 dimensions, but has ", self.dim(),
             " dimensions instead");
  WICK_CHECK(input2.dim() >= 2, RuntimeError, "u should have at least 2 dimensions, but has ", input2.dim(),
             " dimensions instead");
  WICK_CHECK(self.dtype() == input2.dtype(), RuntimeError, "Expected b and A to have the same dtype, but found b of type ",
             type_title(self.dtype()), " and A of type ", type_title(input2.dtype()), " instead.");
  check_lapack_dtype("cholesky_solve_cpu", self);
  WICK_CHECK(input2.size(-1) == input2.size(-2) && input2.size(-1) == self.size(-2), RuntimeError,
             "Incompatible matrix sizes for cholesky_solve: each A matrix is ", input2.size(-2), " by ",
             input2.size(-1), " but each b matrix is ", self.size(-2), " by ", self.size(-1));
  const Tensor lower = upper ? adjoint_of(input2) : input2;
  const Tensor y = linalg::solve_triangular(lower, self, false, true, false);
  return linalg::solve_triangular(adjoint_of(lower), y, true, true, false);
}

Tensor cholesky_inverse_kernel(const Tensor& self, bool upper) {
  const char* op = "cholesky_inverse";
  check_square(op, self);
  check_lapack_dtype("cholesky_inverse_out_cpu", self);
  const Tensor identity = eye(self.size(-1), std::nullopt, self.dtype(), self.device());
  return cholesky_solve(identity, self, upper);
}

// --- Householder products ---------------------------------------------------------------------------
//
// Note [Householder products]
// geqrf leaves k reflectors H_i = I - tau_i v_i v_i^H in the columns of an
// m x n matrix: v_i is column i below the diagonal, with a 1 on it and zeros
// above. Their product is formed by blocks, as LAPACK's larft and larfb do,
// instead of one reflector at a time: with V the m x k matrix of the v_i,
//   H_1 ... H_k = I - V T V^H,  T upper triangular with T^-1 = D^-1 + S,
// D = diag(tau) and S = triu(V^H V, 1) (larft's recurrence, solved at
// once). T = (I + D S)^-1 D needs no division by tau (a zero tau is an
// identity reflector), and I + D S is unit upper triangular. Then
// householder_product is (I - V T V^H) E with E the first n columns of the
// identity, and ormqr applies I - V T V^H (or its adjoint, I - V T^H V^H)
// to C from either side: all matrix products and one triangular solve, so
// they run on every backend, and their gradients come from those parts.
// PyTorch's ormqr has no derivative; wick's has (README, divergences).

// V (the unit lower trapezoidal reflectors in the first k columns of a) and
// T of a's reflectors with scalars tau.
std::pair<Tensor, Tensor> reflector_block(const Tensor& a, const Tensor& tau) {
  const I64 rows = a.size(-2);
  const I64 k = tau.size(-1);
  const Tensor v = add(tril(a.narrow(-1, 0, k), -1), eye(rows, k, a.dtype(), a.device()));
  const Tensor s = triu(matmul(adjoint_of(v), v), 1);
  const Tensor unit = add(mul(tau.unsqueeze(-1), s), eye(k, std::nullopt, a.dtype(), a.device()));
  const Tensor t = linalg::solve_triangular(unit, diag_embed(tau), /*upper=*/true, /*left=*/true,
                                            /*unitriangular=*/true);
  return {v, t};
}

// tau's dims must be input's but the last one, with input's batch dims.
void check_reflector_batch(const char* op, const Tensor& input, const Tensor& tau) {
  WICK_CHECK(input.dim() - tau.dim() == 1, RuntimeError, op,
             ": Expected tau to have one dimension less than input, but got tau.ndim equal to ", tau.dim(),
             " and input.ndim is equal to ", input.dim());
  const IntArrayRef batch(input.sizes().data(), static_cast<std::size_t>(input.dim() - 2));
  const IntArrayRef tau_batch(tau.sizes().data(), static_cast<std::size_t>(tau.dim() - 1));
  WICK_CHECK(batch == tau_batch, RuntimeError, op,
             ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ", format_shape(tau_batch));
}

Tensor householder_product_kernel(const Tensor& input, const Tensor& tau) {
  const char* op = "torch.linalg.householder_product";
  WICK_CHECK(input.dim() >= 2, RuntimeError, op, ": input must have at least 2 dimensions.");
  WICK_CHECK(input.size(-2) >= input.size(-1), RuntimeError, op,
             ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  WICK_CHECK(input.size(-1) >= tau.size(-1), RuntimeError, op,
             ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  check_reflector_batch(op, input, tau);
  WICK_CHECK(tau.dtype() == input.dtype(), RuntimeError, op, ": tau dtype ", type_title(tau.dtype()),
             " does not match input dtype ", type_title(input.dtype()));
  (void)common_device(op, input, tau);
  check_lapack_dtype("orgqr_cpu", input);
  const I64 n = input.size(-1);
  const auto [v, t] = reflector_block(input, tau);
  const Tensor e = eye(input.size(-2), n, input.dtype(), input.device());
  return sub(e, matmul(v, matmul(t, adjoint_of(v.narrow(-2, 0, n)))));
}

Tensor ormqr_kernel(const Tensor& input, const Tensor& tau, const Tensor& other, bool left, bool transpose) {
  const char* op = "torch.ormqr";
  WICK_CHECK(input.dim() >= 2, RuntimeError, op, ": input must have at least 2 dimensions.");
  WICK_CHECK(other.dim() >= 2, RuntimeError, op, ": other must have at least 2 dimensions.");
  const I64 side = left ? other.size(-2) : other.size(-1);
  WICK_CHECK(side == input.size(-2), RuntimeError, op, ": other.shape[", left ? -2 : -1,
             "] must be equal to input.shape[-2]");
  WICK_CHECK(tau.size(-1) <= input.size(-1), RuntimeError, op,
             ": tau.shape[-1] must be less than or equal to input.shape[-1]");
  WICK_CHECK(side >= tau.size(-1), RuntimeError, op, ": other.shape[", left ? -2 : -1,
             "] must be greater than or equal to tau.shape[-1]");
  check_reflector_batch(op, input, tau);
  WICK_CHECK(other.dim() == input.dim(), RuntimeError, op,
             ": Expected other to have the same number of dimensions as input, but got other.ndim equal to ",
             other.dim(), " and input.ndim is equal to ", input.dim());
  const IntArrayRef batch(input.sizes().data(), static_cast<std::size_t>(input.dim() - 2));
  const IntArrayRef other_batch(other.sizes().data(), static_cast<std::size_t>(other.dim() - 2));
  WICK_CHECK(batch == other_batch, RuntimeError, op,
             ": Expected batch dimensions of other to be equal to input.shape[:-2], but got ",
             format_shape(other_batch));
  // PyTorch's messages run "dtype" into the type's name.
  WICK_CHECK(tau.dtype() == input.dtype(), RuntimeError, op,
             ": Expected input and tau to have the same dtype, but input has dtype", type_title(input.dtype()),
             " and tau has dtype ", type_title(tau.dtype()));
  WICK_CHECK(other.dtype() == input.dtype(), RuntimeError, op,
             ": Expected input and other to have the same dtype, but input has dtype", type_title(input.dtype()),
             " and other has dtype ", type_title(other.dtype()));
  (void)common_device(op, input, tau, other);
  check_lapack_dtype("ormqr_cpu", input);
  const auto [v, t] = reflector_block(input, tau);
  const Tensor block = transpose ? adjoint_of(t) : t;
  if (left) return sub(other, matmul(v, matmul(block, matmul(adjoint_of(v), other))));
  return sub(other, matmul(matmul(matmul(other, v), block), adjoint_of(v)));
}

Pair ldl_factor_kernel(const Tensor& self, bool hermitian) {
  auto [ld, pivots, info] = linalg::ldl_factor_ex(self, hermitian, false);
  check_linalg_info("torch.linalg.ldl_factor", info, LinalgFailure::kLdlFactor);
  return {ld, pivots};
}

// --- randomized low-rank SVD (torch._lowrank) ----------------------------------------------------------

// x y, less m y where m (the mean that A - M subtracts) is given.
Tensor product_less_mean(const Tensor& x, const Tensor& y, const std::optional<Tensor>& m) {
  return m ? sub(matmul(x, y), matmul(*m, y)) : matmul(x, y);
}

Tensor conjugate_of(const Tensor& t) { return is_complex(t.dtype()) ? conj_physical(t) : t; }

// q orthonormal columns Q with Q Q^H (A - M) ~ A - M: one randn(n, q) of
// A's floating dtype (float32 for the others, as PyTorch's
// get_floating_dtype), then niter subspace iterations.
Tensor approximate_basis(const Tensor& a, I64 q, I64 niter, const std::optional<Tensor>& m) {
  const ScalarType t = a.dtype();
  const ScalarType dtype =
      t == ScalarType::kFloat16 || t == ScalarType::kFloat32 || t == ScalarType::kFloat64 ? t : ScalarType::kFloat32;
  const Tensor r = randn({a.size(-1), q}, dtype, a.device());
  const Tensor a_h = adjoint_of(a);
  const std::optional<Tensor> m_h = m ? std::optional<Tensor>(adjoint_of(*m)) : std::nullopt;
  Tensor basis = std::get<0>(linalg::qr(product_less_mean(a, r, m)));
  for (I64 i = 0; i < niter; ++i) {
    basis = std::get<0>(linalg::qr(product_less_mean(a_h, basis, m_h)));
    basis = std::get<0>(linalg::qr(product_less_mean(a, basis, m)));
  }
  return basis;
}

using Triple = std::tuple<Tensor, Tensor, Tensor>;

// The SVD of the projection of A - M onto an approximate basis of its
// columns, or of its rows when m < n or n > q.
Triple svd_lowrank_impl(const char* op, const Tensor& a, I64 q, I64 niter, const std::optional<Tensor>& m) {
  WICK_CHECK(a.dim() >= 2, ValueError, op, ": A must be a matrix or a batch of matrices, but got ", a.dim(),
             " dimension", a.dim() == 1 ? "" : "s");
  const I64 rows = a.size(-2);
  const I64 cols = a.size(-1);
  const std::optional<Tensor> m_t = m ? std::optional<Tensor>(m->transpose(-2, -1)) : std::nullopt;
  const Tensor a_t = a.transpose(-2, -1);
  if (rows < cols || cols > q) {
    WICK_CHECK(q <= rows, ValueError, op, ": q(=", q, ") must not be greater than min(m, n)=", std::min(rows, cols));
    const Tensor basis = approximate_basis(a_t, q, niter, m_t);
    const Tensor b_t = product_less_mean(a, conjugate_of(basis), m);
    auto [u, s, vh] = linalg::svd(b_t, false);
    return {u, s, matmul(basis, adjoint_of(vh))};
  }
  WICK_CHECK(q <= cols, ValueError, op, ": q(=", q, ") must not be greater than min(m, n)=", std::min(rows, cols));
  const Tensor basis = approximate_basis(a, q, niter, m);
  const Tensor b_t = product_less_mean(a_t, conjugate_of(basis), m_t).transpose(-2, -1);
  auto [u, s, vh] = linalg::svd(b_t, false);
  return {matmul(basis, u), s, adjoint_of(vh)};
}

// More subspace iterations than any use needs (PyTorch's default is 2):
// refused, where PyTorch would run 2^40 of them for days (README, divergences).
constexpr I64 kMaxSubspaceIterations = I64{1} << 16;

void check_subspace_iterations(const char* op, I64 niter) {
  WICK_CHECK(niter <= kMaxSubspaceIterations, ValueError, op, ": niter(=", niter, ") must be at most ",
             kMaxSubspaceIterations, " subspace iterations");
}

// PyTorch runs range(niter): a negative count is no iteration.
Triple svd_lowrank_kernel(const Tensor& a, std::optional<I64> q, std::optional<I64> niter,
                          const std::optional<Tensor>& m) {
  const I64 iterations = std::max<I64>(niter.value_or(2), 0);
  check_subspace_iterations("svd_lowrank", iterations);
  return svd_lowrank_impl("svd_lowrank", a, q.value_or(6), iterations, m);
}

Triple pca_lowrank_kernel(const Tensor& a, std::optional<I64> q, bool center, I64 niter) {
  WICK_CHECK(a.dim() >= 2, ValueError, "pca_lowrank: A must be a matrix or a batch of matrices, but got ", a.dim(),
             " dimension", a.dim() == 1 ? "" : "s");
  const I64 smaller = std::min(a.size(-2), a.size(-1));
  const I64 rank = q.value_or(std::min<I64>(6, smaller));
  WICK_CHECK(rank >= 0 && rank <= smaller, ValueError, "q(=", rank,
             ") must be non-negative integer and not greater than min(m, n)=", smaller);
  WICK_CHECK(niter >= 0, ValueError, "niter(=", niter, ") must be non-negative integer");
  check_subspace_iterations("pca_lowrank", niter);
  const Tensor centred = center ? sub(a, mean(a, std::vector<I64>{-2}, true)) : a;
  return svd_lowrank_impl("pca_lowrank", centred, rank, niter, std::nullopt);
}

Tensor eigvalsh_kernel(const Tensor& self, std::string_view uplo) { return std::get<0>(linalg::eigh(self, uplo)); }

Tensor eigvals_kernel(const Tensor& a) { return std::get<0>(linalg::eig(a)); }

// --- QR and SVD ----------------------------------------------------------------------------------------

Tensor svdvals_kernel(const Tensor& a, std::optional<std::string_view> driver) {
  return std::get<1>(linalg::svd(a, false, driver));
}

std::tuple<Tensor, Tensor> torch_qr_kernel(const Tensor& self, bool some) {
  return linalg::qr(self, some ? "reduced" : "complete");
}

// V rather than Vh; without compute_uv, zero U and V of the full shapes.
std::tuple<Tensor, Tensor, Tensor> torch_svd_kernel(const Tensor& self, bool some, bool compute_uv) {
  auto [u, s, vh] = linalg::svd(self, !some, std::nullopt);
  if (compute_uv) return {u, s, adjoint_of(vh)};
  DimVector u_shape(self.sizes());
  u_shape.back() = self.size(-2);
  DimVector v_shape(self.sizes());
  v_shape[v_shape.size() - 2] = self.size(-1);
  return {zeros(u_shape, self.dtype(), self.device()), s, zeros(v_shape, self.dtype(), self.device())};
}

// --- pseudo-inverse, rank, condition number ------------------------------------------------------------

// The tolerances of pinv and matrix_rank: atol is 0 unless given; rtol,
// unless given, is eps * max(m, n), or 0 when a positive atol is given.
struct Tolerances {
  double atol;
  double rtol;
};

Tolerances tolerances(const Tensor& a, std::optional<double> atol, std::optional<double> rtol) {
  const bool dbl = to_real_dtype(a.dtype()) == ScalarType::kFloat64;
  const double eps = dbl ? std::numeric_limits<double>::epsilon() : std::numeric_limits<float>::epsilon();
  const double fallback = atol && *atol > 0 ? 0.0 : eps * static_cast<double>(std::max(a.size(-1), a.size(-2)));
  return {atol.value_or(0.0), rtol.value_or(fallback)};
}

// max(atol, rtol * largest), per matrix, with a trailing dim of 1.
Tensor threshold(const Tensor& largest, Tolerances tol) {
  return maximum(mul(largest, tol.rtol), full({}, tol.atol, largest.dtype(), largest.device()));
}

// V diag(1 / s) U^H (U diag(1 / w) U^H from eigh with hermitian), the
// singular values (absolute eigenvalues) at or below the threshold taken as
// zero.
Tensor pinv_impl(const Tensor& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  const ScalarType t = a.dtype();
  WICK_CHECK(a.dim() >= 2 && (t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || is_complex(t)), RuntimeError,
             "linalg.pinv(", type_title(t), "{", format_shape(a.sizes()),
             "}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types");
  if (a.numel() == 0) {
    DimVector shape(a.sizes());
    std::swap(shape[shape.size() - 1], shape[shape.size() - 2]);
    return zeros(shape, t, a.device());
  }
  const Tolerances tol = tolerances(a, atol, rtol);
  const std::int64_t last[] = {-1};
  const Tensor zero = zeros({}, to_real_dtype(t), a.device());
  if (hermitian) {
    auto [w, u] = linalg::eigh(a, "L");
    const Tensor magnitude = abs(w);
    const Tensor cut = threshold(amax(magnitude, IntArrayRef(last), true), tol);
    const Tensor w_inv = where(gt(magnitude, cut), reciprocal(w), zero).to(t);
    return matmul(mul(u, w_inv.unsqueeze(-2)), adjoint_of(u));
  }
  auto [u, s, vh] = linalg::svd(a, false, std::nullopt);
  const Tensor cut = threshold(narrow(s, -1, 0, 1), tol);
  const Tensor s_inv = where(gt(s, cut), reciprocal(s), zero).to(t);
  return matmul(mul(adjoint_of(vh), s_inv.unsqueeze(-2)), adjoint_of(u));
}

// The machine epsilon that rtol's default needs exists for float32 and
// float64 (and their complex types) only: PyTorch's message for others.
void check_epsilon_type(const char* op, const Tensor& a) {
  const ScalarType t = a.dtype();
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || is_complex(t), RuntimeError, op,
             ": This function doesn't handle types other than float and double");
}

// PyTorch binds pinv and matrix_rank with a tolerance given to an overload
// that computes the tolerances (rtol's default: the epsilon check) before
// its other checks, and without one to an overload that checks first.
Tensor pinv_kernel(const Tensor& input, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  const char* op = "torch.linalg.pinv";
  if (atol && !rtol) check_epsilon_type(op, input);
  return pinv_impl(input, atol, rtol, hermitian);
}

// NumPy's form: rcond is the relative tolerance, the absolute one 0.
Tensor pinv_rcond_kernel(const Tensor& input, double rcond, bool hermitian) {
  return pinv_impl(input, 0.0, rcond, hermitian);
}

Tensor pinverse_kernel(const Tensor& self, double rcond) { return pinv_impl(self, 0.0, rcond, false); }

// The count of singular values (absolute eigenvalues with hermitian) above
// the threshold, as int64.
Tensor matrix_rank_impl(const Tensor& a, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  const char* op = "torch.linalg.matrix_rank";
  linalg_checks::check_matrix(op, "input", a);
  // Without rtol its default needs the epsilon; with it, svd checks the type.
  if (!rtol) check_epsilon_type(op, a);
  const Tolerances tol = tolerances(a, atol, rtol);
  if (a.numel() == 0) {
    return zeros(IntArrayRef(a.sizes().data(), static_cast<std::size_t>(a.dim() - 2)), ScalarType::kInt64, a.device());
  }
  const Tensor s = hermitian ? abs(linalg::eigvalsh(a, "L")) : linalg::svdvals(a, std::nullopt);
  const std::int64_t last[] = {-1};
  const Tensor cut = threshold(amax(s, IntArrayRef(last), true), tol);
  return sum(gt(s, cut), IntArrayRef(last), false, ScalarType::kInt64);
}

Tensor matrix_rank_kernel(const Tensor& input, std::optional<double> atol, std::optional<double> rtol,
                          bool hermitian) {
  return matrix_rank_impl(input, atol, rtol, hermitian);
}

Tensor matrix_rank_tol_kernel(const Tensor& input, double tol, bool hermitian) {
  return matrix_rank_impl(input, tol, 0.0, hermitian);
}

// The condition number |A|_p |A^-1|_p: for p None, 2 and -2 the ratio of
// the extreme singular values (any shape); for the others a square matrix,
// infinite when singular (0 * inf counts as inf), 'nuc' straight from the
// singular values.
Tensor cond_kernel(const Tensor& a, const Value& p) {
  const char* op = "torch.linalg.cond";
  WICK_CHECK(a.dim() >= 2, RuntimeError, op, ": linalg.cond: The input tensor must have at least 2 dimensions.");
  WICK_CHECK(p.is_none() || p.is_string() || p.is_number(), TypeError, op,
             ": argument 'p' must be str or Number, not ", p.type_name());
  const auto check_square_for = [&](const std::string& ord) {
    const std::string name = detail::str_cat(op, ": linalg.cond(ord=", ord, ")");
    linalg_checks::check_square(name.c_str(), a);
  };
  const auto empty_result = [&] {
    return zeros(IntArrayRef(a.sizes().data(), static_cast<std::size_t>(a.dim() - 2)), to_real_dtype(a.dtype()),
                 a.device());
  };
  const std::int64_t last[] = {-1};
  if (p.is_string()) {
    const std::string ord(p.to_string());
    check_square_for(ord);
    WICK_CHECK(ord == "fro" || ord == "nuc", RuntimeError, op, ": linalg.cond got an invalid norm type: ", ord);
    if (a.numel() == 0) return empty_result();
    if (ord == "nuc") {
      const Tensor s = linalg::svdvals(a, std::nullopt);
      return mul(sum(s, IntArrayRef(last)), sum(reciprocal(s), IntArrayRef(last)));
    }
  }
  const double ord = p.is_none() ? 2.0 : (p.is_string() ? 0.0 : p.to_double());
  if (!p.is_string()) {
    WICK_CHECK(std::abs(ord) == 2.0 || std::abs(ord) == 1.0 || std::isinf(ord), RuntimeError, op,
               ": linalg.cond got an invalid norm type: ", ord);
    if (a.numel() == 0) return empty_result();
    if (std::abs(ord) == 2.0) {
      const Tensor s = linalg::svdvals(a, std::nullopt);
      const Tensor largest = narrow(s, -1, 0, 1);
      const Tensor smallest = narrow(s, -1, -1, 1);
      return squeeze(ord < 0 ? div(smallest, largest) : div(largest, smallest), -1);
    }
    check_square_for(std::isinf(ord) ? std::string(ord > 0 ? "inf" : "-inf")
                                     : std::to_string(static_cast<std::int64_t>(ord)));
  }
  auto [inverse, info] = linalg::inv_ex(a, false);
  const double inf = std::numeric_limits<double>::infinity();
  inverse = masked_fill(inverse, gt(info, 0).unsqueeze(-1).unsqueeze(-1), Scalar(inf));
  const auto norm_of = [&](const Tensor& m) {
    return p.is_string() ? linalg::matrix_norm(m, p.to_string()) : linalg::matrix_norm(m, ord);
  };
  const Tensor r = mul(norm_of(a), norm_of(inverse));
  return nan_to_num(r, inf, inf, -inf);
}

Tensor linalg_matmul_kernel(const Tensor& input, const Tensor& other) { return matmul(input, other); }

// --- matrix exponential, LU unpacking, tensor inverses -------------------------------------------------

// exp(A) by scaling and squaring: A / 2^s with |A / 2^s|_1 <= 1/2, the
// degree-18 Taylor polynomial of that by Horner's rule (its remainder is
// below 1e-22 of the result), then s squarings. s comes from the largest
// 1-norm in the batch; 16-bit floats are computed in float32.
Tensor matrix_exp_kernel(const Tensor& a) {
  linalg_checks::check_matrix("linalg.matrix_exp", "A", a);
  linalg_checks::check_square("linalg.matrix_exp", a);
  linalg_checks::check_floating("matrix_exp", a.dtype());
  if (a.numel() == 0) return a.clone();
  const bool narrow_float = a.dtype() == ScalarType::kFloat16 || a.dtype() == ScalarType::kBFloat16;
  const Tensor x = narrow_float ? a.to(ScalarType::kFloat32) : a;
  const I64 n = a.size(-1);
  const std::int64_t column_dim[] = {-2};
  // A meta tensor has no values: its shape is all the result needs.
  const double norm = x.device().is_meta() ? 0.0 : amax(sum(abs(x), IntArrayRef(column_dim))).item().to<double>();
  int squarings = 0;
  if (std::isfinite(norm) && norm > 0.5) squarings = std::min(static_cast<int>(std::ceil(std::log2(norm / 0.5))), 1100);
  // PyTorch's matrix_exp is one kernel: autocast does not reach its products.
  std::optional<autocast::AutocastGuard> no_autocast;
  if (x.device().is_cpu() || x.device().type() == DeviceType::kCUDA) no_autocast.emplace(x.device().type(), std::nullopt, false);
  const Tensor scaled = squarings > 0 ? mul(x, std::ldexp(1.0, -squarings)) : x;
  const Tensor identity = eye(n, std::nullopt, x.dtype(), x.device());
  constexpr int kDegree = 18;
  Tensor p = add(identity, div(scaled, kDegree));
  for (int k = kDegree - 1; k >= 1; --k) p = add(identity, div(matmul(scaled, p), k));
  for (int i = 0; i < squarings; ++i) p = matmul(p, p);
  return narrow_float ? p.to(a.dtype()) : p;
}

// P, L and U with A = P L U from lu_factor's packed factors and pivots:
// row i was swapped with row pivots[i] - 1, in order.
std::tuple<Tensor, Tensor, Tensor> lu_unpack_kernel(const Tensor& lu, const Tensor& pivots, bool unpack_data,
                                                    bool unpack_pivots) {
  const char* op = "torch.lu_unpack";
  WICK_CHECK(lu.dim() >= 2, RuntimeError, op, ": Expected tensor with 2 or more dimensions. Got size: ",
             format_shape(lu.sizes()), " instead");
  WICK_CHECK(pivots.dtype() == ScalarType::kInt32, RuntimeError, op,
             ": LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\nNote: this function is "
             "intended to be used with the output produced by torch.linalg.lu_factor");
  const I64 m = lu.size(-2);
  const I64 n = lu.size(-1);
  const I64 k = std::min(m, n);
  // A part not asked for is empty, a view of LU (so that it stays in the graph).
  const Tensor none = lu.reshape({-1}).narrow(0, 0, 0);
  Tensor l = none;
  Tensor u = none;
  if (unpack_data) {
    u = triu(lu.narrow(-2, 0, k));
    l = add(tril(lu.narrow(-1, 0, k), -1), eye(m, k, lu.dtype(), lu.device()));
  }
  if (!unpack_pivots) return {none, l, u};
  const char* range = "pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly pass "
                      "the result of lu_factor?";
  DimVector batch(IntArrayRef(lu.sizes().data(), static_cast<std::size_t>(lu.dim() - 2)));
  DimVector pivot_shape = batch;
  pivot_shape.push_back(k);
  WICK_CHECK(pivots.sizes() == IntArrayRef(pivot_shape), RuntimeError, range);
  DimVector p_shape = batch;
  p_shape.push_back(m);
  p_shape.push_back(m);
  if (pivots.device().is_meta()) return {empty(p_shape, lu.dtype(), lu.device()), l, u};
  // perm[c] is the row of A that row c of L U came from: P[r, c] = (r == perm[c]).
  const Tensor host = pivots.contiguous().to(Device());
  const auto* piv = static_cast<const std::int32_t*>(host.data_ptr());
  DimVector perm_shape = batch;
  perm_shape.push_back(m);
  const Tensor order = empty(perm_shape, ScalarType::kInt64, Device());
  auto* perm = static_cast<I64*>(order.data_ptr());
  const I64 batches = m == 0 ? 0 : order.numel() / m;
  for (I64 b = 0; b < batches; ++b) {
    I64* row = perm + checked_mul(b, m, op);
    const std::int32_t* swaps = piv + checked_mul(b, k, op);
    for (I64 i = 0; i < m; ++i) row[i] = i;
    for (I64 i = 0; i < k; ++i) {
      const I64 j = static_cast<I64>(swaps[i]) - 1;
      WICK_CHECK(j >= 0 && j < m, RuntimeError, range);
      std::swap(row[i], row[j]);
    }
  }
  const Tensor rows = arange(0, m, 1, ScalarType::kInt64, lu.device()).unsqueeze(-1);
  return {eq(rows, order.to(lu.device()).unsqueeze(-2)).to(lu.dtype()), l, u};
}

std::tuple<Tensor, Tensor, Tensor> linalg_lu_kernel(const Tensor& a, bool pivot) {
  auto [lu, pivots, info] = linalg::lu_factor_ex(a, pivot, false);
  return lu_unpack(lu, pivots, true, true);
}

// The old torch.lu: lu_factor_ex's factors, with its info when asked for;
// a singular matrix is no error (PyTorch's _lu_with_info).
Value old_lu_kernel(const Tensor& a, bool pivot, bool get_infos) {
  auto [lu, pivots, info] = linalg::lu_factor_ex(a, pivot, false);
  if (get_infos) return Value::list({lu, pivots, info}, true);
  return Value::list({lu, pivots}, true);
}

I64 product_of(IntArrayRef sizes, const char* op) {
  I64 p = 1;
  for (const I64 s : sizes) p = checked_mul(p, s, op);
  return p;
}

// A read as the matrix of its first `ind` dims by the rest, inverted, and
// shaped back the other way round.
Tensor tensorinv_kernel(const Tensor& a, I64 ind) {
  const char* op = "torch.linalg.tensorinv";
  WICK_CHECK(ind > 0, RuntimeError, op, ": Expected a strictly positive integer for 'ind', but got ", ind);
  const auto split = static_cast<std::size_t>(std::min(ind, a.dim()));
  const IntArrayRef front(a.sizes().data(), split);
  const IntArrayRef back(a.sizes().data() + split, a.sizes().size() - split);
  const I64 rows = product_of(front, op);
  const I64 cols = product_of(back, op);
  WICK_CHECK(rows == cols, RuntimeError, op,
             ": Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), but got ",
             cols, " != ", rows);
  DimVector shape(back);
  for (const I64 d : front) shape.push_back(d);
  return linalg::inv(a.reshape({rows, cols})).reshape(shape);
}

// X with tensordot(A, X, X.ndim) = B: A read as a matrix of B's dims by the
// rest (A's dims `dims` moved to the end first).
Tensor tensorsolve_kernel(const Tensor& a, const Tensor& b, std::optional<IntArrayRef> dims) {
  const char* op = "torch.linalg.tensorsolve";
  Tensor x = a;
  if (dims && !dims->empty()) {
    DimVector to;
    for (std::size_t i = 0; i < dims->size(); ++i) to.push_back(a.dim() - static_cast<I64>(dims->size() - i));
    x = movedim(a, *dims, to);
  }
  const auto split = static_cast<std::size_t>(std::min(b.dim(), x.dim()));
  const IntArrayRef front(x.sizes().data(), split);
  const IntArrayRef back(x.sizes().data() + split, x.sizes().size() - split);
  const I64 rows = product_of(front, op);
  const I64 cols = product_of(back, op);
  WICK_CHECK(rows == cols, RuntimeError, op,
             ": Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
             "prod(self.shape[:other.ndim]), but got ",
             cols, " != ", rows);
  return linalg::solve(x.reshape({rows, cols}), b.reshape({-1}), true).reshape(DimVector(back));
}

// The old argument orders: the right-hand side first.
Tensor torch_lu_solve_kernel(const Tensor& self, const Tensor& lu_data, const Tensor& lu_pivots) {
  // linalg.lu_solve's checks whose PyTorch text names torch.linalg.lu_solve,
  // made here so that the name stays in this operator's message.
  const char* op = "torch.lu_solve: torch.linalg.lu_solve";
  linalg_checks::check_matrix("linalg.lu_solve", "LU", lu_data);
  linalg_checks::check_matrix("linalg.lu_solve", "B", self);
  linalg_checks::check_square(op, lu_data);
  linalg_checks::check_floating(op, lu_data.dtype());
  return linalg::lu_solve(lu_data, lu_pivots, self, true, false);
}

// A X = B (A^T X = B with transpose), and A broadcast to the batch shape.
std::tuple<Tensor, Tensor> triangular_solve_kernel(const Tensor& self, const Tensor& a, bool upper, bool transpose,
                                                   bool unitriangular) {
  const char* op = "torch.triangular_solve";
  WICK_CHECK(self.dim() >= 2, RuntimeError, op, ": Expected b to have at least 2 dimensions, but it has ", self.dim(),
             " dimensions instead");
  WICK_CHECK(a.dim() >= 2, RuntimeError, op, ": Expected A to have at least 2 dimensions, but it has ", a.dim(),
             " dimensions instead");
  WICK_CHECK(self.dtype() == a.dtype(), RuntimeError, op, ": Expected b and A to have the same dtype, but found b of type ",
             type_title(self.dtype()), " and A of type ", type_title(a.dtype()), " instead.");
  linalg_checks::check_square(op, a);
  WICK_CHECK(a.size(-1) == self.size(-2), RuntimeError, op,
             ": Incompatible matrix sizes for triangular_solve: each A matrix is ", a.size(-2), " by ", a.size(-1),
             " but each b matrix is ", self.size(-2), " by ", self.size(-1));
  check_lapack_dtype("triangular_solve_cpu", a);
  const Tensor solution =
      linalg::solve_triangular(transpose ? a.transpose(-2, -1) : a, self, upper != transpose, true, unitriangular);
  DimVector shape(IntArrayRef(solution.sizes().data(), static_cast<std::size_t>(solution.dim() - 2)));
  shape.push_back(a.size(-2));
  shape.push_back(a.size(-1));
  return {solution, a.expand(shape).clone()};
}

// --- powers, chains, cross products -------------------------------------------------------------------

Tensor matrix_power_for(const char* op, const Tensor& self, I64 n) {
  check_square(op, self);
  if (n == 0) {
    // The identity, written over a copy of self, as PyTorch: the result
    // stays in self's graph with a zero gradient.
    const Tensor identity = eye(self.size(-1), std::nullopt, self.dtype(), self.device());
    Tensor result = self.clone();
    result.copy_(identity.expand(self.sizes()));
    return result;
  }
  Tensor base = n < 0 ? linalg::inv(self) : self;
  // |n| without overflow at the most negative int64.
  auto e = n < 0 ? static_cast<std::uint64_t>(-(n + 1)) + 1 : static_cast<std::uint64_t>(n);
  if (e == 1) return base.clone();
  // Square and multiply: the bits of e from the lowest.
  Tensor result;
  while (e > 0) {
    if ((e & 1U) != 0) result = result.defined() ? matmul(result, base) : base;
    e >>= 1U;
    if (e > 0) base = matmul(base, base);
  }
  return result;
}

Tensor matrix_power_kernel(const Tensor& self, I64 n) { return matrix_power_for("linalg.matrix_power", self, n); }
Tensor linalg_matrix_power_kernel(const Tensor& self, I64 n) {
  return matrix_power_for("linalg.matrix_power", self, n);
}

// The product of a chain of matrices, in the order with the fewest scalar
// multiplications (the classic dynamic programme over split points).
Tensor chain_product(const std::vector<Tensor>& m, const std::vector<std::vector<std::size_t>>& split, std::size_t i,
                     std::size_t j) {
  if (i == j) return m[i];
  const std::size_t k = split[i][j];
  return mm(chain_product(m, split, i, k), chain_product(m, split, k + 1, j));
}

Tensor multi_dot_kernel(const std::vector<Tensor>& tensors) {
  const std::size_t n = tensors.size();
  WICK_CHECK(n >= 2, RuntimeError, "multi_dot(): expected at least 2 tensors but got ", n);
  const I64 first = tensors.front().dim();
  const I64 last = tensors.back().dim();
  WICK_CHECK(first == 1 || first == 2, RuntimeError, "multi_dot(): the first tensor must be 1D or 2D but got ", first,
             "D");
  WICK_CHECK(last == 1 || last == 2, RuntimeError, "multi_dot(): the last tensor must be 1D or 2D but got ", last,
             "D");
  for (std::size_t i = 1; i + 1 < n; ++i)
    WICK_CHECK(tensors[i].dim() == 2, RuntimeError, "multi_dot(): tensor ", i, " must be 2D but got ",
               tensors[i].dim(), "D");
  for (std::size_t i = 1; i < n; ++i)
    WICK_CHECK(tensors[i].dtype() == tensors[0].dtype(), RuntimeError,
               "multi_dot(): all tensors must have be the same dtype but tensor 0 is ",
               cpp_type_name(tensors[0].dtype()), " and tensor ", i, " ", cpp_type_name(tensors[i].dtype()));
  std::vector<Tensor> m(tensors);
  if (first == 1) m.front() = m.front().unsqueeze(0);
  if (last == 1) m.back() = m.back().unsqueeze(-1);
  for (std::size_t i = 0; i + 1 < n; ++i)
    WICK_CHECK(m[i].size(1) == m[i + 1].size(0), RuntimeError, "multi_dot(): tensors ", i, " and ", i + 1,
               " with shapes ", format_shape(tensors[i].sizes()), " and ", format_shape(tensors[i + 1].sizes()),
               " cannot be multiplied");
  // cost[i][j]: the fewest multiplications for m[i] ... m[j] (saturating).
  std::vector<std::vector<I64>> cost(n, std::vector<I64>(n, 0));
  std::vector<std::vector<std::size_t>> split(n, std::vector<std::size_t>(n, 0));
  const auto rows = [&](std::size_t i) { return m[i].size(0); };
  const auto cols = [&](std::size_t i) { return m[i].size(1); };
  for (std::size_t len = 1; len < n; ++len) {
    for (std::size_t i = 0; i + len < n; ++i) {
      const std::size_t j = i + len;
      cost[i][j] = std::numeric_limits<I64>::max();
      for (std::size_t k = i; k < j; ++k) {
        std::optional<I64> c = try_mul(rows(i), cols(k));
        if (c) c = try_mul(*c, cols(j));
        if (c) c = try_add(*c, cost[i][k]);
        if (c) c = try_add(*c, cost[k + 1][j]);
        const I64 total = c.value_or(std::numeric_limits<I64>::max());
        if (total < cost[i][j] || k == i) {
          cost[i][j] = total;
          split[i][j] = k;
        }
      }
    }
  }
  Tensor result = chain_product(m, split, 0, n - 1);
  if (first == 1 && last == 1) return result.reshape({});
  if (first == 1) return result.squeeze(0);
  if (last == 1) return result.squeeze(-1);
  return result;
}

// a x b along dim: the components (a1 b2 - a2 b1, a2 b0 - a0 b2, a0 b1 - a1 b0).
Tensor cross_for(const Tensor& self, const Tensor& other, I64 dim) {
  const char* op = "linalg.cross";
  WICK_CHECK(self.dim() == other.dim(), RuntimeError, op, ": inputs must have the same number of dimensions.");
  WICK_CHECK(self.dtype() == other.dtype(), RuntimeError, "expected scalar type ", type_title(self.dtype()),
             " but found ", type_title(other.dtype()));
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, "\"cross\" not implemented for 'Bool'");
  const I64 d = wrap_dim(dim, self.dim());
  WICK_CHECK(self.size(d) == 3 && other.size(d) == 3, RuntimeError, op, ": inputs dimension ", dim,
             " must have length 3. Got ", self.size(d), " and ", other.size(d));
  const auto part = [&](const Tensor& t, I64 i) { return t.narrow(d, i, 1); };
  const auto term = [&](I64 i, I64 j) { return sub(mul(part(self, i), part(other, j)), mul(part(self, j), part(other, i))); };
  return cat({term(1, 2), term(2, 0), term(0, 1)}, d);
}

Tensor linalg_cross_kernel(const Tensor& self, const Tensor& other, I64 dim) { return cross_for(self, other, dim); }

// torch.cross without dim: the first dim of size 3 (of self, as PyTorch).
Tensor cross_kernel(const Tensor& self, const Tensor& other, std::optional<I64> dim) {
  if (dim) return cross_for(self, other, *dim);
  for (I64 d = 0; d < self.dim(); ++d)
    if (self.size(d) == 3) return cross_for(self, other, d);
  throw RuntimeError("no dimension of size 3 in input");
}

Tensor vecdot_kernel(const Tensor& x, const Tensor& y, I64 dim) {
  const char* op = "linalg.vecdot";
  check_floating(op, x);
  WICK_CHECK(x.dtype() == y.dtype(), RuntimeError, op, ": Expected x and y to have the same dtype, but found x of type ",
             type_title(x.dtype()), " and y of type ", type_title(y.dtype()), " instead");
  return sum(mul(is_complex(x.dtype()) ? conj_physical(x) : x, y), std::vector<I64>{dim});
}

}  // namespace

void register_linalg_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  lib->impl("inner", &inner_kernel)
      .impl("vdot", &vdot_kernel)
      .impl("trace", &trace_kernel)
      .impl("kron", &kron_kernel)
      .impl("diagonal", &diagonal_kernel)
      .impl("det", &torch_det_kernel)
      .impl("slogdet", &slogdet_kernel)
      .impl("logdet", &logdet_kernel)
      .impl("inverse", &inverse_kernel)
      .impl("matrix_power", &matrix_power_kernel)
      .impl("cross", &cross_kernel)
      .impl("cholesky", &cholesky_kernel)
      .impl("cholesky_solve", &cholesky_solve_kernel)
      .impl("cholesky_inverse", &cholesky_inverse_kernel)
      .impl("qr", &torch_qr_kernel)
      .impl("svd", &torch_svd_kernel)
      .impl("pinverse", &pinverse_kernel)
      .impl("lu_solve", &torch_lu_solve_kernel)
      .impl("matrix_exp", &matrix_exp_kernel)
      .impl("lu_unpack", &lu_unpack_kernel)
      .impl("triangular_solve", &triangular_solve_kernel)
      .impl("orgqr", &householder_product_kernel)
      .impl("ormqr", &ormqr_kernel);
  out.push_back(std::move(lib));
  auto linalg = std::make_unique<Library>("torch.linalg", DispatchKey::kCompositeImplicit);
  linalg->impl("lu_factor", &lu_factor_kernel)
      .impl("solve_ex", &solve_ex_kernel)
      .impl("solve", &solve_kernel)
      .impl("inv_ex", &inv_ex_kernel)
      .impl("inv", &inv_kernel)
      .impl("det", &det_kernel)
      .impl("slogdet", &linalg_slogdet_kernel)
      .impl("matrix_power", &linalg_matrix_power_kernel)
      .impl("multi_dot", &multi_dot_kernel)
      .impl("cross", &linalg_cross_kernel)
      .impl("vecdot", &vecdot_kernel)
      .impl("diagonal", &linalg_diagonal_kernel)
      .impl("cholesky", &linalg_cholesky_kernel)
      .impl("eigvalsh", &eigvalsh_kernel)
      .impl("eigvals", &eigvals_kernel)
      .impl("svdvals", &svdvals_kernel)
      .impl("pinv", &pinv_kernel)
      .impl("pinv.rcond", &pinv_rcond_kernel)
      .impl("matrix_rank", &matrix_rank_kernel)
      .impl("matrix_rank.tol", &matrix_rank_tol_kernel)
      .impl("cond", &cond_kernel)
      .impl("matmul", &linalg_matmul_kernel)
      .impl("matrix_exp", &matrix_exp_kernel)
      .impl("lu", &linalg_lu_kernel)
      .impl("tensorinv", &tensorinv_kernel)
      .impl("tensorsolve", &tensorsolve_kernel)
      .impl("householder_product", &householder_product_kernel)
      .impl("ldl_factor", &ldl_factor_kernel);
  out.push_back(std::move(linalg));
  auto functional = std::make_unique<Library>("torch.functional", DispatchKey::kCompositeImplicit);
  functional->impl("lu", &old_lu_kernel)
      .impl("svd_lowrank", &svd_lowrank_kernel)
      .impl("pca_lowrank", &pca_lowrank_kernel);
  out.push_back(std::move(functional));
}

}  // namespace wick
