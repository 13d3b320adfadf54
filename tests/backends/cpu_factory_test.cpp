// tests/backends/cpu_factory_test.cpp - creation functions, Tensor.new_*, the windows, statistics and the *_scatter views.
/// \file
/// Expected values and messages were taken from PyTorch 1.13 (float32
/// values as its .tolist() prints them).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "wick/autograd.h"
#include "wick/forward_ad.h"
#include "wick/gradcheck.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

using Doubles = std::vector<double>;
using Shape = std::vector<std::int64_t>;
namespace F = nn::functional;

Doubles values(const Tensor& t) {
  const Tensor c = t.detach().contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return Doubles(p, p + c.numel());
}
Shape shape(const Tensor& t) { return t.sizes().vec(); }
Shape strides(const Tensor& t) { return t.strides().vec(); }
Tensor vec(const Doubles& v, ScalarType t = ScalarType::kFloat32) { return tensor(Value(v), t); }
Tensor ivec(std::vector<std::int64_t> v) { return tensor(Value(std::move(v))); }
// start, start + step, ... in `sizes`, float64 (gradcheck's dtype).
Tensor seq(IntArrayRef sizes, double start = 0.3, double step = 0.7) {
  std::int64_t n = 1;
  for (const std::int64_t s : sizes) n *= s;
  return arange(0, n, 1, ScalarType::kFloat64).mul(step).add(start).reshape(sizes);
}

