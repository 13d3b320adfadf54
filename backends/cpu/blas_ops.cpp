// backends/cpu/blas_ops.cpp - mm, bmm, addmm, mv and dot through OpenBLAS.
/// \file
/// float32/float64 matrices go to cblas_sgemm/dgemm (gemv, dot for vectors),
/// complex ones to cblas_cgemm/zgemm. float16 and bfloat16 matrices are
/// converted to float32, multiplied by sgemm and rounded back once
/// (Note [16-bit matrix products]), but bfloat16 goes to oneDNN where the
/// build has it (Note [bfloat16 matrix products on oneDNN], onednn.h). A transposed operand
/// (unit stride along rows) is passed as a transpose flag with its leading
/// dimension, never copied; only operands with no unit stride are made
/// contiguous first. Integer matrices use a plain triple loop. Each is the
/// computation of an operator whose meta function
/// (dispatch/ops/meta_linalg.cpp) checked the operands and gave the
/// contiguous output (Note [Structured kernels] in wick/structured.h).
#include <cblas.h>

#include <complex>

#include <wick/meta.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"
#include "onednn.h"

namespace wick::cpu {
namespace {

struct BlasOperand {
  Tensor t;  // keeps a contiguous copy alive when one was needed
  CBLAS_TRANSPOSE trans = CblasNoTrans;
  int ld = 1;
};

// Describes a [rows, cols] matrix view for BLAS (row-major).
BlasOperand blas_operand(const Tensor& m, std::int64_t row_stride, std::int64_t col_stride, std::int64_t rows,
                         std::int64_t cols) {
  BlasOperand o;
  if (col_stride == 1 && (row_stride >= std::max<std::int64_t>(cols, 1) || rows == 1)) {
    o.t = m;
    o.ld = static_cast<int>(std::max<std::int64_t>(rows == 1 ? cols : row_stride, 1));
  } else if (row_stride == 1 && (col_stride >= std::max<std::int64_t>(rows, 1) || cols == 1)) {
    o.t = m;
    o.trans = CblasTrans;
    o.ld = static_cast<int>(std::max<std::int64_t>(cols == 1 ? rows : col_stride, 1));
  } else {
    o.t = m.contiguous();
    o.ld = static_cast<int>(std::max<std::int64_t>(cols, 1));
  }
  return o;
}

// c = alpha * a @ b + beta * c (c row-major, contiguous).
template <typename T>
void gemm(const T* a, const BlasOperand& oa, const T* b, const BlasOperand& ob, T* c, std::int64_t n, std::int64_t k,
          std::int64_t p, T alpha, T beta) {
  const int ldc = static_cast<int>(std::max<std::int64_t>(p, 1));
  const auto in = static_cast<int>(n);
  const auto ip = static_cast<int>(p);
  const auto ik = static_cast<int>(k);
  (void)team_size();  // OpenBLAS threads as wick::set_num_threads says (backends/cpu/loops.h)
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, oa.trans, ob.trans, in, ip, ik, alpha, a, oa.ld, b, ob.ld, beta, c, ldc);
  } else if constexpr (std::is_same_v<T, double>) {
    cblas_dgemm(CblasRowMajor, oa.trans, ob.trans, in, ip, ik, alpha, a, oa.ld, b, ob.ld, beta, c, ldc);
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    cblas_cgemm(CblasRowMajor, oa.trans, ob.trans, in, ip, ik, &alpha, a, oa.ld, b, ob.ld, &beta, c, ldc);
  } else {
    static_assert(std::is_same_v<T, std::complex<double>>);
    cblas_zgemm(CblasRowMajor, oa.trans, ob.trans, in, ip, ik, &alpha, a, oa.ld, b, ob.ld, &beta, c, ldc);
  }
}

// Note [16-bit matrix products]
// Debian 12's OpenBLAS is built without its bfloat16 kernels (no sbgemm
// symbol) and has no half ones, so float16 and bfloat16 products convert
// each operand to float32 (F16C for half: backends/cpu/copy_ops.cpp),
// multiply with sgemm and round the float32 result once. PyTorch 1.13's CPU
// also accumulates them in float32, so the results agree to the last bit
// but for the order of the sums. Measured in tools/bench (tools/bench/README.md).
void batched_matmul(const char* op, const Tensor& a, const Tensor& m, const Tensor& out, const Scalar& alpha,
                    const Scalar& beta);
void reduced_matmul(const char* op, const Tensor& a, const Tensor& m, const Tensor& out, const Scalar& alpha,
                    const Scalar& beta) {
  Tensor acc = make_empty(out.sizes(), ScalarType::kFloat32);
  if (!(beta.is_integral() && beta.to<std::int64_t>() == 0)) acc.copy_(out);
  batched_matmul(op, a.to(ScalarType::kFloat32), m.to(ScalarType::kFloat32), acc, alpha, beta);
  Tensor o = out;
  o.copy_(acc);
}

