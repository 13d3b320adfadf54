// backends/cuda/elementwise_loops.cuh - private: the device loops behind every elementwise launcher.
/// \file
/// `launch_map<Out, In...>(f, args, stream)` runs `out = f(in...)` over the
/// operands of an ElementwiseArgs (elementwise_kernels.h). Included only by
/// the device files (`*.cu`).
///
/// Note [Elementwise loop paths]
/// Flat path: after the host merged adjacent dims, a loop whose output and
/// inputs are all one contiguous run (an input may also be a single value
/// broadcast over the run: stride 0, a wrapped Python number) is a flat
/// loop. When every contiguous pointer is aligned to a vector of 16 bytes
/// (of the widest operand; narrower operands load fewer bytes per vector),
/// each thread loads and stores whole vectors (float4-wide for float32),
/// which is what reaches the copy bandwidth; the last numel % width elements
/// are done one by one. The flat grid is not capped: each block owns one
/// chunk of kThreads * kUnroll vectors, and each thread loads and computes
/// its kUnroll vectors before storing any (stores could alias the inputs,
/// so the compiler cannot hoist a later load above an earlier store by
/// itself). A grid-stride loop over a capped grid, one vector or four in
/// flight per thread, left neg and add 4-9% under the copy's bandwidth on
/// the H100 and H200. Misaligned runs take the same loop one element wide.
/// Rows path: two merged dims whose inner one has stride 1 (or 0: one value
/// per row) in every operand, rows of whole aligned vectors: each vector
/// finds its row with one division and loads as the flat path does (a bias
/// copied or added over a matrix, which the strided path loads one element
/// at a time, with a division per dim).
/// Strided path: a grid-stride loop that turns the linear index into one
/// offset per operand, dividing by the sizes innermost first; 32-bit
/// division when numel fits in int32 (offsets are always 64-bit, since a
/// small view of a large tensor can still reach far).
/// The rows and strided paths' grids are capped at a few waves
/// (kBlocksPerSm blocks per SM): each thread then loops.
/// The vector width follows the widest operand: 4 float32, 8 float16 or
/// bfloat16, 16 int8/uint8 per 16-byte load; a loop that reads 16-bit floats
/// and writes bool loads 8 values (16 bytes) and stores 8 bytes.
///
/// Note [16-bit floats on the device]
/// float16 and bfloat16 elements are `__half` and `__nv_bfloat16` in memory
/// and float32 in registers: `OpMathFn` wraps a functor written for float
/// (the same one the float32 loop runs), widens each loaded value
/// (`to_opmath`, exact) and rounds the result once, to nearest even
/// (`from_opmath`), as the CPU backend and PyTorch's CUDA kernels do.
/// Reductions of them accumulate in float32 (sums, like PyTorch) or in
/// double where the float32 kernels do (prod, var, norm, logsumexp).
///
/// Note [Kernel files by dtype group]
/// Each launch_map instantiates up to five kernels per architecture, and
/// the binary and unary launchers have some 30 operations each: ten dtypes
/// would make one file take many minutes in nvcc. So their loops are split
/// by dtype group, one file each, which a parallel build compiles side by
/// side: bool/int32/int64/float32/float64 (elementwise_kernels.cu,
/// unary_kernels.cu), float16/bfloat16 (*_16bit.cu) and uint8/int8/int16
/// (*_narrow.cu), each instantiating `launch_*_among<its types>` through
/// `visit_among`. The narrow integers' loops leave out the rows path
/// (`kRowsPath`), which buys little for them; so do the conversions
/// between two dtypes (cast_kernels.cu).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "elementwise_kernels.h"

