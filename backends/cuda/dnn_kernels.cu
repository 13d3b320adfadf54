// backends/cuda/dnn_kernels.cu - softmax, log_softmax, average and max pooling kernels.
/// \file
/// Note [Softmax kernels]
/// As the CPU kernel: the maximum skips NaN (x > max is false for it), the
/// sum of exp(x - max) is accumulated in double, and a NaN then reaches
/// every output through the sum. Rows of the last dim (inner == 1) go one
/// warp per row up to kWarpRowMax elements, one block per row beyond;
/// other dims go one thread per (outer, inner) column, whose reads are
/// coalesced across neighbouring columns. Every loop is grid-strided, so
/// any size fits the grid. float16 and bfloat16 rows are read into float32
/// (the maximum, exp and the scale in float32, the sum in double) and each
/// output is rounded once: the second pass recomputes exp(x - max) rather
/// than reading back a rounded one (Note [16-bit floats on the device]).
#include "dnn_kernels.h"
#include "elementwise_loops.cuh"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;
using loops::from_opmath;
using loops::opmath_t;
using loops::to_opmath;

constexpr int kThreads = 256;
constexpr I64 kMaxBlocks = 65535LL * 16;
constexpr I64 kWarpRowMax = 1024;
constexpr unsigned kFullMask = 0xffffffffU;

unsigned blocks_for(I64 work, I64 per_block) {
  const I64 b = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(b < kMaxBlocks ? (b > 0 ? b : 1) : kMaxBlocks);
}

__device__ inline float dev_exp(float v) { return expf(v); }
__device__ inline double dev_exp(double v) { return exp(v); }

template <typename T>
__device__ inline T neg_inf();
template <>
__device__ inline float neg_inf<float>() {
  return -__int_as_float(0x7f800000);
}
template <>
__device__ inline double neg_inf<double>() {
  return -__longlong_as_double(0x7ff0000000000000LL);
}

template <typename T>
__device__ inline T max_skip_nan(T acc, T v) {
  return v > acc ? v : acc;
}

// The double sum of exp(x - mx) (C: the compute type, float for 16-bit T).
template <typename T, typename C>
__device__ inline double exp_pass(const T* x, I64 n, I64 stride, I64 begin, I64 step, C mx) {
  double sum = 0;
  for (I64 j = begin; j < n; j += step) sum += static_cast<double>(dev_exp(to_opmath(x[j * stride]) - mx));
  return sum;
}

// y = exp(x - mx) / sum (recomputed: no rounded intermediate), or x - mx - log(sum).
template <typename T, bool kLog, typename C>
__device__ inline void scale_pass(const T* x, T* y, I64 n, I64 stride, I64 begin, I64 step, C mx, double sum) {
  if constexpr (kLog) {
    const C shift = mx + static_cast<C>(log(sum));
    for (I64 j = begin; j < n; j += step) y[j * stride] = from_opmath<T>(to_opmath(x[j * stride]) - shift);
  } else {
    const C inv = static_cast<C>(1.0 / sum);
    for (I64 j = begin; j < n; j += step) {
      y[j * stride] = from_opmath<T>(dev_exp(to_opmath(x[j * stride]) - mx) * inv);
    }
  }
}

template <typename T, bool kLog>
__global__ void softmax_warp_rows(const T* x, T* y, I64 rows, I64 n) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const I64 warps = static_cast<I64>(gridDim.x) * blockDim.x / 32;
  for (I64 r = (static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x) / 32; r < rows; r += warps) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    opmath_t<T> mx = neg_inf<opmath_t<T>>();
    for (I64 j = lane; j < n; j += 32) mx = max_skip_nan(mx, to_opmath(xr[j]));
    for (int off = 16; off > 0; off >>= 1) mx = max_skip_nan(mx, __shfl_xor_sync(kFullMask, mx, off));
    double sum = exp_pass(xr, n, 1, lane, 32, mx);
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(kFullMask, sum, off);
    scale_pass<T, kLog>(xr, yr, n, 1, lane, 32, mx, sum);
  }
}

template <typename T, bool kLog>
__global__ void softmax_block_rows(const T* x, T* y, I64 rows, I64 n) {
  __shared__ opmath_t<T> shared_max[kThreads];
  __shared__ double shared_sum[kThreads];
  const int tid = static_cast<int>(threadIdx.x);
  for (I64 r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * n;
    T* yr = y + r * n;
    opmath_t<T> mx = neg_inf<opmath_t<T>>();
    for (I64 j = tid; j < n; j += kThreads) mx = max_skip_nan(mx, to_opmath(xr[j]));
    shared_max[tid] = mx;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half >>= 1) {
      if (tid < half) shared_max[tid] = max_skip_nan(shared_max[tid], shared_max[tid + half]);
      __syncthreads();
    }
    mx = shared_max[0];
    shared_sum[tid] = exp_pass(xr, n, 1, tid, kThreads, mx);
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half >>= 1) {
      if (tid < half) shared_sum[tid] += shared_sum[tid + half];
      __syncthreads();
    }
    const double sum = shared_sum[0];
    scale_pass<T, kLog>(xr, yr, n, 1, tid, kThreads, mx, sum);
    __syncthreads();  // shared_max and shared_sum are reused by the next row
  }
}

