// backends/cuda/reduce_kernels.cu - device code: row reductions and row scans.
/// \file
/// Each reduction is an `Ops` type (identity, reduce one element, combine
/// two partial states, write a row's result) run by one of three kernels
/// (Note [Row reduction plans]). Results match the CPU kernels
/// (backends/cpu/reduce_ops.cpp, minmax_ops.cpp, stat_ops.cpp) to rounding.
/// float16 and bfloat16 values are widened as they are read (`to_opmath`)
/// and each result is rounded once as it is written (`from_opmath`): sums
/// accumulate in float32, as PyTorch's CUDA sums of them do (the CPU
/// backend's in double), the rest as the float32 kernels do.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "elementwise_loops.cuh"
#include "reduce_kernels.h"

namespace wick::cuda_backend {
namespace {

using loops::from_opmath;
using loops::is_float_like_v;
using loops::is_nan;
using loops::opmath_t;
using loops::sm_count;
using loops::to_opmath;
using loops::visit_type;

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffU;
constexpr int kRowThreads = 256;    // thread- and warp-per-row kernels
constexpr int kBlockThreads = 512;  // block-per-row kernel and the block scan

// Integer sums and products wrap around (as the CPU kernels') instead of overflowing.
__device__ __forceinline__ std::int64_t acc_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
__device__ __forceinline__ std::int64_t acc_mul(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
__device__ __forceinline__ float acc_add(float a, float b) { return a + b; }
__device__ __forceinline__ double acc_add(double a, double b) { return a + b; }
__device__ __forceinline__ double acc_mul(double a, double b) { return a * b; }

template <typename T>
using AccOf = std::conditional_t<is_float_like_v<T>, double, std::int64_t>;

// --- the operations ----------------------------------------------------------------------

// Note [Float sums]
// float32 sums accumulate in float32: each thread adds a strided share of
// its row (at most a few thousand values, four independent accumulators),
// then the threads' sums meet in a tree (warp shuffles, then across warps),
// and long rows are cut into chunks whose sums meet in a second tree. The
// additions are in float, the depth of each sum is that of a short run plus
// a tree, which keeps sums of millions of floats within float rounding of
// the CPU's (which sums in double). float16 and bfloat16 sums do the same
// in float32 (as PyTorch's CUDA sums of them), rounded once at the end.
template <typename T, typename O>
struct SumOps {
  using In = T;
  using State = std::conditional_t<is_float_like_v<T>, opmath_t<T>, std::int64_t>;
  O* out;
  double scale;
  __device__ State identity() const { return State(0); }
  __device__ State reduce(State s, T x, std::int64_t /*j*/) const {
    return acc_add(s, static_cast<State>(to_opmath(x)));
  }
  __device__ State combine(State a, State b) const { return acc_add(a, b); }
  __device__ void set_row(std::int64_t /*row*/) {}
  __device__ void write(std::int64_t row, State s) const {
    if (scale == 1.0) {
      out[row] = from_opmath<O>(s);
    } else {
      out[row] = from_opmath<O>(static_cast<double>(s) * scale);
    }
  }
};

template <typename T>
struct ProdOps {
  using In = T;
  using State = AccOf<T>;
  T* out;
  __device__ State identity() const { return State(1); }
  __device__ State reduce(State s, T x, std::int64_t /*j*/) const {
    return acc_mul(s, static_cast<State>(to_opmath(x)));
  }
  __device__ State combine(State a, State b) const { return acc_mul(a, b); }
  __device__ void set_row(std::int64_t /*row*/) {}
  __device__ void write(std::int64_t row, State s) const { out[row] = from_opmath<T>(s); }
};

// Welford's running mean and sum of squared deviations, merged with Chan's
// formula: one pass in double, as accurate as the CPU's two passes.
struct Welford {
  double mean;
  double m2;
  double n;
};

template <typename T>
struct VarOps {
  using In = T;
  using State = Welford;
  T* out;
  double correction;
  bool take_sqrt;
  __device__ State identity() const { return {0.0, 0.0, 0.0}; }
  __device__ State reduce(State s, T x, std::int64_t /*j*/) const {
    const double v = static_cast<double>(to_opmath(x));
    s.n += 1.0;
    const double d = v - s.mean;
    s.mean += d / s.n;
    s.m2 += d * (v - s.mean);
    return s;
  }
  __device__ State combine(State a, State b) const {
    if (a.n == 0.0) return b;
    if (b.n == 0.0) return a;
    const double n = a.n + b.n;
    const double d = b.mean - a.mean;
    return {a.mean + d * (b.n / n), a.m2 + b.m2 + d * d * (a.n * b.n / n), n};
  }
  __device__ void set_row(std::int64_t /*row*/) {}
  __device__ void write(std::int64_t row, State s) const {
    const double var = s.m2 / fmax(0.0, s.n - correction);
    out[row] = from_opmath<T>(take_sqrt ? sqrt(var) : var);
  }
};

__device__ __forceinline__ double nan_max(double a, double b) { return (isnan(a) || a > b) ? a : b; }
__device__ __forceinline__ double nan_min(double a, double b) { return (isnan(a) || a < b) ? a : b; }

enum class NormKind : std::int8_t { kMax, kMin, kCount, kOne, kTwo, kPower };

// The p-norm in double: max|x| (inf, NaN wins), min|x| (-inf), the count of
// non-zeros (0), else (sum |x|^p)^(1/p); an empty row's norm is 0.
template <typename T>
struct NormOps {
  using In = T;
  using State = double;
  T* out;
  double p;
  NormKind kind;
  std::int64_t row_len;
  __device__ State identity() const { return kind == NormKind::kMin ? INFINITY : 0.0; }
  __device__ State reduce(State s, T x, std::int64_t /*j*/) const {
    const double a = fabs(static_cast<double>(to_opmath(x)));
    switch (kind) {
      case NormKind::kMax:
        return nan_max(s, a);
      case NormKind::kMin:
        return nan_min(s, a);
      case NormKind::kCount:
        return s + (to_opmath(x) != opmath_t<T>(0) ? 1.0 : 0.0);
      case NormKind::kOne:
        return s + a;
      case NormKind::kTwo:
        return s + a * a;
      default:
        return s + pow(a, p);
    }
  }
  __device__ State combine(State a, State b) const {
    if (kind == NormKind::kMax) return nan_max(a, b);
    if (kind == NormKind::kMin) return nan_min(a, b);
    return a + b;
  }
  __device__ void set_row(std::int64_t /*row*/) {}
  __device__ void write(std::int64_t row, State s) const {
    double r = s;
    if (row_len == 0) {
      r = 0.0;
    } else if (kind == NormKind::kTwo) {
      r = sqrt(s);
    } else if (kind == NormKind::kPower) {
      r = pow(s, 1.0 / p);
    }
    out[row] = from_opmath<T>(r);
  }
};

// log(sum(exp(x - m))) + m with m the row's max from a first pass (0 when
// infinite, so that all -inf gives -inf and +inf gives inf; NaN propagates).
template <typename T>
struct LogSumExpOps {
  using In = T;
  using State = double;
  T* out;
  const T* row_max;
  double m;
  __device__ State identity() const { return 0.0; }
  __device__ State reduce(State s, T x, std::int64_t /*j*/) const {
    return s + exp(static_cast<double>(to_opmath(x)) - m);
  }
  __device__ State combine(State a, State b) const { return a + b; }
  __device__ void set_row(std::int64_t row) {
    m = static_cast<double>(to_opmath(row_max[row]));
    if (isinf(m)) m = 0.0;
  }
  __device__ void write(std::int64_t row, State s) const { out[row] = from_opmath<T>(log(s) + m); }
};

template <typename T>
struct Extreme {
  T v;
  std::int64_t index;  // -1: no element yet
};

// The first NaN, else the first occurrence of the largest (kMax) or
// smallest value: the rule compares indices, so partial states may meet in
// any order.
template <typename T, bool kMax>
struct SelectOps {
  using In = T;
  using State = Extreme<opmath_t<T>>;  // a 16-bit float widened: exact, and back exactly
  T* out;
  std::int64_t* out_index;
  __device__ State identity() const { return {opmath_t<T>(), -1}; }
  __device__ State combine(State a, State b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool a_nan = is_nan(a.v);
    const bool b_nan = is_nan(b.v);
    if (a_nan || b_nan) {
      if (a_nan && b_nan) return a.index < b.index ? a : b;
      return a_nan ? a : b;
    }
    if (a.v == b.v) return a.index < b.index ? a : b;
    return (kMax ? a.v > b.v : a.v < b.v) ? a : b;
  }
  __device__ State reduce(State s, T x, std::int64_t j) const { return combine(s, State{to_opmath(x), j}); }
  __device__ void set_row(std::int64_t /*row*/) {}
  __device__ void write(std::int64_t row, State s) const {
    if (out != nullptr) out[row] = from_opmath<T>(s.v);
    if (out_index != nullptr) out_index[row] = s.index;
  }
};

template <typename T, bool kAll>
struct AllAnyOps {
  using In = T;
  using State = int;
  bool* out;
  __device__ State identity() const { return kAll ? 1 : 0; }
  __device__ State reduce(State s, T x, std::int64_t /*j*/) const {
    const int nonzero = to_opmath(x) != opmath_t<T>(0) ? 1 : 0;  // NaN is true
    return kAll ? (s & nonzero) : (s | nonzero);
  }
  __device__ State combine(State a, State b) const { return kAll ? (a & b) : (a | b); }
  __device__ void set_row(std::int64_t /*row*/) {}
  __device__ void write(std::int64_t row, State s) const { out[row] = s != 0; }
};

// --- the kernels -----------------------------------------------------------------------------

template <typename S>
__device__ __forceinline__ S shfl_down(S s, int offset) {
  static_assert(sizeof(S) % 4 == 0, "states are shuffled as 32-bit words");
  constexpr int kWords = static_cast<int>(sizeof(S) / 4);
  unsigned w[kWords];
  memcpy(w, &s, sizeof(S));
#pragma unroll
  for (int i = 0; i < kWords; ++i) w[i] = __shfl_down_sync(kFullMask, w[i], offset);
  S r;
  memcpy(&r, w, sizeof(S));
  return r;
}

// The state of elements [begin, end) step `stride` of one row (or, kPartial,
// of states from a first pass), with four independent states in flight.
template <bool kPartial, typename Ops>
__device__ __forceinline__ typename Ops::State accumulate(const Ops& ops, const void* row, std::int64_t begin,
                                                          std::int64_t end, std::int64_t stride) {
  using S = typename Ops::State;
  S s0 = ops.identity();
  S s1 = s0;
  S s2 = s0;
  S s3 = s0;
  std::int64_t j = begin;
  if constexpr (kPartial) {
    const S* p = static_cast<const S*>(row);
    for (; j + 3 * stride < end; j += 4 * stride) {
      const S a = p[j];
      const S b = p[j + stride];
      const S c = p[j + 2 * stride];
      const S d = p[j + 3 * stride];
      s0 = ops.combine(s0, a);
      s1 = ops.combine(s1, b);
      s2 = ops.combine(s2, c);
      s3 = ops.combine(s3, d);
    }
    for (; j < end; j += stride) s0 = ops.combine(s0, p[j]);
  } else {
    using In = typename Ops::In;
    const In* p = static_cast<const In*>(row);
    for (; j + 3 * stride < end; j += 4 * stride) {
      const In a = p[j];
      const In b = p[j + stride];
      const In c = p[j + 2 * stride];
      const In d = p[j + 3 * stride];
      s0 = ops.reduce(s0, a, j);
      s1 = ops.reduce(s1, b, j + stride);
      s2 = ops.reduce(s2, c, j + 2 * stride);
      s3 = ops.reduce(s3, d, j + 3 * stride);
    }
    for (; j < end; j += stride) s0 = ops.reduce(s0, p[j], j);
  }
  return ops.combine(ops.combine(s0, s1), ops.combine(s2, s3));
}

// Lane 0 gets the warp's state.
template <typename Ops>
__device__ __forceinline__ typename Ops::State warp_reduce(const Ops& ops, typename Ops::State s) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset /= 2) s = ops.combine(s, shfl_down(s, offset));
  return s;
}

// Thread 0 gets the block's state (blockDim.x == kBlockThreads).
template <typename Ops>
__device__ __forceinline__ typename Ops::State block_reduce(const Ops& ops, typename Ops::State s) {
  using S = typename Ops::State;
  constexpr int kWarps = kBlockThreads / kWarp;
  __shared__ S warp_states[kWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int warp = static_cast<int>(threadIdx.x) / kWarp;
  s = warp_reduce(ops, s);
  if (lane == 0) warp_states[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < kWarps ? warp_states[lane] : ops.identity();
    s = warp_reduce(ops, s);
  }
  __syncthreads();  // warp_states is reused by the next row
  return s;
}

template <typename Ops>
__global__ void __launch_bounds__(kRowThreads)
    thread_rows_kernel(Ops ops, const typename Ops::In* in, std::int64_t rows, std::int64_t len) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; row < rows; row += step) {
    ops.set_row(row);
    ops.write(row, accumulate<false>(ops, in + row * len, 0, len, 1));
  }
}

