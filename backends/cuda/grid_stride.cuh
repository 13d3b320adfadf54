// backends/cuda/grid_stride.cuh - private: the grid-stride loop shape of the simple device kernels.
/// \file
/// One thread per element, 256 threads a block, at most 65535 * 16 blocks;
/// a kernel loops `for (k = first_thread(); k < n; k += thread_step())`.
/// Included only by device files (`*.cu`).
#pragma once

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

}  // namespace wick::cuda_backend::grid
