// backends/cpu/lapack_ops.cpp - lu_factor_ex, lu_solve, solve_triangular, cholesky_ex, eigh, qr, svd, eig, geqrf, ldl_factor_ex and ldl_solve on LAPACK (OpenBLAS's).
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
#include <optional>
#include <string_view>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <wick/batched_matrices.h>
#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_linalg.h>
#include <wick/ops.h>
#include <wick/tensor_util.h>

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
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, std::size_t uplo_len);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, std::size_t uplo_len);
void cpotrf_(const char* uplo, const int* n, std::complex<float>* a, const int* lda, int* info, std::size_t uplo_len);
void zpotrf_(const char* uplo, const int* n, std::complex<double>* a, const int* lda, int* info, std::size_t uplo_len);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t, std::size_t);
void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w, double* work,
             const int* lwork, int* iwork, const int* liwork, int* info, std::size_t, std::size_t);
void cheevd_(const char* jobz, const char* uplo, const int* n, std::complex<float>* a, const int* lda, float* w,
             std::complex<float>* work, const int* lwork, float* rwork, const int* lrwork, int* iwork,
             const int* liwork, int* info, std::size_t, std::size_t);
void zheevd_(const char* jobz, const char* uplo, const int* n, std::complex<double>* a, const int* lda, double* w,
             std::complex<double>* work, const int* lwork, double* rwork, const int* lrwork, int* iwork,
             const int* liwork, int* info, std::size_t, std::size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork, int* info);
void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work, const int* lwork,
             int* info);
void cgeqrf_(const int* m, const int* n, std::complex<float>* a, const int* lda, std::complex<float>* tau,
             std::complex<float>* work, const int* lwork, int* info);
void zgeqrf_(const int* m, const int* n, std::complex<double>* a, const int* lda, std::complex<double>* tau,
             std::complex<double>* work, const int* lwork, int* info);
void sorgqr_(const int* m, const int* n, const int* k, float* a, const int* lda, const float* tau, float* work,
             const int* lwork, int* info);
void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau, double* work,
             const int* lwork, int* info);
void cungqr_(const int* m, const int* n, const int* k, std::complex<float>* a, const int* lda,
             const std::complex<float>* tau, std::complex<float>* work, const int* lwork, int* info);
void zungqr_(const int* m, const int* n, const int* k, std::complex<double>* a, const int* lda,
             const std::complex<double>* tau, std::complex<double>* work, const int* lwork, int* info);
void sgeev_(const char* jobvl, const char* jobvr, const int* n, float* a, const int* lda, float* wr, float* wi,
            float* vl, const int* ldvl, float* vr, const int* ldvr, float* work, const int* lwork, int* info,
            std::size_t, std::size_t);
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda, double* wr, double* wi,
            double* vl, const int* ldvl, double* vr, const int* ldvr, double* work, const int* lwork, int* info,
            std::size_t, std::size_t);
void cgeev_(const char* jobvl, const char* jobvr, const int* n, std::complex<float>* a, const int* lda,
            std::complex<float>* w, std::complex<float>* vl, const int* ldvl, std::complex<float>* vr, const int* ldvr,
            std::complex<float>* work, const int* lwork, float* rwork, int* info, std::size_t, std::size_t);
void zgeev_(const char* jobvl, const char* jobvr, const int* n, std::complex<double>* a, const int* lda,
            std::complex<double>* w, std::complex<double>* vl, const int* ldvl, std::complex<double>* vr,
            const int* ldvr, std::complex<double>* work, const int* lwork, double* rwork, int* info, std::size_t,
            std::size_t);
void sgesdd_(const char* jobz, const int* m, const int* n, float* a, const int* lda, float* s, float* u,
             const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* iwork, int* info,
             std::size_t);
void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s, double* u,
             const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork, int* iwork, int* info,
             std::size_t);
void cgesdd_(const char* jobz, const int* m, const int* n, std::complex<float>* a, const int* lda, float* s,
             std::complex<float>* u, const int* ldu, std::complex<float>* vt, const int* ldvt,
             std::complex<float>* work, const int* lwork, float* rwork, int* iwork, int* info, std::size_t);
void zgesdd_(const char* jobz, const int* m, const int* n, std::complex<double>* a, const int* lda, double* s,
             std::complex<double>* u, const int* ldu, std::complex<double>* vt, const int* ldvt,
             std::complex<double>* work, const int* lwork, double* rwork, int* iwork, int* info, std::size_t);
