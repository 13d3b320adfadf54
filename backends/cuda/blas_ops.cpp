// backends/cuda/blas_ops.cpp - mm, bmm, addmm, mv and dot through cuBLAS.
/// \file
/// float32/float64 products go to cuBLAS (gemm, strided-batched gemm, gemv,
/// dot); float16 and bfloat16 ones to cublasGemmEx on tensor cores (Note
/// [16-bit products]); bool, int32 and int64 ones, which the CPU backend
/// also accepts, go to a tiled kernel (blas_kernels.cu). uint8, int8,
/// int16 and complex products are refused with PyTorch's message and CUDA
/// kernel name (`"addmm_cuda" not implemented for 'Char'`). Each is the
/// computation of an operator whose meta function
/// (dispatch/ops/meta_linalg.cpp) checked the operands, for every backend
/// with the same messages, and gave the contiguous output the glue
/// allocated on the device (Note [Structured kernels] in wick/structured.h).
///
/// Note [Row-major products in cuBLAS]
/// cuBLAS reads column-major matrices, and a row-major [r, c] matrix with
/// row stride ld is, read column-major, its transpose [c, r] with leading
/// dimension ld. So C = A B (C row-major [n, p]) is computed as
/// C^T = B^T A^T: cuBLAS's first operand is B, its second A, m = p, n = n,
/// and C^T's leading dimension is p. An operand whose columns are
/// contiguous is passed as is (CUBLAS_OP_N); one whose rows are contiguous
/// (a transposed view) is the column-major matrix itself and goes with
/// CUBLAS_OP_T; only an operand with neither unit stride is copied. A bmm
/// operand of any batch stride (0 for an expanded batch) is one strided-
/// batched call. The 64-bit cuBLAS entry points take every size as is.
///
/// Note [16-bit products]
/// float16 and bfloat16 matrices (mm, bmm, addmm, and linear, matmul, mv
/// and dot, which reach them) go to cublasGemmEx / cublasGemmStridedBatchedEx
/// with float32 accumulation (CUBLAS_COMPUTE_32F) and float alpha and beta
/// (not rounded to 16 bits), their output in the inputs' dtype, rounded once;
/// cuBLAS picks tensor-core kernels for them in its default math mode, as
/// PyTorch's defaults do (reduced-precision split-k reductions allowed).
/// The TF32 switch (Note [TF32]) concerns float32 only.
///
/// Note [cuBLAS handles]
/// One handle per device, made on first use with the device current, and
/// never destroyed (destroying it from a static destructor would race with
/// the CUDA runtime's own teardown). A call takes the handle's lock, points
/// the handle at the calling thread's current stream and queues the work;
/// the lock is held only while queueing, never while the GPU runs, and
/// nothing synchronises.
#include <cublas_v2.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <mutex>
#include <type_traits>

#include <wick/backends.h>
#include <wick/meta.h>
#include <wick/tensor_util.h>

#include "blas_call.h"
#include "blas_kernels.h"
#include "cuda_common.h"
#include "cuda_ops.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;

// --- handles (Note [cuBLAS handles]) -------------------------------------------------------------

constexpr int kMaxDevices = 64;

BlasHandleSlot& handle_slot(int device) {
  static std::array<BlasHandleSlot, kMaxDevices> slots;
  WICK_CHECK(device >= 0 && device < kMaxDevices, RuntimeError, "cuBLAS: device index ", device, " out of range");
  return slots[static_cast<std::size_t>(device)];
}

}  // namespace

void check_cublas(cublasStatus_t status, const char* op) {
  WICK_CHECK(status == CUBLAS_STATUS_SUCCESS, RuntimeError, op, ": cuBLAS error: ", cublasGetStatusString(status));
}

BlasCall::BlasCall(Device device, const char* op) : slot_(handle_slot(device.index())), lock_(slot_.mutex) {
  if (slot_.handle == nullptr) check_cublas(cublasCreate(&slot_.handle), op);
  check_cublas(cublasSetStream(slot_.handle, current_stream()), op);
  // Note [TF32] (wick/backends.h): float32 products use TF32 only when allowed.
  const bool tf32 = backends::cuda_matmul_allow_tf32();
  if (tf32 != slot_.tf32) {
    check_cublas(cublasSetMathMode(slot_.handle, tf32 ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH), op);
    slot_.tf32 = tf32;
  }
}