// c[b] = alpha * a[b] @ m[b] + beta * c[b] for every batch; `a` is [B, n, k],
// `m` is [B, k, p], `out` contiguous [B, n, p]. With beta == 0 the old
// contents of `out` are ignored (NaN included), as BLAS does.
void batched_matmul(const char* op, const Tensor& a, const Tensor& m, const Tensor& out, const Scalar& alpha = 1,
                    const Scalar& beta = 0) {
  const std::int64_t batches = a.size(0);
  const std::int64_t n = a.size(1);
  const std::int64_t k = a.size(2);
  const std::int64_t p = m.size(2);
  if (out.numel() == 0) return;
  if (is_reduced_floating(a.dtype())) {
    // bfloat16 on oneDNN where it can (Note [bfloat16 matrix products on oneDNN]).
    if (!onednn_matmul(a, m, out, alpha.to<double>(), beta.to<double>())) reduced_matmul(op, a, m, out, alpha, beta);
    return;
  }
  // float16 and bfloat16 went to reduced_matmul.
  constexpr std::uint32_t kDirect = (dtypes::kAllAndComplex & ~dtypes::kFloating) |
                                    dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64);
  visit_dtype<kDirect>(a.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* c = static_cast<T*>(out.data_ptr());
    const T al = alpha.to<T>();
    const T be = beta.to<T>();
    if (k == 0) {  // nothing to multiply: out = beta * out
      for (std::int64_t i = 0; i < out.numel(); ++i) c[i] = be == T(0) ? T(0) : static_cast<T>(be * c[i]);
      return;
    }
    for (std::int64_t bi = 0; bi < batches; ++bi) {
      Tensor ab = a.select(0, bi);
      Tensor mb = m.select(0, bi);
      T* cb = c + bi * n * p;
      if constexpr (is_floating_v<T> || is_complex_v<T>) {
        BlasOperand oa = blas_operand(ab, ab.stride(0), ab.stride(1), n, k);
        BlasOperand om = blas_operand(mb, mb.stride(0), mb.stride(1), k, p);
        gemm<T>(static_cast<const T*>(oa.t.data_ptr()), oa, static_cast<const T*>(om.t.data_ptr()), om, cb, n, k, p, al,
                be);
      } else {
        const T* x = static_cast<const T*>(ab.data_ptr());
        const T* y = static_cast<const T*>(mb.data_ptr());
        const std::int64_t xs0 = ab.stride(0), xs1 = ab.stride(1), ys0 = mb.stride(0), ys1 = mb.stride(1);
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < p; ++j) {
            T acc = T(0);
            for (std::int64_t q = 0; q < k; ++q) {
              if constexpr (std::is_same_v<T, bool>) {
                acc = acc || (x[i * xs0 + q * xs1] && y[q * ys0 + j * ys1]);
              } else {
                acc += x[i * xs0 + q * xs1] * y[q * ys0 + j * ys1];
              }
            }
            if constexpr (std::is_same_v<T, bool>) {
              cb[i * p + j] = (al && acc) || (be && cb[i * p + j]);
            } else {
              cb[i * p + j] = static_cast<T>(al * acc + (be == T(0) ? T(0) : static_cast<T>(be * cb[i * p + j])));
            }
          }
      }
    }
  });
}

using M = OutputMeta;

}  // namespace

void mm(const M& /*m*/, const Tensor& out, const Tensor& a, const Tensor& b) {
  batched_matmul("addmm_impl_cpu_", a.unsqueeze(0), b.unsqueeze(0), out);
}

void bmm(const M& /*m*/, const Tensor& out, const Tensor& a, const Tensor& b) {
  batched_matmul("bmm", a, b, out);
}

void addmm(const M& /*m*/, const Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
           const Scalar& beta, const Scalar& alpha) {
  // out starts as self broadcast to [n, p]; BLAS then adds alpha * mat1 @ mat2.
  Tensor c = out;
  c.copy_(self.expand(out.sizes()));
  batched_matmul("addmm_impl_cpu_", mat1.unsqueeze(0), mat2.unsqueeze(0), out, alpha, beta);
}

void mv(const M& /*m*/, const Tensor& out, const Tensor& self, const Tensor& vec) {
  batched_matmul("addmv_impl_cpu", self.unsqueeze(0), vec.unsqueeze(1).unsqueeze(0), out);
}

void dot(const M& /*m*/, const Tensor& out, const Tensor& self, const Tensor& other) {
  visit_dtype<dtypes::kAllAndComplex>(self.dtype(), "dot", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {  // refused by the meta function
      const T* x = static_cast<const T*>(self.data_ptr());
      const T* y = static_cast<const T*>(other.data_ptr());
      const std::int64_t n = self.numel();
      const std::int64_t sx = self.stride(0);
      const std::int64_t sy = other.stride(0);
      using C = compute_type_t<T>;
      C r = C(0);
      if constexpr (std::is_same_v<T, float>) {
        r = n == 0 ? 0.0f : cblas_sdot(static_cast<int>(n), x, static_cast<int>(sx), y, static_cast<int>(sy));
      } else if constexpr (std::is_same_v<T, double>) {
        r = n == 0 ? 0.0 : cblas_ddot(static_cast<int>(n), x, static_cast<int>(sx), y, static_cast<int>(sy));
      } else {
        for (std::int64_t i = 0; i < n; ++i) r = static_cast<C>(r + C(x[i * sx]) * C(y[i * sy]));
      }
      *static_cast<T*>(out.data_ptr()) = static_cast<T>(r);
    }
  });
}

}  // namespace wick::cpu