void expect_near(const Tensor& t, const Doubles& want, double tol) {
  const Doubles got = values(t);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

template <class E>
void expect_error(const std::function<void()>& fn, const std::string& message) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

class CpuFactory : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

// --- Tensor.new_* ------------------------------------------------------------------------------

TEST_F(CpuFactory, NewFactoriesTakeSelfsDtypeAndDeviceUnlessGiven) {
  const Tensor x = ones({2}, ScalarType::kInt8).requires_grad_(false);
  const Tensor z = x.new_zeros({2, 3});
  EXPECT_EQ(z.dtype(), ScalarType::kInt8);
  EXPECT_EQ(shape(z), (Shape{2, 3}));
  EXPECT_EQ(values(z), Doubles(6, 0.0));
  EXPECT_EQ(x.new_ones({3}, ScalarType::kInt64).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(x.new_ones({3})), Doubles(3, 1.0));
  // new_full converts the fill value to self's dtype: 3.7 is 3 in int8.
  EXPECT_EQ(values(x.new_full({2}, 3.7)), (Doubles{3, 3}));
  EXPECT_EQ(x.new_empty({0, 4}).dtype(), ScalarType::kInt8);
  EXPECT_EQ(shape(x.new_empty({0, 4})), (Shape{0, 4}));
  const Tensor s = x.new_empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(strides(s), (Shape{1, 2}));
  EXPECT_EQ(s.dtype(), ScalarType::kInt8);
  // new_tensor: numbers in self's dtype (not inferred), a tensor copied and detached.
  const Tensor f = ones({2}, ScalarType::kInt32).new_tensor({1.5, 2.0, -3.0});
  EXPECT_EQ(f.dtype(), ScalarType::kInt32);
  EXPECT_EQ(values(f), (Doubles{1, 2, -3}));
  const Tensor w = vec({1, 2}).requires_grad_();
  const Tensor copy = ones({1}, ScalarType::kFloat64).new_tensor(w);
  EXPECT_FALSE(copy.requires_grad());
  EXPECT_EQ(copy.dtype(), ScalarType::kFloat64);
  EXPECT_NE(copy.data_ptr<double>(), nullptr);
  EXPECT_FALSE(w.new_zeros({2}).requires_grad());
  expect_error<RuntimeError>([&] { (void)x.new_zeros({2, -1}); },
                             "Trying to create tensor with negative dimension -1: [2, -1]");
  expect_error<ValueError>([&] { (void)x.new_tensor({{1, 2}, {3}}); }, "expected sequence of length 2 at dim 1 (got 1)");
}

TEST_F(CpuFactory, EmptyStridedSpansItsLargestElement) {
  const Tensor t = empty_strided({2, 3}, {1, 2});
  EXPECT_EQ(strides(t), (Shape{1, 2}));
  EXPECT_EQ(t.storage()->nbytes(), 6 * sizeof(float));  // 1 + (2-1)*1 + (3-1)*2 elements
  EXPECT_EQ(strides(empty_like(t.t())), (Shape{2, 1}));
  expect_error<RuntimeError>([] { (void)empty_strided({2, 3}, {1}); },
                             "dimensionality of sizes (2) must match dimensionality of strides (1)");
  expect_error<RuntimeError>([] { (void)empty_strided({2, 2}, {-1, 2}); },
                             "Storage size calculation overflowed with sizes=[2, 2] and strides=[-1, 2]");
  EXPECT_EQ(empty_like(ones({2, 3}), ScalarType::kInt64).dtype(), ScalarType::kInt64);
}

// --- ranges and windows ------------------------------------------------------------------------

TEST_F(CpuFactory, LogspaceRangeAndScalarTensor) {
  EXPECT_EQ(values(logspace(0, 2, 3)), (Doubles{1, 10, 100}));
  // Integer results are the float64 powers truncated: 2.5 ** 2 is 6.
  EXPECT_EQ(values(logspace(0, 2, 3, 2.5, ScalarType::kInt32)), (Doubles{1, 2, 6}));
  expect_near(logspace(-1, 1, 5, 2.0), {0.5, 0.7071067690849304, 1.0, 1.4142135381698608, 2.0}, 1e-7);
  expect_error<RuntimeError>([] { (void)logspace(0, 3, -1); }, "number of steps must be non-negative");
  // range includes its end and defaults to float32, even for integer bounds.
  EXPECT_EQ(range(0, 3).dtype(), ScalarType::kFloat32);
  EXPECT_EQ(values(range(0, 3)), (Doubles{0, 1, 2, 3}));
  expect_near(range(0, 1, 0.3), {0, 0.3, 0.6, 0.9}, 1e-7);
  EXPECT_EQ(values(range(3, 0, -1, ScalarType::kInt64)), (Doubles{3, 2, 1, 0}));
  expect_error<RuntimeError>([] { (void)range(0, 3, 0); }, "step must be nonzero");
  expect_error<RuntimeError>([] { (void)range(3, 0); }, "upper bound and lower bound inconsistent with step sign");
  expect_error<RuntimeError>([] { (void)range(0, INFINITY); }, "unsupported range: 0 -> inf");
  const Tensor s = scalar_tensor(2);
  EXPECT_EQ(s.dim(), 0);
  EXPECT_EQ(s.dtype(), ScalarType::kFloat32);
  EXPECT_EQ(scalar_tensor(2.5, ScalarType::kInt64).item().to<std::int64_t>(), 2);
}

TEST_F(CpuFactory, WindowsMatchPyTorchsFloat32Values) {
  // blackman's first value rounds to -2.98e-08 in float32 as PyTorch's does: the same order of operations.
  const Doubles blackman = values(blackman_window(6));
  EXPECT_NEAR(blackman[0], -2.9802322387695312e-08, 1e-12);
  expect_near(blackman_window(6), {-2.98e-08, 0.12999999523162842, 0.6299999952316284, 1.0, 0.6299999356269836,
                                   0.1300000250339508}, 2e-7);
  expect_near(hann_window(5), {0.0, 0.34549152851104736, 0.9045085310935974, 0.9045084714889526, 0.3454914391040802},
              2e-7);
  expect_near(hann_window(5, false), {0, 0.5, 1, 0.5, 0}, 2e-7);
  expect_near(kaiser_window(6),
              {5.2773437346331775e-05, 0.05475931614637375, 0.5188445448875427, 1.0, 0.5188445448875427,
               0.05475931614637375},
              2e-7);
  expect_near(bartlett_window(7), {0.0, 0.2857142984867096, 0.5714285969734192, 0.8571429252624512,
                                   0.8571428060531616, 0.5714285373687744, 0.28571414947509766},
              2e-7);
  expect_near(hamming_window(5, false, 0.5, 0.3), {0.2, 0.5, 0.8, 0.5, 0.2}, 2e-7);
  EXPECT_EQ(values(hann_window(1)), (Doubles{1}));
  EXPECT_EQ(hann_window(0).numel(), 0);
  EXPECT_EQ(kaiser_window(4, true, 12.0, ScalarType::kFloat64).dtype(), ScalarType::kFloat64);
  expect_error<RuntimeError>([] { (void)hann_window(-1); },
                             "hann_window requires non-negative window_length, got window_length=-1");
  expect_error<RuntimeError>([] { (void)bartlett_window(4, true, ScalarType::kInt64); },
                             "bartlett_window expects floating point dtypes, got: TensorOptions(dtype=long int");
}

TEST_F(CpuFactory, VanderPowersInt64ForIntegers) {
  const Tensor v = vander(ivec({1, 2, 3}));
  EXPECT_EQ(v.dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(v), (Doubles{1, 1, 1, 4, 2, 1, 9, 3, 1}));
  EXPECT_EQ(values(vander(vec({1, 2, 3}), 2, true)), (Doubles{1, 1, 1, 2, 1, 3}));
  EXPECT_EQ(shape(vander(ivec({1, 2}), 0)), (Shape{2, 0}));
  expect_error<RuntimeError>([] { (void)vander(ivec({1, 2}).reshape({1, 2})); }, "x must be a one-dimensional tensor.");
  expect_error<RuntimeError>([] { (void)vander(ivec({1, 2}), -1); }, "N must be non-negative.");
  const auto fn = [](const autograd::tensor_list& in) { return vander(in[0], 4); };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), {seq({3}).requires_grad_()}));
}