// One warp per row; kPartial: the rows are states of the block kernel's chunks.
template <bool kPartial, typename Ops>
__global__ void __launch_bounds__(kRowThreads)
    warp_rows_kernel(Ops ops, const void* in, std::int64_t rows, std::int64_t len) {
  using Elem = std::conditional_t<kPartial, typename Ops::State, typename Ops::In>;
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const std::int64_t warps = static_cast<std::int64_t>(gridDim.x) * (blockDim.x / kWarp);
  for (std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp; row < rows;
       row += warps) {
    ops.set_row(row);
    const Elem* base = static_cast<const Elem*>(in) + row * len;
    const typename Ops::State s = warp_reduce(ops, accumulate<kPartial>(ops, base, lane, len, kWarp));
    if (lane == 0) ops.write(row, s);
  }
}

// One block per chunk of a row: the row's result, or (partial != null) the
// chunk's state for a second pass.
template <typename Ops>
__global__ void __launch_bounds__(kBlockThreads)
    block_rows_kernel(Ops ops, const typename Ops::In* in, std::int64_t rows, std::int64_t len, std::int64_t chunks,
                      std::int64_t chunk_len, typename Ops::State* partial) {
  const std::int64_t tasks = rows * chunks;
  for (std::int64_t task = blockIdx.x; task < tasks; task += gridDim.x) {
    const std::int64_t row = task / chunks;
    const std::int64_t begin = (task - row * chunks) * chunk_len;
    const std::int64_t end = begin + chunk_len < len ? begin + chunk_len : len;
    ops.set_row(row);
    const typename Ops::State s =
        block_reduce(ops, accumulate<false>(ops, in + row * len, begin + threadIdx.x, end, kBlockThreads));
    if (threadIdx.x == 0) {
      if (partial != nullptr) {
        partial[task] = s;
      } else {
        ops.write(row, s);
      }
    }
  }
}

