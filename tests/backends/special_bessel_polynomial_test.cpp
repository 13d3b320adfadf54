// tests/backends/special_bessel_polynomial_test.cpp - the Bessel, Airy and polynomial functions of torch.special.
/// \file
/// Identities that hold to double precision whatever the method (PyTorch
/// 1.13's values and edges are checked by the differential tests): known
/// values, Wronskians, the branches of each function agreeing where they
/// meet, the polynomials' closed forms and degree rules, a huge degree
/// answered at once, and the operators' dtypes, overloads and missing
/// derivatives.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include <wick/error.h>
#include <wick/loader.h>
#include <wick/ops.h>
#include <wick/special_bessel.h>
#include <wick/special_math.h>
#include <wick/special_polynomials.h>

namespace wick {
namespace {

namespace sm = special_math;
using sm::Polynomial;

void expect_relative(double got, double want, double rel) {
  EXPECT_LE(std::abs(got - want), rel * std::abs(want)) << "got " << got << ", want " << want;
}

TEST(SpecialBessel, KnownValues) {
  // DLMF tables: J0(1), Y0(1), K0(1), K1(1), Ai(1), Ai(-1), and K0(5) e^5.
  expect_relative(sm::bessel_j0(1), 0.76519768655796655145, 1e-15);
  expect_relative(sm::bessel_y0(1), 0.08825696421567695798, 1e-14);
  expect_relative(sm::bessel_k0(1), 0.42102443824070833334, 1e-15);
  expect_relative(sm::bessel_k1(1), 0.60190723019723457474, 1e-15);
  expect_relative(sm::scaled_bessel_k0(5), 0.54780756431351898687, 1e-15);
  expect_relative(sm::airy_ai(1), 0.13529241631288141552, 1e-15);
  expect_relative(sm::airy_ai(-1), 0.53556088329235211880, 1e-15);
  expect_relative(sm::airy_ai(0), 0.35502805388781723926, 1e-16);
  expect_relative(sm::spherical_bessel_j0(0.25), std::sin(0.25) / 0.25, 2e-16);
  expect_relative(sm::spherical_bessel_j0(3), std::sin(3.0) / 3, 2e-16);
}

TEST(SpecialBessel, WronskiansHoldToDoublePrecision) {
  for (double x = 0.05; x < 60; x *= 1.31) {
    // J1 Y0 - J0 Y1 = 2 / (pi x); I0 K1 + I1 K0 = 1 / x.
    const double w = sm::bessel_j1(x) * sm::bessel_y0(x) - sm::bessel_j0(x) * sm::bessel_y1(x);
    expect_relative(w, 2 / (std::numbers::pi * x), 1e-13);
    const double scaled = sm::i0e(x) * sm::scaled_bessel_k1(x) + sm::i1e(x) * sm::scaled_bessel_k0(x);
    expect_relative(scaled, 1 / x, 2e-15);
  }
}

TEST(SpecialBessel, BranchesAgreeWhereTheyMeet) {
  // K: the series up to 1, the integral above; both hold on either side of the seam.
  namespace d = sm::detail;
  for (const double x : {0.7, 1.0, 1.5}) {
    for (const int nu : {0, 1}) {
      expect_relative(d::bessel_k_series(x, nu), std::exp(-x) * d::scaled_bessel_k_integral(nu, x), 4e-15);
    }
  }
  // Ai: one Taylor step up to 2, K_{1/3} above; Taylor steps down to -10, the expansion below.
  for (const double x : {1.5, 2.0, 2.5}) {
    double y = d::kAiryAi0;
    double dy = d::kAiryAiPrime0;
    d::airy_taylor_step(0, x, y, dy);
    const double zeta = 2.0 / 3.0 * x * std::sqrt(x);
    expect_relative(y, std::sqrt(x / 3) / std::numbers::pi * std::exp(-zeta) * d::scaled_bessel_k_integral(1.0 / 3, zeta),
                    1e-13);
  }
  for (const double x : {-9.0, -10.0}) {
    EXPECT_NEAR(sm::airy_ai(x), d::airy_ai_negative_asymptotic(-x), 2e-15) << x;
  }
  // The Airy equation Ai'' = x Ai, by central differences across each seam.
  for (const double x : {-10.0, -3.3, 1.7, 2.0, 2.5}) {
    const double h = 1e-4;
    const double second = (sm::airy_ai(x + h) - 2 * sm::airy_ai(x) + sm::airy_ai(x - h)) / (h * h);
    EXPECT_NEAR(second, x * sm::airy_ai(x), 1e-6) << x;
  }
}

TEST(SpecialBessel, EdgesArePyTorchs) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(std::isnan(sm::bessel_j0(inf)));
  EXPECT_TRUE(std::isnan(sm::bessel_y1(-1)));
  EXPECT_EQ(sm::bessel_y0(-0.0), -inf);
  EXPECT_EQ(sm::bessel_k0(0), inf);
  EXPECT_TRUE(std::isnan(sm::bessel_k1(-2)));
  EXPECT_EQ(sm::scaled_bessel_k1(inf), 0);
  EXPECT_EQ(sm::spherical_bessel_j0(-inf), 0);
  EXPECT_TRUE(std::isnan(sm::airy_ai(inf)));
  EXPECT_TRUE(std::signbit(sm::bessel_j1(-0.0)));
}

TEST(SpecialPolynomials, ClosedForms) {
  for (double x = -1.4; x <= 1.4; x += 0.1) {
    const double x2 = x * x;
    expect_relative(sm::polynomial(Polynomial::kChebyshevT, x, 3.0), 4 * x2 * x - 3 * x, 1e-13);
    expect_relative(sm::polynomial(Polynomial::kChebyshevU, x, 2.0), 4 * x2 - 1, 1e-13);
    expect_relative(sm::polynomial(Polynomial::kHermiteH, x, 3.0), 8 * x2 * x - 12 * x, 1e-13);
    expect_relative(sm::polynomial(Polynomial::kHermiteHe, x, 4.0), x2 * x2 - 6 * x2 + 3, 1e-13);
    expect_relative(sm::polynomial(Polynomial::kLaguerreL, x, 2.0), (x2 - 4 * x + 2) / 2, 1e-13);
    expect_relative(sm::polynomial(Polynomial::kLegendreP, x, 2.0), (3 * x2 - 1) / 2, 1e-13);
    expect_relative(sm::polynomial(Polynomial::kShiftedChebyshevT, x, 3.0),
                    sm::polynomial(Polynomial::kChebyshevT, 2 * x - 1, 3.0), 1e-13);
  }
  // Above degree 6 inside (-1, 1) the trigonometric forms agree with the recurrence.
  for (double theta = 0.1; theta < 3.1; theta += 0.3) {
    const double x = std::cos(theta);
    EXPECT_NEAR(sm::polynomial(Polynomial::kChebyshevT, x, 11.0), std::cos(11 * theta), 1e-13);
    EXPECT_NEAR(sm::polynomial(Polynomial::kChebyshevU, x, 11.0), std::sin(12 * theta) / std::sin(theta), 1e-11);
  }
}

TEST(SpecialPolynomials, DegreeRules) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(sm::polynomial(Polynomial::kLegendreP, nan, -1.0), 0);  // negative: 0, even at NaN
  EXPECT_EQ(sm::polynomial(Polynomial::kLegendreP, nan, 0.0), 1);
  EXPECT_EQ(sm::polynomial(Polynomial::kHermiteH, 0.5, 2.9), sm::polynomial(Polynomial::kHermiteH, 0.5, 2.0));
  EXPECT_EQ(sm::polynomial(Polynomial::kChebyshevU, -1.0, 7.0), -8);
  EXPECT_EQ(sm::polynomial(Polynomial::kChebyshevV, -1.0, 3.0), -7);
  EXPECT_EQ(sm::polynomial(Polynomial::kLaguerreL, 0.0, 50.0), 1);
  EXPECT_EQ(sm::polynomial(Polynomial::kChebyshevT, nan, nan), 0);  // a NaN degree is negative, as on x86
  // inf: +-inf at degrees 1 and 2, NaN above (inf - inf).
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(sm::polynomial(Polynomial::kChebyshevT, inf, 2.0), inf);
  EXPECT_TRUE(std::isnan(sm::polynomial(Polynomial::kChebyshevT, inf, 3.0)));
}

