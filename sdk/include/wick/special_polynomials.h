// wick/special_polynomials.h - the orthogonal polynomials of torch.special on one element, for every backend's loops.
/// \file
/// Chebyshev polynomials of the four kinds (T, U, V, W) and their shifted
/// forms on [0, 1], the physicists' and probabilists' Hermite polynomials
/// (H, He), and the Laguerre (L) and Legendre (P) polynomials, evaluated as
/// PyTorch 1.13 evaluates them (Note [Orthogonal polynomials]). Each is a
/// template over the element type: float elements are computed in float,
/// double in double, as PyTorch's kernels compute them, so that float
/// results round as PyTorch's do. They are `__host__ __device__` under nvcc.
///
///   binary_loop<float, float>(out, x, n, [](float v, float k) {
///     return wick::special_math::polynomial(wick::special_math::Polynomial::kLegendreP, v, k);
///   });
///
/// Note [Orthogonal polynomials]
/// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
/// The degree n is a tensor of the element type, truncated toward zero.
/// A negative degree gives 0, whatever x is (NaN included), and degree 0
/// gives 1. Then, in PyTorch's order:
/// - The Chebyshev families at the ends of their interval (x = +-1, or
///   x = 0 and 1 when shifted) give their exact values (for example
///   U_n(-1) = (-1)^n (n + 1)).
/// - Inside the interval, above a degree that depends on the family (6 for
///   T and the shifted T, U and V; 8 for U, V and W; 4 for the shifted W,
///   found by comparing with PyTorch 1.13 bit for bit), the trigonometric
///   forms with theta = acos(y): cos(n theta), sin((n + 1) theta) /
///   sin(theta), cos((n + 1/2) theta) / cos(theta / 2) and
///   sin((n + 1/2) theta) / sin(theta / 2).
/// - Otherwise the three-term recurrence from the first two polynomials,
///   each step one fused multiply-add, as in PyTorch's vectorized CPU
///   kernels, which the compiler contracts (its results agree with these to
///   the last bit in double). An infinite x gives +-inf for degrees 1 and 2
///   and NaN above (inf - inf), as in PyTorch. Laguerre's L_n(0) = 1 and
///   Legendre's P_n(+-1) = (+-1)^n are exact.
/// PyTorch runs the recurrence n steps for any n, which would take hours
/// for a huge n. Here it stops once the value is NaN (it stays NaN). Above
/// degree kMaxRecurrence (2^24) the Chebyshev families take the hyperbolic
/// forms (cosh(n t) with t = acosh|y|, and so on; a value that overflows is
/// NaN, as the recurrence gives there), while the Hermite, Laguerre and
/// Legendre polynomials, which have no closed form, are NaN: the Hermite
/// recurrence overflows to NaN long before, but Legendre's inside (-1, 1)
/// and Laguerre's above 0 stay finite in PyTorch (a documented divergence:
/// tests/README.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "wick/scalar_ops.h"  // WICK_HOST_DEVICE

