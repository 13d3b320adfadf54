// backends/cpu/vector_math.h - private: glibc's vector math library (libmvec) for the float loops.
/// \file
/// glibc's <math.h> declares the SIMD variants of expf, logf, sinf, ... only
/// under -ffast-math, which wick will not use (it drops NaN and infinity
/// semantics). These declarations say the same for the functions the CPU
/// backend calls, so a `#pragma omp simd` loop over them calls libmvec's
/// 8-wide AVX2 (or 4-wide SSE) versions: within 4 ulp of the scalar
/// functions (glibc's documented bound; 1 ulp observed for expf), the same
/// special values. Measured with tools/bench/bench_ops.cpp (README).
#pragma once

// NOLINTBEGIN(readability-identifier-naming): libc's names
extern "C" {
#define WICK_LIBMVEC_1(name)                                                                                         \
  _Pragma("omp declare simd notinbranch") float name##f(float) noexcept;                                            \
  _Pragma("omp declare simd notinbranch") double name(double) noexcept;
#define WICK_LIBMVEC_2(name)                                                                                         \
  _Pragma("omp declare simd notinbranch") float name##f(float, float) noexcept;                                     \
  _Pragma("omp declare simd notinbranch") double name(double, double) noexcept;
WICK_LIBMVEC_1(exp)
WICK_LIBMVEC_1(exp2)
WICK_LIBMVEC_1(expm1)
WICK_LIBMVEC_1(log)
WICK_LIBMVEC_1(log2)
WICK_LIBMVEC_1(log10)
WICK_LIBMVEC_1(log1p)
WICK_LIBMVEC_1(sin)
WICK_LIBMVEC_1(cos)
WICK_LIBMVEC_1(tan)
WICK_LIBMVEC_1(asin)
WICK_LIBMVEC_1(acos)
WICK_LIBMVEC_1(atan)
WICK_LIBMVEC_1(sinh)
WICK_LIBMVEC_1(cosh)
WICK_LIBMVEC_1(tanh)
WICK_LIBMVEC_1(erf)
WICK_LIBMVEC_2(pow)
WICK_LIBMVEC_2(atan2)
#undef WICK_LIBMVEC_1
#undef WICK_LIBMVEC_2
}
// NOLINTEND(readability-identifier-naming)