// Bunch-Kaufman LDL^T (sytrf, and csytrf/zsytrf for complex symmetric
// matrices) and LDL^H (chetrf/zhetrf), with their solves.
void ssytrf_(const char* uplo, const int* n, float* a, const int* lda, int* ipiv, float* work, const int* lwork,
             int* info, std::size_t);
void dsytrf_(const char* uplo, const int* n, double* a, const int* lda, int* ipiv, double* work, const int* lwork,
             int* info, std::size_t);
void csytrf_(const char* uplo, const int* n, std::complex<float>* a, const int* lda, int* ipiv,
             std::complex<float>* work, const int* lwork, int* info, std::size_t);
void zsytrf_(const char* uplo, const int* n, std::complex<double>* a, const int* lda, int* ipiv,
             std::complex<double>* work, const int* lwork, int* info, std::size_t);
void chetrf_(const char* uplo, const int* n, std::complex<float>* a, const int* lda, int* ipiv,
             std::complex<float>* work, const int* lwork, int* info, std::size_t);
void zhetrf_(const char* uplo, const int* n, std::complex<double>* a, const int* lda, int* ipiv,
             std::complex<double>* work, const int* lwork, int* info, std::size_t);
void ssytrs_(const char* uplo, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv, float* b,
             const int* ldb, int* info, std::size_t);
void dsytrs_(const char* uplo, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, std::size_t);
void csytrs_(const char* uplo, const int* n, const int* nrhs, const std::complex<float>* a, const int* lda,
             const int* ipiv, std::complex<float>* b, const int* ldb, int* info, std::size_t);
void zsytrs_(const char* uplo, const int* n, const int* nrhs, const std::complex<double>* a, const int* lda,
             const int* ipiv, std::complex<double>* b, const int* ldb, int* info, std::size_t);
void chetrs_(const char* uplo, const int* n, const int* nrhs, const std::complex<float>* a, const int* lda,
             const int* ipiv, std::complex<float>* b, const int* ldb, int* info, std::size_t);
void zhetrs_(const char* uplo, const int* n, const int* nrhs, const std::complex<double>* a, const int* lda,
             const int* ipiv, std::complex<double>* b, const int* ldb, int* info, std::size_t);
}

