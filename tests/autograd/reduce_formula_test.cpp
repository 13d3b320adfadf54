// tests/autograd/reduce_formula_test.cpp - the reductions' formulas where gradcheck cannot look.
/// \file
/// The catalog-walking gradcheck (formula_coverage_test.cpp) checks every
/// formula on random inputs: no zeros, no ties. Here: prod and cumprod with
/// one and several zeros, max/min/amax/amin and norm(inf) with ties, std and
/// norm at zero, logsumexp with -inf, forward mode at zeros, and the node
/// names. Expected gradients come from PyTorch 1.13 (output gradient
/// 1, 2, 3, ... over the result).
#include <limits>

#include "tests/autograd/test_util.h"
#include "wick/forward_ad.h"

namespace wick::testing {
namespace {

using autograd::tensor_list;

// d(sum(f(x) * w)) / dx with w = 1, 2, 3, ... shaped like f(x).
template <class F>
Tensor grad_of(F f, const Tensor& x0) {
  Tensor x = x0.clone().requires_grad_();
  Tensor y = f(x);
  Tensor w = arange(1, y.numel() + 1, 1, ScalarType::kFloat64).reshape(y.sizes());
  return autograd::grad({y}, {x}, {w})[0];
}

Tensor m23(std::vector<double> v) { return vec(std::move(v)).reshape({2, 3}); }

class ReduceFormulas : public AutogradTest {};

TEST_F(ReduceFormulas, ProdWithZerosAsPyTorch) {
  auto whole = [](const Tensor& x) { return prod(x); };
  expect_near(grad_of(whole, m23({2, 0, 3, 4, 5, 6})), {0, 720, 0, 0, 0, 0});  // one zero: the product of the rest
  expect_near(grad_of(whole, m23({2, 0, 3, 0, 5, 6})), {0, 0, 0, 0, 0, 0});    // two zeros: all zero
  expect_near(grad_of([](const Tensor& x) { return prod(x, 1); }, m23({2, 0, 3, 0, 5, 6})), {0, 6, 0, 60, 0, 0});
  expect_near(grad_of([](const Tensor& x) { return prod(x, 1, true); }, m23({2, 0, 0, 1, 5, 6})),
              {0, 0, 0, 60, 12, 10});
  // Forward mode with a zero in a slice: sum_k t_k * prod_{j != k} x_j.
  autograd::forward_ad::dual_level level;
  Tensor t = mul(ones({2, 3}, ScalarType::kFloat64), vec({1, 2, 3}));
  Tensor out = prod(autograd::forward_ad::make_dual(m23({2, 0, 0, 1, 5, 6}), t), 1);
  expect_near(autograd::forward_ad::unpack_dual(out).tangent, {0, 57});
}

TEST_F(ReduceFormulas, CumprodWithZerosAsPyTorch) {
  Tensor c = vec({2, 0, 3, 0, 4, 1, 2, 0, 3, 5, 1, 2, 3, 4, 5}).reshape({3, 5});
  expect_near(grad_of([](const Tensor& x) { return cumprod(x, 1); }, c),
              {1, 22, 0, 0, 0, 20, 7, 370, 0, 0, 2249, 1119, 738, 534, 360});
  expect_near(grad_of([](const Tensor& x) { return cumprod(x, 0); }, c.t().contiguous()),
              {1, 12, 2157, 50, 5, 1077, 0, 502, 714, 0, 0, 522, 0, 0, 360});
  autograd::forward_ad::dual_level level;
  Tensor t = vec({0.5, -1, 2, 1.5, -0.5, 1, 2, 3, -1, 0.25, 0.1, 0.2, 0.3, 0.4, 0.5}).reshape({3, 5});
  Tensor out = cumprod(autograd::forward_ad::make_dual(c, t), 1);
  expect_near(autograd::forward_ad::unpack_dual(out).tangent,
              {0.5, -2, -6, 0, 0, 1, 4, 6, 18, 90, 0.1, 0.4, 1.8, 9.6, 60});
}

TEST_F(ReduceFormulas, TiesShareTheGradientOrGoToTheIndex) {
  Tensor m = m23({1, 3, 3, 2, 2, 1});
  expect_near(grad_of([](const Tensor& x) { return max(x); }, m), {0, 0.5, 0.5, 0, 0, 0});
  expect_near(grad_of([](const Tensor& x) { return amax(x, {1}); }, m), {0, 0.5, 0.5, 1, 1, 0});
  expect_near(grad_of([](const Tensor& x) { return std::get<0>(max(x, 1)); }, m), {0, 1, 0, 2, 0, 0});
  expect_near(grad_of([](const Tensor& x) { return std::get<0>(min(x, 0, true)); }, m), {1, 0, 0, 0, 2, 3});
  expect_near(grad_of([](const Tensor& x) { return norm(x, std::numeric_limits<double>::infinity()); },
                      vec({-3, 3, 1}).reshape({1, 3})),
              {-0.5, 0.5, 0});
}

TEST_F(ReduceFormulas, ZeroStdNormAndInfiniteLogsumexp) {
  expect_near(grad_of([](const Tensor& x) { return std(x, IntArrayRef{1}); }, m23({1, 1, 1, 1, 2, 4})),
              {0, 0, 0, -0.8728715609439697, -0.2182178902359925, 1.0910894511799618});
  expect_near(
      grad_of([](const Tensor& x) { return norm(x, Scalar(2), IntArrayRef{1}); }, vec({0, 0, 3, 4}).reshape({2, 2})),
      {0, 0, 1.2, 1.6});
  const double inf = std::numeric_limits<double>::infinity();
  expect_near(grad_of([](const Tensor& x) { return logsumexp(x, {1}); }, vec({-inf, 0, 1, 2}).reshape({2, 2})),
              {0, 1, 0.5378828427399901, 1.4621171572600096});
}

TEST_F(ReduceFormulas, NodeNamesAsPyTorch) {
  Tensor x = ones({2, 3}, ScalarType::kFloat64).requires_grad_();
  const std::vector<std::pair<Tensor, std::string>> cases = {
      {max(x), "MaxBackward1"},
      {min(x), "MinBackward1"},
      {std::get<0>(max(x, 1)), "MaxBackward0"},
      {std::get<0>(min(x, 1)), "MinBackward0"},
      {amax(x), "AmaxBackward0"},
      {amin(x, {1}), "AminBackward0"},
      {prod(x), "ProdBackward0"},
      {prod(x, 1), "ProdBackward1"},
      {var(x), "VarBackward0"},
      {var(x, IntArrayRef{1}), "VarBackward0"},
      {std_correction(x, IntArrayRef{1}, 0), "StdBackward0"},
      {norm(x), "NormBackward1"},  // torch.norm goes through the dim overload, as PyTorch's
      {norm(x, Scalar(2), IntArrayRef{1}), "NormBackward1"},
      {logsumexp(x, {1}), "LogsumexpBackward0"},
      {cumsum(x, 1), "CumsumBackward0"},
      {cumprod(x, 0), "CumprodBackward0"},
  };
  for (const auto& [out, name] : cases) {
    ASSERT_NE(out.grad_fn(), nullptr) << name;
    EXPECT_EQ(out.grad_fn()->name(), name);
  }
  auto [values, indices] = max(x, 1);
  EXPECT_TRUE(values.requires_grad());
  EXPECT_FALSE(indices.requires_grad());
  EXPECT_FALSE(argmax(x).requires_grad());
  EXPECT_FALSE(all(x).requires_grad());
  EXPECT_FALSE(prod(x, ScalarType::kInt64).requires_grad());  // an integer result is not differentiable
}

TEST_F(ReduceFormulas, DtypeArgumentsGiveGradientsInTheInputDtype) {
  Tensor x = vec({1, 2, 3}, ScalarType::kFloat32).requires_grad_();
  prod(x, ScalarType::kFloat64).backward();
  EXPECT_EQ(x.grad().dtype(), ScalarType::kFloat32);
  expect_near(x.grad(), {6, 3, 2}, 1e-6);
  Tensor y = vec({1, 2, 3}, ScalarType::kFloat32).requires_grad_();
  sum(cumsum(y, 0, ScalarType::kFloat64)).backward();
  EXPECT_EQ(y.grad().dtype(), ScalarType::kFloat32);
  expect_near(y.grad(), {3, 2, 1}, 1e-6);
}

}  // namespace
}  // namespace wick::testing
