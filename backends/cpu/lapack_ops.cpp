// backends/cpu/lapack_ops.cpp - lu_factor_ex, lu_solve and solve_triangular on LAPACK (OpenBLAS's).
/// \file
/// The results are column-major batches (wick/meta_linalg.h), so each
/// matrix of the output is LAPACK's operand in place: the kernel copies the
/// input (or the right-hand side, broadcast) into the output and LAPACK (or
/// BLAS's triangular solve, trsm) overwrites it. The other operand (the factors, the triangular matrix) is
/// broadcast to the batch and copied column-major once. The right-side
/// systems of lu_solve (X A = B, `left=False`) are solved as A^T X^T = B^T,
/// or, for the adjoint, as A Y = B^H with X = Y^H: getrs solves only on the
/// left.
/// float32, float64, complex64 and complex128, as LAPACK has them (the meta
/// functions refuse the rest).
#include <cblas.h>

#include <algorithm>
#include <complex>
#include <limits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_linalg.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

// LAPACK's Fortran interface, as OpenBLAS exports it (Debian ships no
// LAPACKE header with it). Character arguments carry gfortran's hidden
// lengths at the end.
extern "C" {
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void cgetrf_(const int* m, const int* n, std::complex<float>* a, const int* lda, int* ipiv, int* info);
void zgetrf_(const int* m, const int* n, std::complex<double>* a, const int* lda, int* ipiv, int* info);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, std::size_t trans_len);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t trans_len);
void cgetrs_(const char* trans, const int* n, const int* nrhs, const std::complex<float>* a, const int* lda,
             const int* ipiv, std::complex<float>* b, const int* ldb, int* info, std::size_t trans_len);
void zgetrs_(const char* trans, const int* n, const int* nrhs, const std::complex<double>* a, const int* lda,
             const int* ipiv, std::complex<double>* b, const int* ldb, int* info, std::size_t trans_len);
}