namespace wick::cpu {
namespace {

using linalg_batches::batch_count;
using linalg_batches::column_major;
using linalg_batches::column_major_copy;
using linalg_batches::expand_batch;

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

template <typename T>
void potrf(char uplo, int n, T* a, int lda, int* info) {
  if constexpr (std::is_same_v<T, float>) spotrf_(&uplo, &n, a, &lda, info, 1);
  else if constexpr (std::is_same_v<T, double>) dpotrf_(&uplo, &n, a, &lda, info, 1);
  else if constexpr (std::is_same_v<T, std::complex<float>>) cpotrf_(&uplo, &n, a, &lda, info, 1);
  else zpotrf_(&uplo, &n, a, &lda, info, 1);
}

// LDL^T (LDL^H with hermitian, for complex T) of the lower triangle, with
// a workspace query first; real matrices are symmetric either way.
template <typename T>
void sytrf(bool hermitian, int n, T* a, int lda, int* ipiv, T* work, int lwork, int* info) {
  const char uplo = 'L';
  if constexpr (std::is_same_v<T, float>) ssytrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
  else if constexpr (std::is_same_v<T, double>) dsytrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
  else if constexpr (std::is_same_v<T, std::complex<float>>) {
    if (hermitian) chetrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
    else csytrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
  } else if (hermitian) {
    zhetrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
  } else {
    zsytrf_(&uplo, &n, a, &lda, ipiv, work, &lwork, info, 1);
  }
}

template <typename T>
void sytrs(bool hermitian, int n, int nrhs, const T* a, int lda, const int* ipiv, T* b, int ldb, int* info) {
  const char uplo = 'L';
  if constexpr (std::is_same_v<T, float>) ssytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  else if constexpr (std::is_same_v<T, double>) dsytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  else if constexpr (std::is_same_v<T, std::complex<float>>) {
    if (hermitian) chetrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
    else csytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  } else if (hermitian) {
    zhetrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  } else {
    zsytrs_(&uplo, &n, &nrhs, a, &lda, ipiv, b, &ldb, info, 1);
  }
}

// The real type of T (the eigenvalues' type).
template <typename T>
using RealOf = decltype(std::abs(T{}));

// The symmetric (Hermitian) eigensolver, divide and conquer; a workspace
// query first (lwork = -1), then the solve.
template <typename T>
void syevd(char uplo, int n, T* a, int lda, RealOf<T>* w, int* info) {
  const char jobz = 'V';
  int query = -1;
  T work_size{};
  RealOf<T> rwork_size{};
  int iwork_size = 0;
  const auto call = [&](T* work, int lwork, RealOf<T>* rwork, int lrwork, int* iwork, int liwork) {
    if constexpr (std::is_same_v<T, float>) ssyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
    else if constexpr (std::is_same_v<T, double>) dsyevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
    else if constexpr (std::is_same_v<T, std::complex<float>>)
      cheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
    else zheevd_(&jobz, &uplo, &n, a, &lda, w, work, &lwork, rwork, &lrwork, iwork, &liwork, info, 1, 1);
  };
  call(&work_size, query, &rwork_size, query, &iwork_size, query);
  if (*info != 0) return;
  // LAPACK returns the sizes as floating-point numbers.
  const auto length = [](double size) {
    WICK_CHECK(size <= std::numeric_limits<int>::max(), RuntimeError,
               "linalg.eigh: the matrix is too large for LAPACK's 32-bit workspace sizes");
    return static_cast<std::size_t>(std::max(1.0, size));
  };
  std::vector<T> work(length(static_cast<double>(std::real(work_size))));
  std::vector<RealOf<T>> rwork(length(static_cast<double>(rwork_size)));
  std::vector<int> iwork(static_cast<std::size_t>(std::max(1, iwork_size)));
  call(work.data(), static_cast<int>(work.size()), rwork.data(), static_cast<int>(rwork.size()), iwork.data(),
       static_cast<int>(iwork.size()));
}

// A LAPACK workspace length from the size its query returned (a
// floating-point number).
std::size_t workspace_length(double size, const char* op) {
  WICK_CHECK(size <= std::numeric_limits<int>::max(), RuntimeError, op,
             ": the matrix is too large for LAPACK's 32-bit workspace sizes");
  return static_cast<std::size_t>(std::max(1.0, size));
}

template <typename T>
void geqrf(int m, int n, T* a, int lda, T* tau, T* work, int lwork, int* info) {
  if constexpr (std::is_same_v<T, float>) sgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
  else if constexpr (std::is_same_v<T, double>) dgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
  else if constexpr (std::is_same_v<T, std::complex<float>>) cgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
  else zgeqrf_(&m, &n, a, &lda, tau, work, &lwork, info);
}

// Q's first n columns from k reflectors (orgqr; ungqr for complex types).
template <typename T>
void orgqr(int m, int n, int k, T* a, int lda, const T* tau, T* work, int lwork, int* info) {
  if constexpr (std::is_same_v<T, float>) sorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  else if constexpr (std::is_same_v<T, double>) dorgqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  else if constexpr (std::is_same_v<T, std::complex<float>>) cungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
  else zungqr_(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}

template <typename T>
void gesdd(char jobz, int m, int n, T* a, int lda, RealOf<T>* s, T* u, int ldu, T* vt, int ldvt, T* work, int lwork,
           RealOf<T>* rwork, int* iwork, int* info) {
  if constexpr (std::is_same_v<T, float>)
    sgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
  else if constexpr (std::is_same_v<T, double>)
    dgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    cgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);
  else zgesdd_(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, rwork, iwork, info, 1);
}

// Eigenvalues (w; for real T the real parts, wi the imaginary ones) and,
// with jobvr 'V', right eigenvectors of a general matrix; no left ones.
template <typename T>
void geev(char jobvr, int n, T* a, int lda, T* w, RealOf<T>* wi, T* vr, int ldvr, T* work, int lwork,
          RealOf<T>* rwork, int* info) {
  const char jobvl = 'N';
  const int ldvl = 1;
  if constexpr (std::is_same_v<T, float>)
    sgeev_(&jobvl, &jobvr, &n, a, &lda, w, wi, nullptr, &ldvl, vr, &ldvr, work, &lwork, info, 1, 1);
  else if constexpr (std::is_same_v<T, double>)
    dgeev_(&jobvl, &jobvr, &n, a, &lda, w, wi, nullptr, &ldvl, vr, &ldvr, work, &lwork, info, 1, 1);
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    cgeev_(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &ldvl, vr, &ldvr, work, &lwork, rwork, info, 1, 1);
  else zgeev_(&jobvl, &jobvr, &n, a, &lda, w, nullptr, &ldvl, vr, &ldvr, work, &lwork, rwork, info, 1, 1);
}

// A LAPACK dimension: sizes beyond int are refused, as LAPACK's 32-bit
// integers cannot hold them.
int lapack_int(I64 v, const char* op) {
  WICK_CHECK(v <= std::numeric_limits<int>::max(), RuntimeError, op, ": a matrix dimension of ", v,
             " exceeds LAPACK's 32-bit sizes");
  return static_cast<int>(v);
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
  const I64 a_step = checked_mul(n, n, "linalg");
  const I64 x_step = checked_mul(n, nrhs, "linalg");
  for (I64 b = 0; b < batches; ++b) solve(ap + b * a_step, xp + b * x_step, b);
}

// One LAPACK info code per matrix of the batch (a's leading dims), int32.
Tensor batch_info(const Tensor& a) {
  return make_empty(IntArrayRef(a.sizes().data(), static_cast<std::size_t>(a.dim() - 2)), ScalarType::kInt32);
}

// geqrf on each m x n matrix of the column-major batch `a`, in place, with
// each matrix's min(m, n) reflector scalars written to `tau` (contiguous);
// m and n are not 0.
void geqrf_batches(const char* op, const Tensor& a, const Tensor& tau, int m, int n) {
  const int k = std::min(m, n);
  const I64 batches = batch_count(a);
  visit_dtype<kLapackTypes>(a.dtype(), "geqrf_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* ap = static_cast<T*>(a.data_ptr());
    T* tp = static_cast<T*>(tau.data_ptr());
    int info = 0;
    T size{};
    geqrf<T>(m, n, ap, m, tp, &size, -1, &info);
    std::vector<T> work(workspace_length(static_cast<double>(std::real(size)), op));
    const I64 step = checked_mul(m, n, op);
    for (I64 b = 0; b < batches; ++b) {
      geqrf<T>(m, n, ap + b * step, m, tp + b * k, work.data(), static_cast<int>(work.size()), &info);
      WICK_CHECK(info == 0, RuntimeError, op, ": LAPACK geqrf failed with info ", info);
    }
  });
}

}  // namespace

