// backends/cpu/loops.h - private: strided elementwise loops for the CPU kernels.
/// \file
/// `for_each_element<N>` walks N operands that share a shape (inputs already
/// broadcast through their strides) and hands the innermost dimension to a
/// callback as (pointers, count, byte strides). Operands that are all
/// contiguous collapse to one flat run, so the callback sees plain arrays
/// and the compiler can vectorise it; a long flat run is split across
/// OpenMP threads (Note [Grain size]).
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <exception>
#include <initializer_list>
#include <optional>
#include <string>

#include <wick/backends.h>
#include <wick/checked.h>
#include <wick/dim_vector.h>
#include <wick/tensor.h>
#include <wick/tensor_util.h>

namespace wick::cpu {

// Note [Grain size]
// Below kGrainSize elements a loop runs on the calling thread: starting an
// OpenMP team costs a few microseconds, more than a small loop takes. Above
// it, the range is cut into one contiguous chunk per thread (cache-line
// aligned), so each thread streams its own part of every operand. Loops
// already inside a parallel region (a caller's OpenMP loop) stay serial.
inline constexpr std::int64_t kGrainSize = 32768;

/// The threads a parallel loop may use: wick::get_num_threads() (set by
/// wick::set_num_threads). The calling thread's OpenMP setting follows it,
/// so OpenBLAS (OpenMP build), which reads that setting, uses the same count.
inline int team_size() noexcept {
  const int n = wick::get_num_threads();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
  return n;
}

/// Calls fn(begin, end) over [0, n), split across threads when n is at
/// least `grain`. An exception thrown by fn on any thread is rethrown on the
/// caller once every thread has finished (the first one wins).
template <typename Fn>
void parallel_for(std::int64_t n, std::int64_t grain, Fn&& fn) {
  if (n <= 0) return;
  const int max_threads = n < grain || omp_in_parallel() ? 1 : team_size();
  const std::int64_t threads = std::min<std::int64_t>(max_threads, (n + grain - 1) / grain);
  if (threads <= 1) {
    fn(std::int64_t{0}, n);
    return;
  }
  std::exception_ptr error;
  std::atomic<bool> failed{false};
#pragma omp parallel num_threads(static_cast<int>(threads))
  {
    const std::int64_t t = omp_get_thread_num();
    const std::int64_t team = omp_get_num_threads();
    // Chunks of fine-grained loops (elements) are multiples of 16 so no two
    // threads share a cache line; coarse tasks (rows, images: grain < 16)
    // are split evenly, or 8 images would all go to one thread.
    const std::int64_t align = grain >= 16 ? 16 : 1;
    const std::int64_t chunk = ((n + team - 1) / team + align - 1) / align * align;
    const std::int64_t begin = std::min(n, t * chunk);
    const std::int64_t end = std::min(n, begin + chunk);
    if (begin < end) {
      try {
        fn(begin, end);
      } catch (...) {
        if (!failed.exchange(true)) error = std::current_exception();
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

template <int N>
struct Operands {
  std::array<char*, N> data{};
  std::array<DimVector, N> strides;  // in bytes
};

/// Operand `t` viewed with `shape` (broadcast strides, in bytes).
inline void set_operand(char*& data, DimVector& strides, const Tensor& t, IntArrayRef shape) {
  data = static_cast<char*>(t.data_ptr());
  strides = broadcast_strides(t, shape);
  const auto item = static_cast<std::int64_t>(itemsize(t.dtype()));
  for (auto& s : strides) s *= item;
}

// Note [Merged dims]
// Off the flat path, adjacent dims that every operand steps through as one
// (stride of the outer = stride of the inner * its size; size-1 dims drop
// out) are merged first, so that a per-channel operand broadcast over
// [N, C, H, W] runs rows of H * W elements rather than of W, and the rows
// are split over the threads when the loop is long enough and the first
// operand (the written one, for the elementwise loops that ask, kParallel)
// has no broadcast dim: its rows are then disjoint.
template <int N, bool kParallel = false, typename Inner>
void for_each_element(IntArrayRef shape, const std::array<Tensor, N>& ops, Inner&& inner) {
  const std::int64_t numel = checked_numel(shape);  // an empty shape's other sizes may be anything
  if (numel == 0) return;
  // Fast path: every operand contiguous with the full shape -> one flat run.
  bool flat = true;
  for (int k = 0; k < N; ++k) flat = flat && ops[k].is_contiguous() && ops[k].sizes().equals(shape);
  std::array<std::int64_t, N> inner_strides{};
  if (flat || shape.empty()) {
    std::array<char*, N> data;
    for (int k = 0; k < N; ++k) {
      data[k] = static_cast<char*>(ops[k].data_ptr());
      inner_strides[k] = static_cast<std::int64_t>(itemsize(ops[k].dtype()));
    }
    parallel_for(numel, kGrainSize, [&](std::int64_t begin, std::int64_t end) {
      std::array<char*, N> part;
      for (int k = 0; k < N; ++k) part[k] = data[k] + begin * inner_strides[k];
      inner(part, end - begin, inner_strides);
    });
    return;
  }
  Operands<N> o;
  for (int k = 0; k < N; ++k) set_operand(o.data[k], o.strides[k], ops[k], shape);
  DimVector sizes;  // merged dims, outermost first
  std::array<DimVector, N> strides;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = !sizes.empty();
    for (int k = 0; merge && k < N; ++k) merge = strides[k].back() == o.strides[k][d] * shape[d];
    if (merge) {
      sizes.back() *= shape[d];
      for (int k = 0; k < N; ++k) strides[k].back() = o.strides[k][d];
    } else {
      sizes.push_back(shape[d]);
      for (int k = 0; k < N; ++k) strides[k].push_back(o.strides[k][d]);
    }
  }
  if (sizes.empty()) {  // a single element
    sizes.push_back(1);
    for (int k = 0; k < N; ++k) strides[k].push_back(0);
  }
  const std::size_t nd = sizes.size();
  const std::int64_t n_inner = sizes[nd - 1];
  for (int k = 0; k < N; ++k) inner_strides[k] = strides[k][nd - 1];
  const std::int64_t outer = numel / n_inner;
  // Rows [r0, r1) of the merged shape.
  auto rows = [&](std::int64_t r0, std::int64_t r1) {
    DimVector index(nd - 1, 0);
    std::int64_t rest = r0;
    for (std::size_t d = nd - 1; d-- > 0;) {
      index[d] = rest % sizes[d];
      rest /= sizes[d];
    }
    std::array<char*, N> ptrs;
    for (std::int64_t it = r0; it < r1; ++it) {
      for (int k = 0; k < N; ++k) {
        char* p = o.data[k];
        for (std::size_t d = 0; d + 1 < nd; ++d) p += index[d] * strides[k][d];
        ptrs[k] = p;
      }
      inner(ptrs, n_inner, inner_strides);
      for (std::size_t d = nd - 1; d-- > 0;) {
        if (++index[d] < sizes[d]) break;
        index[d] = 0;
      }
    }
  };
  bool split = kParallel && numel >= kGrainSize && outer > 1;
  for (std::size_t d = 0; split && d < nd; ++d) split = strides[0][d] != 0;
  if (split) {
    parallel_for(outer, std::max<std::int64_t>(1, kGrainSize / n_inner), rows);
  } else {
    rows(0, outer);
  }
}

// Note [Vector code paths]
// The backend is built for the x86-64 baseline (SSE2), so it runs anywhere.
// Contiguous runs, where the time goes, are also compiled for AVX2 + FMA and
// chosen at run time when the CPU has them. Loops of math functions that
// cannot throw (`kVectorMath`) are `omp simd` loops: with vector_math.h
// they call libmvec's vector exp, log, sin, ... instead of one value at a
// time. Other loops are left to auto-vectorisation: their functions may
// throw (integer pow), and an exception must not leave an `omp simd` loop.
// The sanitizer builds (WICK_CPU_BASELINE_ONLY, set by backends/cpu/
// CMakeLists.txt) compile the loops' baseline copies only: they check the
// same loop bodies for memory and threading errors in half the build time,
// and the release build's tests run the AVX2 copies.

/// Whether the loops below have their AVX2 + FMA copies.
#ifdef WICK_CPU_BASELINE_ONLY
inline constexpr bool kAvx2Copies = false;
#else
inline constexpr bool kAvx2Copies = true;
#endif

/// Whether this CPU runs AVX2 and FMA (checked once).
inline bool cpu_has_avx2() {
  static const bool yes = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return yes;
}

// One body per loop, inlined into a baseline and an AVX2 copy: a function
// inlined into a [[gnu::target]] function is compiled for that target.
template <bool kVectorMath, typename Out, typename In, typename F>
[[gnu::always_inline]] inline void map_body(Out* o, const In* x, std::int64_t n, F& f) {
  if constexpr (kVectorMath) {
#pragma omp simd
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i]);
  }
}
template <bool kVectorMath, typename Out, typename In, typename F>
void map_run(Out* o, const In* x, std::int64_t n, F& f) {
  map_body<kVectorMath>(o, x, n, f);
}
template <bool kVectorMath, typename Out, typename In, typename F>
[[gnu::target("avx2,fma")]] void map_run_avx2(Out* o, const In* x, std::int64_t n, F& f) {
  map_body<kVectorMath>(o, x, n, f);
}

// out[i] = f(x[i], y[i]); a stride of 0 marks a broadcast scalar operand.
template <typename Out, typename In, typename F>
[[gnu::always_inline]] inline void zip_body(Out* o, const In* x, const In* y, std::int64_t n, bool x_scalar,
                                            bool y_scalar, F& f) {
  if (y_scalar) {
    const In yv = *y;
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], yv);
  } else if (x_scalar) {
    const In xv = *x;
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(xv, y[i]);
  } else {
    for (std::int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
  }
}
template <typename Out, typename In, typename F>
void zip_run(Out* o, const In* x, const In* y, std::int64_t n, bool x_scalar, bool y_scalar, F& f) {
  zip_body(o, x, y, n, x_scalar, y_scalar, f);
}
template <typename Out, typename In, typename F>
[[gnu::target("avx2,fma")]] void zip_run_avx2(Out* o, const In* x, const In* y, std::int64_t n, bool x_scalar,
                                              bool y_scalar, F& f) {
  zip_body(o, x, y, n, x_scalar, y_scalar, f);
}

/// out[i] = f(a[i]) with typed pointers. `kVectorMath`: f is a math
/// function that cannot throw (Note [Vector code paths]).
template <typename Out, typename In, bool kVectorMath = false, typename F>
void unary_loop(const Tensor& out, const Tensor& a, F f) {
  for_each_element<2, true>(out.sizes(), {out, a}, [&](std::array<char*, 2> p, std::int64_t n,
                                                       std::array<std::int64_t, 2> s) {
    if (s[0] == sizeof(Out) && s[1] == sizeof(In)) {
      auto* o = reinterpret_cast<Out*>(p[0]);
      const auto* x = reinterpret_cast<const In*>(p[1]);
      if constexpr (kAvx2Copies) {
        if (cpu_has_avx2()) {
          map_run_avx2<kVectorMath>(o, x, n, f);
          return;
        }
      }
      map_run<kVectorMath>(o, x, n, f);
      return;
    }
    for (std::int64_t i = 0; i < n; ++i)
      *reinterpret_cast<Out*>(p[0] + i * s[0]) = f(*reinterpret_cast<const In*>(p[1] + i * s[1]));
  });
}

/// out[i] = f(a[i], b[i]) with typed pointers; fast paths for contiguous
/// runs and for a broadcast scalar operand.
template <typename Out, typename In, typename F>
void binary_loop(const Tensor& out, const Tensor& a, const Tensor& b, F f) {
  for_each_element<3, true>(out.sizes(), {out, a, b}, [&](std::array<char*, 3> p, std::int64_t n,
                                                          std::array<std::int64_t, 3> s) {
    auto* o = reinterpret_cast<Out*>(p[0]);
    const auto* x = reinterpret_cast<const In*>(p[1]);
    const auto* y = reinterpret_cast<const In*>(p[2]);
    const bool x_ok = s[1] == sizeof(In) || s[1] == 0;
    const bool y_ok = s[2] == sizeof(In) || s[2] == 0;
    if (s[0] == sizeof(Out) && x_ok && y_ok && !(s[1] == 0 && s[2] == 0)) {
      if constexpr (kAvx2Copies) {
        if (cpu_has_avx2()) {
          zip_run_avx2(o, x, y, n, s[1] == 0, s[2] == 0, f);
          return;
        }
      }
      zip_run(o, x, y, n, s[1] == 0, s[2] == 0, f);
      return;
    }
    for (std::int64_t i = 0; i < n; ++i)
      *reinterpret_cast<Out*>(p[0] + i * s[0]) =
          f(*reinterpret_cast<const In*>(p[1] + i * s[1]), *reinterpret_cast<const In*>(p[2] + i * s[2]));
  });
}

/// `t` converted to `dtype` (no copy when it already is).
Tensor as_dtype(const Tensor& t, ScalarType dtype);

/// Calls fn(float{}) or fn(double{}) for float32 or float64; any other
/// dtype is PyTorch's "not implemented" error naming `kernel` (kernels
/// written for the two wide floating types; float16 and bfloat16 reach them
/// through `Widened`).
template <typename Fn>
void visit_float(ScalarType t, const char* kernel, Fn&& fn) {
  visit_dtype<dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64)>(t, kernel, fn);
}

