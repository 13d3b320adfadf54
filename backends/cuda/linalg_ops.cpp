// backends/cuda/linalg_ops.cpp - torch.linalg's factorizations and solvers on CUDA.
/// \file
/// Note [Linear algebra on the device]
/// The results are the CPU backend's (backends/cpu/lapack_ops.cpp), in the
/// same column-major batches (wick/meta_linalg.h, wick/batched_matrices.h):
/// - lu_factor_ex, lu_solve and cholesky_ex run cuSOLVER's getrf, getrs and
///   potrf on each matrix of the batch, solve_triangular cuBLAS's trsm; the
///   info codes stay on the device until check_errors (or a caller) reads
///   them, as LAPACK's would on the CPU;
/// - eig computes on the host, with LAPACK's geev, as PyTorch's CUDA eig
///   does (through MAGMA, whose geev runs on the host);
/// - eigh, qr, svd, geqrf, ldl_factor_ex and ldl_solve compute on the host
///   too, for now: the same results as on the CPU, at the cost of two
///   copies; cuSOLVER's syevd, geqrf/orgqr, gesvd and sytrf are the next
///   step.
/// float32 and float64; complex tensors are refused on the device, as by
/// its other kernels.
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <string_view>

#include <wick/batched_matrices.h>
#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_linalg.h>
#include <wick/ops.h>
#include <wick/tensor_util.h>

#include <wick/gen/torch_kernels.h>
#include "blas_call.h"
#include "cuda_common.h"
#include "cuda_ops.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;
using linalg_batches::batch_count;
using linalg_batches::column_major;
using linalg_batches::column_major_copy;
using linalg_batches::expand_batch;

void check_solver(cusolverStatus_t status, const char* op) {
  WICK_CHECK(status == CUSOLVER_STATUS_SUCCESS, RuntimeError, op, ": cuSOLVER error ", static_cast<int>(status));
}

// --- handles: as cuBLAS's (Note [cuBLAS handles] in blas_ops.cpp) --------------------------------

constexpr int kMaxDevices = 64;

struct SolverSlot {
  std::mutex mutex;
  cusolverDnHandle_t handle = nullptr;
};

SolverSlot& solver_slot(int device) {
  static std::array<SolverSlot, kMaxDevices> slots;
  WICK_CHECK(device >= 0 && device < kMaxDevices, RuntimeError, "cuSOLVER: device index ", device, " out of range");
  return slots[static_cast<std::size_t>(device)];
}

// The device's cuSOLVER handle, locked and set to the current stream for one call.
class SolverCall final {
 public:
  SolverCall(Device device, const char* op) : slot_(solver_slot(device.index())), lock_(slot_.mutex) {
    if (slot_.handle == nullptr) check_solver(cusolverDnCreate(&slot_.handle), op);
    check_solver(cusolverDnSetStream(slot_.handle, current_stream()), op);
  }
  [[nodiscard]] cusolverDnHandle_t handle() const { return slot_.handle; }

 private:
  SolverSlot& slot_;
  std::lock_guard<std::mutex> lock_;
};

// A cuSOLVER or cuBLAS dimension: sizes beyond int are refused.
int solver_int(I64 v, const char* op) {
  WICK_CHECK(v <= std::numeric_limits<int>::max(), RuntimeError, op, ": a matrix dimension of ", v,
             " exceeds cuSOLVER's 32-bit sizes");
  return static_cast<int>(v);
}

// cuSOLVER's and cuBLAS's real types here (complex is refused on the device).
constexpr std::uint32_t kSolverTypes = dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64);

// A scratch buffer of `count` elements of `dtype` on `device` (at least one).
Tensor scratch(I64 count, ScalarType dtype, Device device) {
  return make_empty({std::max<I64>(count, 1)}, dtype, device);
}

// The host's copy of a device tensor, out of any graph, for the LAPACK path.
Tensor on_host(const Tensor& t) { return t.detach().to(Device()); }