void lu_factor_ex(const LuFactorMeta& /*m*/, const std::array<Tensor, 3>& outs, const Tensor& input, bool pivot,
                  bool check_errors) {
  const char* op = "torch.linalg.lu_factor_ex";
  WICK_CHECK(pivot, RuntimeError, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  const Tensor& lu = outs[0];
  const Tensor& pivots = outs[1];
  const Tensor& info = outs[2];
  Tensor(lu).copy_(input);
  const int m = lapack_int(input.size(-2), op);
  const int n = lapack_int(input.size(-1), op);
  const I64 k = std::min(m, n);
  const I64 batches = batch_count(input);
  auto* ipiv = static_cast<int*>(pivots.data_ptr());
  auto* codes = static_cast<int*>(info.data_ptr());
  if (m == 0 || n == 0) {
    for (I64 b = 0; b < batches; ++b) codes[b] = 0;
    return;
  }
  visit_dtype<kLapackTypes>(input.dtype(), "lu_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(lu.data_ptr());
    for (I64 b = 0; b < batches; ++b) getrf<T>(m, n, a + b * m * n, std::max(m, 1), ipiv + b * k, codes + b);
  });
  if (check_errors) check_linalg_info(op, info, LinalgFailure::kLuFactor);
}

void lu_solve(const OutputMeta& /*m*/, const Tensor& out, const Tensor& lu, const Tensor& pivots, const Tensor& b,
              bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  const IntArrayRef batch(out.sizes().data(), static_cast<std::size_t>(out.dim() - 2));
  const Tensor factors = column_major(expand_batch(lu, batch, 2));
  const Tensor ipiv = expand_batch(pivots, batch, 1).contiguous();
  // left: A X = B (or A^H X = B); right: X A = B as A^T X^T = B^T, and
  // X A^H = B as A Y = B^H with X = Y^H.
  const bool conjugate = !left && adjoint;
  const char trans = left ? (adjoint ? (is_complex(b.dtype()) ? 'C' : 'T') : 'N') : (adjoint ? 'N' : 'T');
  Tensor rhs = expand_batch(b, batch, 2);
  if (!left) rhs = conjugate ? conj_physical(rhs.transpose(-2, -1)) : rhs.transpose(-2, -1);
  Tensor x = left ? out : column_major_copy(rhs);
  if (left) x.copy_(rhs);
  const int n = lapack_int(lu.size(-1), op);
  const int nrhs = lapack_int(x.size(-1), op);
  const auto* piv = static_cast<const int*>(ipiv.data_ptr());
  // getrs swaps row i with row pivots[i] - 1 unchecked: a pivot out of range
  // would write outside the matrix.
  for (I64 i = 0; i < ipiv.numel(); ++i) {
    WICK_CHECK(piv[i] >= 1 && piv[i] <= n, IndexError, op, ": pivots must be row numbers in [1, ", n,
               "], but found ", piv[i]);
  }
  visit_dtype<kLapackTypes>(b.dtype(), "lu_solve_cpu", [&](auto tag) {
    using T = decltype(tag);
    solve_batches<T>(factors, x, [&](const T* a, T* xb, I64 k) {
      int info = 0;
      getrs<T>(trans, n, nrhs, a, std::max(n, 1), piv + k * n, xb, std::max(n, 1), &info);
      WICK_CHECK(info == 0, RuntimeError, op, ": LAPACK getrs failed with info ", info);
    });
  });
  if (!left) Tensor(out).copy_(conjugate ? conj_physical(x.transpose(-2, -1)) : x.transpose(-2, -1));
}

