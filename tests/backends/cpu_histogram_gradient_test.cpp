// tests/backends/cpu_histogram_gradient_test.cpp - torch.histogram, torch.histogramdd and torch.gradient against PyTorch 1.13 and their definitions.
/// \file
/// Note [Histograms] in dispatch/composite/histogram_ops.cpp, Note
/// [torch.gradient] in dispatch/composite/scan_ops.cpp. The expected values
/// are PyTorch 1.13's for the same calls (the differential test prints the
/// samples next to PyTorch's too); gradient's derivative is checked on
/// polynomials it must differentiate exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/gradcheck.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using Doubles = std::vector<double>;

Doubles values(const Tensor& t) {
  const Tensor c = t.detach().contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return Doubles(p, p + c.numel());
}
Tensor vec(const Doubles& v, ScalarType t = ScalarType::kFloat32) { return tensor(Value(v), t); }
void expect_near(const Tensor& t, const Doubles& want, double tol) {
  const Doubles got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

// torch.gradient(f, spacing=spacing, edge_order=order) through the boxed call (dim=None).
std::vector<Tensor> gradient_of(const Tensor& f, const Value& spacing, I64 edge_order = 1) {
  return call("torch.gradient", {Value(f)}, {{"spacing", spacing}, {"edge_order", Value(edge_order)}}).to_tensor_list();
}

class CpuHistogramGradient : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    manual_seed(5);
  }
};

TEST_F(CpuHistogramGradient, HistogramMatchesPyTorch) {
  const Tensor x = vec({1, 2, 1, 4, 2.5, 0, 7});
  auto [hist, edges] = histogram(x, 4);
  EXPECT_EQ(values(hist), (Doubles{3, 2, 1, 1}));
  expect_near(edges, {0, 1.75, 3.5, 5.25, 7}, 1e-6);
  // Given edges; the last edge belongs to the last bin; weights and density.
  EXPECT_EQ(values(std::get<0>(histogram(x, vec({0, 1, 3, 10})))), (Doubles{1, 4, 2}));
  expect_near(std::get<0>(histogram(x, 3, arange(0, 7, 1, ScalarType::kFloat32), true)), {0.1633, 0.1429, 0.1224},
              1e-4);
  EXPECT_EQ(values(std::get<0>(histogram(linspace(0, 1, 11), 10))), (Doubles{1, 1, 1, 1, 1, 1, 1, 1, 1, 2}));
  // A point range is widened by 0.5; NaN and values outside the edges are not counted.
  auto [one, one_edges] = histogram(vec({5}), 2);
  EXPECT_EQ(values(one), (Doubles{0, 1}));
  EXPECT_EQ(values(one_edges), (Doubles{4.5, 5, 5.5}));
  EXPECT_EQ(values(std::get<0>(histogram(vec({-1, 0.5, 9}), vec({0, 1, 2})))), (Doubles{1, 0}));
  // The edges returned are the histogram's own.
  const Tensor given = vec({0, 1, 2});
  EXPECT_NE(std::get<1>(histogram(x, given)).data_ptr(), given.data_ptr());
  WICK_EXPECT_THROW_MSG(histogram(x, 0), RuntimeError, "bins must be > 0, but got 0 for dimension 0");
  WICK_EXPECT_THROW_MSG(histogram(x.to(ScalarType::kInt64), 3), RuntimeError,
                        "\"histogramdd\" not implemented for 'Long'");
  WICK_EXPECT_THROW_MSG(histogram(vec({1, std::nan(""), 2}), 3), RuntimeError,
                        "dimension 0's range [nan, nan] is not finite");
  WICK_EXPECT_THROW_MSG(histogram(x, given.to(ScalarType::kFloat64)), RuntimeError,
                        "input tensor and bins tensors should have the same dtype, but got input with dtype float and "
                        "bins for dimension 0 with dtype double");
  WICK_EXPECT_THROW_MSG(histogram(x, 3, ones({3})), RuntimeError,
                        "but got input with shape [7, 1] and weight with shape [3]");
}

