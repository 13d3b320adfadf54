// backends/cpu/special_ops.cpp - CPU kernels of the special functions (lgamma, digamma, erfinv, Bessel functions, polynomials, ...).
/// \file
/// Each computes one function of wick/special_math.h over the meta's
/// compute dtype: float and double inputs in double, rounded once;
/// bfloat16 and float16 through float; the orthogonal polynomials compute
/// in the element type, as PyTorch's. The dtypes each kernel takes are
/// those PyTorch 1.13's CPU kernel takes, and the others are refused with
/// its kernel's name ("i1_cpu" not implemented for 'BFloat16').
#include <cstdint>
#include <type_traits>

#include <wick/meta.h>
#include <wick/special_bessel.h>
#include <wick/special_math.h>
#include <wick/special_polynomials.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

using M = ElementwiseMeta;
namespace sm = special_math;

constexpr std::uint32_t kFloatDouble = dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64);
constexpr std::uint32_t kWithBFloat16 = kFloatDouble | dtypes::bit(ScalarType::kBFloat16);

// out = fn(self) in double, for the dtypes in kSet.
template <std::uint32_t kSet, typename Fn>
void special_unary(const char* kernel, const M& m, const Tensor& r, const Tensor& self, Fn fn) {
  const Tensor x = as_dtype(self, m.compute);
  visit_dtype<kSet>(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_floating_v<T>) {
      unary_loop<T, T>(r, x,
                       [&](T v) { return static_cast<T>(static_cast<compute_type_t<T>>(fn(static_cast<double>(v)))); });
    }
  });
}

// out = fn(self, other) in double, for the dtypes in kSet.
template <std::uint32_t kSet, typename Fn>
void special_binary(const char* kernel, const M& m, const Tensor& r, const Tensor& a, const Tensor& b, Fn fn) {
  const Tensor x = as_dtype(a, m.compute);
  const Tensor y = as_dtype(b, m.compute);
  visit_dtype<kSet>(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_floating_v<T>) {
      binary_loop<T, T>(r, x, y, [&](T p, T q) {
        return static_cast<T>(static_cast<compute_type_t<T>>(fn(static_cast<double>(p), static_cast<double>(q))));
      });
    }
  });
}

// out = the polynomial p of x and degree n, in float or double.
void special_polynomial(const char* kernel, sm::Polynomial p, const M& m, const Tensor& r, const Tensor& x,
                        const Tensor& n) {
  const Tensor a = as_dtype(x, m.compute);
  const Tensor b = as_dtype(n, m.compute);
  visit_dtype<kFloatDouble>(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      binary_loop<T, T>(r, a, b, [p](T v, T k) { return sm::polynomial(p, v, k); });
    }
  });
}

}  // namespace

void lgamma(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("lgamma_vml_cpu", m, r, self, [](double v) { return sm::lgamma(v); });
}
void digamma(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("digamma", m, r, self, [](double v) { return sm::digamma(v); });
}
void polygamma(const M& m, const Tensor& r, std::int64_t n, const Tensor& self) {
  // PyTorch's kernel for n = 0 is digamma's, for n = 1 trigamma's.
  const char* kernel = n == 0 ? "digamma" : n == 1 ? "trigamma" : "polygamma";
  special_unary<kWithBFloat16>(kernel, m, r, self, [n](double v) { return sm::polygamma(n, v); });
}
void erfinv(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("erfinv_vml_cpu", m, r, self, [](double v) { return sm::erfinv(v); });
}
void i0(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("i0_vml_cpu", m, r, self, [](double v) { return sm::i0(v); });
}
void i0e(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("i0e_cpu", m, r, self, [](double v) { return sm::i0e(v); });
}
void i1(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("i1_cpu", m, r, self, [](double v) { return sm::i1(v); });
}
void i1e(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("i1e_cpu", m, r, self, [](double v) { return sm::i1e(v); });
}
void ndtri(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("ndtri_cpu", m, r, self, [](double v) { return sm::ndtri(v); });
}
void log_ndtr(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("log_ndtr_cpu", m, r, self, [](double v) { return sm::log_ndtr(v); });
}
void erfcx(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("erfcx_cpu", m, r, self, [](double v) { return sm::erfcx(v); });
}

