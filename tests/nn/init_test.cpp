// tests/nn/init_test.cpp - nn::init: bounds, statistics, fans, gains and errors.
/// \file
#include <algorithm>
#include <cmath>
#include <string>

#include "tests/autograd/test_util.h"
#include "wick/nn.h"

namespace wick::testing {
namespace {

// --- nn::init ------------------------------------------------------------------------

class Init : public AutogradTest {};

std::pair<double, double> min_max(const Tensor& t) {
  const std::vector<double> v = values(t);
  return {*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
}

std::pair<double, double> mean_std(const Tensor& t) {
  const std::vector<double> v = values(t);
  double sum = 0, sq = 0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  for (double x : v) sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sq / static_cast<double>(v.size()))};
}

TEST_F(Init, UniformStaysInBoundsInPlace) {
  Tensor t = empty({100, 50});
  TensorImpl* impl = t.impl();
  Tensor r = nn::init::uniform_(t, -2, 3);
  EXPECT_TRUE(r.is_same(t));
  EXPECT_EQ(t.impl(), impl);
  EXPECT_EQ(t.sizes().vec(), (std::vector<std::int64_t>{100, 50}));
  EXPECT_EQ(t.dtype(), ScalarType::kFloat32);
  auto [lo, hi] = min_max(t);
  EXPECT_GE(lo, -2.0);
  EXPECT_LE(hi, 3.0);
  EXPECT_LT(lo, -1.9);
  EXPECT_GT(hi, 2.9);
  std::tie(lo, hi) = min_max(nn::init::uniform_(t));
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 1.0);
}

TEST_F(Init, FixedSeedRepeats) {
  Tensor a = empty({10}, ScalarType::kFloat64);
  Tensor b = empty({10}, ScalarType::kFloat64);
  manual_seed(3);
  nn::init::normal_(a);
  manual_seed(3);
  nn::init::normal_(b);
  expect_near(a, values(b), 0.0);
}

TEST_F(Init, NormalStatistics) {
  Tensor t = nn::init::normal_(empty({200000}, ScalarType::kFloat64), 1.0, 2.0);
  auto [mean, stddev] = mean_std(t);
  EXPECT_NEAR(mean, 1.0, 0.05);
  EXPECT_NEAR(stddev, 2.0, 0.05);
}

TEST_F(Init, ConstantZerosOnes) {
  Tensor t = empty({2, 2}, ScalarType::kFloat64);
  expect_near(nn::init::constant_(t, 2.5), {2.5, 2.5, 2.5, 2.5});
  expect_near(nn::init::zeros_(t), {0, 0, 0, 0});
  expect_near(nn::init::ones_(t), {1, 1, 1, 1});
  Tensor ints = zeros({2}, ScalarType::kInt64);
  expect_near(nn::init::constant_(ints, 7), {7, 7});
}

TEST_F(Init, ParametersStayLeavesAndNothingIsRecorded) {
  Tensor p = vec({1, 2}).requires_grad_();
  const std::uint32_t version = p.version();
  nn::init::kaiming_uniform_(p.view({1, 2}));
  nn::init::zeros_(p);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
  EXPECT_GT(p.version(), version);
  expect_near(p, {0, 0});
}