// geqrf on each matrix of a column-major copy, which is the result.
void geqrf(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& self) {
  const char* op = "torch.geqrf";
  const Tensor& a = outs[0];
  const Tensor& tau = outs[1];
  Tensor(a).copy_(self);
  const int m = lapack_int(self.size(-2), op);
  const int n = lapack_int(self.size(-1), op);
  if (std::min(m, n) > 0) geqrf_batches(op, a, tau, m, n);
}

namespace {

// Whether `piv` (n LAPACK pivots of a lower Bunch-Kaufman factorization) is
// one sytrs can follow: a positive entry is a row in [1, n]; a negative one
// starts a 2 x 2 block, whose second entry repeats it. sytrs follows them
// unchecked, so anything else would make it read and write outside the
// matrix.
bool valid_ldl_pivots(const int* piv, int n) {
  for (int k = 0; k < n;) {
    const int p = piv[k];
    if (p > 0) {
      if (p > n) return false;
      ++k;
      continue;
    }
    if (p == 0 || -p > n || k + 1 >= n || piv[k + 1] != p) return false;
    k += 2;
  }
  return true;
}

}  // namespace

void ldl_factor_ex(const LuFactorMeta& /*m*/, const std::array<Tensor, 3>& outs, const Tensor& self, bool hermitian,
                   bool check_errors) {
  const char* op = "torch.linalg.ldl_factor_ex";
  const Tensor& ld = outs[0];
  Tensor(ld).copy_(self);
  const int n = lapack_int(self.size(-1), op);
  const I64 batches = batch_count(self);
  auto* ipiv = static_cast<int*>(outs[1].data_ptr());
  auto* codes = static_cast<int*>(outs[2].data_ptr());
  if (n == 0) {
    for (I64 b = 0; b < batches; ++b) codes[b] = 0;
    return;
  }
  const I64 step = checked_mul(n, n, op);
  visit_dtype<kLapackTypes>(self.dtype(), "ldl_factor_kernel_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(ld.data_ptr());
    int query_info = 0;
    T size{};
    sytrf<T>(hermitian, n, a, n, ipiv, &size, -1, &query_info);
    std::vector<T> work(workspace_length(static_cast<double>(std::real(size)), op));
    for (I64 b = 0; b < batches; ++b) {
      T* mat = a + b * step;
      sytrf<T>(hermitian, n, mat, n, ipiv + b * n, work.data(), static_cast<int>(work.size()), codes + b);
      // LAPACK leaves the upper triangle as it was: zero it, as PyTorch does.
      for (int j = 1; j < n; ++j)
        for (int i = 0; i < j; ++i) mat[i + static_cast<std::ptrdiff_t>(j) * n] = T(0);
    }
  });
  if (check_errors) check_linalg_info(op, outs[2], LinalgFailure::kLdlFactor);
}

