// tests/backends/special_math_test.cpp - the special functions of wick/special_math.h and their operators.
/// \file
/// Identities that hold to double precision whatever the method (PyTorch
/// 1.13's values and edges are checked by the differential and golden
/// tests): known values, inverse pairs, the two branches of each function
/// agreeing where they meet, and the operators' argument order, in-place
/// forms and missing derivatives.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include <vector>

#include <wick/autograd.h>
#include <wick/error.h>
#include <wick/loader.h>
#include <wick/ops.h>
#include <wick/special_math.h>

namespace wick {
namespace {

namespace sm = special_math;

void expect_relative(double got, double want, double rel) {
  EXPECT_LE(std::abs(got - want), rel * std::abs(want)) << "got " << got << ", want " << want;
}

TEST(SpecialMath, KnownValues) {
  constexpr double kEuler = 0.57721566490153286061;
  expect_relative(sm::digamma(1), -kEuler, 1e-15);
  expect_relative(sm::digamma(0.5), -kEuler - 2 * std::numbers::ln2, 1e-15);
  expect_relative(sm::trigamma(1), std::numbers::pi * std::numbers::pi / 6, 1e-15);
  expect_relative(sm::trigamma(0.5), std::numbers::pi * std::numbers::pi / 2, 1e-15);
  expect_relative(sm::zeta(2, 1), std::numbers::pi * std::numbers::pi / 6, 1e-15);
  expect_relative(sm::zeta(4, 1), std::pow(std::numbers::pi, 4) / 90, 1e-15);
  expect_relative(sm::polygamma(2, 1), -2 * 1.2020569031595942854, 1e-15);  // -2 zeta(3)
  expect_relative(sm::lgamma(0.5), 0.5 * std::log(std::numbers::pi), 1e-15);
  expect_relative(sm::i0(1), 1.2660658777520083356, 1e-15);
  expect_relative(sm::i1(1), 0.56515910399248502721, 1e-15);
  expect_relative(sm::ndtri(0.975), 1.9599639845400542355, 1e-15);
  expect_relative(sm::erfcx(1), 0.42758357615580700442, 1e-15);
  expect_relative(sm::igamma(1, 2), 1 - std::exp(-2.0), 1e-15);  // P(1, x) = 1 - e^-x
}

TEST(SpecialMath, TrigammaIsZetaOfTwoToDoublePrecision) {
  // PyTorch 1.13's trigamma is accurate to about 1e-9 (sdk/docs/dispatch.md, the special functions); wick's to the last bits.
  for (double x = 0.55; x < 40; x *= 1.37) expect_relative(sm::trigamma(x), sm::zeta(2, x), 4e-15);
}

TEST(SpecialMath, InversesRoundTrip) {
  // Where the round trip is well conditioned: erf below 1.5 (its slope vanishes beyond), ndtr below 0
  // (above, 1 - p loses the digits that carry x).
  for (double t = -1.5; t <= 1.5; t += 0.125) expect_relative(sm::erfinv(std::erf(t)), t, 2e-15);
  for (double x = -8; x < 0; x += 0.25) expect_relative(sm::ndtri(std::erfc(-x / std::numbers::sqrt2) / 2), x, 2e-15);
  expect_relative(sm::ndtri(1e-300), -37.047096299361201, 1e-13);
  EXPECT_TRUE(std::signbit(sm::erfinv(-0.0)));
}

TEST(SpecialMath, BranchesAgreeWhereTheyMeet) {
  // i0/i1: series up to 20, asymptotic expansion above.
  for (const double x : {19.999999, 20.000001}) {
    expect_relative(sm::i0e(x), sm::i0e(20), 1e-6);
    expect_relative(sm::i1e(x), sm::i1e(20), 1e-6);
  }
  expect_relative(sm::i0(20), std::exp(20.0) * sm::i0e(20), 1e-14);
  // erfcx: exp(x^2) erfc(x) below 25, the asymptotic series above.
  expect_relative(sm::erfcx(24.9999999), sm::erfcx(25.0000001), 1e-8);
  // igamma: series below a + 1, continued fraction above; P + Q = 1.
  for (const double a : {0.3, 2.0, 17.5}) {
    for (const double x : {a + 0.999, a + 1.001, 0.1, 40.0}) {
      EXPECT_NEAR(sm::igamma(a, x) + sm::igammac(a, x), 1.0, 1e-14) << a << " " << x;
    }
  }
}

Tensor vec(std::vector<double> v) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), ScalarType::kFloat64);
}

class SpecialOps : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(SpecialOps, PolygammaTakesNFirstAndItsMethodSelfFirst) {
  const Tensor x = vec({1.0, 2.0});
  const Tensor f = polygamma(1, x);
  const Tensor m = x.polygamma(1);
  EXPECT_TRUE(equal(f, m));
  Tensor y = x.clone();
  y.polygamma_(1);
  EXPECT_TRUE(equal(y, f));
  EXPECT_THROW((void)polygamma(-1, x), RuntimeError);
}

TEST_F(SpecialOps, DerivativesPyTorchLacksFailNamingTheArgument) {
  const Tensor s = vec({2.0, 3.0}).requires_grad_(true);
  const Tensor q = vec({1.5, 2.5}).requires_grad_(true);
  try {
    (void)autograd::grad({sum(special::zeta(s, q))}, {s});
    FAIL() << "no error";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("the derivative for 'zeta' is not implemented."), std::string::npos)
        << e.what();
  }
  // The second argument's derivative exists: -s zeta(s + 1, q).
  const auto g = autograd::grad({sum(special::zeta(s.detach(), q))}, {q});
  expect_relative(g[0].contiguous().data_ptr<double>()[0], -2 * sm::zeta(3, 1.5), 1e-14);
  EXPECT_THROW((void)autograd::grad({sum(igamma(s, q.detach()))}, {s}), NotImplementedError);
}

}  // namespace
}  // namespace wick