namespace {

// --- operands (Note [Row-major products in cuBLAS]) ----------------------------------------------

struct Operand {
  Tensor t;  // the tensor cuBLAS reads: `m` itself, or a contiguous copy
  cublasOperation_t op = CUBLAS_OP_N;
  I64 ld = 1;
};

Tensor contiguous_copy(const Tensor& t) {
  Tensor c = make_empty(t.sizes(), t.dtype(), t.device());
  if (c.numel() > 0) copy_within_device(c, t);
  return c;
}

// The batched row-major [B, rows, cols] operand `m` as cuBLAS reads it.
Operand operand(const Tensor& m) {
  const I64 rows = m.size(1);
  const I64 cols = m.size(2);
  const I64 rs = m.stride(1);
  const I64 cs = m.stride(2);
  Operand o;
  if (cs == 1 && (rs >= std::max<I64>(cols, 1) || rows == 1)) {
    o.t = m;
    o.ld = rows == 1 ? std::max<I64>(cols, 1) : rs;
  } else if (rs == 1 && (cs >= std::max<I64>(rows, 1) || cols == 1)) {
    o.t = m;
    o.op = CUBLAS_OP_T;
    o.ld = cols == 1 ? std::max<I64>(rows, 1) : cs;
  } else {
    o.t = contiguous_copy(m);
    o.ld = std::max<I64>(cols, 1);
  }
  return o;
}

// Host-side alpha and beta converted to the element type, as the CPU does.
template <typename T>
T scalar_as(const Scalar& s) {
  return s.to<T>();
}

IntGemmType int_type(ScalarType t) {
  switch (t) {
    case ScalarType::kBool:
      return IntGemmType::kBool;
    case ScalarType::kInt32:
      return IntGemmType::kInt32;
    default:
      return IntGemmType::kInt64;
  }
}

// out = beta * out where nothing is multiplied (k == 0); beta 0 writes zeros.
void scale_only(const char* op, const Tensor& out, const Scalar& beta) {
  visit_dtype(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T be = scalar_as<T>(beta);
    Tensor o = out;
    if (be == T(0)) {
      o.fill_(0);
    } else if constexpr (!std::is_same_v<T, bool>) {  // bool: beta is true, out stays
      o.mul_(wrap_scalar(Scalar(be)));
    }
  });
}

// The dtypes with a product on the device: cuBLAS's floating ones and the
// tiled kernel's bool, int32 and int64.
bool has_product(ScalarType t) {
  return is_floating(t) || t == ScalarType::kBool || t == ScalarType::kInt32 || t == ScalarType::kInt64;
}