namespace wick::cuda_backend::loops {

inline constexpr int kThreads = 256;
inline constexpr int kBlocksPerSm = 8;
inline constexpr int kUnroll = 4;  // vectors per thread of the flat path, all loaded before any store
inline constexpr std::int64_t kMaxInt32 = 2147483647;

/// Multiprocessors of the current device (cached per device; 1 if the
/// query fails, whose error the caller's check_launch then reports).
int sm_count();

/// Blocks for `work` items of kThreads each, at most kBlocksPerSm waves.
inline unsigned grid_for(std::int64_t work, int blocks_per_sm = kBlocksPerSm) {
  const std::int64_t cap = static_cast<std::int64_t>(sm_count()) * blocks_per_sm;
  std::int64_t blocks = (work + kThreads - 1) / kThreads;
  if (blocks > cap) blocks = cap;
  if (blocks < 1) blocks = 1;
  return static_cast<unsigned>(blocks);
}

// --- 16-bit floats (Note [16-bit floats on the device]) ------------------------------------

template <typename T>
inline constexpr bool is_reduced_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

/// float, double, __half, __nv_bfloat16.
template <typename T>
inline constexpr bool is_float_like_v = std::is_floating_point_v<T> || is_reduced_v<T>;

/// The type a kernel computes T in: float for the 16-bit floats, T otherwise.
template <typename T>
using opmath_t = std::conditional_t<is_reduced_v<T>, float, T>;

template <typename T>
__device__ __forceinline__ opmath_t<T> to_opmath(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(v);
  } else {
    return v;
  }
}

/// `v` as T: a 16-bit float is rounded once from float (a double goes
/// through float first, as wick::convert and PyTorch do); others static_cast.
template <typename T, typename C>
__device__ __forceinline__ T from_opmath(C v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

/// Runs `fn`, written for opmath_t of the inputs, on stored values: the
/// inputs widened, the result written as Out (rounded once for a 16-bit Out).
template <typename Out, typename Fn>
struct OpMathFn {
  Fn fn;
  template <typename... X>
  __device__ __forceinline__ Out operator()(X... x) const {
    return from_opmath<Out>(fn(to_opmath(x)...));
  }
};

template <typename T>
__host__ __device__ inline T scalar_as(const ScalarValue& s) {
  if constexpr (std::is_same_v<T, bool>) {
    return s.b;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return s.i32;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return s.i64;
  } else if constexpr (std::is_same_v<T, float>) {
    return s.f32;
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    return s.u8;
  } else if constexpr (std::is_same_v<T, std::int8_t>) {
    return s.i8;
  } else if constexpr (std::is_same_v<T, std::int16_t>) {
    return s.i16;
  } else {
    static_assert(std::is_same_v<T, double>, "16-bit floats read f32 (scalar_as<opmath_t<T>>)");
    return s.f64;
  }
}

/// Calls fn(T{}) with the C++ type of `t` (host side of the launchers).
template <typename Fn>
void visit_type(DType t, Fn&& fn) {
  switch (t) {
    case DType::kBool:
      fn(bool{});
      break;
    case DType::kInt32:
      fn(std::int32_t{});
      break;
    case DType::kInt64:
      fn(std::int64_t{});
      break;
    case DType::kFloat32:
      fn(float{});
      break;
    case DType::kFloat64:
      fn(double{});
      break;
    case DType::kFloat16:
      fn(__half{});
      break;
    case DType::kBFloat16:
      fn(__nv_bfloat16{});
      break;
    case DType::kUInt8:
      fn(std::uint8_t{});
      break;
    case DType::kInt8:
      fn(std::int8_t{});
      break;
    case DType::kInt16:
      fn(std::int16_t{});
      break;
  }
}

/// The DType of a device type.
template <typename T>
constexpr DType dtype_code() {
  if constexpr (std::is_same_v<T, bool>) {
    return DType::kBool;
  } else if constexpr (std::is_same_v<T, std::int32_t>) {
    return DType::kInt32;
  } else if constexpr (std::is_same_v<T, std::int64_t>) {
    return DType::kInt64;
  } else if constexpr (std::is_same_v<T, float>) {
    return DType::kFloat32;
  } else if constexpr (std::is_same_v<T, double>) {
    return DType::kFloat64;
  } else if constexpr (std::is_same_v<T, __half>) {
    return DType::kFloat16;
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return DType::kBFloat16;
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    return DType::kUInt8;
  } else if constexpr (std::is_same_v<T, std::int8_t>) {
    return DType::kInt8;
  } else {
    static_assert(std::is_same_v<T, std::int16_t>);
    return DType::kInt16;
  }
}

/// Calls fn(T{}) for the one of Ts whose dtype is `t` (nothing when none
/// is): visit_type restricted to a group of dtypes, so that one file
/// instantiates a launcher's loops only for its group (Note [Kernel files
/// by dtype group]).
template <typename... Ts, typename Fn>
void visit_among(DType t, Fn&& fn) {
  (void)((t == dtype_code<Ts>() ? (fn(Ts{}), true) : false) || ...);
}

template <typename T>
__device__ __forceinline__ bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return isnan(v);
  } else if constexpr (is_reduced_v<T>) {
    return isnan(to_opmath(v));
  } else {
    return false;
  }
}