// Note [Row reduction plans]
// Short rows (<= kThreadRowMax): a thread per row, reading sequentially.
// Rows up to kWarpRowMax, or enough rows to fill the device with warps: a
// warp per row, lanes reading consecutive elements. Otherwise a block per
// chunk of a row, with as many chunks per row as it takes to give every SM
// a few blocks (and chunks of at least kMinChunk elements); several chunks
// leave their states in the workspace for a warp-per-row second pass.
constexpr std::int64_t kThreadRowMax = 16;
constexpr std::int64_t kWarpRowMax = 4096;
constexpr std::int64_t kMinChunk = 4096;

enum class PlanKind : std::int8_t { kThreadPerRow, kWarpPerRow, kBlocks };

struct Plan {
  PlanKind kind;
  std::int64_t chunks;
  std::int64_t chunk_len;
};

Plan plan_rows(std::int64_t rows, std::int64_t len) {
  const std::int64_t sms = sm_count();
  if (len <= kThreadRowMax) return {PlanKind::kThreadPerRow, 1, len};
  if (len <= kWarpRowMax || rows >= sms * 16) return {PlanKind::kWarpPerRow, 1, len};
  std::int64_t chunks = (sms * 4 + rows - 1) / rows;
  const std::int64_t max_chunks = (len + kMinChunk - 1) / kMinChunk;
  if (chunks > max_chunks) chunks = max_chunks;
  if (chunks < 1) chunks = 1;
  const std::int64_t chunk_len = (len + chunks - 1) / chunks;
  return {PlanKind::kBlocks, (len + chunk_len - 1) / chunk_len, chunk_len};
}