TEST_F(Init, CalculateGain) {
  using nn::init::calculate_gain;
  EXPECT_EQ(calculate_gain("linear"), 1.0);
  EXPECT_EQ(calculate_gain("conv2d"), 1.0);
  EXPECT_EQ(calculate_gain("sigmoid"), 1.0);
  EXPECT_DOUBLE_EQ(calculate_gain("tanh"), 5.0 / 3.0);
  EXPECT_DOUBLE_EQ(calculate_gain("relu"), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(calculate_gain("leaky_relu"), std::sqrt(2.0 / (1.0 + 0.01 * 0.01)));
  EXPECT_DOUBLE_EQ(calculate_gain("leaky_relu", 0.2), std::sqrt(2.0 / 1.04));
  EXPECT_DOUBLE_EQ(calculate_gain("leaky_relu", 0.0), std::sqrt(2.0));
  EXPECT_EQ(calculate_gain("selu"), 0.75);
  EXPECT_EQ(error_of([] { (void)calculate_gain("swish"); }), "Unsupported nonlinearity swish");
  EXPECT_THROW((void)calculate_gain("swish"), ValueError);
}

TEST_F(Init, FanInAndFanOut) {
  using nn::init::calculate_fan_in_and_fan_out;
  EXPECT_EQ(calculate_fan_in_and_fan_out(empty({5, 7})), std::make_pair(std::int64_t{7}, std::int64_t{5}));
  EXPECT_EQ(calculate_fan_in_and_fan_out(empty({8, 4, 3, 3})), std::make_pair(std::int64_t{36}, std::int64_t{72}));
  const std::string fan_error =
      "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions";
  EXPECT_EQ(error_of([] { (void)calculate_fan_in_and_fan_out(empty({5})); }), fan_error);
  EXPECT_EQ(error_of([] { nn::init::xavier_uniform_(empty({5})); }), fan_error);
  EXPECT_EQ(error_of([] { nn::init::kaiming_uniform_(empty({5})); }), fan_error);
  EXPECT_THROW(nn::init::kaiming_normal_(empty({5})), ValueError);
}

TEST_F(Init, XavierUniformBound) {
  Tensor t = empty({30, 20});
  const double bound = std::sqrt(6.0 / 50.0);
  nn::init::xavier_uniform_(t);
  auto [lo, hi] = min_max(t);
  EXPECT_GE(lo, -bound - 1e-6);
  EXPECT_LE(hi, bound + 1e-6);
  EXPECT_LT(lo, -0.9 * bound);
  EXPECT_GT(hi, 0.9 * bound);
  std::tie(lo, hi) = min_max(nn::init::xavier_uniform_(t, /*gain=*/2.0));
  EXPECT_LE(hi, 2 * bound + 1e-6);
  EXPECT_GT(hi, 1.8 * bound);
  EXPECT_EQ(t.sizes().vec(), (std::vector<std::int64_t>{30, 20}));
}

TEST_F(Init, KaimingUniformBound) {
  Tensor t = empty({30, 20});
  auto check = [&](double bound) {
    auto [lo, hi] = min_max(t);
    EXPECT_GE(lo, -bound - 1e-6);
    EXPECT_LE(hi, bound + 1e-6);
    EXPECT_LT(lo, -0.9 * bound);
    EXPECT_GT(hi, 0.9 * bound);
  };
  nn::init::kaiming_uniform_(t);  // leaky_relu with slope 0: gain sqrt(2), fan_in 20
  check(std::sqrt(6.0 / 20.0));
  nn::init::kaiming_uniform_(t, 0, "fan_out", "relu");
  check(std::sqrt(6.0 / 30.0));
  nn::init::kaiming_uniform_(t, std::sqrt(5.0), "FAN_IN");  // the Linear default: 1 / sqrt(fan_in)
  check(1.0 / std::sqrt(20.0));
  EXPECT_EQ(error_of([&] { nn::init::kaiming_uniform_(t, 0, "fan_avg"); }),
            "Mode fan_avg not supported, please use one of ['fan_in', 'fan_out']");
  EXPECT_EQ(error_of([&] { nn::init::kaiming_uniform_(t, 0, "fan_in", "swish"); }),
            "Unsupported nonlinearity swish");
  Tensor none = empty({0, 3});
  EXPECT_TRUE(nn::init::kaiming_uniform_(none).is_same(none));  // no elements: a no-op
}

TEST_F(Init, NormalVariantsStandardDeviation) {
  Tensor t = empty({1000, 200}, ScalarType::kFloat64);
  auto [mean, stddev] = mean_std(nn::init::kaiming_normal_(t, 0, "fan_in", "relu"));
  EXPECT_NEAR(mean, 0.0, 0.005);
  EXPECT_NEAR(stddev, std::sqrt(2.0 / 200.0), 0.005);
  std::tie(mean, stddev) = mean_std(nn::init::xavier_normal_(t));
  EXPECT_NEAR(stddev, std::sqrt(2.0 / 1200.0), 0.002);
}

TEST_F(Init, Errors) {
  EXPECT_EQ(error_of([] { nn::init::uniform_(zeros({2}, ScalarType::kInt64)); }),
            "nn.init.uniform_: expected a floating point tensor but got int64");
  EXPECT_EQ(error_of([] { nn::init::uniform_(empty({2}), 1, 0); }),
            "uniform_ expects to return a [from, to) range, but found from=1.0 > to=0.0");
  EXPECT_EQ(error_of([] { nn::init::normal_(empty({2}), 0, -1); }), "normal expects std >= 0.0, but found std -1.0");
  EXPECT_THROW(nn::init::normal_(Tensor()), RuntimeError);
  EXPECT_THROW(nn::init::zeros_(Tensor()), RuntimeError);
}

}  // namespace
}  // namespace wick::testing