// --- statistics --------------------------------------------------------------------------------

TEST_F(CpuFactory, CovWeightsAndCorrcoef) {
  const Tensor x = arange(0, 6, 1, ScalarType::kFloat32).reshape({2, 3});
  EXPECT_EQ(values(cov(x)), (Doubles{1, 1, 1, 1}));
  expect_near(cov(x, 0), Doubles(4, 2.0 / 3.0), 1e-6);
  expect_near(cov(x, 1, ivec({1, 2, 1}), vec({0.5, 1, 2})), Doubles(4, 0.6428571343421936), 1e-7);
  EXPECT_EQ(cov(ivec({1, 2, 4}).reshape({1, 3})).dim(), 0);
  expect_near(corrcoef(vec({1, 2, 4, 3, 1, 0}).reshape({2, 3})), {1.0, -0.9285715222358704, -0.9285715222358704, 1.0},
              1e-6);
  EXPECT_TRUE(std::isnan(values(corrcoef(ones({2, 3})))[0]));
  expect_error<RuntimeError>([] { (void)cov(ones({2, 3}), 1, ones({3})); },
                             "cov(): expected fweights to have integral dtype but got fweights with Float dtype");
  expect_error<RuntimeError>([] { (void)cov(ones({2, 3}), 1, ivec({1, -1, 1})); }, "cov(): fweights cannot be negative");
  expect_error<RuntimeError>([] { (void)cov(ones({2, 3}), 1, std::nullopt, zeros({3})); },
                             "cov(): weights sum to zero, can't be normalized");
  expect_error<RuntimeError>([] { (void)cov(ones({2, 2, 2})); },
                             "cov(): expected input to have two or fewer dimensions but got an input with 3 dimensions");
  const auto fn = [](const autograd::tensor_list& in) { return corrcoef(in[0]); };
  Tensor data = seq({2, 4}).mul(seq({2, 4}).sin());
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), {data.requires_grad_()}));
}

TEST_F(CpuFactory, IsinPromotesAndNeverMatchesNaN) {
  EXPECT_EQ(values(isin(ivec({1, 2, 3}), ivec({2, 5}))), (Doubles{0, 1, 0}));
  EXPECT_EQ(values(isin(ivec({1, 2, 3}), ivec({2, 5}), false, true)), (Doubles{1, 0, 1}));
  EXPECT_EQ(values(isin(ivec({1, 2}), vec({2}))), (Doubles{0, 1}));  // int64 against float32
  EXPECT_EQ(values(isin(vec({1, NAN}), vec({NAN}))), (Doubles{0, 0}));
  EXPECT_EQ(values(isin(vec({1, 2}), zeros({0}))), (Doubles{0, 0}));
  EXPECT_EQ(values(isin(ivec({1, 2, 3}), Scalar(2))), (Doubles{0, 1, 0}));
  const Tensor one = isin(Scalar(2), ivec({2, 5}));
  EXPECT_EQ(one.dim(), 0);
  EXPECT_TRUE(one.item().to<bool>());
  // A transposed (non-contiguous) input keeps its layout's meaning.
  EXPECT_EQ(values(isin(ivec({1, 2, 3, 4}).reshape({2, 2}).t(), ivec({4, 1}))), (Doubles{1, 0, 0, 1}));
  expect_error<RuntimeError>([] { (void)isin(ones({1}, ScalarType::kBool), ones({1}, ScalarType::kBool)); },
                             "Unsupported input type encountered for isin(): Bool");
}