// float16 / bfloat16 through cublasGemmEx (Note [16-bit products]).
void gemm_16bit(const char* op, const BlasCall& call, const Operand& oa, const Operand& om, const Tensor& out,
                I64 batches, I64 n, I64 k, I64 p, const Scalar& alpha, const Scalar& beta) {
  const cudaDataType_t t = out.dtype() == ScalarType::kFloat16 ? CUDA_R_16F : CUDA_R_16BF;
  const float al = alpha.to<float>();
  const float be = beta.to<float>();
  const void* pa = oa.t.data_ptr();
  const void* pm = om.t.data_ptr();
  void* pc = out.data_ptr();
  // The 32-bit entry point where the sizes fit, as PyTorch and the raw
  // benchmark call it: on the H100, wick_mm_bf16 at n = 8192 through the
  // 64-bit one did not finish (backends/cuda/README.md).
  const bool fits = std::max({p, n, k, om.ld, oa.ld}) <= I64{std::numeric_limits<int>::max()};
  if (batches == 1 && fits) {
    check_cublas(cublasGemmEx(call.handle(), om.op, oa.op, static_cast<int>(p), static_cast<int>(n),
                              static_cast<int>(k), &al, pm, t, static_cast<int>(om.ld), pa, t, static_cast<int>(oa.ld),
                              &be, pc, t, static_cast<int>(p), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 op);
  } else if (batches == 1) {
    check_cublas(cublasGemmEx_64(call.handle(), om.op, oa.op, p, n, k, &al, pm, t, om.ld, pa, t, oa.ld, &be, pc, t, p,
                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 op);
  } else {
    check_cublas(cublasGemmStridedBatchedEx_64(call.handle(), om.op, oa.op, p, n, k, &al, pm, t, om.ld, om.t.stride(0),
                                               pa, t, oa.ld, oa.t.stride(0), &be, pc, t, p, n * p, batches,
                                               CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 op);
  }
}

// out[b] = alpha * a[b] @ m[b] + beta * out[b]: a [B, n, k], m [B, k, p], out
// contiguous [B, n, p] on the current device; beta == 0 ignores out (NaN too).
// `kernel`: PyTorch's CUDA kernel name, for a dtype without a product.
void batched_matmul(const char* op, const char* kernel, const Tensor& a, const Tensor& m, const Tensor& out,
                    const Scalar& alpha = 1, const Scalar& beta = 0) {
  const I64 batches = a.size(0);
  const I64 n = a.size(1);
  const I64 k = a.size(2);
  const I64 p = m.size(2);
  const ScalarType dtype = a.dtype();
  if (!has_product(dtype)) throw_not_implemented_for(kernel, dtype);
  if (out.numel() == 0) return;
  DeviceGuard guard(out.device());
  if (k == 0) {
    scale_only(op, out, beta);
    return;
  }
  if (!is_floating(dtype)) {
    IntGemmArgs args;
    args.a = a.data_ptr();
    args.m = m.data_ptr();
    args.c = out.data_ptr();
    args.type = int_type(dtype);
    args.batches = batches;
    args.n = n;
    args.k = k;
    args.p = p;
    for (int d = 0; d < 3; ++d) {
      args.a_stride[d] = a.stride(d);
      args.m_stride[d] = m.stride(d);
    }
    if (dtype == ScalarType::kBool) {
      args.alpha = alpha.to<bool>() ? 1 : 0;
      args.beta = beta.to<bool>() ? 1 : 0;
    } else if (dtype == ScalarType::kInt32) {
      args.alpha = scalar_as<std::int32_t>(alpha);
      args.beta = scalar_as<std::int32_t>(beta);
    } else {
      args.alpha = scalar_as<I64>(alpha);
      args.beta = scalar_as<I64>(beta);
    }
    launch_int_gemm(args, current_stream());
    check_launch(op);
    return;
  }
  const Operand oa = operand(a);
  const Operand om = operand(m);
  const BlasCall call(out.device(), op);
  const I64 a_batch = oa.t.stride(0);
  const I64 m_batch = om.t.stride(0);
  if (is_reduced_floating(dtype)) {
    gemm_16bit(op, call, oa, om, out, batches, n, k, p, alpha, beta);
  } else if (dtype == ScalarType::kFloat32) {
    const float al = scalar_as<float>(alpha);
    const float be = scalar_as<float>(beta);
    const auto* pa = static_cast<const float*>(oa.t.data_ptr());
    const auto* pm = static_cast<const float*>(om.t.data_ptr());
    auto* pc = static_cast<float*>(out.data_ptr());
    if (batches == 1) {
      check_cublas(cublasSgemm_64(call.handle(), om.op, oa.op, p, n, k, &al, pm, om.ld, pa, oa.ld, &be, pc, p), op);
    } else {
      check_cublas(cublasSgemmStridedBatched_64(call.handle(), om.op, oa.op, p, n, k, &al, pm, om.ld, m_batch, pa,
                                                oa.ld, a_batch, &be, pc, p, n * p, batches),
                   op);
    }
  } else {
    const double al = scalar_as<double>(alpha);
    const double be = scalar_as<double>(beta);
    const auto* pa = static_cast<const double*>(oa.t.data_ptr());
    const auto* pm = static_cast<const double*>(om.t.data_ptr());
    auto* pc = static_cast<double*>(out.data_ptr());
    if (batches == 1) {
      check_cublas(cublasDgemm_64(call.handle(), om.op, oa.op, p, n, k, &al, pm, om.ld, pa, oa.ld, &be, pc, p), op);
    } else {
      check_cublas(cublasDgemmStridedBatched_64(call.handle(), om.op, oa.op, p, n, k, &al, pm, om.ld, m_batch, pa,
                                                oa.ld, a_batch, &be, pc, p, n * p, batches),
                   op);
    }
  }
}

using M = OutputMeta;

}  // namespace

void mm(const M& /*m*/, const Tensor& out, const Tensor& a, const Tensor& b) {
  batched_matmul("torch.mm", "addmm_cuda", a.unsqueeze(0), b.unsqueeze(0), out.unsqueeze(0));
}

void bmm(const M& /*m*/, const Tensor& out, const Tensor& a, const Tensor& b) {
  batched_matmul("torch.bmm", "bmm_cuda", a, b, out);
}

void addmm(const M& /*m*/, const Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2,
           const Scalar& beta, const Scalar& alpha) {
  if (!has_product(mat1.dtype())) throw_not_implemented_for("addmm_cuda", mat1.dtype());
  if (out.numel() == 0) return;
  // out starts as self broadcast to [n, p] (a 0-dim CPU self joins the
  // device); the product then adds alpha * mat1 @ mat2 (with beta == 0 it
  // is never read).
  const Device device = out.device();
  DeviceGuard guard(device);
  const Tensor bias = on_device(self, device).expand(out.sizes());
  if (beta.to<double>() != 0.0) copy_within_device(out, bias);
  batched_matmul("torch.addmm", "addmm_cuda", mat1.unsqueeze(0), mat2.unsqueeze(0), out.unsqueeze(0), alpha, beta);
}

namespace {

// y = A x for float A [n, k] through gemv; A's layout picks the transpose.
template <typename T>
void gemv(const char* op, const Tensor& a, const Tensor& x, const Tensor& out) {
  const I64 n = a.size(0);
  const I64 k = a.size(1);
  const Operand oa = operand(a.unsqueeze(0));
  Tensor xv = x;
  if (x.stride(0) <= 0) xv = contiguous_copy(x);
  const BlasCall call(out.device(), op);
  const T one = 1;
  const T zero = 0;
  // Row-major A (CUBLAS_OP_N in operand()) is, column-major, A^T [k, n]: y = (A^T)^T x.
  const bool row_major = oa.op == CUBLAS_OP_N;
  const cublasOperation_t trans = row_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  const I64 rows = row_major ? k : n;
  const I64 cols = row_major ? n : k;
  const auto* pa = static_cast<const T*>(oa.t.data_ptr());
  const auto* px = static_cast<const T*>(xv.data_ptr());
  auto* py = static_cast<T*>(out.data_ptr());
  if constexpr (std::is_same_v<T, float>) {
    check_cublas(cublasSgemv_64(call.handle(), trans, rows, cols, &one, pa, oa.ld, px, xv.stride(0), &zero, py, 1), op);
  } else {
    check_cublas(cublasDgemv_64(call.handle(), trans, rows, cols, &one, pa, oa.ld, px, xv.stride(0), &zero, py, 1), op);
  }
}

}  // namespace

void mv(const M& /*m*/, const Tensor& out, const Tensor& self, const Tensor& vec) {
  const char* op = "torch.mv";
  if (out.numel() == 0) return;
  if (self.dtype() == ScalarType::kFloat32 || self.dtype() == ScalarType::kFloat64) {
    DeviceGuard guard(out.device());
    Tensor target = out;
    if (self.size(1) == 0) {
      target.fill_(0);
    } else if (self.dtype() == ScalarType::kFloat32) {
      gemv<float>(op, self, vec, out);
    } else {
      gemv<double>(op, self, vec, out);
    }
    return;
  }
  batched_matmul(op, "addmv_impl_cuda", self.unsqueeze(0), vec.unsqueeze(1).unsqueeze(0),
                 out.unsqueeze(1).unsqueeze(0));
}

void dot(const M& /*m*/, const Tensor& out, const Tensor& self, const Tensor& other) {
  const char* op = "torch.dot";
  const Device device = out.device();
  DeviceGuard guard(device);
  if (!has_product(self.dtype())) throw_not_implemented_for("dot", self.dtype());
  if (self.numel() == 0) {
    Tensor target = out;
    target.fill_(0);
    return;
  }
  if (self.dtype() != ScalarType::kFloat32 && self.dtype() != ScalarType::kFloat64) {  // [1, 1, n] @ [1, n, 1]
    batched_matmul(op, "dot", self.unsqueeze(0).unsqueeze(0), other.unsqueeze(1).unsqueeze(0), out.reshape({1, 1, 1}));
    return;
  }
  const Tensor x = self.stride(0) > 0 ? self : contiguous_copy(self);
  const Tensor y = other.stride(0) > 0 ? other : contiguous_copy(other);
  const BlasCall call(device, op);
  // The result goes straight to device memory: no synchronisation.
  check_cublas(cublasSetPointerMode(call.handle(), CUBLAS_POINTER_MODE_DEVICE), op);
  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  if (self.dtype() == ScalarType::kFloat32) {
    status = cublasSdot_64(call.handle(), x.numel(), static_cast<const float*>(x.data_ptr()), x.stride(0),
                           static_cast<const float*>(y.data_ptr()), y.stride(0), static_cast<float*>(out.data_ptr()));
  } else {
    status = cublasDdot_64(call.handle(), x.numel(), static_cast<const double*>(x.data_ptr()), x.stride(0),
                           static_cast<const double*>(y.data_ptr()), y.stride(0), static_cast<double*>(out.data_ptr()));
  }
  check_cublas(cublasSetPointerMode(call.handle(), CUBLAS_POINTER_MODE_HOST), op);
  check_cublas(status, op);
}

}  // namespace wick::cuda_backend