// Writes the host result `r` into the device output `out` (the same shape,
// dtype and layout: column-major matrices where the meta function lays them
// out so). Column-major matrices go through their transposes, contiguous on
// both sides, so the copy is one transfer of the bytes: the device's strided
// copy refuses complex results (eig's).
void write_back(const Tensor& out, const Tensor& r) {
  if (out.dim() >= 2 && !out.is_contiguous() && out.transpose(-2, -1).is_contiguous()) {
    Tensor(out.transpose(-2, -1)).copy_(r.transpose(-2, -1));
  } else {
    Tensor(out).copy_(r);
  }
}

}  // namespace

void lu_factor_ex(const LuFactorMeta& /*m*/, const std::array<Tensor, 3>& outs, const Tensor& input, bool pivot,
                  bool check_errors) {
  const char* op = "torch.linalg.lu_factor_ex";
  WICK_CHECK(pivot, RuntimeError, "linalg.lu_factor: LU without pivoting is not implemented on CUDA yet");
  const Tensor& lu = outs[0];
  const Tensor& pivots = outs[1];
  Tensor info = outs[2];
  const int m = solver_int(input.size(-2), op);
  const int n = solver_int(input.size(-1), op);
  const I64 k = std::min(m, n);
  const I64 batches = batch_count(input);
  visit_dtype<kSolverTypes>(input.dtype(), "lu_cuda", [](auto) {});
  Tensor(lu).copy_(input);
  if (m == 0 || n == 0 || batches == 0) {
    info.zero_();
    return;
  }
  const DeviceGuard guard(lu.device());
  visit_dtype<kSolverTypes>(input.dtype(), "lu_cuda", [&](auto tag) {
    using T = decltype(tag);
    const SolverCall call(lu.device(), op);
    T* a = lu.data_ptr<T>();
    int lwork = 0;
    if constexpr (std::is_same_v<T, float>) {
      check_solver(cusolverDnSgetrf_bufferSize(call.handle(), m, n, a, m, &lwork), op);
    } else {
      check_solver(cusolverDnDgetrf_bufferSize(call.handle(), m, n, a, m, &lwork), op);
    }
    const Tensor work = scratch(lwork, input.dtype(), lu.device());
    int* ipiv = pivots.data_ptr<int>();
    int* codes = info.data_ptr<int>();
    const I64 step = checked_mul(m, n, op);
    for (I64 b = 0; b < batches; ++b) {
      if constexpr (std::is_same_v<T, float>) {
        check_solver(
            cusolverDnSgetrf(call.handle(), m, n, a + b * step, m, work.data_ptr<T>(), ipiv + b * k, codes + b), op);
      } else {
        check_solver(
            cusolverDnDgetrf(call.handle(), m, n, a + b * step, m, work.data_ptr<T>(), ipiv + b * k, codes + b), op);
      }
    }
  });
  if (check_errors) check_linalg_info(op, info, LinalgFailure::kLuFactor);
}