template <typename T, bool kLog>
__global__ void softmax_columns(const T* x, T* y, I64 outer, I64 n, I64 inner) {
  const I64 total = outer * inner;
  const I64 step = static_cast<I64>(gridDim.x) * blockDim.x;
  for (I64 t = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const I64 base = (t / inner) * n * inner + t % inner;
    const T* xc = x + base;
    T* yc = y + base;
    opmath_t<T> mx = neg_inf<opmath_t<T>>();
    for (I64 j = 0; j < n; ++j) mx = max_skip_nan(mx, to_opmath(xc[j * inner]));
    const double sum = exp_pass(xc, n, inner, 0, 1, mx);
    scale_pass<T, kLog>(xc, yc, n, inner, 0, 1, mx, sum);
  }
}

template <typename T, bool kLog>
void softmax_typed(const SoftmaxArgs& a, cudaStream_t stream) {
  const T* x = static_cast<const T*>(a.x);
  T* y = static_cast<T*>(a.y);
  if (a.inner == 1 && a.n <= kWarpRowMax) {
    softmax_warp_rows<T, kLog><<<blocks_for(a.outer, kThreads / 32), kThreads, 0, stream>>>(x, y, a.outer, a.n);
  } else if (a.inner == 1) {
    softmax_block_rows<T, kLog><<<blocks_for(a.outer, 1), kThreads, 0, stream>>>(x, y, a.outer, a.n);
  } else {
    softmax_columns<T, kLog><<<blocks_for(a.outer * a.inner, kThreads), kThreads, 0, stream>>>(x, y, a.outer, a.n,
                                                                                              a.inner);
  }
}

// --- pooling -----------------------------------------------------------------------------------

// S: the stored type; T: the one summed and compared in (float for 16 bits).
template <typename S>
__global__ void avg_pool_forward(AvgPoolArgs a) {
  using T = opmath_t<S>;
  const S* src = static_cast<const S*>(a.src);
  S* dst = static_cast<S*>(a.dst);
  const I64 total = a.planes * a.oh * a.ow;
  const I64 step = static_cast<I64>(gridDim.x) * blockDim.x;
  for (I64 t = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const I64 ox = t % a.ow;
    const I64 oy = (t / a.ow) % a.oh;
    const I64 plane = t / (a.ow * a.oh);
    const I64* wy = a.windows + 3 * oy;
    const I64* wx = a.windows + 3 * (a.oh + ox);
    const I64 divisor = a.has_divisor ? a.divisor : wy[2] * wx[2];
    const S* in = src + plane * a.h * a.w;
    T sum = 0;
    for (I64 i = wy[0]; i < wy[1]; ++i)
      for (I64 j = wx[0]; j < wx[1]; ++j) sum += to_opmath(in[i * a.w + j]);
    dst[t] = from_opmath<S>(sum / static_cast<T>(divisor));
  }
}

// Each input element gathers the gradient of every window containing it
// (no atomics: deterministic).
template <typename S>
__global__ void avg_pool_backward(AvgPoolArgs a) {
  using T = opmath_t<S>;
  const S* grad = static_cast<const S*>(a.src);
  S* dst = static_cast<S*>(a.dst);
  const I64 total = a.planes * a.h * a.w;
  const I64 step = static_cast<I64>(gridDim.x) * blockDim.x;
  for (I64 t = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const I64 j = t % a.w;
    const I64 i = (t / a.w) % a.h;
    const I64 plane = t / (a.w * a.h);
    const I64* ry = a.ranges + 2 * i;
    const I64* rx = a.ranges + 2 * (a.h + j);
    const S* g = grad + plane * a.oh * a.ow;
    T acc = 0;
    for (I64 oy = ry[0]; oy < ry[1]; ++oy) {
      const I64 cy = a.windows[3 * oy + 2];
      for (I64 ox = rx[0]; ox < rx[1]; ++ox) {
        const I64 divisor = a.has_divisor ? a.divisor : cy * a.windows[3 * (a.oh + ox) + 2];
        acc += to_opmath(g[oy * a.ow + ox]) / static_cast<T>(divisor);
      }
    }
    dst[t] = from_opmath<S>(acc);
  }
}

