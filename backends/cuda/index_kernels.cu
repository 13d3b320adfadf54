// backends/cuda/index_kernels.cu - index checks, index_select, gather, scatter, masked_fill, flip, tril/triu.
/// \file
/// One thread per element, grid-strided. Kernels that only move data copy
/// raw bits of the element's size; scatter_add adds with atomics (so its
/// sums of floats may round in any order, as PyTorch's CUDA kernel does),
/// and scatter with repeated indices writes one of the candidates.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "grid_stride.cuh"
#include "index_kernels.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;

using grid::atomic_add;
using grid::blocks_for;
using grid::first_thread;
using grid::kThreads;
using grid::thread_step;

// Position k's offsets along strides_a (a) and strides_b (b).
__device__ inline void walk_offsets(const IndexWalk& w, I64 k, I64& a, I64& b) {
  a = 0;
  b = 0;
  for (int d = w.ndim - 1; d >= 0; --d) {
    const I64 pos = k % w.sizes[d];
    k /= w.sizes[d];
    a += pos * w.strides_a[d];
    b += pos * w.strides_b[d];
  }
}

// Calls f(tag) with the unsigned type of `elem_size` bytes.
template <typename F>
void by_size(int elem_size, F f) {
  switch (elem_size) {
    case 1:
      f(std::uint8_t{});
      break;
    case 2:
      f(std::uint16_t{});
      break;
    case 4:
      f(std::uint32_t{});
      break;
    default:
      f(std::uint64_t{});
      break;
  }
}

__global__ void init_bad_index(I64* result) {
  result[0] = INT64_MAX;
  result[1] = 0;
}

__global__ void find_bad_index(const I64* idx, I64 n, I64 low, I64 high, bool has_ignore, I64 ignore, I64* result) {
  for (I64 k = first_thread(); k < n; k += thread_step()) {
    const I64 v = idx[k];
    if ((v < low || v >= high) && !(has_ignore && v == ignore))
      atomicMin(reinterpret_cast<long long*>(result), static_cast<long long>(k));
  }
}

__global__ void fetch_bad_index(const I64* idx, I64* result) {
  if (result[0] != INT64_MAX) result[1] = idx[result[0]];
}

template <typename U>
__global__ void index_select_kernel(IndexSelectArgs a) {
  const U* src = static_cast<const U*>(a.src);
  U* out = static_cast<U*>(a.out);
  const I64 total = a.outer * a.count * a.inner;
  for (I64 t = first_thread(); t < total; t += thread_step()) {
    const I64 r = t % a.inner;
    const I64 j = (t / a.inner) % a.count;
    const I64 i = t / (a.inner * a.count);
    out[t] = src[(i * a.size + a.idx[j]) * a.inner + r];
  }
}

template <typename U>
__global__ void gather_kernel(IndexWalk w, const U* src, U* out, const I64* idx, I64 step) {
  for (I64 k = first_thread(); k < w.numel; k += thread_step()) {
    I64 a = 0;
    I64 b = 0;
    walk_offsets(w, k, a, b);
    out[k] = src[a + idx[k] * step];
  }
}

template <typename T>
__global__ void scatter_add_kernel(ScatterArgs s) {
  T* dst = static_cast<T*>(s.dst);
  const T* src = static_cast<const T*>(s.src);
  for (I64 k = first_thread(); k < s.walk.numel; k += thread_step()) {
    I64 a = 0;
    I64 b = 0;
    walk_offsets(s.walk, k, a, b);
    atomic_add(dst + a + s.idx[k] * s.step, src[b]);
  }
}

template <typename U>
__global__ void scatter_write_kernel(ScatterArgs s) {
  U* dst = static_cast<U*>(s.dst);
  const U* src = static_cast<const U*>(s.src);
  const U value = static_cast<U>(s.value_bits);
  const bool use_value = s.mode == ScatterMode::kValue;
  for (I64 k = first_thread(); k < s.walk.numel; k += thread_step()) {
    I64 a = 0;
    I64 b = 0;
    walk_offsets(s.walk, k, a, b);
    dst[a + s.idx[k] * s.step] = use_value ? value : src[b];
  }
}

template <typename U>
__global__ void masked_fill_kernel(U* out, const bool* mask, I64 n, U value) {
  for (I64 k = first_thread(); k < n; k += thread_step())
    if (mask[k]) out[k] = value;
}