// Note [16-bit floats in float kernels]
// Kernels with loops for float32 and float64 only (convolution, softmax,
// normalisation, pooling, losses) compute float16 and bfloat16 in float32,
// as PyTorch's CPU kernels accumulate them: the inputs are converted, the
// kernel writes a float32 result, and that is rounded into the output once.
class Widened final {
 public:
  explicit Widened(const Tensor& out)
      : out_(out), work_(is_reduced_floating(out.dtype()) ? make_empty(out.sizes(), ScalarType::kFloat32) : out) {}
  /// Where the kernel writes: `out`, or a float32 tensor of its sizes.
  [[nodiscard]] const Tensor& out() const noexcept { return work_; }
  /// An input, in float32 when it is float16 or bfloat16.
  [[nodiscard]] static Tensor in(const Tensor& t) {
    return t.defined() && is_reduced_floating(t.dtype()) ? t.to(ScalarType::kFloat32) : t;
  }
  [[nodiscard]] static std::optional<Tensor> in(const std::optional<Tensor>& t) {
    return t ? std::optional<Tensor>(in(*t)) : std::nullopt;
  }
  /// Rounds the float32 result into `out` (nothing to do otherwise).
  void finish() const {
    if (work_.impl() == out_.impl()) return;
    Tensor o = out_;
    o.copy_(work_);
  }

 private:
  Tensor out_;
  Tensor work_;
};
/// dst[i] = convert(src[i]) for any two dtypes (copy_'s converting half;
/// src already broadcast to dst's shape or broadcastable through strides).
void copy_convert(const Tensor& dst, const Tensor& src);

/// dst = src (same dtype and shape) in square tiles when the two are
/// contiguous along different dims (Note [Transposing copies] in
/// copy_ops.cpp); false, copying nothing, for any other pair.
bool copy_transposed(const Tensor& dst, const Tensor& src);

}  // namespace wick::cpu