namespace wick::cpu {
namespace {

using I64 = std::int64_t;

constexpr std::uint32_t kLapackTypes = dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64) |
                                       dtypes::kComplex;

template <typename T>
void getrf(int m, int n, T* a, int lda, int* ipiv, int* info) {
  if constexpr (std::is_same_v<T, float>) sgetrf_(&m, &n, a, &lda, ipiv, info);
  else if constexpr (std::is_same_v<T, double>) dgetrf_(&m, &n, a, &lda, ipiv, info);
  else if constexpr (std::is_same_v<T, std::complex<float>>) cgetrf_(&m, &n, a, &lda, ipiv, info);
  else zgetrf_(&m, &n, a, &lda, ipiv, info);
}

template <typename T>
void getrs(char trans, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info) {
  if constexpr (std::is_same_v<T, float>) sgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  else if constexpr (std::is_same_v<T, double>) dgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  else if constexpr (std::is_same_v<T, std::complex<float>>) cgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  else zgetrs_(&trans, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
}

// A LAPACK dimension: sizes beyond int are refused, as LAPACK's 32-bit
// integers cannot hold them.
int lapack_int(I64 v, const char* op) {
  WICK_CHECK(v <= std::numeric_limits<int>::max(), RuntimeError, op, ": a matrix dimension of ", v,
             " exceeds LAPACK's 32-bit sizes");
  return static_cast<int>(v);
}

// t's matrices column-major (batches in order): t itself when it is so
// already, for reading.
Tensor column_major(const Tensor& t) { return t.transpose(-2, -1).contiguous().transpose(-2, -1); }
// A new column-major copy of t's matrices, for LAPACK to overwrite.
Tensor column_major_copy(const Tensor& t) { return t.transpose(-2, -1).clone().transpose(-2, -1); }

// `t` broadcast to batch dims `batch` with its own last `keep` dims.
Tensor expand_batch(const Tensor& t, IntArrayRef batch, I64 keep) {
  DimVector shape(batch);
  for (I64 d = t.dim() - keep; d < t.dim(); ++d) shape.push_back(t.size(d));
  return t.expand(shape);
}

// The number of matrices of a [..., rows, cols] tensor.
I64 batch_count(const Tensor& t) {
  I64 n = 1;
  for (I64 d = 0; d + 2 < t.dim(); ++d) n = checked_mul(n, t.size(d), "linalg");
  return n;
}

// Solves on the left in the column-major `x` (holding the right-hand side,
// overwritten by the solution) with one factor matrix per batch in `a`
// (column-major, n x n), by `solve(a_batch, x_batch, nrhs)`.
template <typename T, typename Solve>
void solve_batches(const Tensor& a, const Tensor& x, Solve&& solve) {
  const I64 batches = batch_count(x);
  const I64 n = a.size(-1);
  if (x.numel() == 0 || n == 0) return;
  const I64 nrhs = x.size(-1);
  const T* ap = static_cast<const T*>(a.data_ptr());
  T* xp = static_cast<T*>(x.data_ptr());
  for (I64 b = 0; b < batches; ++b) solve(ap + b * n * n, xp + b * n * nrhs, b);
}

}  // namespace

void lu_factor_ex(const LuFactorMeta& /*m*/, const std::array<Tensor, 3>& outs, const Tensor& A, bool pivot,
                  bool check_errors) {
  const char* op = "torch.linalg.lu_factor_ex";
  WICK_CHECK(pivot, RuntimeError, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  const Tensor& lu = outs[0];
  const Tensor& pivots = outs[1];
  const Tensor& info = outs[2];
  Tensor(lu).copy_(A);
  const int m = lapack_int(A.size(-2), op);
  const int n = lapack_int(A.size(-1), op);
  const I64 k = std::min(m, n);
  const I64 batches = batch_count(A);
  auto* ipiv = static_cast<int*>(pivots.data_ptr());
  auto* codes = static_cast<int*>(info.data_ptr());
  if (m == 0 || n == 0) {
    for (I64 b = 0; b < batches; ++b) codes[b] = 0;
    return;
  }
  visit_dtype<kLapackTypes>(A.dtype(), "lu_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(lu.data_ptr());
    for (I64 b = 0; b < batches; ++b) getrf<T>(m, n, a + b * m * n, std::max(m, 1), ipiv + b * k, codes + b);
  });
  if (check_errors) check_linalg_info(op, info, LinalgFailure::kLuFactor);
}

void lu_solve(const OutputMeta& /*m*/, const Tensor& out, const Tensor& LU, const Tensor& pivots, const Tensor& B,
              bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  const IntArrayRef batch(out.sizes().data(), static_cast<std::size_t>(out.dim() - 2));
  const Tensor factors = column_major(expand_batch(LU, batch, 2));
  const Tensor ipiv = expand_batch(pivots, batch, 1).contiguous();
  // left: A X = B (or A^H X = B); right: X A = B as A^T X^T = B^T, and
  // X A^H = B as A Y = B^H with X = Y^H.
  const bool conjugate = !left && adjoint;
  const char trans = left ? (adjoint ? (is_complex(B.dtype()) ? 'C' : 'T') : 'N') : (adjoint ? 'N' : 'T');
  Tensor rhs = expand_batch(B, batch, 2);
  if (!left) rhs = conjugate ? conj_physical(rhs.transpose(-2, -1)) : rhs.transpose(-2, -1);
  Tensor x = left ? out : column_major_copy(rhs);
  if (left) x.copy_(rhs);
  const int n = lapack_int(LU.size(-1), op);
  const int nrhs = lapack_int(x.size(-1), op);
  const auto* piv = static_cast<const int*>(ipiv.data_ptr());
  visit_dtype<kLapackTypes>(B.dtype(), "lu_solve_cpu", [&](auto tag) {
    using T = decltype(tag);
    solve_batches<T>(factors, x, [&](const T* a, T* xb, I64 b) {
      int info = 0;
      getrs<T>(trans, n, nrhs, a, std::max(n, 1), piv + b * n, xb, std::max(n, 1), &info);
      WICK_CHECK(info == 0, RuntimeError, op, ": LAPACK getrs failed with info ", info);
    });
  });
  if (!left) Tensor(out).copy_(conjugate ? conj_physical(x.transpose(-2, -1)) : x.transpose(-2, -1));
}

void solve_triangular(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, const Tensor& B, bool upper,
                      bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  const IntArrayRef batch(out.sizes().data(), static_cast<std::size_t>(out.dim() - 2));
  const Tensor a = column_major(expand_batch(self, batch, 2).to(out.dtype()));
  Tensor(out).copy_(expand_batch(B, batch, 2));
  if (out.numel() == 0) return;
  const int rows = lapack_int(out.size(-2), op);
  const int cols = lapack_int(out.size(-1), op);
  const int n = std::max(lapack_int(self.size(-1), op), 1);
  const I64 batches = batch_count(out);
  const CBLAS_SIDE side = left ? CblasLeft : CblasRight;
  const CBLAS_UPLO uplo = upper ? CblasUpper : CblasLower;
  const CBLAS_DIAG diag = unitriangular ? CblasUnit : CblasNonUnit;
  // BLAS's triangular solve divides by the diagonal without a singularity
  // check: a zero there gives infinities and NaNs, as in PyTorch.
  visit_dtype<kLapackTypes>(out.dtype(), "triangular_solve_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* ap = static_cast<const T*>(a.data_ptr());
    T* xp = static_cast<T*>(out.data_ptr());
    const T one(1);
    for (I64 b = 0; b < batches; ++b) {
      const T* ab = ap + b * n * n;
      T* xb = xp + b * I64{rows} * cols;
      if constexpr (std::is_same_v<T, float>) {
        cblas_strsm(CblasColMajor, side, uplo, CblasNoTrans, diag, rows, cols, one, ab, n, xb, std::max(rows, 1));
      } else if constexpr (std::is_same_v<T, double>) {
        cblas_dtrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, rows, cols, one, ab, n, xb, std::max(rows, 1));
      } else if constexpr (std::is_same_v<T, std::complex<float>>) {
        cblas_ctrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, rows, cols, &one, ab, n, xb, std::max(rows, 1));
      } else {
        cblas_ztrsm(CblasColMajor, side, uplo, CblasNoTrans, diag, rows, cols, &one, ab, n, xb, std::max(rows, 1));
      }
    }
  });
}

}  // namespace wick::cpu