template <typename T, int V>
struct alignas(sizeof(T) * V) Vec {
  T v[V];
};

template <typename... T>
constexpr int max_size() {
  std::size_t m = 1;
  ((m = sizeof(T) > m ? sizeof(T) : m), ...);
  return static_cast<int>(m);
}

template <int N>
struct FlatArgs {
  char* data[N];
  bool scalar[N];  // a single value broadcast over the run
  std::int64_t n;
};

template <typename Index, int N>
struct StridedArgs {
  char* data[N];
  int ndim;
  Index sizes[kMaxDims];              // innermost first
  std::int64_t strides[kMaxDims][N];  // in bytes
  Index n;
};

// --- flat path -------------------------------------------------------------------------

template <typename T, int V>
__device__ __forceinline__ Vec<T, V> load_vec(const char* p, bool scalar, std::int64_t v) {
  if (scalar) {
    Vec<T, V> r;
    const T x = *reinterpret_cast<const T*>(p);
#pragma unroll
    for (int j = 0; j < V; ++j) r.v[j] = x;
    return r;
  }
  return reinterpret_cast<const Vec<T, V>*>(p)[v];
}

template <int V, typename Out, typename F, typename... In>
__device__ __forceinline__ Vec<Out, V> apply_vec(const F& f, Vec<In, V>... in) {
  Vec<Out, V> o;
#pragma unroll
  for (int j = 0; j < V; ++j) o.v[j] = f(in.v[j]...);
  return o;
}

template <int V, typename Out, typename... In, typename F, int N, std::size_t... I>
__device__ __forceinline__ Vec<Out, V> flat_vec_compute(const F& f, const FlatArgs<N>& a, std::int64_t v,
                                                        std::index_sequence<I...> /*inputs*/) {
  return apply_vec<V, Out>(f, load_vec<In, V>(a.data[I + 1], a.scalar[I + 1], v)...);
}

template <typename T>
__device__ __forceinline__ T load_one(const char* p, bool scalar, std::int64_t i) {
  return reinterpret_cast<const T*>(p)[scalar ? 0 : i];
}

template <typename Out, typename... In, typename F, int N, std::size_t... I>
__device__ __forceinline__ void flat_elem(const F& f, const FlatArgs<N>& a, std::int64_t i,
                                          std::index_sequence<I...> /*inputs*/) {
  reinterpret_cast<Out*>(a.data[0])[i] = f(load_one<In>(a.data[I + 1], a.scalar[I + 1], i)...);
}

// Block b owns chunk b (kThreads * kUnroll vectors; thread t the vectors
// t, t + kThreads, ...: each round of loads is coalesced), and every chunk
// gridDim.x after it when the chunks outnumber the largest grid.
template <int V, typename F, typename Out, typename... In>
__global__ void __launch_bounds__(kThreads) flat_kernel(F f, FlatArgs<sizeof...(In) + 1> a) {
  constexpr std::int64_t kChunk = static_cast<std::int64_t>(kThreads) * kUnroll;
  const std::int64_t nvec = a.n / V;
  auto* out = reinterpret_cast<Vec<Out, V>*>(a.data[0]);
  for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * kChunk; base < nvec;
       base += static_cast<std::int64_t>(gridDim.x) * kChunk) {
    const std::int64_t first = base + threadIdx.x;
    if (base + kChunk <= nvec) {  // a whole chunk: every load before any store
      Vec<Out, V> o[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u)
        o[u] = flat_vec_compute<V, Out, In...>(f, a, first + u * kThreads, std::index_sequence_for<In...>{});
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) out[first + u * kThreads] = o[u];
    } else {
      for (std::int64_t v = first; v < nvec; v += kThreads)
        out[v] = flat_vec_compute<V, Out, In...>(f, a, v, std::index_sequence_for<In...>{});
    }
  }
  // The tail (fewer than V elements) goes to the first threads of block 0.
  const std::int64_t i = nvec * V + static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < a.n) flat_elem<Out, In...>(f, a, i, std::index_sequence_for<In...>{});
}