TEST(SpecialPolynomials, AHugeDegreeIsAnsweredAtOnce) {
  const auto start = std::chrono::steady_clock::now();
  const double n = 1e15;
  // Chebyshev: closed forms (trigonometric inside, hyperbolic outside, overflowing to NaN).
  EXPECT_NEAR(sm::polynomial(Polynomial::kChebyshevT, 0.5, n), std::cos(n * std::acos(0.5)), 1e-12);
  EXPECT_TRUE(std::isnan(sm::polynomial(Polynomial::kChebyshevT, 1.5, n)));
  EXPECT_TRUE(std::isnan(sm::polynomial(Polynomial::kShiftedChebyshevW, 2.0, n)));
  // No closed form: NaN beyond kMaxRecurrence (a documented divergence); Hermite overflows to NaN anyway.
  EXPECT_TRUE(std::isnan(sm::polynomial(Polynomial::kLegendreP, 0.5, n)));
  EXPECT_TRUE(std::isnan(sm::polynomial(Polynomial::kLaguerreL, 0.5, n)));
  EXPECT_TRUE(std::isnan(sm::polynomial(Polynomial::kHermiteH, 0.5, n)));
  EXPECT_TRUE(std::isnan(sm::polynomial(Polynomial::kHermiteH, 0.5, 5000.0)));
  // Degree 2^24 itself still runs the recurrence (bounded there: |P_n(x)| <= 1).
  EXPECT_LE(std::abs(sm::polynomial(Polynomial::kLegendreP, 0.5, static_cast<double>(sm::kMaxRecurrence))), 1.0);
  // Not a timed test of speed: a generous bound that only a loop of 10^15 steps would miss.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::minutes(2));
}

