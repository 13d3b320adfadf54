// backends/cuda/nn_kernels.cu - the nn activations, nll_loss, layer_norm and interpolate_taps kernels.
/// \file
/// The formulas are the CPU kernels' (backends/cpu/nn_ops.cpp, norm_ops.cpp),
/// so results agree to rounding. Reductions accumulate in double, per block
/// in shared memory and across blocks with atomicAdd. float16 and bfloat16
/// activations and layer_norm compute in float32 and round each output once
/// (Note [16-bit floats on the device]).
#include "elementwise_loops.cuh"
#include "grid_stride.cuh"
#include "nn_kernels.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;
using loops::from_opmath;
using loops::opmath_t;
using loops::to_opmath;

constexpr int kThreads = 256;
constexpr I64 kMaxBlocks = 65535LL * 16;

unsigned blocks_for(I64 work, I64 per_block) {
  const I64 b = (work + per_block - 1) / per_block;
  return static_cast<unsigned>(b < kMaxBlocks ? (b > 0 ? b : 1) : kMaxBlocks);
}

__device__ inline I64 first_thread() { return static_cast<I64>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline I64 thread_step() { return static_cast<I64>(gridDim.x) * blockDim.x; }

__device__ inline float m_exp(float v) { return expf(v); }
__device__ inline double m_exp(double v) { return exp(v); }
__device__ inline float m_expm1(float v) { return expm1f(v); }
__device__ inline double m_expm1(double v) { return expm1(v); }
__device__ inline float m_log1p(float v) { return log1pf(v); }
__device__ inline double m_log1p(double v) { return log1p(v); }
__device__ inline float m_tanh(float v) { return tanhf(v); }
__device__ inline double m_tanh(double v) { return tanh(v); }
__device__ inline float m_erf(float v) { return erff(v); }
__device__ inline double m_erf(double v) { return erf(v); }
__device__ inline float m_abs(float v) { return fabsf(v); }
__device__ inline double m_abs(double v) { return fabs(v); }

constexpr double kSqrt2OverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kInvSqrt2 = 0.70710678118654752440;

template <typename S, Activation kKind>
__global__ void activation_kernel(const S* x, S* y, I64 n, double param) {
  using T = opmath_t<S>;  // the formulas run in T: float for the 16-bit floats
  for (I64 i = first_thread(); i < n; i += thread_step()) {
    const T v = to_opmath(x[i]);
    T r;
    if constexpr (kKind == Activation::kLeakyRelu) {
      r = v > T(0) ? v : v * static_cast<T>(param);
    } else if constexpr (kKind == Activation::kElu) {
      r = v > T(0) ? v : static_cast<T>(param) * m_expm1(v);
    } else if constexpr (kKind == Activation::kGeluTanh) {
      const T beta = static_cast<T>(kSqrt2OverPi);
      const T kappa = static_cast<T>(0.044715);
      r = T(0.5) * v * (T(1) + m_tanh(beta * (v + kappa * v * v * v)));
    } else if constexpr (kKind == Activation::kGeluErf) {
      r = v * T(0.5) * (T(1) + m_erf(v * static_cast<T>(kInvSqrt2)));
    } else if constexpr (kKind == Activation::kSilu) {
      r = v / (T(1) + m_exp(-v));
    } else {
      r = (T(0) < v ? T(0) : v) - m_log1p(m_exp(-m_abs(v)));  // std::min(v, 0), NaN kept
    }
    y[i] = from_opmath<S>(r);
  }
}

template <typename T>
void activation_typed(Activation kind, const T* x, T* y, I64 n, double param, cudaStream_t stream) {
  const unsigned blocks = blocks_for(n, kThreads);
  switch (kind) {
    case Activation::kLeakyRelu:
      activation_kernel<T, Activation::kLeakyRelu><<<blocks, kThreads, 0, stream>>>(x, y, n, param);
      break;
    case Activation::kElu:
      activation_kernel<T, Activation::kElu><<<blocks, kThreads, 0, stream>>>(x, y, n, param);
      break;
    case Activation::kGeluErf:
      activation_kernel<T, Activation::kGeluErf><<<blocks, kThreads, 0, stream>>>(x, y, n, param);
      break;
    case Activation::kGeluTanh:
      activation_kernel<T, Activation::kGeluTanh><<<blocks, kThreads, 0, stream>>>(x, y, n, param);
      break;
    case Activation::kSilu:
      activation_kernel<T, Activation::kSilu><<<blocks, kThreads, 0, stream>>>(x, y, n, param);
      break;
    case Activation::kLogSigmoid:
      activation_kernel<T, Activation::kLogSigmoid><<<blocks, kThreads, 0, stream>>>(x, y, n, param);
      break;
  }
}

// --- nll_loss ------------------------------------------------------------------------------------

__global__ void zero_scratch(double* scratch) {
  scratch[0] = 0;
  scratch[1] = 0;
}

// The loss of element (i, k) (t = i * s + k) and its class weight (0 when
// ignored), in opmath_t<T> (float for the 16-bit floats).
template <typename T>
__device__ inline opmath_t<T> nll_term(const NllArgs& a, I64 t, opmath_t<T>& weight) {
  using C = opmath_t<T>;
  const I64 cls = a.target[t];
  weight = C(0);
  if (cls == a.ignore_index) return C(0);
  const T* w = static_cast<const T*>(a.weight);
  weight = w != nullptr ? to_opmath(w[cls]) : C(1);
  const I64 i = t / a.s;
  const I64 k = t % a.s;
  return -weight * to_opmath(static_cast<const T*>(a.input)[(i * a.c + cls) * a.s + k]);
}

template <typename T>
__global__ void nll_none(NllArgs a) {
  T* out = static_cast<T*>(a.out);
  for (I64 t = first_thread(); t < a.n * a.s; t += thread_step()) {
    opmath_t<T> weight;
    out[t] = from_opmath<T>(nll_term<T>(a, t, weight));
  }
}

template <typename T>
__global__ void nll_reduce(NllArgs a) {
  __shared__ double total[kThreads];
  __shared__ double weights[kThreads];
  double sum = 0;
  double wsum = 0;
  for (I64 t = first_thread(); t < a.n * a.s; t += thread_step()) {
    opmath_t<T> weight;
    sum += static_cast<double>(nll_term<T>(a, t, weight));
    wsum += static_cast<double>(weight);
  }
  const int tid = static_cast<int>(threadIdx.x);
  total[tid] = sum;
  weights[tid] = wsum;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half >>= 1) {
    if (tid < half) {
      total[tid] += total[tid + half];
      weights[tid] += weights[tid + half];
    }
    __syncthreads();
  }
  if (tid == 0) {
    atomicAdd(a.scratch, total[0]);
    atomicAdd(a.scratch + 1, weights[0]);
  }
}

