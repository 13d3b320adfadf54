// dispatch/ops/meta_linalg.cpp - meta functions of the matrix products mm, bmm, addmm, mv and dot, and of the LAPACK-backed lu_factor_ex, lu_solve, solve_triangular, cholesky_ex and eigh.
/// \file
/// The operands share one dtype (no promotion, as in PyTorch) and one
/// device (a 0-dim CPU tensor joins any, as addmm's self may be); the
/// result has their dtype and is contiguous: [n, p] for mm and addmm (whose
/// self broadcasts to it), [b, n, p] for bmm, [n] for mv, a 0-dim tensor
/// for dot. matmul and outer are composites and reach these. The messages
/// are PyTorch's CPU messages, for every backend.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "dispatch/ops/linalg_checks.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/meta_linalg.h"
#include "wick/tensor_util.h"

namespace wick::meta {
namespace {

// The dtype and device two operands share.
Device check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  WICK_CHECK(a.dtype() == b.dtype(), RuntimeError, op, ": expected scalar type ", type_title(a.dtype()), " but found ",
             type_title(b.dtype()));
  return common_device(op, a, b);
}

// PyTorch's CPU has no bool matrix products ("addmm_impl_cpu_" not implemented for 'Bool').
void check_not_bool(const char* op, const char* kernel, ScalarType t) {
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, op, ": \"", kernel, "\" not implemented for 'Bool'");
}

}  // namespace