void lu_solve(const OutputMeta& /*m*/, const Tensor& out, const Tensor& lu, const Tensor& pivots, const Tensor& b,
              bool left, bool adjoint) {
  const char* op = "linalg.lu_solve";
  visit_dtype<kSolverTypes>(b.dtype(), "lu_solve_cuda", [](auto) {});
  const Device device = cuda_device_of(op, {&out, &lu, &pivots, &b});
  const DeviceGuard guard(device);
  const IntArrayRef batch(out.sizes().data(), static_cast<std::size_t>(out.dim() - 2));
  const Tensor factors = column_major(expand_batch(lu, batch, 2));
  const Tensor ipiv = expand_batch(pivots, batch, 1).contiguous();
  const int n = solver_int(lu.size(-1), op);
  // getrs swaps row i with row pivots[i] - 1 unchecked: every pivot in [1, n] first (as on the CPU).
  if (const auto bad = find_bad(op, as_int64(ipiv), 1, I64{n} + 1))
    WICK_CHECK(false, IndexError, op, ": pivots must be row numbers in [1, ", n, "], but found ", bad->second);
  // left: A X = B (A^T X = B with adjoint: real matrices); right: X A = B
  // as A^T X^T = B^T, and X A^T = B as A Y = B^T with X = Y^T.
  const cublasOperation_t trans = left == adjoint ? CUBLAS_OP_T : CUBLAS_OP_N;
  Tensor rhs = expand_batch(b, batch, 2);
  if (!left) rhs = rhs.transpose(-2, -1);
  Tensor x = left ? out : column_major_copy(rhs);
  if (left) x.copy_(rhs);
  if (x.numel() > 0 && n > 0) {
    const int nrhs = solver_int(x.size(-1), op);
    const I64 batches = batch_count(x);
    const Tensor info = scratch(batches, ScalarType::kInt32, device);
    visit_dtype<kSolverTypes>(b.dtype(), "lu_solve_cuda", [&](auto tag) {
      using T = decltype(tag);
      const SolverCall call(device, op);
      const T* a = factors.data_ptr<T>();
      T* xp = x.data_ptr<T>();
      const int* piv = ipiv.data_ptr<int>();
      const I64 a_step = checked_mul(n, n, op);
      const I64 x_step = checked_mul(n, nrhs, op);
      for (I64 k = 0; k < batches; ++k) {
        if constexpr (std::is_same_v<T, float>) {
          check_solver(cusolverDnSgetrs(call.handle(), trans, n, nrhs, a + k * a_step, n, piv + k * n, xp + k * x_step,
                                        n, info.data_ptr<int>() + k),
                       op);
        } else {
          check_solver(cusolverDnDgetrs(call.handle(), trans, n, nrhs, a + k * a_step, n, piv + k * n, xp + k * x_step,
                                        n, info.data_ptr<int>() + k),
                       op);
        }
      }
    });
  }
  if (!left) Tensor(out).copy_(x.transpose(-2, -1));
}

void cholesky_ex(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& self, bool upper,
                 bool check_errors) {
  const char* op = "linalg.cholesky_ex";
  const Tensor& factor = outs[0];
  Tensor info = outs[1];
  visit_dtype<kSolverTypes>(self.dtype(), "cholesky_cuda", [](auto) {});
  Tensor(factor).copy_(self);
  const int n = solver_int(self.size(-1), op);
  const I64 batches = batch_count(self);
  if (n == 0 || batches == 0) {
    info.zero_();
    return;
  }
  const DeviceGuard guard(factor.device());
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  visit_dtype<kSolverTypes>(self.dtype(), "cholesky_cuda", [&](auto tag) {
    using T = decltype(tag);
    const SolverCall call(factor.device(), op);
    T* a = factor.data_ptr<T>();
    int lwork = 0;
    if constexpr (std::is_same_v<T, float>) {
      check_solver(cusolverDnSpotrf_bufferSize(call.handle(), uplo, n, a, n, &lwork), op);
    } else {
      check_solver(cusolverDnDpotrf_bufferSize(call.handle(), uplo, n, a, n, &lwork), op);
    }
    const Tensor work = scratch(lwork, self.dtype(), factor.device());
    int* codes = info.data_ptr<int>();
    const I64 step = checked_mul(n, n, op);
    for (I64 k = 0; k < batches; ++k) {
      if constexpr (std::is_same_v<T, float>) {
        check_solver(cusolverDnSpotrf(call.handle(), uplo, n, a + k * step, n, work.data_ptr<T>(), lwork, codes + k),
                     op);
      } else {
        check_solver(cusolverDnDpotrf(call.handle(), uplo, n, a + k * step, n, work.data_ptr<T>(), lwork, codes + k),
                     op);
      }
    }
  });
  // cuSOLVER, as LAPACK, leaves the other triangle as it was: zero it.
  Tensor(factor).copy_(upper ? triu(factor) : tril(factor));
  if (check_errors) check_linalg_info(op, info, LinalgFailure::kCholesky);
}