// Blocks for the flat kernel: one per chunk of kThreads * kUnroll vectors, at
// most the largest grid.
inline unsigned flat_grid(std::int64_t nvec) {
  constexpr std::int64_t kChunk = static_cast<std::int64_t>(kThreads) * kUnroll;
  constexpr std::int64_t kMaxGrid = 2147483647;
  std::int64_t blocks = (nvec + kChunk - 1) / kChunk;
  if (blocks > kMaxGrid) blocks = kMaxGrid;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

// --- rows path ---------------------------------------------------------------------------

template <int N>
struct RowArgs {
  char* data[N];
  bool scalar[N];             // one value per row, broadcast along it (inner stride 0)
  std::int64_t row_step[N];   // bytes from one row to the next
  std::int64_t nvec_row;      // vectors per row
  std::int64_t nvec;          // vectors in all
};

template <int V, typename Out, typename... In, typename F, int N, std::size_t... I>
__device__ __forceinline__ void rows_step(const F& f, const RowArgs<N>& a, std::int64_t v,
                                          std::index_sequence<I...> /*inputs*/) {
  const std::int64_t row = v / a.nvec_row;
  const std::int64_t col = v - row * a.nvec_row;
  auto* out = reinterpret_cast<Vec<Out, V>*>(a.data[0] + row * a.row_step[0]);
  out[col] = apply_vec<V, Out>(f, load_vec<In, V>(a.data[I + 1] + row * a.row_step[I + 1], a.scalar[I + 1], col)...);
}

template <int V, typename F, typename Out, typename... In>
__global__ void __launch_bounds__(kThreads) rows_kernel(F f, RowArgs<sizeof...(In) + 1> a) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t v = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; v < a.nvec; v += step) {
    rows_step<V, Out, In...>(f, a, v, std::index_sequence_for<In...>{});
  }
}

// Two merged dims whose inner one is contiguous (or broadcast) in every
// operand, in whole aligned vectors: a bias or a row broadcast over a matrix,
// a column of a wider tensor. False (nothing launched) when it does not apply.
template <typename Out, typename... In, typename F>
bool launch_rows(const F& f, const ElementwiseArgs& args, cudaStream_t stream) {
  constexpr int kN = sizeof...(In) + 1;
  constexpr std::int64_t kItem[kN] = {static_cast<std::int64_t>(sizeof(Out)), static_cast<std::int64_t>(sizeof(In))...};
  constexpr int kVec = 16 / max_size<Out, In...>();
  if (args.ndim != 2 || args.sizes[0] % kVec != 0 || args.strides[0][0] != 1) return false;
  RowArgs<kN> a{};
  for (int k = 0; k < kN; ++k) {
    const std::int64_t inner = args.strides[k][0];
    if (inner != 0 && inner != 1) return false;
    a.data[k] = static_cast<char*>(args.data[k]);
    a.scalar[k] = inner == 0;
    a.row_step[k] = args.strides[k][1] * kItem[k];
    const bool aligned = reinterpret_cast<std::uintptr_t>(a.data[k]) % (kItem[k] * kVec) == 0 &&
                         args.strides[k][1] % kVec == 0;
    if (!a.scalar[k] && !aligned) return false;
  }
  a.nvec_row = args.sizes[0] / kVec;
  a.nvec = a.nvec_row * args.sizes[1];
  rows_kernel<kVec, F, Out, In...><<<grid_for(a.nvec), kThreads, 0, stream>>>(f, a);
  return true;
}

template <typename F>
constexpr auto requires_no_rows(int /*prefer*/) -> decltype(F::kRowsPath, bool()) {
  return !F::kRowsPath;
}
template <typename F>
constexpr bool requires_no_rows(long /*fallback*/) {
  return false;
}

// --- strided path ----------------------------------------------------------------------

template <typename Out, typename... In, typename F, std::size_t... I>
__device__ __forceinline__ void strided_elem(const F& f, char* const* data, const std::int64_t* off,
                                             std::index_sequence<I...> /*inputs*/) {
  *reinterpret_cast<Out*>(data[0] + off[0]) = f(*reinterpret_cast<const In*>(data[I + 1] + off[I + 1])...);
}