template <typename T>
__global__ void nll_finish(NllArgs a) {
  T* out = static_cast<T*>(a.out);
  *out = from_opmath<T>(a.reduction == 2 ? a.scratch[0] : a.scratch[0] / a.scratch[1]);
}

template <typename T>
void nll_typed(const NllArgs& a, cudaStream_t stream) {
  const I64 work = a.n * a.s;
  if (a.reduction == 0) {
    if (work > 0) nll_none<T><<<blocks_for(work, kThreads), kThreads, 0, stream>>>(a);
    return;
  }
  zero_scratch<<<1, 1, 0, stream>>>(a.scratch);
  if (work > 0) nll_reduce<T><<<blocks_for(work, kThreads * 8), kThreads, 0, stream>>>(a);
  nll_finish<T><<<1, 1, 0, stream>>>(a);
}

// --- layer_norm ----------------------------------------------------------------------------------

// One block per row; blockDim.x is a power of two of at most kThreads.
template <typename T>  // storage; the arithmetic is in C
__global__ void layer_norm_kernel(LayerNormArgs a) {
  using C = opmath_t<T>;
  __shared__ double s1_shared[kThreads];
  __shared__ double s2_shared[kThreads];
  const T* w = static_cast<const T*>(a.weight);
  const T* b = static_cast<const T*>(a.bias);
  const int tid = static_cast<int>(threadIdx.x);
  const int threads = static_cast<int>(blockDim.x);
  for (I64 row = blockIdx.x; row < a.m; row += gridDim.x) {
    const T* x = static_cast<const T*>(a.x) + row * a.n;
    T* y = static_cast<T*>(a.y) + row * a.n;
    const double shift = static_cast<double>(to_opmath(x[0]));
    double s1 = 0;
    double s2 = 0;
    for (I64 j = tid; j < a.n; j += threads) {
      const double d = static_cast<double>(to_opmath(x[j])) - shift;
      s1 += d;
      s2 += d * d;
    }
    s1_shared[tid] = s1;
    s2_shared[tid] = s2;
    __syncthreads();
    for (int half = threads / 2; half > 0; half >>= 1) {
      if (tid < half) {
        s1_shared[tid] += s1_shared[tid + half];
        s2_shared[tid] += s2_shared[tid + half];
      }
      __syncthreads();
    }
    const double nn = static_cast<double>(a.n);
    const double sum1 = s1_shared[0];
    const double var = fmax((s2_shared[0] - sum1 * sum1 / nn) / nn, 0.0);
    const double mean = shift + sum1 / nn;
    const double rstd = 1.0 / sqrt(var + a.eps);
    for (I64 j = tid; j < a.n; j += threads) {
      C v = static_cast<C>((static_cast<double>(to_opmath(x[j])) - mean) * rstd);
      if (w != nullptr) v *= to_opmath(w[j]);
      if (b != nullptr) v += to_opmath(b[j]);
      y[j] = from_opmath<T>(v);
    }
    __syncthreads();  // the shared sums are reused by the next row
  }
}

