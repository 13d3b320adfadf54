// backends/cpu/blas_ops.cpp - mm and bmm through OpenBLAS.
/// \file
/// float32/float64 matrices go to cblas_sgemm/dgemm. A transposed operand
/// (unit stride along rows) is passed as a transpose flag with its leading
/// dimension, never copied; only operands with no unit stride are made
/// contiguous first. Integer matrices use a plain triple loop.
#include <cblas.h>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/loops.h"

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

template <typename T>
void gemm(const T* a, const BlasOperand& oa, const T* b, const BlasOperand& ob, T* c, std::int64_t n, std::int64_t k,
          std::int64_t p) {
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, oa.trans, ob.trans, static_cast<int>(n), static_cast<int>(p), static_cast<int>(k), 1.0f,
                a, oa.ld, b, ob.ld, 0.0f, c, static_cast<int>(std::max<std::int64_t>(p, 1)));
  } else {
    cblas_dgemm(CblasRowMajor, oa.trans, ob.trans, static_cast<int>(n), static_cast<int>(p), static_cast<int>(k), 1.0,
                a, oa.ld, b, ob.ld, 0.0, c, static_cast<int>(std::max<std::int64_t>(p, 1)));
  }
}

// c[b] = a[b] @ m[b] for every batch; `a` is [B, n, k], `m` is [B, k, p].
void batched_matmul(const char* op, const Tensor& a, const Tensor& m, const Tensor& out) {
  const std::int64_t batches = a.size(0);
  const std::int64_t n = a.size(1);
  const std::int64_t k = a.size(2);
  const std::int64_t p = m.size(2);
  if (out.numel() == 0) return;
  if (k == 0) {
    Tensor o = out;
    o.fill_(0);
    return;
  }
  visit_dtype(a.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* c = static_cast<T*>(out.data_ptr());
    for (std::int64_t bi = 0; bi < batches; ++bi) {
      Tensor ab = a.select(0, bi);
      Tensor mb = m.select(0, bi);
      T* cb = c + bi * n * p;
      if constexpr (std::is_floating_point_v<T>) {
        BlasOperand oa = blas_operand(ab, ab.stride(0), ab.stride(1), n, k);
        BlasOperand om = blas_operand(mb, mb.stride(0), mb.stride(1), k, p);
        gemm<T>(static_cast<const T*>(oa.t.data_ptr()), oa, static_cast<const T*>(om.t.data_ptr()), om, cb, n, k, p);
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
            cb[i * p + j] = acc;
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

}  // namespace

void register_blas_ops(Library& torch) { torch.impl("mm", &mm).impl("bmm", &bmm); }

}  // namespace wick::cpu