void solve_triangular(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, const Tensor& b, bool upper,
                      bool left, bool unitriangular) {
  const char* op = "linalg.solve_triangular";
  visit_dtype<kSolverTypes>(out.dtype(), "triangular_solve_cuda", [](auto) {});
  const Device device = cuda_device_of(op, {&out, &self, &b});
  const DeviceGuard guard(device);
  const IntArrayRef batch(out.sizes().data(), static_cast<std::size_t>(out.dim() - 2));
  const Tensor a = column_major(expand_batch(self, batch, 2).to(out.dtype()));
  Tensor(out).copy_(expand_batch(b, batch, 2));
  if (out.numel() == 0) return;
  const int rows = solver_int(out.size(-2), op);
  const int cols = solver_int(out.size(-1), op);
  const int n = std::max(solver_int(self.size(-1), op), 1);
  const I64 batches = batch_count(out);
  const cublasSideMode_t side = left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const cublasFillMode_t uplo = upper ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
  const cublasDiagType_t diag = unitriangular ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
  // trsm divides by the diagonal without a singularity check: a zero there
  // gives infinities and NaNs, as on the CPU and in PyTorch.
  visit_dtype<kSolverTypes>(out.dtype(), "triangular_solve_cuda", [&](auto tag) {
    using T = decltype(tag);
    const BlasCall call(device, op);
    const T* ap = a.data_ptr<T>();
    T* xp = out.data_ptr<T>();
    const T one(1);
    const I64 a_step = checked_mul(n, n, op);
    const I64 x_step = checked_mul(rows, cols, op);
    for (I64 k = 0; k < batches; ++k) {
      if constexpr (std::is_same_v<T, float>) {
        check_cublas(cublasStrsm(call.handle(), side, uplo, CUBLAS_OP_N, diag, rows, cols, &one, ap + k * a_step, n,
                                 xp + k * x_step, std::max(rows, 1)),
                     op);
      } else {
        check_cublas(cublasDtrsm(call.handle(), side, uplo, CUBLAS_OP_N, diag, rows, cols, &one, ap + k * a_step, n,
                                 xp + k * x_step, std::max(rows, 1)),
                     op);
      }
    }
  });
}

// --- on the host (Note [Linear algebra on the device]) ----------------------------------------------

void eigh(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& self, std::string_view uplo) {
  const auto [values, vectors] = linalg::eigh(on_host(self), uplo);
  write_back(outs[0], values);
  write_back(outs[1], vectors);
}

void eig(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& input) {
  const auto [values, vectors] = linalg::eig(on_host(input));
  write_back(outs[0], values);
  write_back(outs[1], vectors);
}

void qr(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& a, std::string_view mode) {
  const auto [q, r] = linalg::qr(on_host(a), mode);
  write_back(outs[0], q);
  write_back(outs[1], r);
}

// driver= picks among cuSOLVER's SVD algorithms in PyTorch; every one gives
// the same factorization (up to rounding and signs), and the host computes it.
void svd(const LinalgSvdMeta& /*m*/, const std::array<Tensor, 3>& outs, const Tensor& a, bool full_matrices,
         std::optional<std::string_view> driver) {
  WICK_CHECK(!driver || *driver == "gesvd" || *driver == "gesvdj" || *driver == "gesvda", RuntimeError,
             "torch.linalg.svd: unknown driver '", *driver, "': expected one of gesvd, gesvdj and gesvda");
  const auto [u, s, vh] = linalg::svd(on_host(a), full_matrices);
  write_back(outs[0], u);
  write_back(outs[1], s);
  write_back(outs[2], vh);
}

void geqrf(const LinalgPairMeta& /*m*/, const std::array<Tensor, 2>& outs, const Tensor& self) {
  const auto [a, tau] = wick::geqrf(on_host(self));
  write_back(outs[0], a);
  write_back(outs[1], tau);
}

void ldl_factor_ex(const LuFactorMeta& /*m*/, const std::array<Tensor, 3>& outs, const Tensor& self, bool hermitian,
                   bool check_errors) {
  const auto [ld, pivots, info] = linalg::ldl_factor_ex(on_host(self), hermitian, check_errors);
  write_back(outs[0], ld);
  write_back(outs[1], pivots);
  write_back(outs[2], info);
}

void ldl_solve(const OutputMeta& /*m*/, const Tensor& out, const Tensor& ld, const Tensor& pivots, const Tensor& b,
               bool hermitian) {
  write_back(out, linalg::ldl_solve(on_host(ld), on_host(pivots), on_host(b), hermitian));
}

}  // namespace wick::cuda_backend