unsigned capped_grid(std::int64_t blocks, int per_sm) {
  const std::int64_t cap = static_cast<std::int64_t>(sm_count()) * per_sm;
  if (blocks > cap) blocks = cap;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

template <typename Ops>
void run_reduce(const Ops& ops, const RowReduce& r, cudaStream_t stream) {
  using In = typename Ops::In;
  using S = typename Ops::State;
  const In* in = static_cast<const In*>(r.in);
  const Plan plan = plan_rows(r.rows, r.row_len);
  constexpr int kRowWarps = kRowThreads / kWarp;
  switch (plan.kind) {
    case PlanKind::kThreadPerRow:
      thread_rows_kernel<<<capped_grid((r.rows + kRowThreads - 1) / kRowThreads, 8), kRowThreads, 0, stream>>>(
          ops, in, r.rows, r.row_len);
      return;
    case PlanKind::kWarpPerRow:
      warp_rows_kernel<false><<<capped_grid((r.rows + kRowWarps - 1) / kRowWarps, 8), kRowThreads, 0, stream>>>(
          ops, r.in, r.rows, r.row_len);
      return;
    case PlanKind::kBlocks: {
      S* partial = plan.chunks > 1 ? static_cast<S*>(r.workspace) : nullptr;
      block_rows_kernel<<<capped_grid(r.rows * plan.chunks, 16), kBlockThreads, 0, stream>>>(
          ops, in, r.rows, r.row_len, plan.chunks, plan.chunk_len, partial);
      if (partial != nullptr) {
        warp_rows_kernel<true><<<capped_grid((r.rows + kRowWarps - 1) / kRowWarps, 8), kRowThreads, 0, stream>>>(
            ops, partial, r.rows, plan.chunks);
      }
      return;
    }
  }
}

NormKind norm_kind(double p) {
  if (std::isinf(p)) return p > 0 ? NormKind::kMax : NormKind::kMin;
  if (p == 0.0) return NormKind::kCount;
  if (p == 1.0) return NormKind::kOne;
  if (p == 2.0) return NormKind::kTwo;
  return NormKind::kPower;
}

// Calls fn(ops) with the Ops object of `r` (nothing for a combination the
// host never asks for).
template <typename Fn>
void with_ops(const RowReduce& r, Fn&& fn) {
  visit_type(r.in_dtype, [&](auto tag) {
    using T = decltype(tag);
    constexpr bool kFloat = is_float_like_v<T>;
    switch (r.op) {
      case ReduceOp::kSum:
        if (r.out_dtype == r.in_dtype) {
          fn(SumOps<T, T>{static_cast<T*>(r.out), r.scale});
        } else if constexpr (!kFloat) {
          fn(SumOps<T, std::int64_t>{static_cast<std::int64_t*>(r.out), r.scale});
        }
        return;
      case ReduceOp::kProd:
        fn(ProdOps<T>{static_cast<T*>(r.out)});
        return;
      case ReduceOp::kVar:
        if constexpr (kFloat) fn(VarOps<T>{static_cast<T*>(r.out), r.param, r.take_sqrt});
        return;
      case ReduceOp::kNorm:
        if constexpr (kFloat) fn(NormOps<T>{static_cast<T*>(r.out), r.param, norm_kind(r.param), r.row_len});
        return;
      case ReduceOp::kLogSumExp:
        if constexpr (kFloat) fn(LogSumExpOps<T>{static_cast<T*>(r.out), static_cast<const T*>(r.row_max), 0.0});
        return;
      case ReduceOp::kMax:
        fn(SelectOps<T, true>{static_cast<T*>(r.out), r.out_index});
        return;
      case ReduceOp::kMin:
        fn(SelectOps<T, false>{static_cast<T*>(r.out), r.out_index});
        return;
      case ReduceOp::kAll:
        fn(AllAnyOps<T, true>{static_cast<bool*>(r.out)});
        return;
      case ReduceOp::kAny:
        fn(AllAnyOps<T, false>{static_cast<bool*>(r.out)});
        return;
    }
  });
}

// --- scans -------------------------------------------------------------------------------------

// Note [Row scans]
// A group of threads (a warp, or a block for long rows) walks its row in
// tiles of kGroup * kItems elements: each thread scans kItems consecutive
// elements, the group scans the threads' totals (warp shuffles, and across
// warps through shared memory), and a carry holds the tiles before. Floats
// accumulate in double, integers in wrapping int64 (associative, so the
// result is the CPU's exactly); each element is written in the row's dtype.
template <bool kProd, typename Acc>
__device__ __forceinline__ Acc scan_op(Acc a, Acc b) {
  if constexpr (kProd) {
    return acc_mul(a, b);
  } else {
    return acc_add(a, b);
  }
}

template <bool kProd, typename Acc>
__device__ __forceinline__ Acc warp_inclusive_scan(Acc v, int lane) {
#pragma unroll
  for (int offset = 1; offset < kWarp; offset *= 2) {
    const Acc other = __shfl_up_sync(kFullMask, v, offset);
    if (lane >= offset) v = scan_op<kProd>(other, v);
  }
  return v;
}

template <int kGroup, int kItems, bool kProd, typename T>
__global__ void __launch_bounds__(kGroup == kWarp ? kRowThreads : kBlockThreads)
    scan_rows_kernel(const T* in, T* out, std::int64_t rows, std::int64_t len) {
  using Acc = AccOf<T>;
  constexpr int kGroupWarps = kGroup / kWarp;
  const Acc identity = kProd ? Acc(1) : Acc(0);
  __shared__ Acc warp_totals[kGroupWarps];
  const int lane = static_cast<int>(threadIdx.x) % kWarp;
  const int rank = static_cast<int>(threadIdx.x) % kGroup;  // within the group
  const int warp = rank / kWarp;
  const std::int64_t groups_per_block = blockDim.x / kGroup;
  const std::int64_t groups = static_cast<std::int64_t>(gridDim.x) * groups_per_block;
  for (std::int64_t row = blockIdx.x * groups_per_block + threadIdx.x / kGroup; row < rows; row += groups) {
    const T* x = in + row * len;
    T* y = out + row * len;
    Acc carry = identity;
    for (std::int64_t tile = 0; tile < len; tile += static_cast<std::int64_t>(kGroup) * kItems) {
      const std::int64_t first = tile + static_cast<std::int64_t>(rank) * kItems;
      Acc local[kItems];
      Acc run = identity;
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        if (first + i < len) run = scan_op<kProd>(run, static_cast<Acc>(to_opmath(x[first + i])));
        local[i] = run;
      }
      const Acc inclusive = warp_inclusive_scan<kProd>(run, lane);
      Acc before = __shfl_up_sync(kFullMask, inclusive, 1);  // exclusive within the warp
      if (lane == 0) before = identity;
      Acc tile_total = __shfl_sync(kFullMask, inclusive, kWarp - 1);
      if constexpr (kGroupWarps > 1) {
        if (lane == kWarp - 1) warp_totals[warp] = inclusive;
        __syncthreads();
        if (warp == 0) {
          const Acc total = lane < kGroupWarps ? warp_totals[lane] : identity;
          const Acc scanned = warp_inclusive_scan<kProd>(total, lane);
          if (lane < kGroupWarps) warp_totals[lane] = scanned;
        }
        __syncthreads();
        if (warp > 0) before = scan_op<kProd>(warp_totals[warp - 1], before);
        tile_total = warp_totals[kGroupWarps - 1];
        __syncthreads();  // warp_totals is rewritten by the next tile
      }
      const Acc prefix = scan_op<kProd>(carry, before);
#pragma unroll
      for (int i = 0; i < kItems; ++i) {
        if (first + i < len) y[first + i] = from_opmath<T>(scan_op<kProd>(prefix, local[i]));
      }
      carry = scan_op<kProd>(carry, tile_total);
    }
  }
}