TEST_F(CpuHistogramGradient, HistogramddBinsPointsInAGrid) {
  const Tensor points = vec({0, 1, 1, 0, 2, 0, 2, 2}).reshape({4, 2});
  const Value r = call("torch.histogramdd", {Value(points), Value(std::vector<I64>{3, 3})},
                       {{"weight", Value(vec({1, 2, 4, 8}))}});
  const Tensor hist = r.items()[0].to_tensor();
  EXPECT_EQ(hist.sizes().vec(), (std::vector<I64>{3, 3}));
  EXPECT_EQ(values(hist), (Doubles{0, 1, 0, 2, 0, 0, 4, 0, 8}));
  ASSERT_EQ(r.items()[1].items().size(), 2u);
  // range is a list of (min, max) pairs; density divides by the total and the cells' areas.
  const Value d = call("torch.histogramdd", {Value(vec({0, 0, 1, 1, 2, 2}).reshape({3, 2})), Value(std::vector<I64>{2, 2})},
                       {{"range", Value(std::vector<double>{0, 1, 0, 1})}, {"density", Value(true)}});
  EXPECT_EQ(values(d.items()[0].to_tensor()), (Doubles{2, 0, 0, 2}));
  WICK_EXPECT_THROW_MSG(call("torch.histogramdd", {Value(vec({0, 1, 2})), Value(2)}), RuntimeError,
                        "input tensor should have at least 2 dimensions");
  WICK_EXPECT_THROW_MSG(call("torch.histogramdd", {Value(points), Value(std::vector<I64>{2, 2})},
                             {{"range", Value(std::vector<double>{0, 1})}}),
                        RuntimeError, "for a 2-dimensional histogram range should have 4 elements, but got 2");
}

TEST_F(CpuHistogramGradient, GradientMatchesPyTorchAndDifferentiatesQuadraticsExactly) {
  const Tensor f = vec({1, 2, 4, 8, 10, 20, 40, 80}).reshape({2, 4});
  const std::vector<Tensor> both = gradient(f);  // the C++ API's dim=None form
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(values(both[0]), (Doubles{9, 18, 36, 72, 9, 18, 36, 72}));
  EXPECT_EQ(values(both[1]), (Doubles{1, 1.5, 3, 4, 10, 15, 30, 40}));
  EXPECT_EQ(values(gradient(f, Value(2.0), 1, 2)[0]), (Doubles{0.25, 0.75, 1.5, 2.5, 2.5, 7.5, 15, 25}));
  // Uneven coordinates, first and second order at the ends (PyTorch's and NumPy's values).
  const Tensor g = vec({1, 2, 4, 8, 16});
  const Value coords(std::vector<Tensor>{vec({0, 1, 3, 4, 7})});
  expect_near(gradient_of(g, coords, 2)[0], {1, 1, 3, 3.6667, 1.6667}, 1e-4);
  expect_near(gradient_of(g, coords)[0], {1, 1, 3, 3.6667, 2.6667}, 1e-4);
  // Integers are differentiated in float; uint8 is refused, as in PyTorch.
  const Tensor ints = tensor(Value(std::vector<I64>{1, 2, 4}));
  EXPECT_EQ(gradient(ints)[0].dtype(), ScalarType::kFloat32);
  EXPECT_EQ(values(gradient(ints)[0]), (Doubles{1, 1.5, 2}));
  // Second order is exact on a parabola, anywhere on an uneven grid.
  const Tensor x = vec({0, 0.5, 1.75, 2, 3.5, 4}, ScalarType::kFloat64);
  const Tensor y = x.mul(x).mul(3).sub(x.mul(2)).add(1);
  expect_near(gradient_of(y, Value(std::vector<Tensor>{x}), 2)[0], values(x.mul(6).sub(2)), 1e-12);
  WICK_EXPECT_THROW_MSG(gradient(ones({3, 4}), Value(std::vector<double>{1, 2, 3})), RuntimeError,
                        "expected spacing to be unspecified, a scalar or a list of length 2 but got a list of length 3");
  WICK_EXPECT_THROW_MSG(gradient_of(ones({2, 4}), Value(), 2), RuntimeError,
                        "expected each dimension size to be at least edge_order+1");
  WICK_EXPECT_THROW_MSG(gradient_of(ones({3}), Value(), 3), RuntimeError,
                        "only supports edge_order=1 and edge_order=2.");
  WICK_EXPECT_THROW_MSG(gradient(ones({3}).to(ScalarType::kUInt8)), RuntimeError,
                        "torch.gradient does not support uint8 input.");
  // Its gradient is its parts'.
  const auto fn = [](const autograd::tensor_list& in) {
    return gradient_of(in[0], Value(std::vector<Tensor>{in[1].detach()}), 2)[0];
  };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn),
                                  {randn({5}, ScalarType::kFloat64).requires_grad_(), x.narrow(0, 0, 5)}));
}

}  // namespace
}  // namespace wick
