// wick/special_bessel.h - the Bessel and Airy functions of torch.special on one element, for every backend's loops.
/// \file
/// Bessel functions of the first and second kinds of orders 0 and 1 (J0,
/// J1, Y0, Y1), modified Bessel functions of the second kind (K0, K1, and
/// their exponentially scaled forms), the spherical Bessel function j0 and
/// the Airy function Ai, as PyTorch 1.13 defines them, edge values included
/// (Note [Bessel and Airy functions]). The modified Bessel functions of the
/// first kind are i0 and i1 of wick/special_math.h. Each takes and returns
/// a double; float kernels compute in double and round once. They are
/// `__host__ __device__` under nvcc.
///
///   unary_loop<double, double>(out, x, [](double v) { return wick::special_math::bessel_k0(v); });
///
/// Note [Bessel and Airy functions]
/// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
/// - J0, J1, Y0, Y1: the C library's j0, j1, y0, y1 on the host and CUDA's
///   on the device. PyTorch's values at the edges are kept: NaN at +-inf for
///   all four (the functions tend to 0 there, but PyTorch's approximations
///   give NaN), -inf at +-0 and NaN below 0 for Y0 and Y1.
/// - K0, K1: up to x = 1 their power series around 0 (the I0 and I1 series
///   with the logarithmic term and harmonic numbers); above 1 the
///   trapezoidal rule on e^x K_nu(x) = integral over t > 0 of
///   exp(-x (cosh t - 1)) cosh(nu t), which converges geometrically in the
///   step because the integrand is analytic in a strip; the step shrinks
///   as 1 / sqrt(x), the width of the integrand's peak. K is inf at 0, NaN
///   below, and 0 at +inf (its scaled form too, as PyTorch's).
/// - spherical j0 = sin(x) / x, by its Taylor series below |x| = 1/2; 0 at
///   +-inf, as PyTorch's.
/// - Ai: the Taylor series of the Airy equation y'' = x y around 0, taken
///   in one step up to x = 2 and in steps of at most 1/2 down to x = -10
///   (both solutions oscillate there without growing, so the stepping is
///   stable); above 2, Ai(x) = sqrt(x / 3) K_{1/3}(zeta) / pi with
///   zeta = 2/3 x^{3/2}, by the same trapezoidal rule; below -10 the
///   large-argument expansion, whose smallest term is below double
///   precision there. NaN at +-inf and 0 above 103.892 (where Ai is below
///   1e-306), as PyTorch's.
#pragma once

#include <cmath>

#include "wick/scalar_ops.h"  // WICK_HOST_DEVICE
#include "wick/special_math.h"

namespace wick::special_math {

namespace detail {

inline constexpr double kEulerGamma = 0.577215664901532860606512090082402431;

// e^x K_nu(x) for x >= 1 by the trapezoidal rule (Note [Bessel and Airy functions]).
WICK_HOST_DEVICE double scaled_bessel_k_integral(double nu, double x) {
  const double h = std::fmin(0.2, 0.6 / std::sqrt(x));
  double sum = 0.5;
  for (int k = 1; k < 2000; ++k) {
    const double t = k * h;
    const double s = std::sinh(t / 2);
    const double exponent = 2 * x * s * s;  // x (cosh t - 1), without cancellation
    const double term = std::exp(-exponent) * std::cosh(nu * t);
    sum += term;
    if (exponent - nu * t > 45) break;
  }
  return h * sum;
}

// K0 (nu = 0) or K1 (nu = 1) by the series around 0, for 0 < x <= 1.
WICK_HOST_DEVICE double bessel_k_series(double x, int nu) {
  const double q = x * x / 4;
  const double log_term = std::log(x / 2) + kEulerGamma;
  double term = 1;  // q^k / (k! (k + nu)!)
  double harmonic = 0;  // H_k
  double sum_i = 1;  // the I series: sum of term
  double sum_h = nu == 0 ? 0 : 1;  // sum of term (H_k + H_{k + nu})
  for (int k = 1; k < 100; ++k) {
    term *= q / (static_cast<double>(k) * (k + nu));
    harmonic += 1.0 / k;
    const double weight = nu == 0 ? harmonic : 2 * harmonic + 1.0 / (k + 1);
    sum_i += term;
    sum_h += term * weight;
    if (term * (weight + 1) < kEps * sum_i) break;
  }
  if (nu == 0) return -log_term * sum_i + sum_h;
  return 1 / x + log_term * (x / 2) * sum_i - x / 4 * sum_h;
}

// K0 or K1 and their scaled forms: the edges, then the series or the integral.
WICK_HOST_DEVICE double bessel_k(double x, int nu, bool scaled) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return kInf;
  if (std::isinf(x)) return 0;
  if (x <= 1) {
    const double k = bessel_k_series(x, nu);
    return scaled ? std::exp(x) * k : k;
  }
  const double s = scaled_bessel_k_integral(nu, x);
  return scaled ? s : std::exp(-x) * s;
}

// Above this Ai(x) < 1e-306, and PyTorch's Ai is 0 (its approximation's cutoff).
inline constexpr double kAiryZeroAbove = 103.892;
inline constexpr double kAiryAi0 = 0.355028053887817239260063186004183176;
inline constexpr double kAiryAiPrime0 = -0.258819403792806798405183560189203963;

// Ai and Ai' at x0 + h from their values at x0, by the Taylor series of y'' = x y.
WICK_HOST_DEVICE void airy_taylor_step(double x0, double h, double& y, double& dy) {
  // b_k = a_k h^k, with (k + 2)(k + 1) a_{k+2} = x0 a_k + a_{k-1}.
  double b_prev = 0;  // b_{k-1}
  double b = y;       // b_k
  double b_next = dy * h;
  double value = b + b_next;
  double slope = dy;
  const double scale = std::fabs(y) + std::fabs(dy * h);
  const double h2 = h * h;
  for (int k = 0; k < 200; ++k) {
    const double b2 = (x0 * h2 * b + h2 * h * b_prev) / ((k + 2.0) * (k + 1.0));
    value += b2;
    slope += (k + 2) * b2 / h;
    b_prev = b;
    b = b_next;
    b_next = b2;
    if (k > 2 && std::fabs(b) + std::fabs(b_next) + std::fabs(b_prev) < kEps * 1e-2 * scale) break;
  }
  y = value;
  dy = slope;
}

// Ai(-z) for z >= 10 by its large-argument expansion.
WICK_HOST_DEVICE double airy_ai_negative_asymptotic(double z) {
  const double zeta = 2.0 / 3.0 * z * std::sqrt(z);
  // u_k = (2k+1)(2k+3)...(6k-1) / (216^k k!); P sums (-1)^k u_{2k} / zeta^{2k}, Q (-1)^k u_{2k+1} / zeta^{2k+1}.
  double u_over = 1;  // u_k / zeta^k
  double p = 1;
  double q = 0;
  double last = kInf;
  for (int k = 1; k < 100; ++k) {
    u_over *= (6.0 * k - 5) * (6.0 * k - 3) * (6.0 * k - 1) / ((2.0 * k - 1) * 216.0 * k * zeta);
    if (u_over >= last || u_over < kEps * 1e-2) break;
    last = u_over;
    const double signed_term = (k / 2) % 2 == 0 ? u_over : -u_over;
    if (k % 2 == 0) {
      p += signed_term;
    } else {
      q += signed_term;
    }
  }
  // cos(zeta - pi/4) = (cos + sin) / sqrt 2, sin(zeta - pi/4) = (sin - cos) / sqrt 2.
  const double s = std::sin(zeta);
  const double c = std::cos(zeta);
  return ((c + s) * p + (s - c) * q) / (kSqrt2 * std::sqrt(kPi) * std::sqrt(std::sqrt(z)));
}

}  // namespace detail

