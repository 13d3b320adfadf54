// backends/cuda/blas_kernels.cu - the tiled integer matrix product (bool, int32, int64).
/// \file
/// One 16x16 tile of c per block; the k dimension is walked in 16-wide
/// slices staged through shared memory. Blocks loop over row tiles and
/// batches beyond the grid's y and z limits.
#include "blas_kernels.h"

namespace wick::cuda_backend {
namespace {

constexpr int kTile = 16;
constexpr std::int64_t kMaxGridYz = 65535;

template <typename T>
__global__ void int_gemm_kernel(IntGemmArgs args) {
  __shared__ T tile_a[kTile][kTile + 1];
  __shared__ T tile_m[kTile][kTile + 1];
  const T* a = static_cast<const T*>(args.a);
  const T* m = static_cast<const T*>(args.m);
  T* c = static_cast<T*>(args.c);
  const int tx = static_cast<int>(threadIdx.x);
  const int ty = static_cast<int>(threadIdx.y);
  const std::int64_t row_tiles = (args.n + kTile - 1) / kTile;
  const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * kTile + tx;
  const T alpha = static_cast<T>(args.alpha);
  const T beta = static_cast<T>(args.beta);
  for (std::int64_t b = blockIdx.z; b < args.batches; b += gridDim.z) {
    for (std::int64_t rt = blockIdx.y; rt < row_tiles; rt += gridDim.y) {
      const std::int64_t i = rt * kTile + ty;
      T acc = T(0);
      for (std::int64_t q0 = 0; q0 < args.k; q0 += kTile) {
        // a[i, q0 + tx] and m[q0 + ty, j]; zero outside the matrices.
        const std::int64_t qa = q0 + tx;
        const std::int64_t qm = q0 + ty;
        tile_a[ty][tx] = i < args.n && qa < args.k
                             ? a[b * args.a_stride[0] + i * args.a_stride[1] + qa * args.a_stride[2]]
                             : T(0);
        tile_m[ty][tx] = qm < args.k && j < args.p
                             ? m[b * args.m_stride[0] + qm * args.m_stride[1] + j * args.m_stride[2]]
                             : T(0);
        __syncthreads();
        for (int q = 0; q < kTile; ++q) {
          if constexpr (sizeof(T) == 1) {
            acc = acc || (tile_a[ty][q] && tile_m[q][tx]);
          } else {
            acc += tile_a[ty][q] * tile_m[q][tx];
          }
        }
        __syncthreads();
      }
      if (i < args.n && j < args.p) {
        T& out = c[(b * args.n + i) * args.p + j];
        if constexpr (sizeof(T) == 1) {
          out = (alpha && acc) || (beta && out);
        } else {
          out = static_cast<T>(alpha * acc + (beta == T(0) ? T(0) : static_cast<T>(beta * out)));
        }
      }
    }
  }
}

template <typename T>
void launch_typed(const IntGemmArgs& args, cudaStream_t stream) {
  const std::int64_t row_tiles = (args.n + kTile - 1) / kTile;
  const dim3 block(kTile, kTile);
  const dim3 grid(static_cast<unsigned>((args.p + kTile - 1) / kTile),
                  static_cast<unsigned>(row_tiles < kMaxGridYz ? row_tiles : kMaxGridYz),
                  static_cast<unsigned>(args.batches < kMaxGridYz ? args.batches : kMaxGridYz));
  int_gemm_kernel<T><<<grid, block, 0, stream>>>(args);
}

}  // namespace

void launch_int_gemm(const IntGemmArgs& args, cudaStream_t stream) {
  if (args.batches == 0 || args.n == 0 || args.p == 0) return;
  switch (args.type) {
    case IntGemmType::kBool: launch_typed<bool>(args, stream); break;
    case IntGemmType::kInt32: launch_typed<std::int32_t>(args, stream); break;
    case IntGemmType::kInt64: launch_typed<std::int64_t>(args, stream); break;
  }
}

}  // namespace wick::cuda_backend
