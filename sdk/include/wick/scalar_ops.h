// wick/scalar_ops.h - PyTorch's arithmetic on one element, for every backend's loops.
/// \file
/// What division, modulo, integer powers, abs, relu, maximum and minimum give
/// for one element or pair, as PyTorch gives it (the sign of zero included), written once for the CPU loops, CUDA
/// device code and plugin backends (`wick test-backend` compares their results with the CPU's). The functions are
/// `__host__ __device__` under nvcc.
///
/// The caller handles what needs an error: an integer divisor of zero
/// (ZeroDivisionError) and a negative integer exponent ("Integers to
/// negative integer powers are not allowed."); these functions assume
/// neither happens.
///
///   binary_loop<T, T>(out, a, b, [](T x, T y) { return wick::scalar_ops::floor_divide(x, y); });
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "wick/half.h"

#if defined(__CUDACC__)
/// `__host__ __device__ __forceinline__` under nvcc, else `inline`: how the scalar functions are declared so CUDA kernels share them.
#define WICK_HOST_DEVICE __host__ __device__ __forceinline__
#else
/// `__host__ __device__ __forceinline__` under nvcc, else `inline`: how the scalar functions are declared so CUDA kernels share them.
#define WICK_HOST_DEVICE inline
#endif

namespace wick::scalar_ops {

/// The integer quotient rounded toward zero; INT_MIN / -1 wraps to INT_MIN,
/// as PyTorch's kernels give it, instead of trapping.
template <typename T>
WICK_HOST_DEVICE T trunc_divide(T x, T y) {
  if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
  }
  return static_cast<T>(x / y);
}

/// Python's `x // y`. For floats it is computed from the remainder, so that
/// 1 // 0.1 is 9 (the exact quotient is just below 10), not
/// floor(1 / 0.1) == 10; a zero divisor gives x / y (inf or nan).
template <typename T>
WICK_HOST_DEVICE T floor_divide(T x, T y) {
  if constexpr (is_floating_v<T>) {
    if (y == 0) return x / y;
    const T mod = std::fmod(x, y);
    T div = (x - mod) / y;
    if (mod != 0 && ((y < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(T(0), x / y);
    T floor_div = std::floor(div);
    if (div - floor_div > T(0.5)) floor_div += 1;
    return floor_div;
  } else if constexpr (std::is_signed_v<T>) {
    T q = trunc_divide(x, y);
    if (y != T(-1) && (x % y != 0) && ((x < 0) != (y < 0))) --q;
    return q;
  } else {
    return static_cast<T>(x / y);  // unsigned: truncation is the floor
  }
}

/// torch.fmod (kPython false: the sign of the dividend, C's fmod) and
/// torch.remainder (kPython true: the sign of the divisor, Python's %).
/// An integer divisor of -1 gives 0 (INT_MIN % -1 would trap).
template <bool kPython, typename T>
WICK_HOST_DEVICE T modulo(T x, T y) {
  if constexpr (is_floating_v<T>) {
    T v = std::fmod(x, y);
    if (kPython && v != 0 && ((y < 0) != (v < 0))) v += y;
    return v;
  } else if constexpr (std::is_signed_v<T>) {
    if (y == T(-1)) return T(0);
    T v = static_cast<T>(x % y);
    if (kPython && v != 0 && ((y < 0) != (v < 0))) v = static_cast<T>(v + y);
    return v;
  } else {
    return static_cast<T>(x % y);  // unsigned: both signs agree
  }
}

/// An integer to an integer power by squaring, wrapping on overflow as
/// PyTorch's kernels do. A negative exponent gives PyTorch's integer answer:
/// 1 for a base of 1, -1 or 1 for -1 (odd or even exponent), 0 otherwise (the
/// refusal of a negative Python-number exponent is the meta function's).
template <typename T>
WICK_HOST_DEVICE T int_power(T base, T exponent) {
  if constexpr (std::is_signed_v<T>) {
    if (exponent < 0) {
      if (base == 1) return T(1);
      if (base == -1) return (exponent & 1) != 0 ? T(-1) : T(1);
      return T(0);
    }
  }
  // Wrapping arithmetic without undefined behaviour (narrow types would promote to int).
  using U = std::conditional_t<sizeof(T) <= 4, std::uint32_t, std::uint64_t>;
  U result = 1;
  U b = static_cast<U>(base);
  for (T e = exponent; e > 0; e >>= 1) {
    if (e & 1) result = static_cast<U>(result * b);
    b = static_cast<U>(b * b);
  }
  return static_cast<T>(result);
}

/// The bitwise operators of integers; of bools, the logical ones (~True is
/// False, where C++'s ~ of a bool is the int -2).
template <typename T>
WICK_HOST_DEVICE T bitwise_and(T a, T b) {
  return static_cast<T>(a & b);
}
/// a | b (logical or for bools).
template <typename T>
WICK_HOST_DEVICE T bitwise_or(T a, T b) {
  return static_cast<T>(a | b);
}
/// a ^ b (logical xor for bools).
template <typename T>
WICK_HOST_DEVICE T bitwise_xor(T a, T b) {
  return static_cast<T>(a ^ b);
}
/// ~v (logical not for bools).
template <typename T>
WICK_HOST_DEVICE T bitwise_not(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return !v;
  } else {
    return static_cast<T>(~v);
  }
}

/// Note [Shift counts]
/// C++ leaves a shift by a negative count, or by the type's width or more,
/// undefined (PyTorch 1.13's CPU kernels return what the hardware gives
/// there: x86 masks the count). wick defines them as a shift of every bit
/// out: a left shift gives 0, a right shift the sign (0 or -1). A left
/// shift wraps in the unsigned type, as PyTorch's does within the width.
template <typename T>
WICK_HOST_DEVICE T left_shift(T a, T b) {
  constexpr T kBits = static_cast<T>(sizeof(T) * 8);
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) return T(0);
  }
  if (b >= kBits) return T(0);
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
}
/// a >> b, arithmetic for signed types; a count below 0 or of the type's width or more gives the sign (0 or -1) (Note [Shift counts]).
template <typename T>
WICK_HOST_DEVICE T right_shift(T a, T b) {
  constexpr T kBits = static_cast<T>(sizeof(T) * 8);
  bool out_of_range = b >= kBits;
  if constexpr (std::is_signed_v<T>) out_of_range = out_of_range || b < 0;
  if (out_of_range) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
    return T(0);
  }
  return static_cast<T>(a >> b);  // arithmetic for a negative a (C++20)
}