void ldl_solve(const OutputMeta& /*m*/, const Tensor& out, const Tensor& ld, const Tensor& pivots, const Tensor& b,
               bool hermitian) {
  const char* op = "torch.linalg.ldl_solve";
  const IntArrayRef batch(out.sizes().data(), static_cast<std::size_t>(out.dim() - 2));
  const Tensor factors = column_major(expand_batch(ld, batch, 2));
  const Tensor ipiv = expand_batch(pivots.to(ScalarType::kInt32), batch, 1).contiguous();
  Tensor(out).copy_(expand_batch(b, batch, 2));
  const int n = lapack_int(ld.size(-1), op);
  const int nrhs = lapack_int(out.size(-1), op);
  const auto* piv = static_cast<const int*>(ipiv.data_ptr());
  const I64 systems = batch_count(out);
  for (I64 k = 0; k < systems; ++k) {
    WICK_CHECK(valid_ldl_pivots(piv + k * n, n), IndexError, op,
               ": pivots must be those of a factorization by linalg.ldl_factor: each in [1, ", n,
               "], or a negative pair marking a 2 x 2 block");
  }
  visit_dtype<kLapackTypes>(b.dtype(), "ldl_solve_kernel_cpu", [&](auto tag) {
    using T = decltype(tag);
    solve_batches<T>(factors, out, [&](const T* a, T* xb, I64 k) {
      int info = 0;
      sytrs<T>(hermitian, n, nrhs, a, std::max(n, 1), piv + k * n, xb, std::max(n, 1), &info);
      WICK_CHECK(info == 0, RuntimeError, op, ": LAPACK sytrs failed with info ", info);
    });
  });
}

void cholesky_ex(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& self, bool upper,
                 bool check_errors) {
  const char* op = "linalg.cholesky_ex";
  const Tensor& factor = outs[0];
  const Tensor& info = outs[1];
  Tensor(factor).copy_(self);
  const int n = lapack_int(self.size(-1), op);
  const I64 batches = batch_count(self);
  auto* codes = static_cast<int*>(info.data_ptr());
  if (n == 0) {
    for (I64 k = 0; k < batches; ++k) codes[k] = 0;
    return;
  }
  const I64 step = checked_mul(n, n, op);
  visit_dtype<kLapackTypes>(self.dtype(), "cholesky_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(factor.data_ptr());
    for (I64 k = 0; k < batches; ++k) {
      T* m = a + k * step;
      potrf<T>(upper ? 'U' : 'L', n, m, n, codes + k);
      // LAPACK leaves the other triangle as it was: zero it (column-major, (i, j) at i + j n).
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          if (upper ? i > j : i < j) m[i + static_cast<std::ptrdiff_t>(j) * n] = T(0);
    }
  });
  if (check_errors) check_linalg_info(op, info, LinalgFailure::kCholesky);
}

void eigh(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& self, std::string_view uplo) {
  const char* op = "linalg.eigh";
  const Tensor& values = outs[0];
  const Tensor& vectors = outs[1];
  Tensor(vectors).copy_(self);
  const int n = lapack_int(self.size(-1), op);
  const I64 batches = batch_count(self);
  if (n == 0 || batches == 0) return;
  const I64 step = checked_mul(n, n, op);
  Tensor info = batch_info(self);
  auto* codes = static_cast<int*>(info.data_ptr());
  visit_dtype<kLapackTypes>(self.dtype(), "linalg_eigh_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(vectors.data_ptr());
    auto* w = static_cast<RealOf<T>*>(values.data_ptr());
    for (I64 k = 0; k < batches; ++k) syevd<T>(uplo.front(), n, a + k * step, n, w + k * I64{n}, codes + k);
  });
  check_linalg_info(op, info, LinalgFailure::kEigh);
}

// geqrf on a column-major copy of each matrix; R is its upper triangle and
// Q comes from the reflectors below it (orgqr), its columns widened to m in
// mode "complete".
void qr(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& a, std::string_view mode) {
  const char* op = "linalg.qr";
  const int m = lapack_int(a.size(-2), op);
  const int n = lapack_int(a.size(-1), op);
  const int k = std::min(m, n);
  const I64 batches = batch_count(a);
  const Tensor w = column_major_copy(a);
  const bool complete = mode == "complete";
  const bool want_q = mode != "r";
  const int q_cols = complete ? m : k;
  DimVector tau_shape(IntArrayRef(a.sizes().data(), static_cast<std::size_t>(a.dim() - 2)));
  tau_shape.push_back(k);
  const Tensor tau = make_empty(tau_shape, a.dtype());
  if (m > 0 && n > 0) geqrf_batches(op, w, tau, m, n);
  // R: the upper triangle of the first rows of the factored matrix.
  const int r_rows = complete ? m : k;
  Tensor(outs[1]).copy_(triu(w.narrow(-2, 0, std::min(r_rows, m))));
  if (!want_q) return;
  // Q: the reflectors in its first columns, then orgqr makes it orthonormal.
  Tensor q = outs[0];
  q.zero_();
  const int copied = std::min(q_cols, n);
  q.narrow(-1, 0, copied).copy_(w.narrow(-1, 0, copied));
  if (m == 0 || q_cols == 0) return;
  if (k == 0) {  // no reflectors: Q is the identity's first columns
    q.copy_(eye(m, q_cols, a.dtype()).expand(q.sizes()));
    return;
  }
  visit_dtype<kLapackTypes>(a.dtype(), "orgqr_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* qp = static_cast<T*>(q.data_ptr());
    const T* tp = static_cast<const T*>(tau.data_ptr());
    int info = 0;
    T size{};
    orgqr<T>(m, q_cols, k, qp, m, tp, &size, -1, &info);
    std::vector<T> work(workspace_length(static_cast<double>(std::real(size)), op));
    const I64 step = checked_mul(m, q_cols, op);
    for (I64 b = 0; b < batches; ++b) {
      orgqr<T>(m, q_cols, k, qp + b * step, m, tp + b * k, work.data(), static_cast<int>(work.size()), &info);
      WICK_CHECK(info == 0, RuntimeError, op, ": LAPACK orgqr failed with info ", info);
    }
  });
}