OutputMeta mm(const Tensor& self, const Tensor& mat2) {
  const char* op = "torch.mm";
  WICK_CHECK(self.dim() == 2, RuntimeError, op, ": self must be a matrix");
  WICK_CHECK(mat2.dim() == 2, RuntimeError, op, ": mat2 must be a matrix");
  WICK_CHECK(self.size(1) == mat2.size(0), RuntimeError, op, ": mat1 and mat2 shapes cannot be multiplied (",
             self.size(0), "x", self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  const Device device = check_same_dtype(op, self, mat2);
  check_not_bool(op, "addmm_impl_cpu_", self.dtype());
  return {TensorMeta::contiguous({self.size(0), mat2.size(1)}, self.dtype(), device)};
}

OutputMeta bmm(const Tensor& self, const Tensor& mat2) {
  const char* op = "torch.bmm";
  WICK_CHECK(self.dim() == 3, RuntimeError, op, ": batch1 must be a 3D tensor");
  WICK_CHECK(mat2.dim() == 3, RuntimeError, op, ": batch2 must be a 3D tensor");
  WICK_CHECK(self.size(0) == mat2.size(0), RuntimeError, op,
             ": batch1 and batch2 must have same number of batches, got ", self.size(0), " and ", mat2.size(0));
  WICK_CHECK(self.size(2) == mat2.size(1), RuntimeError, op,
             ": Expected size for first two dimensions of batch2 tensor to be: [", self.size(0), ", ", self.size(2),
             "] but got: [", mat2.size(0), ", ", mat2.size(1), "].");
  const Device device = check_same_dtype(op, self, mat2);
  check_not_bool(op, "bmm", self.dtype());
  return {TensorMeta::contiguous({self.size(0), self.size(1), mat2.size(2)}, self.dtype(), device)};
}

// beta * self + alpha * mat1 @ mat2: self broadcasts to the product's shape
// (expand's own check and message).
OutputMeta addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& /*beta*/,
                 const Scalar& /*alpha*/) {
  const char* op = "torch.addmm";
  WICK_CHECK(mat1.dim() == 2, RuntimeError, op, ": mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  WICK_CHECK(mat2.dim() == 2, RuntimeError, op, ": mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  WICK_CHECK(mat1.size(1) == mat2.size(0), RuntimeError, op, ": mat1 and mat2 shapes cannot be multiplied (",
             mat1.size(0), "x", mat1.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  WICK_CHECK(self.dtype() == mat2.dtype(), RuntimeError, op, ": self and mat2 must have the same dtype");
  WICK_CHECK(mat1.dtype() == mat2.dtype(), RuntimeError, op, ": mat1 and mat2 must have the same dtype");
  const Device device = common_device(op, self, mat1, mat2);
  check_not_bool(op, "addmm_impl_cpu_", self.dtype());
  const std::int64_t n = mat1.size(0);
  const std::int64_t p = mat2.size(1);
  (void)self.expand({n, p});  // a view, no data: only its check
  return {TensorMeta::contiguous({n, p}, self.dtype(), device)};
}

OutputMeta mv(const Tensor& self, const Tensor& vec) {
  const char* op = "torch.mv";
  WICK_CHECK(self.dim() == 2 && vec.dim() == 1, RuntimeError, op, ": vector + matrix @ vector expected, got 1, ",
             self.dim(), ", ", vec.dim());
  WICK_CHECK(self.size(1) == vec.size(0), RuntimeError, op, ": size mismatch, got ", self.size(0), ", ", self.size(0),
             "x", self.size(1), ",", vec.size(0));
  const Device device = check_same_dtype(op, self, vec);
  check_not_bool(op, "addmv_impl_cpu", self.dtype());
  return {TensorMeta::contiguous({self.size(0)}, self.dtype(), device)};
}

OutputMeta dot(const Tensor& self, const Tensor& tensor) {
  const char* op = "torch.dot";
  WICK_CHECK(self.dim() == 1 && tensor.dim() == 1, RuntimeError, op, ": 1D tensors expected, but got ", self.dim(),
             "D and ", tensor.dim(), "D tensors");
  WICK_CHECK(self.dtype() == tensor.dtype(), RuntimeError, op, ": expected both vectors to have same dtype, but found ",
             type_title(self.dtype()), " and ", type_title(tensor.dtype()));
  WICK_CHECK(self.numel() == tensor.numel(), RuntimeError, op, ": inconsistent tensor size, expected tensor [",
             self.numel(), "] and src [", tensor.numel(), "] to have the same number of elements, but got ",
             self.numel(), " and ", tensor.numel(), " elements respectively");
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"dot\" not implemented for 'Bool'");
  const Device device = common_device(op, self, tensor);
  return {TensorMeta::contiguous({}, self.dtype(), device)};
}

TensorMeta column_major(IntArrayRef sizes, ScalarType dtype, Device device) {
  TensorMeta m = TensorMeta::contiguous(sizes, dtype, device);
  const std::size_t r = sizes.size();
  if (r < 2) return m;
  const std::int64_t rows = sizes[r - 2];
  const std::int64_t cols = sizes[r - 1];
  m.strides[r - 2] = 1;
  m.strides[r - 1] = std::max<std::int64_t>(rows, 1);
  std::int64_t step = checked_mul(std::max<std::int64_t>(rows, 1), std::max<std::int64_t>(cols, 1), "column_major");
  for (std::size_t d = r - 2; d-- > 0;) {
    m.strides[d] = step;
    step = checked_mul(step, std::max<std::int64_t>(sizes[d], 1), "column_major");
  }
  return m;
}

// LAPACK's geqrf leaves R and the reflectors in one column-major matrix of
// the input's shape; tau holds min(m, n) scalars per matrix.
LinalgPairMeta geqrf(const Tensor& self) {
  WICK_CHECK(self.dim() >= 2, RuntimeError, "torch.geqrf: input must have at least 2 dimensions.");
  linalg_checks::check_lapack_type("geqrf_cpu", self.dtype());
  DimVector tau(IntArrayRef(self.sizes().data(), static_cast<std::size_t>(self.dim() - 2)));
  tau.push_back(std::min(self.size(-2), self.size(-1)));
  return {{column_major(self.sizes(), self.dtype(), self.device()),
           TensorMeta::contiguous(tau, self.dtype(), self.device())}};
}

}  // namespace wick::meta

