// wick/meta_linalg.h - meta results of the LAPACK-backed torch.linalg operators (lu_factor_ex, cholesky_ex, eigh, ldl_factor_ex, geqrf, ...).
/// \file
/// The factorizations and solvers keep their matrices as LAPACK does, in
/// column-major order: each result matrix is contiguous in its transpose
/// (strides [..., 1, rows]), as in PyTorch, so a kernel hands it to LAPACK
/// without a copy. Their meta functions are in dispatch/ops/meta_linalg.cpp;
/// lu_solve and solve_triangular need no more than `OutputMeta`.
///
///   void lu_factor_ex_cpu(const wick::LuFactorMeta& m, const std::array<Tensor, 3>& outs, const Tensor& A,
///                         bool pivot, bool check_errors);   // outs: LU, pivots, info
#pragma once

#include <array>
#include <cstdint>

#include "wick/dim_vector.h"
#include "wick/dtype.h"
#include "wick/meta.h"

namespace wick {

/// linalg.lu_factor_ex of a batch of m x n matrices: `outs[0]` the packed
/// factors (column-major, the input's shape and dtype), `outs[1]` the int32
/// pivots (batch + [min(m, n)], LAPACK's 1-based rows), `outs[2]` the int32
/// info of each matrix (0, or k > 0 where U[k-1, k-1] is zero). Also
/// linalg.ldl_factor_ex's results: LD (column-major), the int32 pivots
/// (batch + [n]) and the info (k > 0 where D[k-1, k-1] is zero).
struct LuFactorMeta {
  std::array<TensorMeta, 3> outs; ///< the factors, the pivots and the info, as above
};

/// Two results: linalg.cholesky_ex (the column-major factor, the int32 info
/// of each matrix), linalg.eigh (the real eigenvalues, contiguous, and the
/// column-major eigenvectors) and geqrf (the column-major factored matrix
/// and the contiguous reflector scalars, batch + [min(m, n)]).
struct LinalgPairMeta {
  std::array<TensorMeta, 2> outs; ///< the two results, as above
};

/// linalg.svd: U (column-major), the real singular values S (descending,
/// contiguous) and Vh (column-major); with full_matrices U is m x m and Vh
/// n x n, else m x k and k x n (k = min(m, n)).
struct LinalgSvdMeta {
  std::array<TensorMeta, 3> outs; ///< U, S and Vh, as above
};

/// What a failed factorization means to the operator that reports it.
enum class LinalgFailure : std::uint8_t {
  kLuFactor,  ///< RuntimeError "U[k,k] is zero and using it on lu_solve would ..." (lu_factor)
  kSolve,     ///< LinAlgError "The solver failed because the input matrix is singular." (solve)
  kInverse,   ///< LinAlgError "The diagonal element k is zero, ..." (inv)
  kCholesky,  ///< LinAlgError "... not positive-definite (the leading minor of order k ...)" (cholesky)
  kEigh,      ///< LinAlgError "The algorithm failed to converge ... (error code: k)." (eigh)
  kSvd,       ///< LinAlgError "The algorithm failed to converge because the input matrix contained non-finite values." (svd)
  kLdlFactor, ///< LinAlgError "... D[k,k] is zero: the input matrix is singular." (ldl_factor; PyTorch 1.13 fails an internal assert)
};

/// Raises PyTorch's error for the first matrix whose LAPACK `info` (an int32
/// tensor, one per matrix of the batch) is not 0, naming `op` and, for a
/// batch, the element ("(Batch element 1): "); nothing when all are 0.
WICK_API void check_linalg_info(const char* op, const Tensor& info, LinalgFailure failure);

namespace meta {

/// The geometry of a batch of matrices stored column-major: `sizes`
/// ([..., rows, cols]) with each matrix contiguous in its transpose and the
/// batches one after another.
[[nodiscard]] WICK_API TensorMeta column_major(IntArrayRef sizes, ScalarType dtype, Device device);

}  // namespace meta
}  // namespace wick