Tensor vec(std::vector<double> v, ScalarType dtype = ScalarType::kFloat64) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), dtype);
}

class SpecialBesselOps : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(SpecialBesselOps, DtypesFollowPyTorch) {
  const Tensor ints = arange(3);
  EXPECT_EQ(special::bessel_j0(ints).dtype(), ScalarType::kFloat32);
  EXPECT_EQ(special::airy_ai(vec({1.0})).dtype(), ScalarType::kFloat64);
  EXPECT_EQ(special::chebyshev_polynomial_t(ints, ints).dtype(), ScalarType::kFloat32);
  EXPECT_EQ(special::legendre_polynomial_p(vec({0.5}), vec({2.0}, ScalarType::kFloat32)).dtype(),
            ScalarType::kFloat64);
  try {
    (void)special::modified_bessel_k0(vec({1.0}, ScalarType::kFloat16));
    FAIL() << "no error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("\"modified_bessel_k0_cpu\" not implemented for 'Half'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW((void)special::hermite_polynomial_h(vec({1.0}, ScalarType::kBFloat16), 2), RuntimeError);
}

TEST_F(SpecialBesselOps, FloatComputesInFloatAndMatchesDouble) {
  const Tensor x = vec({-0.9, -0.3, 0.2, 0.7, 1.3});
  const Tensor n = vec({3.0, 8.0, 9.0, 12.0, 5.0});
  using Fn = Tensor (*)(const Tensor&, const Tensor&);
  for (const Fn f : {static_cast<Fn>(special::chebyshev_polynomial_w), static_cast<Fn>(special::legendre_polynomial_p),
                     static_cast<Fn>(special::hermite_polynomial_he)}) {
    const Tensor d = f(x, n);
    const Tensor s = f(x.to(ScalarType::kFloat32), n.to(ScalarType::kFloat32));
    EXPECT_EQ(s.dtype(), ScalarType::kFloat32);
    EXPECT_TRUE(allclose(s.to(ScalarType::kFloat64), d, 1e-5, 1e-5));
  }
}

TEST_F(SpecialBesselOps, ResultsNeverRequireGrad) {
  const Tensor x = vec({0.5, 1.5}).requires_grad_(true);
  EXPECT_FALSE(special::bessel_y1(x).requires_grad());
  EXPECT_FALSE(special::scaled_modified_bessel_k1(x).requires_grad());
  EXPECT_FALSE(special::laguerre_polynomial_l(x, 3).requires_grad());
  // out= with an input that requires grad is allowed, as in PyTorch (nothing to differentiate).
  Tensor out = empty({2}, ScalarType::kFloat64);
  special::bessel_j0_out(out, x);
  expect_relative(out.contiguous().data_ptr<double>()[1], sm::bessel_j0(1.5), 1e-15);
}

TEST_F(SpecialBesselOps, NumbersTakeEitherPlace) {
  // PyTorch's (Number x, Tensor n) and (Tensor x, Number n) overloads, through the boxed call.
  const Tensor n = tensor(Value::list({Value(3), Value(4)}), ScalarType::kInt64);
  const Tensor r = call("torch.special.chebyshev_polynomial_t", {Value(0.5), Value(n)}).to_tensor();
  EXPECT_EQ(r.dtype(), ScalarType::kFloat32);
  EXPECT_NEAR(r.to(ScalarType::kFloat64).contiguous().data_ptr<double>()[0], -1.0, 1e-6);
  EXPECT_NEAR(r.to(ScalarType::kFloat64).contiguous().data_ptr<double>()[1], -0.5, 1e-6);
  const Tensor c = special::chebyshev_polynomial_u(vec({0.25}), 2);  // the C++ Scalar overload
  expect_relative(c.contiguous().data_ptr<double>()[0], 4 * 0.0625 - 1, 1e-15);
}

}  // namespace
}  // namespace wick