// Rows up to kWarpScanMax (or enough rows to keep every SM busy with warps)
// get a warp each, longer ones a block each.
constexpr std::int64_t kWarpScanMax = 2048;

template <bool kProd, typename T>
void run_scan(const RowScan& s, cudaStream_t stream) {
  const T* in = static_cast<const T*>(s.in);
  T* out = static_cast<T*>(s.out);
  const std::int64_t sms = sm_count();
  if (s.row_len <= kWarpScanMax || s.rows >= sms * 16) {
    constexpr int kRowWarps = kRowThreads / kWarp;
    scan_rows_kernel<kWarp, 4, kProd, T>
        <<<capped_grid((s.rows + kRowWarps - 1) / kRowWarps, 8), kRowThreads, 0, stream>>>(in, out, s.rows, s.row_len);
  } else {
    scan_rows_kernel<kBlockThreads, 8, kProd, T>
        <<<capped_grid(s.rows, 4), kBlockThreads, 0, stream>>>(in, out, s.rows, s.row_len);
  }
}

}  // namespace

std::size_t row_reduce_workspace_bytes(const RowReduce& r) {
  if (r.rows <= 0) return 0;
  const Plan plan = plan_rows(r.rows, r.row_len);
  if (plan.kind != PlanKind::kBlocks || plan.chunks <= 1) return 0;
  std::size_t state_size = 0;
  with_ops(r, [&](const auto& ops) { state_size = sizeof(typename std::decay_t<decltype(ops)>::State); });
  return static_cast<std::size_t>(r.rows * plan.chunks) * state_size;
}

void launch_row_reduce(const RowReduce& r, cudaStream_t stream) {
  if (r.rows <= 0) return;
  with_ops(r, [&](const auto& ops) { run_reduce(ops, r, stream); });
}

void launch_row_scan(const RowScan& s, cudaStream_t stream) {
  if (s.rows <= 0 || s.row_len <= 0) return;
  visit_type(s.dtype, [&](auto tag) {
    using T = decltype(tag);
    if (s.prod) {
      run_scan<true, T>(s, stream);
    } else {
      run_scan<false, T>(s, stream);
    }
  });
}

}  // namespace wick::cuda_backend