TEST_F(CpuFactory, RenormScalesSlicesOverMaxnorm) {
  const Tensor x = arange(0, 6, 1, ScalarType::kFloat32).reshape({2, 3});
  expect_near(renorm(x, 2, 0, 3), {0, 1, 2, 1.2727922201156616, 1.6970562934875488, 2.1213202476501465}, 1e-6);
  Tensor y = x.clone();
  y.renorm_(2, 0, 3);
  EXPECT_EQ(values(y), values(renorm(x, 2, 0, 3)));
  expect_error<RuntimeError>([&] { (void)renorm(x, 0, 0, 1); }, "renorm: non-positive-norm not supported");
  expect_error<RuntimeError>([&] { (void)renorm(x, 2, 0, -1); }, "renorm: expected maxnorm to be >= 0 but got -1");
  expect_error<RuntimeError>([] { (void)renorm(ones({3}), 2, 0, 1); },
                             "renorm: input needs at least 2 dimensions, got 1 dimensions");
  const auto fn = [](const autograd::tensor_list& in) { return renorm(in[0], 1.5, 1, 2.0); };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), {seq({3, 2}).requires_grad_()}));
}

// --- views: the *_scatter functions, unfold, sum_to_size ---------------------------------------

TEST_F(CpuFactory, ScatterFunctionsReplaceOneViewAndDifferentiateBoth) {
  EXPECT_EQ(values(select_scatter(zeros({2, 2}), ones({2}), 0, 0)), (Doubles{1, 1, 0, 0}));
  EXPECT_EQ(values(slice_scatter(zeros({4, 2}), ones({2, 2}), 0, 0, 4, 2)), (Doubles{1, 1, 0, 0, 1, 1, 0, 0}));
  EXPECT_EQ(values(diagonal_scatter(zeros({3, 3}), ones({2}), 1)), (Doubles{0, 1, 0, 0, 0, 1, 0, 0, 0}));
  expect_error<RuntimeError>([] { (void)select_scatter(zeros({2, 2}), ones({3}), 0, 0); },
                             "expected src to have a size equal to the slice of self. src size = [3], slice size = [2]");
  const autograd::GradcheckOptions forward{.check_forward_ad = true};
  const auto sel = [](const autograd::tensor_list& in) { return select_scatter(in[0], in[1], 1, -1); };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(sel), {seq({2, 3}).requires_grad_(), seq({2}).requires_grad_()},
                                  forward));
  const auto sl = [](const autograd::tensor_list& in) { return slice_scatter(in[0], in[1], 0, 1, std::nullopt, 2); };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(sl),
                                  {seq({5, 2}).requires_grad_(), seq({2, 2}).requires_grad_()}, forward));
  const auto dg = [](const autograd::tensor_list& in) { return diagonal_scatter(in[0], in[1], -1); };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(dg), {seq({3, 3}).requires_grad_(), seq({2}).requires_grad_()},
                                  forward));
  // Double backward through the in-place write (CopySlices): the overwritten elements' gradient is 0 in every order.
  EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(sel),
                                      {seq({2, 3}).requires_grad_(), seq({2}).requires_grad_()}));
  EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(dg),
                                      {seq({3, 3}).requires_grad_(), seq({2}).requires_grad_()}));
}