// gesdd (divide and conquer) on a column-major copy of each matrix, writing
// U and Vh (column-major) and S in place.
void svd(const LinalgSvdMeta& /*m*/, const std::array<Tensor, 3>& outs, const Tensor& a, bool full_matrices,
         std::optional<std::string_view> /*driver*/) {
  const char* op = "linalg.svd";
  const Tensor& u = outs[0];
  const Tensor& s = outs[1];
  const Tensor& vh = outs[2];
  const int m = lapack_int(a.size(-2), op);
  const int n = lapack_int(a.size(-1), op);
  const int k = std::min(m, n);
  const I64 batches = batch_count(a);
  if (k == 0) {  // no singular values: U and Vh are identities (the empty ones included)
    Tensor(u).copy_(eye(u.size(-2), u.size(-1), a.dtype()).expand(u.sizes()));
    Tensor(vh).copy_(eye(vh.size(-2), vh.size(-1), a.dtype()).expand(vh.sizes()));
    return;
  }
  const Tensor w = column_major_copy(a);
  const int u_cols = lapack_int(u.size(-1), op);
  const int vh_rows = lapack_int(vh.size(-2), op);
  Tensor info = batch_info(a);
  auto* codes = static_cast<int*>(info.data_ptr());
  visit_dtype<kLapackTypes>(a.dtype(), "linalg_svd_cpu", [&](auto tag) {
    using T = decltype(tag);
    using Real = RealOf<T>;
    T* wp = static_cast<T*>(w.data_ptr());
    auto* sp = static_cast<Real*>(s.data_ptr());
    T* up = static_cast<T*>(u.data_ptr());
    T* vp = static_cast<T*>(vh.data_ptr());
    const char jobz = full_matrices ? 'A' : 'S';
    std::vector<int> iwork(static_cast<std::size_t>(8) * static_cast<std::size_t>(k));
    // LAPACK's rwork length for complex gesdd with vectors.
    const std::size_t mx = static_cast<std::size_t>(std::max(m, n));
    const std::size_t mn = static_cast<std::size_t>(k);
    std::vector<Real> rwork(std::max(5 * mn * mn + 5 * mn, 2 * mx * mn + 2 * mn * mn + mn));
    int query_info = 0;
    T size{};
    gesdd<T>(jobz, m, n, wp, m, sp, up, m, vp, vh_rows, &size, -1, rwork.data(), iwork.data(), &query_info);
    std::vector<T> work(workspace_length(static_cast<double>(std::real(size)), op));
    const I64 a_step = checked_mul(m, n, op);
    const I64 u_step = checked_mul(m, u_cols, op);
    const I64 v_step = checked_mul(vh_rows, n, op);
    for (I64 b = 0; b < batches; ++b) {
      // A non-finite element can send OpenBLAS's bidiagonal QR (dbdsqr)
      // into an endless loop: refuse it as LAPACK 3.10 refuses a NaN, with
      // info -4 (PyTorch's non-finite message).
      const T* matrix = wp + b * a_step;
      const bool finite = std::all_of(matrix, matrix + a_step, [](const T& x) {
        return std::isfinite(std::real(x)) && std::isfinite(std::imag(x));
      });
      if (!finite) {
        codes[b] = -4;
        continue;
      }
      gesdd<T>(jobz, m, n, wp + b * a_step, m, sp + b * k, up + b * u_step, m, vp + b * v_step, vh_rows, work.data(),
               static_cast<int>(work.size()), rwork.data(), iwork.data(), codes + b);
    }
  });
  check_linalg_info(op, info, LinalgFailure::kSvd);
}