template <typename Index, typename F, typename Out, typename... In>
__global__ void __launch_bounds__(kThreads) strided_kernel(F f, StridedArgs<Index, sizeof...(In) + 1> a) {
  constexpr int kN = sizeof...(In) + 1;
  const Index step = static_cast<Index>(gridDim.x) * static_cast<Index>(blockDim.x);
  for (Index i = static_cast<Index>(blockIdx.x) * static_cast<Index>(blockDim.x) + static_cast<Index>(threadIdx.x);
       i < a.n; i += step) {
    std::int64_t off[kN] = {};
    Index rem = i;
#pragma unroll
    for (int d = 0; d < kMaxDims; ++d) {
      if (d == a.ndim) break;
      const Index size = a.sizes[d];
      const Index q = rem / size;
      const Index r = rem - q * size;
      rem = q;
#pragma unroll
      for (int k = 0; k < kN; ++k) off[k] += static_cast<std::int64_t>(r) * a.strides[d][k];
    }
    strided_elem<Out, In...>(f, a.data, off, std::index_sequence_for<In...>{});
  }
}

template <typename Index, typename Out, typename... In, typename F>
void launch_strided(const F& f, const ElementwiseArgs& args, cudaStream_t stream) {
  constexpr int kN = sizeof...(In) + 1;
  constexpr std::int64_t kItem[kN] = {static_cast<std::int64_t>(sizeof(Out)), static_cast<std::int64_t>(sizeof(In))...};
  StridedArgs<Index, kN> a{};
  a.ndim = args.ndim;
  a.n = static_cast<Index>(args.numel);
  for (int k = 0; k < kN; ++k) a.data[k] = static_cast<char*>(args.data[k]);
  for (int d = 0; d < args.ndim; ++d) {
    a.sizes[d] = static_cast<Index>(args.sizes[d]);
    for (int k = 0; k < kN; ++k) a.strides[d][k] = args.strides[k][d] * kItem[k];
  }
  strided_kernel<Index, F, Out, In...><<<grid_for(args.numel), kThreads, 0, stream>>>(f, a);
}

/// False for a functor that declares `static constexpr bool kRowsPath =
/// false`: its non-flat loops all take the strided path (fewer kernels to
/// compile where the rows path buys nothing, such as dtype conversions).
template <typename F>
constexpr bool with_rows_path() {
  if constexpr (requires_no_rows<F>(0)) {
    return false;
  } else {
    return true;
  }
}

/// Runs out = f(in...) over `args` (operand 0 the output, of type Out; the
/// inputs of types In...). Nothing is launched for numel 0.
template <typename Out, typename... In, typename F>
void launch_map(const F& f, const ElementwiseArgs& args, cudaStream_t stream) {
  constexpr int kN = sizeof...(In) + 1;
  constexpr std::size_t kItem[kN] = {sizeof(Out), sizeof(In)...};
  if (args.numel <= 0) return;
  bool flat = args.ndim == 0 || (args.ndim == 1 && args.strides[0][0] == 1);
  for (int k = 1; k < kN && flat; ++k) flat = args.ndim == 0 || args.strides[k][0] == 0 || args.strides[k][0] == 1;
  if (!flat) {
    if constexpr (with_rows_path<F>()) {
      if (launch_rows<Out, In...>(f, args, stream)) return;
    }
    if (args.numel <= kMaxInt32) {
      launch_strided<std::uint32_t, Out, In...>(f, args, stream);
    } else {
      launch_strided<std::int64_t, Out, In...>(f, args, stream);
    }
    return;
  }
  FlatArgs<kN> a{};
  a.n = args.numel;
  for (int k = 0; k < kN; ++k) {
    a.data[k] = static_cast<char*>(args.data[k]);
    a.scalar[k] = k > 0 && (args.ndim == 0 || args.strides[k][0] == 0);
  }
  constexpr int kVec = 16 / max_size<Out, In...>();
  bool aligned = true;
  for (int k = 0; k < kN; ++k) {
    if (a.scalar[k]) continue;
    aligned = aligned && reinterpret_cast<std::uintptr_t>(a.data[k]) % (kItem[k] * kVec) == 0;
  }
  if (aligned) {
    const std::int64_t nvec = args.numel / kVec;
    flat_kernel<kVec, F, Out, In...><<<flat_grid(nvec), kThreads, 0, stream>>>(f, a);
  } else {
    flat_kernel<1, F, Out, In...><<<flat_grid(args.numel), kThreads, 0, stream>>>(f, a);
  }
}

}  // namespace wick::cuda_backend::loops