template <typename S>
__global__ void max_pool(MaxPoolArgs a) {
  using T = opmath_t<S>;
  const S* x = static_cast<const S*>(a.x);
  S* y = static_cast<S*>(a.y);
  const I64 total = a.planes * a.oh * a.ow;
  const I64 step = static_cast<I64>(gridDim.x) * blockDim.x;
  for (I64 t = static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += step) {
    const I64 xo = t % a.ow;
    const I64 yo = (t / a.ow) % a.oh;
    const S* xp = x + (t / (a.ow * a.oh)) * a.h * a.w;
    I64 h0 = yo * a.sh - a.ph;
    const I64 h1 = min(h0 + (a.kh - 1) * a.dh + 1, a.h);
    if (h0 < 0) h0 += (-h0 + a.dh - 1) / a.dh * a.dh;  // the first tap inside the input
    I64 w0 = xo * a.sw - a.pw;
    const I64 w1 = min(w0 + (a.kw - 1) * a.dw + 1, a.w);
    if (w0 < 0) w0 += (-w0 + a.dw - 1) / a.dw * a.dw;
    I64 best = h0 * a.w + w0;
    T mx = neg_inf<T>();
    for (I64 i = h0; i < h1; i += a.dh) {
      for (I64 j = w0; j < w1; j += a.dw) {
        const T v = to_opmath(xp[i * a.w + j]);
        if (v > mx || isnan(v)) {
          mx = v;
          best = i * a.w + j;
        }
      }
    }
    y[t] = from_opmath<S>(mx);  // exact: a widened stored value
    a.indices[t] = best;
  }
}

}  // namespace

namespace {

template <typename T>
void softmax_dispatch_log(const SoftmaxArgs& args, cudaStream_t stream) {
  if (args.log) {
    softmax_typed<T, true>(args, stream);
  } else {
    softmax_typed<T, false>(args, stream);
  }
}

}  // namespace

void launch_softmax(const SoftmaxArgs& args, cudaStream_t stream) {
  if (args.outer * args.n * args.inner == 0) return;
  switch (args.type) {
    case DnnType::kFloat64:
      softmax_dispatch_log<double>(args, stream);
      break;
    case DnnType::kFloat16:
      softmax_dispatch_log<__half>(args, stream);
      break;
    case DnnType::kBFloat16:
      softmax_dispatch_log<__nv_bfloat16>(args, stream);
      break;
    default:
      softmax_dispatch_log<float>(args, stream);
      break;
  }
}

void launch_avg_pool_forward(const AvgPoolArgs& args, cudaStream_t stream) {
  const I64 total = args.planes * args.oh * args.ow;
  if (total == 0) return;
  const unsigned blocks = blocks_for(total, kThreads);
  switch (args.type) {
    case DnnType::kFloat32: avg_pool_forward<float><<<blocks, kThreads, 0, stream>>>(args); break;
    case DnnType::kFloat64: avg_pool_forward<double><<<blocks, kThreads, 0, stream>>>(args); break;
    case DnnType::kInt64: avg_pool_forward<I64><<<blocks, kThreads, 0, stream>>>(args); break;
    case DnnType::kFloat16: avg_pool_forward<__half><<<blocks, kThreads, 0, stream>>>(args); break;
    case DnnType::kBFloat16: avg_pool_forward<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(args); break;
  }
}

void launch_avg_pool_backward(const AvgPoolArgs& args, cudaStream_t stream) {
  const I64 total = args.planes * args.h * args.w;
  if (total == 0) return;
  const unsigned blocks = blocks_for(total, kThreads);
  switch (args.type) {  // no int64 loop: refused by the host (pool_ops.cpp)
    case DnnType::kFloat64: avg_pool_backward<double><<<blocks, kThreads, 0, stream>>>(args); break;
    case DnnType::kFloat16: avg_pool_backward<__half><<<blocks, kThreads, 0, stream>>>(args); break;
    case DnnType::kBFloat16: avg_pool_backward<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(args); break;
    default: avg_pool_backward<float><<<blocks, kThreads, 0, stream>>>(args); break;
  }
}

void launch_max_pool(const MaxPoolArgs& args, cudaStream_t stream) {
  const I64 total = args.planes * args.oh * args.ow;
  if (total == 0) return;
  const unsigned blocks = blocks_for(total, kThreads);
  switch (args.type) {  // no int64 loop: refused by the host (pool_ops.cpp)
    case DnnType::kFloat64: max_pool<double><<<blocks, kThreads, 0, stream>>>(args); break;
    case DnnType::kFloat16: max_pool<__half><<<blocks, kThreads, 0, stream>>>(args); break;
    case DnnType::kBFloat16: max_pool<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(args); break;
    default: max_pool<float><<<blocks, kThreads, 0, stream>>>(args); break;
  }
}

}  // namespace wick::cuda_backend
