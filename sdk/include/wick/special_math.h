// wick/special_math.h - the special functions of torch.special on one element, for every backend's loops.
/// \file
/// Gamma-family functions (lgamma, digamma, trigamma, polygamma, the Hurwitz
/// zeta function, the regularized incomplete gamma functions), inverse error
/// functions (erfinv, ndtri), log_ndtr, erfcx and the modified Bessel
/// functions i0, i0e, i1, i1e, as PyTorch 1.13 defines them, edge values
/// included (poles, infinities, NaN, the sign of zero). Each takes and
/// returns a double; float kernels compute in double and round once. They
/// are `__host__ __device__` under nvcc, so the CPU backend, the CUDA
/// backend and plugin backends compute the same values
/// (Note [Special functions]).
///
///   unary_loop<double, double>(out, x, [](double v) { return wick::special_math::digamma(v); });
///
/// Note [Special functions]
/// ~~~~~~~~~~~~~~~~~~~~~~~~
/// The methods are the textbook ones, chosen so that the results agree with
/// PyTorch's to a few units in the last place and the edge values agree
/// exactly:
/// - digamma and trigamma: the recurrence up to x >= 10, then their
///   asymptotic series (Bernoulli numbers); below 0 (digamma) or 1/2
///   (trigamma) the reflection formulas, with the sine or tangent of pi x
///   computed as PyTorch does, so that a negative integer gives what it
///   gives (NaN for digamma, a huge finite value for trigamma).
/// - zeta(s, q) = sum over k >= 0 of (q + k)^-s: direct terms until q + k
///   exceeds 9 (at least 9 of them), then the Euler-Maclaurin tail with 12
///   Bernoulli terms. A negative q is summed the same way when s is an
///   integer, and gives NaN otherwise, as PyTorch. polygamma(n, x) for
///   n >= 2 is (-1)^(n+1) n! zeta(n + 1, x).
/// - erfinv and ndtri: an initial guess (a series near 0, Abramowitz and
///   Stegun 26.2.23 in the tails) polished by three Halley steps on erf or
///   erfc, whichever keeps the residual exact; ndtri(p) solves
///   erfc(z / sqrt 2) = 2p below 1/2 and 2(1 - p) above, both exact.
/// - i0, i1 and their scaled forms: the power series up to |x| = 20, the
///   large-argument asymptotic expansion above, where its smallest term is
///   below double precision. PyTorch's i0 and i1 of an infinity are NaN
///   (exp(x) / sqrt(x)); so are these.
/// - igamma (P) and igammac (Q): the series of P below x = a + 1, the
///   continued fraction of Q (modified Lentz) above; the other is 1 minus it.
/// - erfcx on the host: exp(x^2) erfc(x) with x^2 split so that exp sees it
///   exactly, the asymptotic series from x = 25 (where erfc underflows), and
///   2 exp(x^2) - erfcx(-x) below 0. On the device, CUDA's erfcx.
/// lgamma is the C library's (lgamma_r on the host, which does not write
/// the global signgam from many threads).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "wick/scalar_ops.h"  // WICK_HOST_DEVICE

