// backends/cuda/index_kernels.h - private: index checks and data-movement launchers over plain structs.
/// \file
/// Plain C++: included by index_ops.cpp, nn_ops.cpp and by nvcc (Note [CUDA
/// backend layout] in cuda_common.h). Offsets and strides are in elements;
/// most kernels move elements as raw bits of `elem_size` bytes (1, 4 or 8),
/// whatever their dtype. Each launcher queues on `stream`, launches nothing
/// for no work, and leaves checking the launch to the caller.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace wick::cuda_backend {

/// The most dimensions the strided index kernels walk.
inline constexpr int kIndexMaxDims = 16;

/// Element types, for the one kernel that computes (scatter_add; float16 and
/// bfloat16 add with the hardware's 16-bit atomics, each addition rounded, as
/// PyTorch's CUDA scatter_add).
enum class IndexDtype : std::int32_t {
  kBool = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat32 = 3,
  kFloat64 = 4,
  kFloat16 = 5,
  kBFloat16 = 6,
};

/// Finds the first k (row-major) with idx[k] outside [low, high) and not
/// equal to `ignore` (when `has_ignore`): result[0] = k, result[1] = idx[k];
/// result[0] = INT64_MAX when there is none. `result` is 2 int64 on the device.
void launch_find_bad_index(const std::int64_t* idx, std::int64_t n, std::int64_t low, std::int64_t high,
                           bool has_ignore, std::int64_t ignore, std::int64_t* result, cudaStream_t stream);

/// out[i, j, r] = src[i, idx[j], r] for out [outer, count, inner] and src
/// [outer, size, inner], both contiguous.
struct IndexSelectArgs {
  const void* src = nullptr;
  void* out = nullptr;
  const std::int64_t* idx = nullptr;
  int elem_size = 4;
  std::int64_t outer = 0, count = 0, size = 0, inner = 0;
};
void launch_index_select(const IndexSelectArgs& args, cudaStream_t stream);

/// A walk over the positions of `sizes` (row-major, k = 0 .. numel-1): a
/// position's offsets are its dot products with strides_a and strides_b.
struct IndexWalk {
  int ndim = 0;
  std::int64_t numel = 0;
  std::int64_t sizes[kIndexMaxDims] = {};
  std::int64_t strides_a[kIndexMaxDims] = {};
  std::int64_t strides_b[kIndexMaxDims] = {};
};

/// gather: out[k] = src[a(k) + idx[k] * step] (out contiguous in the walk's order).
void launch_gather(const IndexWalk& walk, const void* src, void* out, const std::int64_t* idx, std::int64_t step,
                   int elem_size, cudaStream_t stream);

/// scatter into dst: dst[a(k) + idx[k] * step] = src[b(k)] (kWrite), = value
/// (kValue: `value_bits`, the element's raw bits), or += src[b(k)] (kAdd).
enum class ScatterMode : std::int32_t { kWrite = 0, kValue = 1, kAdd = 2 };
struct ScatterArgs {
  IndexWalk walk;
  void* dst = nullptr;
  const void* src = nullptr;
  const std::int64_t* idx = nullptr;
  std::int64_t step = 0;
  ScatterMode mode = ScatterMode::kWrite;
  IndexDtype dtype = IndexDtype::kFloat32;
  int elem_size = 4;
  std::uint64_t value_bits = 0;
};
void launch_scatter(const ScatterArgs& args, cudaStream_t stream);

/// out[k] = value where mask[k] (both contiguous with n elements).
void launch_masked_fill(void* out, const bool* mask, std::int64_t n, int elem_size, std::uint64_t value_bits,
                        cudaStream_t stream);

/// out[k] = in[a(k)] (out contiguous in the walk's order; a's strides may be negative).
void launch_strided_gather(const IndexWalk& walk, const void* in, void* out, int elem_size, cudaStream_t stream);

/// Zeroes, in contiguous [matrices, rows, cols] `data`, the entries with
/// j - i > diagonal (lower: tril) or j - i < diagonal (upper: triu).
void launch_triangle(void* data, std::int64_t matrices, std::int64_t rows, std::int64_t cols, std::int64_t diagonal,
                     bool lower, int elem_size, cudaStream_t stream);

}  // namespace wick::cuda_backend