// One output element per thread: its taps' products, summed in k's order.
template <typename T>
__global__ void interpolate_taps_kernel(InterpolateTapsArgs a) {
  const T* in = static_cast<const T*>(a.in);
  const T* w = static_cast<const T*>(a.weight);
  T* out = static_cast<T*>(a.out);
  const I64 total = a.outer * a.n * a.inner;
  for (I64 t = first_thread(); t < total; t += thread_step()) {
    const I64 j = t % a.inner;
    const I64 i = (t / a.inner) % a.n;
    const I64 o = t / (a.inner * a.n);
    const T* src = in + o * a.rows_in * a.inner + j;
    T acc = from_opmath<T>(to_opmath(src[a.index[i] * a.inner]) * to_opmath(w[i]));
    for (I64 k = 1; k < a.taps; ++k) {
      const T p = from_opmath<T>(to_opmath(src[a.index[k * a.n + i] * a.inner]) * to_opmath(w[k * a.n + i]));
      acc = from_opmath<T>(to_opmath(acc) + to_opmath(p));
    }
    out[t] = acc;
  }
}

// One thread per gradient element and tap: atomic adds, as several
// output rows read the same input row.
template <typename T>
__global__ void interpolate_taps_backward_kernel(InterpolateTapsArgs a) {
  const T* g = static_cast<const T*>(a.in);
  const T* w = static_cast<const T*>(a.weight);
  T* out = static_cast<T*>(a.out);
  const I64 total = a.outer * a.n * a.inner * a.taps;
  for (I64 t = first_thread(); t < total; t += thread_step()) {
    const I64 k = t % a.taps;
    const I64 e = t / a.taps;  // the gradient element
    const I64 j = e % a.inner;
    const I64 i = (e / a.inner) % a.n;
    const I64 o = e / (a.inner * a.n);
    const I64 tap = k * a.n + i;
    const T v = w == nullptr ? g[e] : from_opmath<T>(to_opmath(g[e]) * to_opmath(w[tap]));
    grid::atomic_add(out + (o * a.rows_in + a.index[tap]) * a.inner + j, v);
  }
}

}  // namespace