namespace wick::special_math {

namespace detail {

// <numbers> is C++20; the device files are C++17.
inline constexpr double kPi = 3.141592653589793238462643383279502884;
inline constexpr double kSqrt2 = 1.414213562373095048801688724209698079;
inline constexpr double kInvSqrtPi = 0.564189583547756286948079451560772586;
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kEps = std::numeric_limits<double>::epsilon() / 2;  // the unit roundoff

// exp(x * x) with x * x split into an exact head and a small tail, for |x| < 27.
WICK_HOST_DEVICE double exp_square(double x) {
  const double hi = std::trunc(x * 1048576.0) / 1048576.0;  // at most 25 significant bits: hi * hi is exact
  const double lo = x - hi;
  return std::exp(hi * hi) * std::exp(lo * (2 * hi + lo));
}

// The upper-tail standard normal quantile for 0 < q <= 1/2, to about 4.5e-4
// (Abramowitz and Stegun 26.2.23): a starting point for Halley's method.
WICK_HOST_DEVICE double normal_tail_guess(double q) {
  const double t = std::sqrt(-2 * std::log(q));
  return t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1 + t * (1.432788 + t * (0.189269 + t * 0.001308)));
}

// Solves erfc(x) = c for 0 < c <= 1 (x >= 0): three Halley steps.
WICK_HOST_DEVICE double erfc_inverse(double c) {
  double x = normal_tail_guess(c / 2) * detail::kSqrt2 / 2;
  for (int i = 0; i < 3; ++i) {
    const double f = std::erfc(x) - c;
    const double df = -2 * detail::kInvSqrtPi * std::exp(-x * x);
    if (df == 0) break;
    x -= f / (df + x * f);  // erfc'' = -2x erfc'
  }
  return x;
}

// The power series of I0 (nu = 0) or I1 / (x / 2) (nu = 1) in (x / 2)^2.
WICK_HOST_DEVICE double bessel_i_series(double x, int nu) {
  const double q = x * x / 4;
  double term = 1;
  double sum = 1;
  for (int k = 1; k < 200; ++k) {
    term *= q / (static_cast<double>(k) * (k + nu));
    sum += term;
    if (term < kEps * sum) break;
  }
  return sum;
}

// sum_k (-1)^k a_k(nu) / x^k of the large-argument expansion
// I_nu(x) ~ e^x / sqrt(2 pi x) * sum, with a_k = prod_{j<=k} (4nu^2 - (2j-1)^2) / (k! 8^k); x >= 20.
WICK_HOST_DEVICE double bessel_i_asymptotic(double x, int nu) {
  const double mu = 4.0 * nu * nu;
  double term = 1;
  double sum = 1;
  for (int k = 1; k < 60; ++k) {
    const double odd = 2.0 * k - 1;
    term *= -(mu - odd * odd) / (8.0 * k * x);
    sum += term;
    if (std::fabs(term) < kEps * std::fabs(sum)) break;
  }
  return sum;
}

}  // namespace detail

/// log|Gamma(x)|: inf at 0 and the negative integers and at +-inf.
WICK_HOST_DEVICE double lgamma(double x) {
#if defined(__CUDA_ARCH__)
  return ::lgamma(x);
#else
  int sign = 0;
  return ::lgamma_r(x, &sign);
#endif
}

/// psi(x) = Gamma'(x) / Gamma(x): -inf at +0, +inf at -0, NaN at the
/// negative integers and -inf.
WICK_HOST_DEVICE double digamma(double x) {
  using detail::kPi;
  if (x == 0) return std::copysign(detail::kInf, -x);
  double result = 0;
  if (x < 0) {
    if (x == std::trunc(x)) return detail::kNaN;
    // psi(x) = psi(1 - x) - pi / tan(pi x), with tan(pi x) from x's fraction.
    const double frac = x - std::trunc(x);
    result = -kPi / std::tan(kPi * frac);
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  const double series =
      z *
      (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + std::log(x) - 0.5 / x - series;
}

/// psi'(x): the reflection below 1/2 uses sin(pi x) as PyTorch does, so a
/// negative integer gives a huge finite value rather than inf; inf at +-0.
WICK_HOST_DEVICE double trigamma(double x) {
  using detail::kPi;
  double sign = 1;
  double result = 0;
  if (x < 0.5) {
    // psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x)
    const double s = std::sin(kPi * x);
    result = -(kPi * kPi) / (s * s);
    sign = -1;
    x = 1 - x;
  }
  while (x < 10) {
    result += 1 / (x * x);
    x += 1;
  }
  // 1/x + 1/(2x^2) + sum_k B_2k / x^(2k+1)
  const double z = 1 / (x * x);
  const double series =
      z *
      (1.0 / 6 - z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 - z * 7.0 / 6))))));
  result += (1 + 0.5 / x + series) / x;
  return sign * result;
}

namespace detail {

// zeta(s, q) for q > 0, or q < 0 not an integer with s an integer: the direct
// terms until q + k exceeds 9, then the Euler-Maclaurin tail.
WICK_HOST_DEVICE double zeta_summed(double s, double q) {
  // B_2j / (2j)!, j = 1..12
  constexpr double kB[] = {8.3333333333333329e-02,  -1.3888888888888889e-03, 3.3068783068783071e-05,
                           -8.2671957671957675e-07, 2.08767569878681e-08,    -5.2841901386874932e-10,
                           1.3382536530684679e-11,  -3.3896802963225827e-13, 8.5860620562778452e-15,
                           -2.1748686985580619e-16, 5.5090028283602295e-18,  -1.3954464685812522e-19};
  double a = q;
  double b = std::pow(a, -s);
  double sum = b;
  for (int i = 0; i < 9 || a <= 9; ++i) {
    a += 1;
    b = std::pow(a, -s);
    sum += b;
    if (std::fabs(b / sum) < kEps) return sum;
  }
  // Euler-Maclaurin: the integral from a, minus half the term at a (counted
  // whole above), plus B_2j / (2j)! * s (s + 1) ... (s + 2j - 2) * a^(-s - 2j + 1).
  sum += b * a / (s - 1) - 0.5 * b;
  double rising = 1;
  double k = 0;
  for (const double c : kB) {
    rising *= s + k;
    b /= a;
    const double t = c * rising * b;
    sum += t;
    if (std::fabs(t / sum) < kEps) break;
    k += 1;
    rising *= s + k;
    b /= a;
    k += 1;
  }
  return sum;
}

}  // namespace detail

