// backends/cuda/sort_kernels.cu - argsort by CUB's segmented radix sort, searchsorted by binary search.
/// \file
/// Note [Sorting by radix]
/// Each element becomes its unsigned key (Note [Sorting keys] in
/// wick/sort_key.h: 32 bits for elements of up to 4 bytes, 64 for the rest,
/// whose order as an unsigned integer is the CPU's sort order), and CUB's
/// stable segmented sort (one segment per row) carries the elements'
/// positions along.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cub/device/device_segmented_sort.cuh>
#include <wick/sort_key.h>

#include "elementwise_loops.cuh"
#include "grid_stride.cuh"
#include "sort_kernels.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;

using grid::blocks_for;
using grid::first_thread;
using grid::kThreads;
using grid::thread_step;

// The key of one element (Note [Sorting keys] in wick/sort_key.h): float16
// and bfloat16 widened to float first.
template <typename T, typename K>
__device__ inline K key_of(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return sort_key::of(__half2float(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return sort_key::of(__bfloat162float(v));
  } else {
    return sort_key::of(v);
  }
}

template <typename T, typename K>
__global__ void make_keys(const T* src, I64 count, I64 n, bool descending, K* keys, I64* positions) {
  for (I64 k = first_thread(); k < count; k += thread_step()) {
    keys[k] = sort_key::directed(key_of<T, K>(src[k]), descending);
    positions[k] = k % n;
  }
}

__global__ void row_offsets(I64* offsets, I64 lines, I64 n) {
  for (I64 i = first_thread(); i <= lines; i += thread_step()) offsets[i] = i * n;
}

constexpr std::size_t kAlign = 256;
constexpr std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

using sort_key::KeyOf;

std::size_t key_bytes(DType dtype) { return dtype == DType::kInt64 || dtype == DType::kFloat64 ? 8 : 4; }

// CUB's own scratch space for a sort of `count` keys of type K in `lines` segments.
template <typename K>
std::size_t cub_bytes(I64 count, I64 lines) {
  std::size_t bytes = 0;
  const cudaError_t err = cub::DeviceSegmentedSort::StableSortPairs(
      nullptr, bytes, static_cast<const K*>(nullptr), static_cast<K*>(nullptr), static_cast<const I64*>(nullptr),
      static_cast<I64*>(nullptr), count, lines, static_cast<const I64*>(nullptr), static_cast<const I64*>(nullptr));
  return err == cudaSuccess ? bytes : 0;
}

}  // namespace

// Layout: keys in, keys out, positions in, row offsets, CUB's scratch space.
std::size_t argsort_workspace_bytes(const ArgsortArgs& args) {
  const I64 count = args.lines * args.n;
  const auto items = static_cast<std::size_t>(count);
  const std::size_t keys = aligned(items * key_bytes(args.dtype));
  const std::size_t scratch = key_bytes(args.dtype) == 8 ? cub_bytes<std::uint64_t>(count, args.lines)
                                                         : cub_bytes<std::uint32_t>(count, args.lines);
  return 2 * keys + aligned(items * sizeof(I64)) + aligned(static_cast<std::size_t>(args.lines + 1) * sizeof(I64)) +
         aligned(scratch);
}

cudaError_t launch_argsort(const ArgsortArgs& args, void* workspace, cudaStream_t stream) {
  const I64 count = args.lines * args.n;
  if (count == 0) return cudaSuccess;
  cudaError_t err = cudaSuccess;
  loops::visit_type(args.dtype, [&](auto tag) {
    using T = decltype(tag);
    using K = KeyOf<T>;
    const auto items = static_cast<std::size_t>(count);
    char* at = static_cast<char*>(workspace);
    K* keys_in = reinterpret_cast<K*>(at);
    at += aligned(items * sizeof(K));
    K* keys_out = reinterpret_cast<K*>(at);
    at += aligned(items * sizeof(K));
    I64* positions = reinterpret_cast<I64*>(at);
    at += aligned(items * sizeof(I64));
    I64* offsets = reinterpret_cast<I64*>(at);
    at += aligned(static_cast<std::size_t>(args.lines + 1) * sizeof(I64));
    std::size_t scratch = cub_bytes<K>(count, args.lines);
    make_keys<T, K><<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const T*>(args.src), count, args.n,
                                                                args.descending, keys_in, positions);
    row_offsets<<<blocks_for(args.lines + 1), kThreads, 0, stream>>>(offsets, args.lines, args.n);
    err = cudaGetLastError();
    if (err != cudaSuccess) return;
    err = cub::DeviceSegmentedSort::StableSortPairs(at, scratch, keys_in, keys_out, positions, args.out, count,
                                                    args.lines, offsets, offsets + 1, stream);
  });
  return err;
}

namespace {

// The CPU's search (backends/cpu/sort_ops.cpp): a NaN value lands past
// every number, and NaN boundaries count as above every value.
template <typename T, typename R>
__global__ void search(SearchArgs a, const T* bounds, const T* values, R* out) {
  for (I64 i = first_thread(); i < a.count; i += thread_step()) {
    const I64 base = a.one_row ? 0 : (i / a.per_row) * a.width;
    const auto value = loops::to_opmath(values[i]);
    I64 lo = 0;
    I64 hi = a.width;
    while (lo < hi) {
      const I64 mid = lo + (hi - lo) / 2;
      const auto at = loops::to_opmath(bounds[base + (a.order != nullptr ? a.order[base + mid] : mid)]);
      if (a.right ? !(at > value) : !(at >= value)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    out[i] = static_cast<R>(lo);
  }
}

}  // namespace

cudaError_t launch_searchsorted(const SearchArgs& args, cudaStream_t stream) {
  if (args.count == 0) return cudaSuccess;
  loops::visit_type(args.dtype, [&](auto tag) {
    using T = decltype(tag);
    const auto* b = static_cast<const T*>(args.boundaries);
    const auto* v = static_cast<const T*>(args.values);
    if (args.out_int32) {
      search<T><<<blocks_for(args.count), kThreads, 0, stream>>>(args, b, v, static_cast<std::int32_t*>(args.out));
    } else {
      search<T><<<blocks_for(args.count), kThreads, 0, stream>>>(args, b, v, static_cast<I64*>(args.out));
    }
  });
  return cudaGetLastError();
}

}  // namespace wick::cuda_backend