namespace wick {

void check_linalg_info(const char* op, const Tensor& info, LinalgFailure failure) {
  if (info.numel() == 0 || info.device().is_meta()) return;
  const Tensor flat = info.reshape({-1}).to(ScalarType::kInt64).to(Device());
  const auto* codes = static_cast<const std::int64_t*>(flat.data_ptr());
  for (std::int64_t b = 0; b < flat.numel(); ++b) {
    const std::int64_t k = codes[b];
    if (k == 0) continue;
    const std::string where = info.dim() > 0 ? detail::str_cat("(Batch element ", b, "): ") : std::string();
    // LAPACK 3.10 and later (OpenBLAS 0.3.15 on) answer a non-finite input
    // to gesdd with an illegal fourth argument, where older ones failed to
    // converge: both are PyTorch's non-finite message.
    if (failure == LinalgFailure::kSvd && k == -4) {
      throw LinAlgError(detail::str_cat(op, ": ", where,
                                        "The algorithm failed to converge because the input matrix contained "
                                        "non-finite values."));
    }
    WICK_CHECK(k > 0, RuntimeError, op, ": ", where, "Argument ", -k, " has illegal value.");
    switch (failure) {
      case LinalgFailure::kLuFactor:
        throw RuntimeError(detail::str_cat(op, ": ", where, "U[", k, ",", k,
                                           "] is zero and using it on lu_solve would result in a division by zero. "
                                           "If you still want to perform the factorization, consider calling "
                                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"));
      case LinalgFailure::kSolve:
        throw LinAlgError(
            detail::str_cat(op, ": ", where, "The solver failed because the input matrix is singular."));
      case LinalgFailure::kCholesky:
        throw LinAlgError(detail::str_cat(op, ": ", where,
                                          "The factorization could not be completed because the input is not "
                                          "positive-definite (the leading minor of order ",
                                          k, " is not positive-definite)."));
      case LinalgFailure::kEigh:
        throw LinAlgError(detail::str_cat(op, ": ", where,
                                          "The algorithm failed to converge because the input matrix is "
                                          "ill-conditioned or has too many repeated eigenvalues (error code: ",
                                          k, ")."));
      case LinalgFailure::kSvd:
        throw LinAlgError(detail::str_cat(op, ": ", where,
                                          "The algorithm failed to converge because the input matrix contained "
                                          "non-finite values."));
      case LinalgFailure::kLdlFactor:
        throw LinAlgError(detail::str_cat(op, ": ", where, "The factorization could not be completed because D[", k,
                                          ",", k, "] is zero: the input matrix is singular."));
      case LinalgFailure::kInverse:
        throw LinAlgError(detail::str_cat(op, ": ", where, "The diagonal element ", k,
                                          " is zero, the inversion could not be completed because the input matrix "
                                          "is singular."));
    }
  }
}

}  // namespace wick

// Note [LAPACK operators]
// lu_factor_ex, lu_solve and solve_triangular are the torch.linalg operators
// a backend implements (the CPU on LAPACK); solve, inv, det, slogdet and the
// rest are composites of them (dispatch/composite/linalg_ops.cpp). Their
// checks and messages are PyTorch 1.13's, which name the operators
// inconsistently ("torch.linalg.lu_solve" and "linalg.lu_solve"): kept.
namespace wick::linalg_checks {

void check_matrix(const char* op, const char* name, const Tensor& t) {
  WICK_CHECK(t.dim() >= 2, RuntimeError, op, ": The input tensor ", name, " must have at least 2 dimensions.");
}

void check_square(const char* op, const Tensor& a) {
  WICK_CHECK(a.size(-1) == a.size(-2), RuntimeError, op, ": A must be batches of square matrices, but they are ",
             a.size(-2), " by ", a.size(-1), " matrices");
}

void check_floating(const char* op, ScalarType t) {
  WICK_CHECK(is_floating(t) || is_complex(t), RuntimeError, op,
             ": Expected a floating point or complex tensor as input. Got ", type_title(t));
}

void check_lapack_type(const char* kernel, ScalarType t) {
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || is_complex(t), RuntimeError, "\"", kernel,
             "\" not implemented for '", type_title(t), "'");
}

}  // namespace wick::linalg_checks

namespace wick::linalg::meta {
namespace {

using I64 = std::int64_t;
using linalg_checks::check_floating;
using linalg_checks::check_lapack_type;
using linalg_checks::check_matrix;
using linalg_checks::check_square;

// t's sizes without the last `drop` dims.
IntArrayRef leading(const Tensor& t, I64 drop) {
  return {t.sizes().data(), static_cast<std::size_t>(t.dim() - drop)};
}

// The shape of X in A X = B (left) or X A = B: B's matrix, A's n matching.
void check_system(const char* op, const Tensor& a, const Tensor& b, bool left) {
  const I64 n = a.size(-1);
  WICK_CHECK(left ? b.size(-2) == n : b.size(-1) == n, RuntimeError, op,
             ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", a.size(-2), "x",
             a.size(-1), " and ", b.size(-2), "x", b.size(-1), ")");
}

// The checks a factorization's square input gets, in PyTorch's order: a
// matrix, square, floating, of a type LAPACK has (`kernel` names it).
void check_square_lapack(const char* op, const char* kernel, const Tensor& a) {
  check_matrix(op, "A", a);
  check_square(op, a);
  check_floating(op, a.dtype());
  check_lapack_type(kernel, a.dtype());
}

// The batch dims of a and b broadcast, then b's matrix dims.
DimVector system_shape(const char* op, const Tensor& a, const Tensor& b) {
  DimVector shape = broadcast_shapes(leading(a, 2), leading(b, 2), op);
  shape.push_back(b.size(-2));
  shape.push_back(b.size(-1));
  return shape;
}

}  // namespace

LuFactorMeta lu_factor_ex(const Tensor& a, bool /*pivot*/, bool /*check_errors*/) {
  WICK_CHECK(a.dim() >= 2, RuntimeError, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ",
             format_shape(a.sizes()), " instead");
  check_lapack_type("lu_cpu", a.dtype());
  const I64 m = a.size(-2);
  const I64 n = a.size(-1);
  const IntArrayRef batch = leading(a, 2);
  DimVector pivots = batch;
  pivots.push_back(std::min(m, n));
  return {{wick::meta::column_major(a.sizes(), a.dtype(), a.device()),
           TensorMeta::contiguous(pivots, ScalarType::kInt32, a.device()),
           TensorMeta::contiguous(batch, ScalarType::kInt32, a.device())}};
}

OutputMeta lu_solve(const Tensor& lu, const Tensor& pivots, const Tensor& b, bool left, bool /*adjoint*/) {
  check_matrix("linalg.lu_solve", "LU", lu);
  check_matrix("linalg.lu_solve", "B", b);
  check_square("torch.linalg.lu_solve", lu);
  check_floating("torch.linalg.lu_solve", lu.dtype());
  check_lapack_type("lu_solve_cpu", lu.dtype());
  WICK_CHECK(lu.dtype() == b.dtype(), RuntimeError,
             "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type ", type_title(lu.dtype()),
             " and B of type ", type_title(b.dtype()), " instead");
  WICK_CHECK(pivots.dtype() == ScalarType::kInt32, RuntimeError,
             "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
  WICK_CHECK(pivots.dim() >= 1 && pivots.size(-1) == lu.size(-1), RuntimeError,
             "linalg.lu_solve: Number of pivots per batch should be same as the dimension of the matrix");
  WICK_CHECK(pivots.sizes() == leading(lu, 1), RuntimeError,
             "linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
             format_shape(pivots.sizes()), " instead");
  check_system("linalg.lu_solve", lu, b, left);
  const Device device = common_device("linalg.lu_solve", lu, b);
  (void)common_device("linalg.lu_solve", lu, pivots);
  return {wick::meta::column_major(system_shape("linalg.lu_solve", lu, b), b.dtype(), device)};
}

// LD has the input's shape (column-major), one int32 pivot per row and one
// int32 info per matrix, as lu_factor_ex's results.
LuFactorMeta ldl_factor_ex(const Tensor& self, bool /*hermitian*/, bool /*check_errors*/) {
  const char* op = "torch.linalg.ldl_factor_ex";
  check_square_lapack(op, "ldl_factor_kernel_cpu", self);
  return {{wick::meta::column_major(self.sizes(), self.dtype(), self.device()),
           TensorMeta::contiguous(leading(self, 1), ScalarType::kInt32, self.device()),
           TensorMeta::contiguous(leading(self, 2), ScalarType::kInt32, self.device())}};
}

// PyTorch 1.13's checks, in its order: LD's, B's dtype, the pivots' dtype,
// the systems' sizes, the pivots' shape; the batch dims broadcast.
OutputMeta ldl_solve(const Tensor& ld, const Tensor& pivots, const Tensor& b, bool /*hermitian*/) {
  const char* op = "torch.linalg.ldl_solve";
  check_square_lapack(op, "ldl_solve_kernel_cpu", ld);
  const I64 rows = b.size(-2);
  WICK_CHECK(b.dtype() == ld.dtype(), RuntimeError, "Expected b and A to have the same dtype, but found b of type ",
             type_title(b.dtype()), " and A of type ", type_title(ld.dtype()), " instead.");
  WICK_CHECK(is_integral(pivots.dtype(), false), RuntimeError, op, ": Expected pivots to be integers. Got ",
             type_title(pivots.dtype()));
  WICK_CHECK(rows == ld.size(-1), RuntimeError, "Incompatible matrix sizes for ", op, ": each A matrix is ",
             ld.size(-2), " by ", ld.size(-1), " but each b matrix is ", rows, " by ", b.size(-1));
  WICK_CHECK(pivots.sizes() == leading(ld, 1), RuntimeError, op,
             ": Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
             format_shape(pivots.sizes()), " instead");
  const Device device = common_device(op, ld, b);
  (void)common_device(op, ld, pivots);
  return {wick::meta::column_major(system_shape(op, ld, b), b.dtype(), device)};
}

LinalgPairMeta cholesky_ex(const Tensor& self, bool /*upper*/, bool /*check_errors*/) {
  check_square_lapack("linalg.cholesky", "cholesky_cpu", self);
  return {{wick::meta::column_major(self.sizes(), self.dtype(), self.device()),
           TensorMeta::contiguous(leading(self, 2), ScalarType::kInt32, self.device())}};
}

LinalgPairMeta eigh(const Tensor& self, std::string_view uplo) {
  const char* op = "linalg.eigh";
  WICK_CHECK(uplo == "L" || uplo == "U", RuntimeError, "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  check_matrix(op, "A", self);
  check_square(op, self);
  check_lapack_type("linalg_eigh_cpu", self.dtype());
  DimVector values(leading(self, 2));
  values.push_back(self.size(-1));
  return {{TensorMeta::contiguous(values, to_real_dtype(self.dtype()), self.device()),
           wick::meta::column_major(self.sizes(), self.dtype(), self.device())}};
}

// The eigenvalues and vectors of a general matrix are complex whatever
// its dtype: complex64 for float32, complex128 for float64.
LinalgPairMeta eig(const Tensor& self) {
  const char* op = "linalg.eig";
  check_matrix(op, "A", self);
  check_square(op, self);
  WICK_CHECK(!is_integral(self.dtype(), true), RuntimeError, "Unknown Complex ScalarType for ",
             type_title(self.dtype()));
  check_lapack_type("linalg_eig_out_cpu", self.dtype());
  const ScalarType c = is_complex(self.dtype()) ? self.dtype() : to_complex_dtype(self.dtype());
  DimVector values(leading(self, 2));
  values.push_back(self.size(-1));
  return {{TensorMeta::contiguous(values, c, self.device()),
           wick::meta::column_major(self.sizes(), c, self.device())}};
}

// Q is m x k (m x m with mode "complete"), R is k x n (m x n); mode "r"
// gives an empty Q.
LinalgPairMeta qr(const Tensor& a, std::string_view mode) {
  const char* op = "linalg.qr";
  WICK_CHECK(mode == "reduced" || mode == "complete" || mode == "r", RuntimeError, "qr received unrecognized mode '",
             mode, "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_matrix(op, "A", a);
  check_floating(op, a.dtype());
  check_lapack_type("geqrf_cpu", a.dtype());
  const I64 m = a.size(-2);
  const I64 n = a.size(-1);
  const I64 k = mode == "complete" ? m : std::min(m, n);
  DimVector q(leading(a, 2));
  DimVector r = q;
  if (mode == "r") {
    q = {0};
  } else {
    q.push_back(m);
    q.push_back(k);
  }
  r.push_back(k);
  r.push_back(n);
  return {{wick::meta::column_major(q, a.dtype(), a.device()), wick::meta::column_major(r, a.dtype(), a.device())}};
}

LinalgSvdMeta svd(const Tensor& a, bool full_matrices, std::optional<std::string_view> driver) {
  const char* op = "linalg.svd";
  check_matrix(op, "A", a);
  check_floating(op, a.dtype());
  check_lapack_type("linalg_svd_cpu", a.dtype());
  WICK_CHECK(!driver || !a.device().is_cpu(), RuntimeError,
             "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
  const I64 m = a.size(-2);
  const I64 n = a.size(-1);
  const I64 k = std::min(m, n);
  DimVector u(leading(a, 2));
  DimVector s = u;
  DimVector vh = u;
  u.push_back(m);
  u.push_back(full_matrices ? m : k);
  s.push_back(k);
  vh.push_back(full_matrices ? n : k);
  vh.push_back(n);
  return {{wick::meta::column_major(u, a.dtype(), a.device()),
           TensorMeta::contiguous(s, to_real_dtype(a.dtype()), a.device()),
           wick::meta::column_major(vh, a.dtype(), a.device())}};
}

OutputMeta solve_triangular(const Tensor& self, const Tensor& b, bool /*upper*/, bool left, bool /*unitriangular*/) {
  const char* op = "linalg.solve_triangular";
  check_matrix(op, "A", self);
  check_matrix(op, "B", b);
  check_square(op, self);
  const ScalarType t = promote_types(self.dtype(), b.dtype());
  WICK_CHECK(is_floating(t) || is_complex(t), RuntimeError, "\"triangular_solve_cpu\" not implemented for '",
             type_title(t), "'");
  check_lapack_type("triangular_solve_cpu", t);
  check_system(op, self, b, left);
  const Device device = common_device(op, self, b);
  return {wick::meta::column_major(system_shape(op, self, b), t, device)};
}

}  // namespace wick::linalg::meta