namespace wick::special_math {

/// The polynomial families of torch.special.
enum class Polynomial : std::int8_t {
  kChebyshevT,
  kChebyshevU,
  kChebyshevV,
  kChebyshevW,
  kShiftedChebyshevT,
  kShiftedChebyshevU,
  kShiftedChebyshevV,
  kShiftedChebyshevW,
  kHermiteH,
  kHermiteHe,
  kLaguerreL,
  kLegendreP,
};

/// The longest recurrence run (Note [Orthogonal polynomials]).
inline constexpr std::int64_t kMaxRecurrence = std::int64_t{1} << 24;

namespace detail {

// The degree as PyTorch's kernels take it: truncated toward zero; NaN and
// values beyond int64 convert as x86 converts them (to INT64_MIN: negative).
template <typename T>
WICK_HOST_DEVICE std::int64_t polynomial_degree(T n) {
  const double d = static_cast<double>(n);
  if (!(d > -9.2233720368547758e18 && d < 9.2233720368547758e18)) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(d);
}

// y = x for the Chebyshev families, 2x - 1 for their shifted forms.
WICK_HOST_DEVICE constexpr bool is_shifted(Polynomial p) {
  return p >= Polynomial::kShiftedChebyshevT && p <= Polynomial::kShiftedChebyshevW;
}

// The Chebyshev kind (T = 0, U, V, W) of a Chebyshev family.
WICK_HOST_DEVICE constexpr int chebyshev_kind(Polynomial p) {
  return static_cast<int>(p) - (is_shifted(p) ? static_cast<int>(Polynomial::kShiftedChebyshevT) : 0);
}

// The degree above which the trigonometric form is taken inside (-1, 1).
WICK_HOST_DEVICE constexpr std::int64_t trigonometric_above(Polynomial p) {
  if (p == Polynomial::kShiftedChebyshevW) return 4;
  if (is_shifted(p) || p == Polynomial::kChebyshevT) return 6;
  return 8;
}

// A Chebyshev polynomial of kind `kind` at y = +-1: exact integers.
template <typename T>
WICK_HOST_DEVICE T chebyshev_end(int kind, T y, std::int64_t n) {
  const bool odd_at_minus = y < 0 && n % 2 != 0;
  const T sign = odd_at_minus ? T(-1) : T(1);
  const T n1 = static_cast<T>(n + 1);
  const T n2 = static_cast<T>(n + n + 1);
  switch (kind) {
    case 0:
      return sign;
    case 1:
      return sign * n1;
    case 2:
      return y > 0 ? T(1) : sign * n2;
    default:
      return y > 0 ? n2 : sign;
  }
}

// A Chebyshev polynomial of kind `kind` at |y| < 1 by its trigonometric form.
template <typename T>
WICK_HOST_DEVICE T chebyshev_trigonometric(int kind, T y, std::int64_t n) {
  const T theta = std::acos(y);
  const T nt = static_cast<T>(n);
  switch (kind) {
    case 0:
      return std::cos(nt * theta);
    case 1:
      return std::sin((nt + 1) * theta) / std::sin(theta);
    case 2:
      return std::cos((nt + T(0.5)) * theta) / std::cos(theta / 2);
    default:
      return std::sin((nt + T(0.5)) * theta) / std::sin(theta / 2);
  }
}

// A Chebyshev polynomial of kind `kind` at |y| > 1 by its hyperbolic form,
// for degrees beyond kMaxRecurrence; NaN where it overflows.
template <typename T>
WICK_HOST_DEVICE T chebyshev_hyperbolic(int kind, T y, std::int64_t n) {
  const double t = std::acosh(std::fabs(static_cast<double>(y)));
  const double nd = static_cast<double>(n);
  double v = 0;
  switch (kind) {
    case 0:
      v = std::cosh(nd * t);
      break;
    case 1:
      v = std::sinh((nd + 1) * t) / std::sinh(t);
      break;
    case 2:
      v = y > 0 ? std::cosh((nd + 0.5) * t) / std::cosh(t / 2) : std::sinh((nd + 0.5) * t) / std::sinh(t / 2);
      break;
    default:
      v = y > 0 ? std::sinh((nd + 0.5) * t) / std::sinh(t / 2) : std::cosh((nd + 0.5) * t) / std::cosh(t / 2);
      break;
  }
  if (y < 0 && n % 2 != 0) v = -v;
  const T r = static_cast<T>(v);
  return std::isinf(r) ? std::numeric_limits<T>::quiet_NaN() : r;
}

// The first polynomial above degree 0 and one step of the recurrence
// (p: degree k - 1, q: degree k; returns degree k + 1).
template <typename T>
WICK_HOST_DEVICE T polynomial_first(Polynomial p, T x, T y) {
  switch (p) {
    case Polynomial::kHermiteH:
      return x + x;
    case Polynomial::kHermiteHe:
    case Polynomial::kLegendreP:
      return x;
    case Polynomial::kLaguerreL:
      return T(1) - x;
    default:
      break;
  }
  switch (chebyshev_kind(p)) {
    case 0:
      return y;
    case 1:
      return y + y;
    case 2:
      return y + y - T(1);
    default:
      return y + y + T(1);
  }
}

template <typename T>
WICK_HOST_DEVICE T polynomial_step(Polynomial p, T x, T y, std::int64_t k, T prev, T cur) {
  const T kt = static_cast<T>(k);
  switch (p) {
    case Polynomial::kHermiteH:
      return std::fma(x + x, cur, -(static_cast<T>(k + k) * prev));
    case Polynomial::kHermiteHe:
      return std::fma(x, cur, -(kt * prev));
    case Polynomial::kLaguerreL:
      return std::fma(static_cast<T>(k + k) + (T(1) - x), cur, -(kt * prev)) / static_cast<T>(k + 1);
    case Polynomial::kLegendreP:
      return std::fma(static_cast<T>(k + k + 1) * x, cur, -(kt * prev)) / static_cast<T>(k + 1);
    default:
      return std::fma(y + y, cur, -prev);
  }
}

}  // namespace detail

/// The polynomial of family `p` and degree `n` (truncated toward zero) at x.
template <typename T>
WICK_HOST_DEVICE T polynomial(Polynomial p, T x, T n_value) {
  const std::int64_t n = detail::polynomial_degree(n_value);
  if (n < 0) return T(0);
  const bool chebyshev = p <= Polynomial::kShiftedChebyshevW;
  const T y = detail::is_shifted(p) ? x + x - T(1) : x;
  if (chebyshev) {
    const int kind = detail::chebyshev_kind(p);
    if (std::fabs(y) == T(1)) return detail::chebyshev_end(kind, y, n);
    if (n > detail::trigonometric_above(p) && std::fabs(y) < T(1)) return detail::chebyshev_trigonometric(kind, y, n);
    if (n > kMaxRecurrence) return std::isnan(y) ? y : detail::chebyshev_hyperbolic(kind, y, n);
  } else if (p == Polynomial::kLaguerreL && x == T(0)) {
    return T(1);
  } else if (p == Polynomial::kLegendreP && std::fabs(x) == T(1)) {
    return x > 0 || n % 2 == 0 ? T(1) : T(-1);
  } else if (n > kMaxRecurrence) {
    return std::numeric_limits<T>::quiet_NaN();
  }
  if (n == 0) return T(1);
  T prev = T(1);
  T cur = detail::polynomial_first(p, x, y);
  // Chebyshev steps go from degree k to k + 1 for k = 1 .. n - 1, as the others do.
  for (std::int64_t k = 1; k < n; ++k) {
    const T next = detail::polynomial_step(p, x, y, k, prev, cur);
    prev = cur;
    cur = next;
    if (std::isnan(cur)) return cur;
  }
  return cur;
}

}  // namespace wick::special_math
