// backends/cuda/grid_stride.cuh - private: the grid-stride loop shape of the simple device kernels.
/// \file
/// One thread per element, 256 threads a block, at most 65535 * 16 blocks;
/// a kernel loops `for (k = first_thread(); k < n; k += thread_step())`.
/// Included only by device files (`*.cu`).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace wick::cuda_backend::grid {

inline constexpr int kThreads = 256;
inline constexpr std::int64_t kMaxBlocks = 65535LL * 16;

/// The blocks for `work` elements (at least one).
inline unsigned blocks_for(std::int64_t work) {
  const std::int64_t b = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < kMaxBlocks ? (b > 0 ? b : 1) : kMaxBlocks);
}

__device__ inline std::int64_t first_thread() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t thread_step() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

/// *p += v atomically, for the dtypes the adding kernels (scatter_add,
/// interpolate's backward) take.
__device__ inline void atomic_add(bool* p, bool v) {
  if (v) *p = true;  // dst = dst + v is dst || v: only true is ever written
}
__device__ inline void atomic_add(int* p, int v) { atomicAdd(p, v); }
__device__ inline void atomic_add(std::int64_t* p, std::int64_t v) {  // two's complement: unsigned addition wraps alike
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}
__device__ inline void atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ inline void atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ inline void atomic_add(__half* p, __half v) { atomicAdd(p, v); }                // sm_70 and up
__device__ inline void atomic_add(__nv_bfloat16* p, __nv_bfloat16 v) { atomicAdd(p, v); }  // sm_80 and up

}  // namespace wick::cuda_backend::grid