/// The Hurwitz zeta function sum_{k>=0} (q + k)^-s: inf for s == 1 and for q
/// a non-positive integer; NaN for s < 1, and for q < 0 with s not an integer.
WICK_HOST_DEVICE double zeta(double s, double q) {
  if (s == 1) return detail::kInf;
  if (s < 1) return detail::kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return detail::kInf;
    if (s != std::floor(s)) return detail::kNaN;
    if (q < -100) {
      // Summing up from q would take -q steps. With q = -(n + f), 0 < f < 1:
      // the terms (q + k)^-s for k <= n are (-1)^s (f + j)^-s, j = n..0, so
      // zeta(s, q) = (-1)^s (zeta(s, f) - zeta(s, f + n + 1)) + zeta(s, 1 - f).
      const double n = std::floor(-q);
      const double f = -q - n;
      const double sign = std::fmod(s, 2) == 0 ? 1 : -1;
      return sign * (detail::zeta_summed(s, f) - detail::zeta_summed(s, f + n + 1)) + detail::zeta_summed(s, 1 - f);
    }
  }
  return detail::zeta_summed(s, q);
}

/// The n-th derivative of digamma (n >= 0; the caller refuses negative n).
WICK_HOST_DEVICE double polygamma(std::int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const double factorial = std::exp(lgamma(static_cast<double>(n) + 1));
  return ((n % 2) != 0 ? 1.0 : -1.0) * factorial * zeta(static_cast<double>(n) + 1, x);
}

/// The inverse of erf on [-1, 1]: +-inf at +-1, NaN outside, -0.0 for -0.0.
WICK_HOST_DEVICE double erfinv(double y) {
  const double a = std::fabs(y);
  if (!(a <= 1)) return detail::kNaN;
  if (a == 1) return std::copysign(detail::kInf, y);
  double x = 0;
  if (a <= 0.5) {
    // erfinv(a) = sqrt(pi)/2 (a + pi/12 a^3 + 7 pi^2/480 a^5 + ...), then Halley on erf(x) - a.
    const double a2 = a * a;
    x = 0.5 / detail::kInvSqrtPi * a * (1 + a2 * (detail::kPi / 12 + a2 * (7 * detail::kPi * detail::kPi / 480)));
    for (int i = 0; i < 3 && a != 0; ++i) {
      const double f = std::erf(x) - a;
      const double df = 2 * detail::kInvSqrtPi * std::exp(-x * x);
      x -= f / (df + x * f);  // erf'' = -2x erf'
    }
  } else {
    x = detail::erfc_inverse(1 - a);  // 1 - a is exact here
  }
  return std::copysign(x, y);
}

/// The standard normal quantile: -inf at 0, inf at 1, NaN outside [0, 1].
WICK_HOST_DEVICE double ndtri(double p) {
  if (!(p >= 0 && p <= 1)) return detail::kNaN;
  if (p == 0) return -detail::kInf;
  if (p == 1) return detail::kInf;
  // ndtri(p) = -sqrt(2) erfcinv(2p) = sqrt(2) erfcinv(2(1 - p)); 2p and 1 - p are exact in their halves.
  if (p < 0.5) return -detail::kSqrt2 * detail::erfc_inverse(2 * p);
  if (p > 0.5) return detail::kSqrt2 * detail::erfc_inverse(2 * (1 - p));
  return 0;
}

namespace detail {

// exp(x^2) erfc(x) for x >= 0 on the host.
inline double erfcx_nonnegative(double x) {
  if (x < 25) return exp_square(x) * std::erfc(x);
  // 1 / (x sqrt(pi)) * sum_k (-1)^k (2k - 1)!! / (2x^2)^k
  const double z = 1 / (2 * x * x);
  double term = 1;
  double sum = 1;
  for (int k = 1; k < 12; ++k) {
    term *= -(2.0 * k - 1) * z;
    sum += term;
  }
  return detail::kInvSqrtPi / x * sum;
}

}  // namespace detail