#define WICK_CPU_SPECIAL(NAME, FN)                                                            \
  void NAME(const M& m, const Tensor& r, const Tensor& self) {                                 \
    special_unary<kFloatDouble>(#NAME "_cpu", m, r, self, [](double v) { return sm::FN(v); }); \
  }
WICK_CPU_SPECIAL(airy_ai, airy_ai)
WICK_CPU_SPECIAL(bessel_j0, bessel_j0)
WICK_CPU_SPECIAL(bessel_j1, bessel_j1)
WICK_CPU_SPECIAL(bessel_y0, bessel_y0)
WICK_CPU_SPECIAL(bessel_y1, bessel_y1)
WICK_CPU_SPECIAL(modified_bessel_i0, i0)
WICK_CPU_SPECIAL(modified_bessel_i1, i1)
WICK_CPU_SPECIAL(modified_bessel_k0, bessel_k0)
WICK_CPU_SPECIAL(modified_bessel_k1, bessel_k1)
WICK_CPU_SPECIAL(scaled_modified_bessel_k0, scaled_bessel_k0)
WICK_CPU_SPECIAL(scaled_modified_bessel_k1, scaled_bessel_k1)
WICK_CPU_SPECIAL(spherical_bessel_j0, spherical_bessel_j0)
#undef WICK_CPU_SPECIAL

#define WICK_CPU_POLYNOMIAL(NAME, FAMILY)                                                           \
  void NAME(const M& m, const Tensor& r, const Tensor& x, const Tensor& n) {                        \
    special_polynomial(#NAME "_cpu", sm::Polynomial::FAMILY, m, r, x, n);                           \
  }
WICK_CPU_POLYNOMIAL(chebyshev_polynomial_t, kChebyshevT)
WICK_CPU_POLYNOMIAL(chebyshev_polynomial_u, kChebyshevU)
WICK_CPU_POLYNOMIAL(chebyshev_polynomial_v, kChebyshevV)
WICK_CPU_POLYNOMIAL(chebyshev_polynomial_w, kChebyshevW)
WICK_CPU_POLYNOMIAL(shifted_chebyshev_polynomial_t, kShiftedChebyshevT)
WICK_CPU_POLYNOMIAL(shifted_chebyshev_polynomial_u, kShiftedChebyshevU)
WICK_CPU_POLYNOMIAL(shifted_chebyshev_polynomial_v, kShiftedChebyshevV)
WICK_CPU_POLYNOMIAL(shifted_chebyshev_polynomial_w, kShiftedChebyshevW)
WICK_CPU_POLYNOMIAL(hermite_polynomial_h, kHermiteH)
WICK_CPU_POLYNOMIAL(hermite_polynomial_he, kHermiteHe)
WICK_CPU_POLYNOMIAL(laguerre_polynomial_l, kLaguerreL)
WICK_CPU_POLYNOMIAL(legendre_polynomial_p, kLegendreP)
#undef WICK_CPU_POLYNOMIAL

void zeta(const M& m, const Tensor& r, const Tensor& self, const Tensor& other) {
  special_binary<kFloatDouble>("zeta_cpu", m, r, self, other, [](double s, double q) { return sm::zeta(s, q); });
}
void igamma(const M& m, const Tensor& r, const Tensor& self, const Tensor& other) {
  special_binary<dtypes::kFloating>("igamma_cpu", m, r, self, other,
                                    [](double a, double x) { return sm::igamma(a, x); });
}
void igammac(const M& m, const Tensor& r, const Tensor& self, const Tensor& other) {
  special_binary<dtypes::kFloating>("igammac_cpu", m, r, self, other,
                                    [](double a, double x) { return sm::igammac(a, x); });
}

}  // namespace wick::cpu
