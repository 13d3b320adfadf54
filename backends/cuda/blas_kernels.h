// backends/cuda/blas_kernels.h - private: the integer matrix product's launcher over a plain struct.
/// \file
/// cuBLAS multiplies only floating matrices; bool, int32 and int64 ones (the
/// CPU backend accepts them) go to one tiled kernel. Plain C++: included by
/// blas_ops.cpp and by nvcc (Note [CUDA backend layout] in cuda_common.h).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace wick::cuda_backend {

/// Element types of the integer product.
enum class IntGemmType : std::int32_t { kBool = 0, kInt32 = 1, kInt64 = 2 };

/// c[b, i, j] = alpha * sum_q a[b, i, q] * m[b, q, j] + beta * c[b, i, j] for
/// b < batches, i < n, j < p, q < k, with beta == 0 ignoring c's old value.
/// For bool: c = (alpha && any_q (a && m)) || (beta && c). Strides are in
/// elements (any value, 0 included); c is contiguous [batches, n, p].
struct IntGemmArgs {
  const void* a = nullptr;
  const void* m = nullptr;
  void* c = nullptr;
  IntGemmType type = IntGemmType::kInt64;
  std::int64_t batches = 0, n = 0, k = 0, p = 0;
  std::int64_t a_stride[3] = {0, 0, 0};  // batch, row, column
  std::int64_t m_stride[3] = {0, 0, 0};
  std::int64_t alpha = 1, beta = 0;  // already converted to the element type (bool: 0 or 1)
};

/// Queues the product on `stream` (nothing for an empty c); the caller
/// checks the launch.
void launch_int_gemm(const IntGemmArgs& args, cudaStream_t stream);

}  // namespace wick::cuda_backend