/// exp(x^2) erfc(x): inf below about -26.6, NaN for NaN.
WICK_HOST_DEVICE double erfcx(double x) {
#if defined(__CUDA_ARCH__)
  return ::erfcx(x);
#else
  if (std::isnan(x)) return x;
  if (x >= 0) return detail::erfcx_nonnegative(x);
  if (x < -26.7) return detail::kInf;
  return 2 * detail::exp_square(x) - detail::erfcx_nonnegative(-x);
#endif
}

/// log of the standard normal distribution function, accurate in both tails.
WICK_HOST_DEVICE double log_ndtr(double x) {
  const double t = x * (detail::kSqrt2 / 2);
  if (x < -1) return std::log(erfcx(-t) / 2) - t * t;
  return std::log1p(-std::erfc(t) / 2);
}

/// The modified Bessel function of the first kind of order 0.
WICK_HOST_DEVICE double i0(double x) {
  const double z = std::fabs(x);
  if (z <= 20) return detail::bessel_i_series(x, 0);
  return std::exp(z) * detail::bessel_i_asymptotic(z, 0) / std::sqrt(2 * detail::kPi * z);
}

/// exp(-|x|) i0(x).
WICK_HOST_DEVICE double i0e(double x) {
  const double z = std::fabs(x);
  if (z <= 20) return std::exp(-z) * detail::bessel_i_series(x, 0);
  return detail::bessel_i_asymptotic(z, 0) / std::sqrt(2 * detail::kPi * z);
}

/// The modified Bessel function of the first kind of order 1 (odd).
WICK_HOST_DEVICE double i1(double x) {
  const double z = std::fabs(x);
  const double r = z <= 20 ? z / 2 * detail::bessel_i_series(z, 1)
                           : std::exp(z) * detail::bessel_i_asymptotic(z, 1) / std::sqrt(2 * detail::kPi * z);
  return x < 0 ? -r : r;  // +0.0 at -0.0, as PyTorch
}

/// exp(-|x|) i1(x).
WICK_HOST_DEVICE double i1e(double x) {
  const double z = std::fabs(x);
  const double r = z <= 20 ? std::exp(-z) * (z / 2) * detail::bessel_i_series(z, 1)
                           : detail::bessel_i_asymptotic(z, 1) / std::sqrt(2 * detail::kPi * z);
  return x < 0 ? -r : r;
}

namespace detail {

// P(a, x) by its series, for x < a + 1 (a > 0, x > 0).
WICK_HOST_DEVICE double igamma_series(double a, double x) {
  double term = 1 / a;
  double sum = term;
  for (int n = 1; n < 10000; ++n) {
    term *= x / (a + n);
    sum += term;
    if (term < kEps * sum) break;
  }
  return sum * std::exp(a * std::log(x) - x - lgamma(a));
}

// Q(a, x) by its continued fraction (modified Lentz), for x >= a + 1.
WICK_HOST_DEVICE double igammac_fraction(double a, double x) {
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a;
  double c = 1 / kTiny;
  double d = 1 / b;
  double h = d;
  for (int i = 1; i < 10000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return h * std::exp(a * std::log(x) - x - lgamma(a));
}

// The edge values of P(a, x) (NaN where PyTorch gives NaN); false when none applies.
WICK_HOST_DEVICE bool igamma_edge(double a, double x, double& p) {
  // In PyTorch's order: a NaN argument meets the tests it can pass (x == 0, an infinite a or x) first.
  if (a < 0 || x < 0) {
    p = kNaN;
  } else if (a == 0) {
    p = x > 0 ? 1 : kNaN;
  } else if (x == 0) {
    p = 0;
  } else if (std::isinf(a)) {
    p = std::isinf(x) ? kNaN : 0;
  } else if (std::isinf(x)) {
    p = 1;
  } else if (std::isnan(a) || std::isnan(x)) {
    p = kNaN;
  } else {
    return false;
  }
  return true;
}

}  // namespace detail

/// The regularized lower incomplete gamma function P(a, x).
WICK_HOST_DEVICE double igamma(double a, double x) {
  double p = 0;
  if (detail::igamma_edge(a, x, p)) return p;
  return x < a + 1 ? detail::igamma_series(a, x) : 1 - detail::igammac_fraction(a, x);
}

/// The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x).
WICK_HOST_DEVICE double igammac(double a, double x) {
  double p = 0;
  if (detail::igamma_edge(a, x, p)) return std::isnan(p) ? p : 1 - p;
  return x < a + 1 ? 1 - detail::igamma_series(a, x) : detail::igammac_fraction(a, x);
}

}  // namespace wick::special_math