// Forward mode: writing into a view of a tensor writes the tangent into the
// same elements of the tensor's tangent (Note [Tangents of views written in
// place]), and leaves the tangent it was cloned from alone.
TEST_F(CpuFactory, InPlaceWritesIntoViewsCarryTheirTangentsToTheBase) {
  namespace fwAD = autograd::forward_ad;
  fwAD::dual_level level;
  const Tensor x = fwAD::make_dual(vec({1, 2, 3, 4}, ScalarType::kFloat64), vec({1, 1, 1, 1}, ScalarType::kFloat64));
  const Tensor z = fwAD::make_dual(vec({9}, ScalarType::kFloat64), vec({5}, ScalarType::kFloat64));
  Tensor y = x.clone();
  y.narrow(0, 1, 1).copy_(z);
  y.narrow(0, 3, 1).mul_(z);
  y.narrow(0, 0, 1).fill_(7);
  const fwAD::UnpackedDual dual = fwAD::unpack_dual(y);
  EXPECT_EQ(values(dual.primal), (Doubles{7, 9, 3, 36}));
  // d(x3 * z) = z dx3 + x3 dz = 9 + 4 * 5.
  EXPECT_EQ(values(dual.tangent), (Doubles{0, 5, 1, 29}));
  EXPECT_EQ(values(fwAD::unpack_dual(x).tangent), (Doubles{1, 1, 1, 1}));
}

TEST_F(CpuFactory, UnfoldIsAViewOfOverlappingWindows) {
  const Tensor x = arange(0, 12, 1, ScalarType::kFloat32).reshape({3, 4});
  const Tensor w = x.unfold(1, 2, 1);
  EXPECT_EQ(shape(w), (Shape{3, 3, 2}));
  EXPECT_EQ(strides(w), (Shape{4, 1, 1}));
  EXPECT_EQ(w.data_ptr<float>(), x.data_ptr<float>());
  EXPECT_EQ(values(w.select(0, 1)), (Doubles{4, 5, 5, 6, 6, 7}));
  EXPECT_EQ(shape(arange(0, 6, 1).unfold(0, 0, 1)), (Shape{7, 0}));
  EXPECT_EQ(values(full({}, 5.0).unfold(0, 1, 2)), (Doubles{5}));
  expect_error<RuntimeError>([&] { (void)x.unfold(1, 5, 1); }, "maximum size for tensor at dimension 1 is 4 but size is 5");
  expect_error<RuntimeError>([&] { (void)x.unfold(1, 2, 0); }, "step is 0 but must be > 0");
  expect_error<IndexError>([&] { (void)x.unfold(2, 2, 1); }, "Dimension out of range");
  // Each input element's gradient counts the windows that cover it.
  const Tensor v = ones({5}, ScalarType::kFloat64).requires_grad_();
  v.unfold(0, 3, 1).sum().backward();
  EXPECT_EQ(values(v.grad()), (Doubles{1, 2, 3, 2, 1}));
  const autograd::GradcheckOptions forward{.check_forward_ad = true};
  const auto fn = [](const autograd::tensor_list& in) { return in[0].unfold(-1, 3, 2).mul(in[0].sum()); };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), {seq({2, 7}).requires_grad_()}, forward));
  EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(fn), {seq({2, 7}).requires_grad_()}));
}

