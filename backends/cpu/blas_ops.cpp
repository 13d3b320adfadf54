// backends/cpu/blas_ops.cpp - mm, bmm, addmm, mv and dot through OpenBLAS.
/// \file
/// float32/float64 matrices go to cblas_sgemm/dgemm (gemv, dot for vectors). A transposed operand
/// (unit stride along rows) is passed as a transpose flag with its leading
/// dimension, never copied; only operands with no unit stride are made
/// contiguous first. Integer matrices use a plain triple loop.
#include <cblas.h>

#include "cpu_kernels.h"
#include "loops.h"

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
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, oa.trans, ob.trans, static_cast<int>(n), static_cast<int>(p), static_cast<int>(k), alpha,
                a, oa.ld, b, ob.ld, beta, c, static_cast<int>(std::max<std::int64_t>(p, 1)));
  } else {
    cblas_dgemm(CblasRowMajor, oa.trans, ob.trans, static_cast<int>(n), static_cast<int>(p), static_cast<int>(k), alpha,
                a, oa.ld, b, ob.ld, beta, c, static_cast<int>(std::max<std::int64_t>(p, 1)));
  }
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
  visit_dtype(a.dtype(), op, [&](auto tag) {
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
      if constexpr (std::is_floating_point_v<T>) {
        BlasOperand oa = blas_operand(ab, ab.stride(0), ab.stride(1), n, k);
        BlasOperand om = blas_operand(mb, mb.stride(0), mb.stride(1), k, p);
        gemm<T>(static_cast<const T*>(oa.t.data_ptr()), oa, static_cast<const T*>(om.t.data_ptr()), om, cb, n, k, p,
                al, be);
      } else {
        const T* x = static_cast<const T*>(ab.data_ptr());
        const T* y = static_cast<const T*>(mb.data_ptr());
        const std::int64_t xs0 = ab.stride(0), xs1 = ab.stride(1), ys0 = mb.stride(0), ys1 = mb.stride(1);
        for (std::int64_t i = 0; i < n; ++i)
          for (std::int64_t j = 0; j < p; ++j) {
            T acc = 0;
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

void check_same_dtype(const char* op, const Tensor& a, const Tensor& b) {
  WICK_CHECK(a.dtype() == b.dtype(), RuntimeError, op, ": expected scalar type ", type_title(a.dtype()),
             " but found ", type_title(b.dtype()));
  common_device(op, a, b);
}

Tensor mm(const Tensor& a, const Tensor& b) {
  const char* op = "torch.mm";
  WICK_CHECK(a.dim() == 2, RuntimeError, op, ": self must be a matrix");
  WICK_CHECK(b.dim() == 2, RuntimeError, op, ": mat2 must be a matrix");
  WICK_CHECK(a.size(1) == b.size(0), RuntimeError, op, ": mat1 and mat2 shapes cannot be multiplied (", a.size(0), "x",
             a.size(1), " and ", b.size(0), "x", b.size(1), ")");
  check_same_dtype(op, a, b);
  Tensor out = make_empty({a.size(0), b.size(1)}, a.dtype(), a.device());
  batched_matmul(op, a.unsqueeze(0), b.unsqueeze(0), out);
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  const char* op = "torch.bmm";
  WICK_CHECK(a.dim() == 3, RuntimeError, op, ": batch1 must be a 3D tensor");
  WICK_CHECK(b.dim() == 3, RuntimeError, op, ": batch2 must be a 3D tensor");
  WICK_CHECK(a.size(0) == b.size(0), RuntimeError, op, ": batch1 and batch2 must have same number of batches, got ",
             a.size(0), " and ", b.size(0));
  WICK_CHECK(a.size(2) == b.size(1), RuntimeError, op, ": Expected size for first two dimensions of batch2 tensor to be: [",
             a.size(0), ", ", a.size(2), "] but got: [", b.size(0), ", ", b.size(1), "].");
  check_same_dtype(op, a, b);
  Tensor out = make_empty({a.size(0), a.size(1), b.size(2)}, a.dtype(), a.device());
  batched_matmul(op, a, b, out);
  return out;
}

Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  const char* op = "torch.addmm";
  WICK_CHECK(mat1.dim() == 2, RuntimeError, op, ": mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  WICK_CHECK(mat2.dim() == 2, RuntimeError, op, ": mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  WICK_CHECK(mat1.size(1) == mat2.size(0), RuntimeError, op, ": mat1 and mat2 shapes cannot be multiplied (",
             mat1.size(0), "x", mat1.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
  WICK_CHECK(self.dtype() == mat2.dtype() && mat1.dtype() == mat2.dtype(), RuntimeError, op,
             ": self and mat2 must have the same dtype");
  common_device(op, self, mat1);
  common_device(op, mat1, mat2);
  const std::int64_t n = mat1.size(0);
  const std::int64_t p = mat2.size(1);
  Tensor out = make_empty({n, p}, self.dtype(), self.device());
  // out starts as self broadcast to [n, p]; BLAS then adds alpha * mat1 @ mat2.
  out.copy_(self.expand({n, p}));
  batched_matmul(op, mat1.unsqueeze(0), mat2.unsqueeze(0), out, alpha, beta);
  return out;
}

Tensor mv(const Tensor& self, const Tensor& vec) {
  const char* op = "torch.mv";
  WICK_CHECK(self.dim() == 2 && vec.dim() == 1, RuntimeError, op, ": vector + matrix @ vector expected, got 1, ",
             self.dim(), ", ", vec.dim());
  WICK_CHECK(self.size(1) == vec.size(0), RuntimeError, op, ": size mismatch, got ", self.size(0), ", ", self.size(0),
             "x", self.size(1), ",", vec.size(0));
  check_same_dtype(op, self, vec);
  Tensor out = make_empty({self.size(0)}, self.dtype(), self.device());
  batched_matmul(op, self.unsqueeze(0), vec.unsqueeze(1).unsqueeze(0), out);
  return out;
}

Tensor dot(const Tensor& self, const Tensor& other) {
  const char* op = "torch.dot";
  WICK_CHECK(self.dim() == 1 && other.dim() == 1, RuntimeError, op, ": 1D tensors expected, but got ", self.dim(),
             "D and ", other.dim(), "D tensors");
  WICK_CHECK(self.dtype() == other.dtype(), RuntimeError, op, ": expected both vectors to have same dtype, but found ",
             type_title(self.dtype()), " and ", type_title(other.dtype()));
  WICK_CHECK(self.numel() == other.numel(), RuntimeError, op, ": inconsistent tensor size, expected tensor [",
             self.numel(), "] and src [", other.numel(), "] to have the same number of elements, but got ",
             self.numel(), " and ", other.numel(), " elements respectively");
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"dot\" not implemented for 'Bool'");
  common_device(op, self, other);
  Tensor out = make_empty({}, self.dtype(), self.device());
  visit_dtype(self.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {
      const T* x = static_cast<const T*>(self.data_ptr());
      const T* y = static_cast<const T*>(other.data_ptr());
      const std::int64_t n = self.numel();
      const std::int64_t sx = self.stride(0);
      const std::int64_t sy = other.stride(0);
      T r = 0;
      if constexpr (std::is_same_v<T, float>) {
        r = n == 0 ? 0.0f : cblas_sdot(static_cast<int>(n), x, static_cast<int>(sx), y, static_cast<int>(sy));
      } else if constexpr (std::is_same_v<T, double>) {
        r = n == 0 ? 0.0 : cblas_ddot(static_cast<int>(n), x, static_cast<int>(sx), y, static_cast<int>(sy));
      } else {
        for (std::int64_t i = 0; i < n; ++i) r = static_cast<T>(r + x[i * sx] * y[i * sy]);
      }
      *static_cast<T*>(out.data_ptr()) = r;
    }
  });
  return out;
}

}  // namespace

void register_blas_ops(Library& torch) {
  torch.impl("mm", &mm).impl("bmm", &bmm).impl("addmm", &addmm).impl("mv", &mv).impl("dot", &dot);
}

}  // namespace wick::cpu