/// |a| in the unsigned type: the magnitude of the most negative value too.
template <typename T>
WICK_HOST_DEVICE std::make_unsigned_t<T> magnitude(T a) {
  using U = std::make_unsigned_t<T>;
  if constexpr (std::is_signed_v<T>) {
    if (a < 0) return static_cast<U>(U(0) - static_cast<U>(a));
  }
  return static_cast<U>(a);
}
/// The greatest common divisor, never negative except gcd(INT_MIN, 0) (its
/// magnitude does not fit, as in PyTorch); gcd(0, 0) is 0.
template <typename T>
WICK_HOST_DEVICE T gcd(T a, T b) {
  using U = std::make_unsigned_t<T>;
  U x = magnitude(a);
  U y = magnitude(b);
  while (y != 0) {
    const U r = static_cast<U>(x % y);
    x = y;
    y = r;
  }
  return static_cast<T>(x);
}
/// The least common multiple, |a / gcd * b| with wrapping products as in
/// PyTorch; 0 when either is 0.
template <typename T>
WICK_HOST_DEVICE T lcm(T a, T b) {
  using U = std::make_unsigned_t<T>;
  const T g = gcd(a, b);
  if (g == 0) return T(0);
  const U m = magnitude(a) / magnitude(g);
  return static_cast<T>(magnitude(static_cast<T>(static_cast<U>(m * magnitude(b)))));
}

/// The next float16 or bfloat16 value after `a` towards `b` (std::nextafter
/// for the 16-bit types: one step of the bit pattern, away from or towards
/// zero); NaN if either is NaN, `b` when they are equal.
template <typename T>
WICK_HOST_DEVICE T next_after_16(T a, T b) {
  const float x = a;
  const float y = b;
  if (x != x || y != y) return T(x + y);
  if (x == y) return b;
  if (x == 0.0f) return T::from_bits(y > 0.0f ? std::uint16_t{1} : std::uint16_t{0x8001});
  const bool away_from_zero = (x < y) == (x > 0.0f);
  return T::from_bits(static_cast<std::uint16_t>(away_from_zero ? a.bits + 1 : a.bits - 1));
}

/// Complex division as PyTorch 1.13 computes it: (ac + bd) / (c² + d²) and
/// (bc - ad) / (c² + d²), which gives its signs of zero parts (-2 / -0.5j
/// is 0.-4.j). Like PyTorch 1.13's, it overflows for divisors beyond about
/// 1e19 (complex64) or 1e154 (complex128).
template <typename Z>
WICK_HOST_DEVICE Z complex_divide(Z x, Z y) {
  using R = typename Z::value_type;
  const R a = x.real(), b = x.imag(), c = y.real(), d = y.imag();
  const R denominator = c * c + d * d;
  return Z((a * c + b * d) / denominator, (b * c - a * d) / denominator);
}

/// PyTorch's abs: -0.0 gives 0.0, NaN stays NaN; a bool is itself.
template <typename T>
WICK_HOST_DEVICE T abs(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (is_floating_v<T>) {
    return v < T(0) ? static_cast<T>(-v) : (v == T(0) ? T(0) : v);
  } else {
    return v < T(0) ? static_cast<T>(0 - v) : v;  // INT_MIN stays INT_MIN, as in PyTorch
  }
}

/// PyTorch's relu, max(v, 0) keeping v when they are equal: -0.0 stays
/// -0.0, NaN stays NaN.
template <typename T>
WICK_HOST_DEVICE T relu(T v) {
  return v < T(0) ? T(0) : v;
}

/// PyTorch's maximum and minimum of one pair: NaN propagates, and of two
/// equal values (0.0 and -0.0) the first, as its scalar loop gives them (its
/// vectorised loop, for runs of 16 float32 values, gives the second).
template <typename T>
WICK_HOST_DEVICE T maximum(T x, T y) {
  if constexpr (is_floating_v<T>) {
    if (x != x || y != y) return x + y;
  }
  return x < y ? y : x;
}
/// The smaller of x and y; NaN when either is NaN (as torch.minimum).
template <typename T>
WICK_HOST_DEVICE T minimum(T x, T y) {
  if constexpr (is_floating_v<T>) {
    if (x != x || y != y) return x + y;
  }
  return y < x ? y : x;
}

}  // namespace wick::scalar_ops