// as_strided views the storage: its gradient lands on storage positions,
// shared among the elements of an expanded input (PyTorch 1.13's values).
TEST_F(CpuFactory, AsStridedViewsTheStorageAndDifferentiates) {
  const Tensor x = arange(0, 6, 1, ScalarType::kFloat32);
  const Tensor v = as_strided(x, {2, 2}, {1, 2});
  EXPECT_EQ(values(v), (Doubles{0, 2, 1, 3}));
  EXPECT_EQ(v.data_ptr<float>(), x.data_ptr<float>());
  EXPECT_EQ(x.narrow(0, 2, 4).as_strided({2}, {1}).storage_offset(), 2);
  EXPECT_EQ(values(x.narrow(0, 2, 4).as_strided({2}, {1}, 0)), (Doubles{0, 1}));
  expect_error<RuntimeError>([&] { (void)x.as_strided({3, 3}, {1, 2}); },
                             "setStorage: sizes [3, 3], strides [1, 2], storage offset 0, and itemsize 4 requiring a "
                             "storage size of 28 are out of bounds for storage of size 24");
  expect_error<RuntimeError>([&] { (void)x.as_strided({2, 2}, {-1, 2}); },
                             "as_strided: Negative strides are not supported at the moment, got strides: [-1, 2]");
  expect_error<RuntimeError>([&] { (void)x.as_strided({2}, {1, 2}); }, "mismatch in length of strides and shape");
  Tensor y = x.clone();
  y.as_strided_({2, 2}, {1, 2});
  EXPECT_EQ(strides(y), (Shape{1, 2}));
  EXPECT_EQ(values(as_strided_scatter(zeros({4}), ones({2}), {2}, {2})), (Doubles{1, 0, 1, 0}));
  const Tensor a = arange(0, 6, 1, ScalarType::kFloat64).requires_grad_();
  a.narrow(0, 1, 5).as_strided({2, 3}, {1, 1}).backward(ones({2, 3}, ScalarType::kFloat64));
  EXPECT_EQ(values(a.grad()), (Doubles{0, 1, 2, 2, 1, 0}));
  const Tensor b = arange(0, 6, 1, ScalarType::kFloat64).requires_grad_();
  b.narrow(0, 0, 2).expand({3, 2}).as_strided({2, 2}, {1, 1}).sum().backward();
  EXPECT_EQ(values(b.grad()), (Doubles{1, 2, 0, 0, 0, 0}));
  const autograd::GradcheckOptions forward{.check_forward_ad = true};
  const auto fn = [](const autograd::tensor_list& in) { return in[0].as_strided({3, 3}, {2, 1}, 1); };  // overlapping rows
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), {seq({2, 4}).requires_grad_()}, forward));
  EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(fn), {seq({2, 4}).requires_grad_()}));
}

TEST_F(CpuFactory, SumToSizeReducesABroadcast) {
  const Tensor x = ones({2, 3}, ScalarType::kInt32);
  const Tensor r = x.sum_to_size({1, 3});
  EXPECT_EQ(values(r), (Doubles{2, 2, 2}));
  EXPECT_EQ(r.dtype(), ScalarType::kInt64);  // sum's promotion
  EXPECT_EQ(values(x.sum_to_size({3})), (Doubles{2, 2, 2}));
  EXPECT_TRUE(x.sum_to_size({2, 3}).is_same(x));
  expect_error<RuntimeError>([&] { (void)x.sum_to_size({4, 3}); },
                             "size {[4, 3]} is not expandable to size {[2, 3]}.");
}

TEST_F(CpuFactory, UpsampleIsInterpolateWithItsDefaults) {
  const Tensor x = arange(0, 4, 1, ScalarType::kFloat32).reshape({1, 1, 2, 2});
  EXPECT_EQ(values(F::upsample_bilinear(x, Value(), Value(2))),
            values(F::interpolate(x, Value(), Value(2), "bilinear", true)));
  EXPECT_EQ(values(F::upsample_nearest(x, Value(3))), values(F::interpolate(x, Value(3))));
  EXPECT_EQ(values(F::upsample(x, Value(), Value(2.0), "bilinear")),
            values(F::interpolate(x, Value(), Value(2.0), "bilinear")));
  expect_error<NotImplementedError>([] { (void)F::upsample_bilinear(ones({1, 1, 4}), Value(), Value(2)); },
                                    "Got 3D input, but bilinear mode needs 4D input");
}

TEST_F(CpuFactory, IsSignedIsSameSizeIsreal) {
  EXPECT_FALSE(is_signed(ones({1}, ScalarType::kUInt8)));
  EXPECT_FALSE(is_signed(ones({1}, ScalarType::kBool)));
  EXPECT_TRUE(ones({1}, ScalarType::kInt8).is_signed());
  EXPECT_FALSE(is_same_size(ones({2}), ones({2, 1})));
  EXPECT_TRUE(is_same_size(ones({2, 1}), zeros({2, 1}, ScalarType::kInt64)));
  EXPECT_EQ(values(isreal(vec({1, NAN}))), (Doubles{1, 1}));
  const Tensor c = complex(vec({1, 1}), vec({0, 1}));
  EXPECT_EQ(values(isreal(c)), (Doubles{1, 0}));
}

}  // namespace
}  // namespace wick