template <typename U>
__global__ void strided_gather_kernel(IndexWalk w, const U* in, U* out) {
  for (I64 k = first_thread(); k < w.numel; k += thread_step()) {
    I64 a = 0;
    I64 b = 0;
    walk_offsets(w, k, a, b);
    out[k] = in[a];
  }
}

template <typename U>
__global__ void triangle_kernel(U* data, I64 total, I64 rows, I64 cols, I64 diagonal, bool lower) {
  for (I64 k = first_thread(); k < total; k += thread_step()) {
    const I64 j = k % cols;
    const I64 i = (k / cols) % rows;
    if (lower ? j - i > diagonal : j - i < diagonal) data[k] = U(0);
  }
}

}  // namespace

void launch_find_bad_index(const I64* idx, I64 n, I64 low, I64 high, bool has_ignore, I64 ignore, I64* result,
                           cudaStream_t stream) {
  init_bad_index<<<1, 1, 0, stream>>>(result);
  if (n > 0) find_bad_index<<<blocks_for(n), kThreads, 0, stream>>>(idx, n, low, high, has_ignore, ignore, result);
  fetch_bad_index<<<1, 1, 0, stream>>>(idx, result);
}

void launch_index_select(const IndexSelectArgs& args, cudaStream_t stream) {
  const I64 total = args.outer * args.count * args.inner;
  if (total == 0) return;
  by_size(args.elem_size, [&](auto tag) {
    using U = decltype(tag);
    index_select_kernel<U><<<blocks_for(total), kThreads, 0, stream>>>(args);
  });
}

void launch_gather(const IndexWalk& walk, const void* src, void* out, const I64* idx, I64 step, int elem_size,
                   cudaStream_t stream) {
  if (walk.numel == 0) return;
  by_size(elem_size, [&](auto tag) {
    using U = decltype(tag);
    gather_kernel<U><<<blocks_for(walk.numel), kThreads, 0, stream>>>(walk, static_cast<const U*>(src),
                                                                      static_cast<U*>(out), idx, step);
  });
}

void launch_scatter(const ScatterArgs& args, cudaStream_t stream) {
  if (args.walk.numel == 0) return;
  const unsigned blocks = blocks_for(args.walk.numel);
  if (args.mode != ScatterMode::kAdd) {
    by_size(args.elem_size, [&](auto tag) {
      using U = decltype(tag);
      scatter_write_kernel<U><<<blocks, kThreads, 0, stream>>>(args);
    });
    return;
  }
  switch (args.dtype) {
    case IndexDtype::kBool:
      scatter_add_kernel<bool><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case IndexDtype::kInt32:
      scatter_add_kernel<int><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case IndexDtype::kInt64:
      scatter_add_kernel<I64><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case IndexDtype::kFloat32:
      scatter_add_kernel<float><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case IndexDtype::kFloat64:
      scatter_add_kernel<double><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case IndexDtype::kFloat16:
      scatter_add_kernel<__half><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case IndexDtype::kBFloat16:
      scatter_add_kernel<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(args);
      break;
  }
}

void launch_masked_fill(void* out, const bool* mask, I64 n, int elem_size, std::uint64_t value_bits,
                        cudaStream_t stream) {
  if (n == 0) return;
  by_size(elem_size, [&](auto tag) {
    using U = decltype(tag);
    masked_fill_kernel<U>
        <<<blocks_for(n), kThreads, 0, stream>>>(static_cast<U*>(out), mask, n, static_cast<U>(value_bits));
  });
}

void launch_strided_gather(const IndexWalk& walk, const void* in, void* out, int elem_size, cudaStream_t stream) {
  if (walk.numel == 0) return;
  by_size(elem_size, [&](auto tag) {
    using U = decltype(tag);
    strided_gather_kernel<U>
        <<<blocks_for(walk.numel), kThreads, 0, stream>>>(walk, static_cast<const U*>(in), static_cast<U*>(out));
  });
}

void launch_triangle(void* data, I64 matrices, I64 rows, I64 cols, I64 diagonal, bool lower, int elem_size,
                     cudaStream_t stream) {
  const I64 total = matrices * rows * cols;
  if (total == 0) return;
  by_size(elem_size, [&](auto tag) {
    using U = decltype(tag);
    triangle_kernel<U>
        <<<blocks_for(total), kThreads, 0, stream>>>(static_cast<U*>(data), total, rows, cols, diagonal, lower);
  });
}

}  // namespace wick::cuda_backend