/// The Bessel function of the first kind of order 0: NaN at +-inf, as PyTorch's.
WICK_HOST_DEVICE double bessel_j0(double x) {
  if (std::isinf(x)) return detail::kNaN;
  return ::j0(x);
}

/// The Bessel function of the first kind of order 1 (odd): NaN at +-inf.
WICK_HOST_DEVICE double bessel_j1(double x) {
  if (std::isinf(x)) return detail::kNaN;
  return ::j1(x);
}

/// The Bessel function of the second kind of order 0: -inf at +-0, NaN below 0 and at +inf.
WICK_HOST_DEVICE double bessel_y0(double x) {
  if (x == 0) return -detail::kInf;
  if (std::isinf(x) || x < 0) return detail::kNaN;
  return ::y0(x);
}

/// The Bessel function of the second kind of order 1: -inf at +-0, NaN below 0 and at +inf.
WICK_HOST_DEVICE double bessel_y1(double x) {
  if (x == 0) return -detail::kInf;
  if (std::isinf(x) || x < 0) return detail::kNaN;
  return ::y1(x);
}

/// The modified Bessel function of the second kind of order 0: inf at 0, NaN below.
WICK_HOST_DEVICE double bessel_k0(double x) { return detail::bessel_k(x, 0, false); }
/// The modified Bessel function of the second kind of order 1: inf at 0, NaN below.
WICK_HOST_DEVICE double bessel_k1(double x) { return detail::bessel_k(x, 1, false); }
/// exp(x) K0(x).
WICK_HOST_DEVICE double scaled_bessel_k0(double x) { return detail::bessel_k(x, 0, true); }
/// exp(x) K1(x).
WICK_HOST_DEVICE double scaled_bessel_k1(double x) { return detail::bessel_k(x, 1, true); }

/// The spherical Bessel function of the first kind of order 0, sin(x) / x: 1 at 0, 0 at +-inf.
WICK_HOST_DEVICE double spherical_bessel_j0(double x) {
  if (std::isinf(x)) return 0;
  if (std::fabs(x) < 0.5) {
    // The sum of (-1)^k x^{2k} / (2k + 1)! to x^16, by Horner's rule.
    const double x2 = x * x;
    double sum = 1;
    for (int k = 8; k >= 1; --k) sum = 1 - x2 / ((2.0 * k) * (2.0 * k + 1)) * sum;
    return sum;
  }
  return std::sin(x) / x;
}

/// The Airy function Ai: NaN at +-inf and 0 above 103.892, as PyTorch's.
WICK_HOST_DEVICE double airy_ai(double x) {
  if (!std::isfinite(x)) return detail::kNaN;
  if (x > detail::kAiryZeroAbove) return 0;
  if (x > 2) {
    const double zeta = 2.0 / 3.0 * x * std::sqrt(x);
    return std::sqrt(x / 3) / detail::kPi * std::exp(-zeta) * detail::scaled_bessel_k_integral(1.0 / 3.0, zeta);
  }
  if (x < -10) return detail::airy_ai_negative_asymptotic(-x);
  double y = detail::kAiryAi0;
  double dy = detail::kAiryAiPrime0;
  if (x > 0) {
    detail::airy_taylor_step(0, x, y, dy);
    return y;
  }
  const int steps = static_cast<int>(std::ceil(-x / 0.5));
  double x0 = 0;
  for (int i = 1; i <= steps; ++i) {
    const double next = x * i / steps;
    detail::airy_taylor_step(x0, next - x0, y, dy);
    x0 = next;
  }
  return y;
}

}  // namespace wick::special_math