void launch_activation(Activation kind, NnType type, const void* x, void* y, I64 n, double param,
                       cudaStream_t stream) {
  if (n == 0) return;
  switch (type) {
    case NnType::kFloat64:
      activation_typed(kind, static_cast<const double*>(x), static_cast<double*>(y), n, param, stream);
      break;
    case NnType::kFloat16:
      activation_typed(kind, static_cast<const __half*>(x), static_cast<__half*>(y), n, param, stream);
      break;
    case NnType::kBFloat16:
      activation_typed(kind, static_cast<const __nv_bfloat16*>(x), static_cast<__nv_bfloat16*>(y), n, param, stream);
      break;
    case NnType::kFloat32:
      activation_typed(kind, static_cast<const float*>(x), static_cast<float*>(y), n, param, stream);
      break;
  }
}

void launch_nll_loss(const NllArgs& args, cudaStream_t stream) {
  switch (args.type) {
    case NnType::kFloat64:
      nll_typed<double>(args, stream);
      break;
    case NnType::kFloat16:
      nll_typed<__half>(args, stream);
      break;
    case NnType::kBFloat16:
      nll_typed<__nv_bfloat16>(args, stream);
      break;
    case NnType::kFloat32:
      nll_typed<float>(args, stream);
      break;
  }
}

void launch_layer_norm(const LayerNormArgs& args, cudaStream_t stream) {
  if (args.m == 0 || args.n == 0) return;
  int threads = 32;
  while (threads < kThreads && threads < args.n) threads *= 2;
  const unsigned blocks = blocks_for(args.m, 1);
  switch (args.type) {
    case NnType::kFloat64:
      layer_norm_kernel<double><<<blocks, threads, 0, stream>>>(args);
      break;
    case NnType::kFloat16:
      layer_norm_kernel<__half><<<blocks, threads, 0, stream>>>(args);
      break;
    case NnType::kBFloat16:
      layer_norm_kernel<__nv_bfloat16><<<blocks, threads, 0, stream>>>(args);
      break;
    case NnType::kFloat32:
      layer_norm_kernel<float><<<blocks, threads, 0, stream>>>(args);
      break;
  }
}


void launch_interpolate_taps(const InterpolateTapsArgs& args, cudaStream_t stream) {
  const I64 total = args.outer * args.n * args.inner;
  if (total == 0) return;
  const unsigned blocks = blocks_for(total, kThreads);
  switch (args.type) {
    case NnType::kFloat64:
      interpolate_taps_kernel<double><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case NnType::kFloat16:
      interpolate_taps_kernel<__half><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case NnType::kBFloat16:
      interpolate_taps_kernel<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case NnType::kFloat32:
      interpolate_taps_kernel<float><<<blocks, kThreads, 0, stream>>>(args);
      break;
  }
}


void launch_interpolate_taps_backward(const InterpolateTapsArgs& args, cudaStream_t stream) {
  const I64 total = args.outer * args.n * args.inner * args.taps;
  if (total == 0) return;
  const unsigned blocks = blocks_for(total, kThreads);
  switch (args.type) {
    case NnType::kFloat64:
      interpolate_taps_backward_kernel<double><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case NnType::kFloat16:
      interpolate_taps_backward_kernel<__half><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case NnType::kBFloat16:
      interpolate_taps_backward_kernel<__nv_bfloat16><<<blocks, kThreads, 0, stream>>>(args);
      break;
    case NnType::kFloat32:
      interpolate_taps_backward_kernel<float><<<blocks, kThreads, 0, stream>>>(args);
      break;
  }
}

}  // namespace wick::cuda_backend