// geev on a column-major copy of each matrix. The results are complex
// whatever the input's type: for a real matrix LAPACK keeps a complex
// pair's vectors in two columns (v_j = VR[:, j] + i VR[:, j + 1], v_{j+1}
// its conjugate), unpacked here. Vectors have norm 1, their largest
// component real, as LAPACK leaves them (and PyTorch returns them).
void eig(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& self) {
  const char* op = "linalg.eig";
  const Tensor& values = outs[0];
  const Tensor& vectors = outs[1];
  const int n = lapack_int(self.size(-1), op);
  const I64 batches = batch_count(self);
  if (n == 0 || batches == 0) return;
  const Tensor w = column_major_copy(self);
  const I64 step = checked_mul(n, n, op);
  Tensor info = batch_info(self);
  auto* codes = static_cast<int*>(info.data_ptr());
  visit_dtype<kLapackTypes>(self.dtype(), "linalg_eig_out_cpu", [&](auto tag) {
    using T = decltype(tag);
    using Real = RealOf<T>;
    using C = std::complex<Real>;
    T* ap = static_cast<T*>(w.data_ptr());
    const I64 count = w.numel();
    for (I64 i = 0; i < count; ++i) {
      WICK_CHECK(std::isfinite(std::real(ap[i])) && std::isfinite(std::imag(ap[i])), RuntimeError,
                 "torch.linalg.eig: input tensor should not contain infs or NaNs.");
    }
    C* lp = static_cast<C*>(values.data_ptr());
    C* vp = static_cast<C*>(vectors.data_ptr());
    const auto columns = static_cast<std::size_t>(n);
    if constexpr (std::is_same_v<T, Real>) {
      std::vector<Real> wr(columns);
      std::vector<Real> wi(columns);
      std::vector<Real> vr(columns * columns);
      int query_info = 0;
      Real size{};
      geev<T>('V', n, ap, n, wr.data(), wi.data(), vr.data(), n, &size, -1, nullptr, &query_info);
      std::vector<T> work(workspace_length(static_cast<double>(size), op));
      for (I64 b = 0; b < batches; ++b) {
        geev<T>('V', n, ap + b * step, n, wr.data(), wi.data(), vr.data(), n, work.data(),
                static_cast<int>(work.size()), nullptr, codes + b);
        if (codes[b] != 0) continue;
        C* l = lp + b * n;
        C* v = vp + b * step;
        for (std::size_t j = 0; j < columns; ++j) {
          l[j] = C(wr[j], wi[j]);
          const Real* re = vr.data() + j * columns;
          if (wi[j] == 0 || j + 1 == columns) {
            for (std::size_t i = 0; i < columns; ++i) v[j * columns + i] = C(re[i], 0);
            continue;
          }
          // A complex pair: this column and the next.
          const Real* im = re + columns;
          l[j + 1] = C(wr[j + 1], wi[j + 1]);
          for (std::size_t i = 0; i < columns; ++i) {
            v[j * columns + i] = C(re[i], im[i]);
            v[(j + 1) * columns + i] = C(re[i], -im[i]);
          }
          ++j;
        }
      }
    } else {
      std::vector<Real> rwork(2 * columns);
      int query_info = 0;
      T size{};
      geev<T>('V', n, ap, n, lp, nullptr, vp, n, &size, -1, rwork.data(), &query_info);
      std::vector<T> work(workspace_length(static_cast<double>(std::real(size)), op));
      for (I64 b = 0; b < batches; ++b) {
        geev<T>('V', n, ap + b * step, n, lp + b * n, nullptr, vp + b * step, n, work.data(),
                static_cast<int>(work.size()), rwork.data(), codes + b);
      }
    }
  });
  check_linalg_info(op, info, LinalgFailure::kEigh);
}

void solve_triangular(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, const Tensor& b, bool upper,
                      bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  const IntArrayRef batch(out.sizes().data(), static_cast<std::size_t>(out.dim() - 2));
  const Tensor a = column_major(expand_batch(self, batch, 2).to(out.dtype()));
  Tensor(out).copy_(expand_batch(b, batch, 2));
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
    for (I64 k = 0; k < batches; ++k) {
      const T* ab = ap + k * n * n;
      T* xb = xp + k * I64{rows} * cols;
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
