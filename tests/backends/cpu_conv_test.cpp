// tests/backends/cpu_conv_test.cpp - conv1d/conv2d and the pooling functions against PyTorch 1.13's values,
// gradients, node names and errors.
/// \file
/// Inputs are seq(shape, a, b)[i] = sin(a*i + b); each case's gradients are
/// those of sum(out * seq(out.shape, 0.3, 1.1)), as in the reference run
/// (tests/backends/cpu_conv_expected.h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/autograd/test_util.h"
#include "tests/backends/cpu_conv_expected.h"
#include "wick/autograd.h"
#include "wick/dispatcher.h"
#include "wick/gradcheck.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick {
namespace {

namespace F = wick::nn::functional;
namespace E = wick::conv_expected;
using Shape = std::vector<std::int64_t>;

Tensor seq(const Shape& shape, double a = 0.7, double b = 0.3, bool grad = true) {
  std::int64_t n = 1;
  for (std::int64_t s : shape) n *= s;
  std::vector<Value> items;
  for (std::int64_t i = 0; i < n; ++i) items.emplace_back(std::sin(a * static_cast<double>(i) + b));
  Tensor t = tensor(Value::list(items), ScalarType::kFloat64).reshape(shape);
  return grad ? t.requires_grad_() : t;
}

std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

void expect_values(const Tensor& got, const std::vector<double>& want, double rel = 1e-12) {
  const std::vector<double> v = values(got);
  ASSERT_EQ(v.size(), want.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(v[i], want[i], rel * std::max(1.0, std::abs(want[i]))) << "element " << i;
}

// Checks out and the gradients of sum(out * seq(out.shape, 0.3, 1.1)) w.r.t. inputs.
void expect_case(const Tensor& out, const Shape& shape, const std::vector<double>& want,
                 const std::vector<Tensor>& inputs, const std::vector<const std::vector<double>*>& grads) {
  EXPECT_EQ(out.sizes().vec(), shape);
  expect_values(out, want);
  Tensor loss = sum(mul(out, seq(out.sizes().vec(), 0.3, 1.1, false)));
  loss.backward();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    SCOPED_TRACE("gradient " + std::to_string(i));
    ASSERT_TRUE(inputs[i].grad().defined());
    expect_values(inputs[i].grad(), *grads[i]);
  }
}

template <typename Fn>
void expect_error(Fn&& fn, const std::string& fragment) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what() << "\nexpected: " << fragment;
  }
}

class Conv : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(Conv, Conv2dStridePaddingDilationGroupsBias) {
  Tensor x = seq({2, 4, 5, 6});
  Tensor w = seq({6, 2, 3, 2}, 0.4, 0.1);
  Tensor b = seq({6}, 1.3, 0.2);
  const std::vector<std::int64_t> stride = {2, 1};
  const std::vector<std::int64_t> padding = {1, 2};
  const std::vector<std::int64_t> dilation = {1, 2};
  Tensor out = F::conv2d(x, w, b, stride, padding, dilation, 2);
  EXPECT_EQ(out.grad_fn()->name(), "ConvolutionBackward0");
  expect_case(out, {2, 6, 3, 8}, E::kConv2dOut, {x, w, b}, {&E::kConv2dG0, &E::kConv2dG1, &E::kConv2dG2});
}

TEST_F(Conv, Conv2dSamePaddingWithEvenKernel) {
  Tensor x = seq({1, 2, 4, 5});
  Tensor w = seq({3, 2, 2, 3}, 0.4, 0.1);
  Value out = call("torch.nn.functional.conv2d", {x, w}, {{"padding", Value("same")}});
  expect_case(out.to_tensor(), {1, 3, 4, 5}, E::kConv2dSameOut, {x, w}, {&E::kConv2dSameG0, &E::kConv2dSameG1});
  // 'valid' is no padding.
  Tensor valid = F::conv2d(x.detach(), w.detach(), std::nullopt, 1, "valid");
  EXPECT_EQ(valid.sizes().vec(), (Shape{1, 3, 3, 3}));
}

TEST_F(Conv, Conv1dBatchedAndUnbatched) {
  Tensor x = seq({2, 3, 7});
  Tensor w = seq({4, 3, 3}, 0.4, 0.1);
  Tensor b = seq({4}, 1.3, 0.2);
  Value out = call("torch.conv1d", {x, w, b}, {{"stride", Value(2)}, {"padding", Value(1)}});
  expect_case(out.to_tensor(), {2, 4, 4}, E::kConv1dOut, {x, w, b}, {&E::kConv1dG0, &E::kConv1dG1, &E::kConv1dG2});
  Tensor xu = seq({3, 7});
  Tensor wu = seq({4, 3, 3}, 0.4, 0.1);
  Tensor outu = F::conv1d(xu, wu, std::nullopt, 1, 0, 2);
  expect_case(outu, {4, 3}, E::kConv1dUnbatchedOut, {xu, wu}, {&E::kConv1dUnbatchedG0, &E::kConv1dUnbatchedG1});
}

TEST_F(Conv, Float32AndDoubleBackward) {
  Tensor x = seq({1, 2, 4, 4}, 0.7, 0.3, false).to(ScalarType::kFloat32);
  Tensor w = seq({2, 2, 3, 3}, 0.4, 0.1, false).to(ScalarType::kFloat32);
  Tensor out = conv2d(x, w, std::nullopt, 1, 1);
  EXPECT_EQ(out.dtype(), ScalarType::kFloat32);
  Tensor ref = conv2d(x.to(ScalarType::kFloat64), w.to(ScalarType::kFloat64), std::nullopt, 1, 1);
  const std::vector<double> r = values(ref);
  const std::vector<double> got = values(out);
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_NEAR(got[i], r[i], 1e-5);
  // Gradients of gradients (conv's backwards are differentiable): gradgradcheck over all three inputs.
  auto fn = [](const autograd::tensor_list& in) {
    const std::vector<std::int64_t> stride = {2, 1};
    return F::conv2d(in[0], in[1], in[2], stride, 1, 1, 2);
  };
  autograd::tensor_list inputs = {seq({2, 4, 5, 4}), seq({4, 2, 2, 3}, 0.4, 0.1), seq({4}, 1.3, 0.2)};
  autograd::GradcheckOptions opt{.check_forward_ad = true};
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), inputs, opt));
  EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(fn), inputs, {}, opt));
}

// A direct (seven-loop) convolution and its two adjoints, in double, for
// shapes too large for hand-written expected values.
struct Direct {
  Shape x, w;
  std::int64_t sh, sw, ph, pw, dh, dw, groups;
  [[nodiscard]] std::int64_t oh() const { return (x[2] + 2 * ph - dh * (w[2] - 1) - 1) / sh + 1; }
  [[nodiscard]] std::int64_t ow() const { return (x[3] + 2 * pw - dw * (w[3] - 1) - 1) / sw + 1; }
  // fn(output index, input index, weight index) for every product of the convolution.
  template <typename Fn>
  void each(Fn&& fn) const {
    const std::int64_t og = w[0] / groups;
    const std::int64_t cg = w[1];
    for (std::int64_t n = 0; n < x[0]; ++n)
      for (std::int64_t o = 0; o < w[0]; ++o)
        for (std::int64_t y = 0; y < oh(); ++y)
          for (std::int64_t xo = 0; xo < ow(); ++xo)
            for (std::int64_t c = 0; c < cg; ++c)
              for (std::int64_t i = 0; i < w[2]; ++i)
                for (std::int64_t j = 0; j < w[3]; ++j) {
                  const std::int64_t iy = y * sh - ph + i * dh;
                  const std::int64_t ix = xo * sw - pw + j * dw;
                  if (iy < 0 || iy >= x[2] || ix < 0 || ix >= x[3]) continue;
                  const std::int64_t ci = (o / og) * cg + c;
                  fn(((n * w[0] + o) * oh() + y) * ow() + xo, ((n * x[1] + ci) * x[2] + iy) * x[3] + ix,
                     ((o * cg + c) * w[2] + i) * w[3] + j);
                }
  }
};

// Shapes whose lowering takes several bands of output rows (Note [Convolution
// bands] in backends/cpu/conv_ops.cpp) and threads over channels: forward and
// both gradients against the direct convolution, in float64 and float32.
TEST_F(Conv, LargeShapesMatchDirectConvolution) {
  const Direct d{{2, 16, 140, 72}, {4, 8, 3, 3}, 1, 2, 1, 2, 2, 1, 2};
  const Tensor x64 = seq(d.x, 0.7, 0.3, false);
  const Tensor w64 = seq(d.w, 0.4, 0.1, false);
  const Shape out_shape = {d.x[0], d.w[0], d.oh(), d.ow()};
  const Tensor g64 = seq(out_shape, 0.3, 1.1, false);
  const std::vector<double> xv = values(x64);
  const std::vector<double> wv = values(w64);
  const std::vector<double> gv = values(g64);
  std::vector<double> out(static_cast<std::size_t>(g64.numel()));
  std::vector<double> gx(xv.size());
  std::vector<double> gw(wv.size());
  d.each([&](std::int64_t oi, std::int64_t xi, std::int64_t wi) {
    out[oi] += xv[xi] * wv[wi];
    gx[xi] += gv[oi] * wv[wi];
    gw[wi] += gv[oi] * xv[xi];
  });
  for (ScalarType t : {ScalarType::kFloat64, ScalarType::kFloat32}) {
    SCOPED_TRACE(t == ScalarType::kFloat64 ? "float64" : "float32");
    const double tol = t == ScalarType::kFloat64 ? 1e-12 : 1e-4;
    Tensor x = x64.to(t).detach().requires_grad_();
    Tensor w = w64.to(t).detach().requires_grad_();
    const Shape stride = {d.sh, d.sw};
    const Shape padding = {d.ph, d.pw};
    const Shape dilation = {d.dh, d.dw};
    Tensor y = F::conv2d(x, w, std::nullopt, stride, padding, dilation, d.groups);
    ASSERT_EQ(y.sizes().vec(), out_shape);
    expect_values(y, out, tol);
    sum(mul(y, g64.to(t))).backward();
    expect_values(x.grad(), gx, tol);
    expect_values(w.grad(), gw, tol);
  }
}

TEST_F(Conv, ErrorsAsPyTorch) {
  Tensor x = seq({2, 4, 5, 5}, 0.7, 0.3, false);
  Tensor w = seq({6, 2, 3, 3}, 0.7, 0.3, false);
  expect_error(
      [&] {
        (void)conv2d(seq({5, 5}, 0.7, 0.3, false), w);
      },
      "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [5, 5]");
  expect_error([&] { (void)conv2d(x, w); },
               "Given groups=1, weight of size [6, 2, 3, 3], expected input[2, 4, 5, 5] to have 2 channels, but got "
               "4 channels instead");
  expect_error([&] { (void)conv2d(x, w, std::nullopt, 1, 0, 1, 3); },
               "Given groups=3, weight of size [6, 2, 3, 3], expected input[2, 4, 5, 5] to have 6 channels");
  expect_error(
      [&] {
        (void)conv2d(x, seq({6, 4, 7, 7}, 0.7, 0.3, false));
      },
      "Calculated padded input size per channel: (5 x 5). Kernel size: (7 x 7). Kernel size can't be "
      "greater than actual input size");
  expect_error([&] { (void)conv2d(x, w, std::nullopt, 0, 0, 1, 2); }, "non-positive stride is not supported");
  expect_error([&] { (void)conv2d(x, w, std::nullopt, 1, -1, 1, 2); }, "negative padding is not supported");
  expect_error([&] { (void)conv2d(x, w, std::nullopt, 1, 0, 0, 2); }, "non-positive dilation is not supported");
  expect_error([&] { (void)conv2d(x, w, std::nullopt, 1, 0, 1, 0); }, "non-positive groups is not supported");
  expect_error(
      [&] {
        (void)call("torch.conv2d", {x, w}, {{"padding", Value("foo")}, {"groups", Value(2)}});
      },
      "Invalid padding string: 'foo'");
  expect_error([&] { (void)conv2d(x, w, std::nullopt, 2, "same", 1, 2); },
               "padding='same' is not supported for strided convolutions");
  expect_error([&] { (void)conv2d(x, w, seq({5}, 0.7, 0.3, false), 1, 0, 1, 2); },
               "expected bias to be 1-dimensional with 6 elements, but got bias of size [5] instead");
  expect_error([&] { (void)conv2d(x, w.to(ScalarType::kFloat32), std::nullopt, 1, 0, 1, 2); }, "should be the same");
  const std::vector<std::int64_t> three = {1, 1, 1};
  expect_error([&] { (void)conv2d(x, w, std::nullopt, three, 0, 1, 2); },
               "expected stride to be a single integer value or a list of 2 values");
  expect_error(
      [&] {
        (void)conv1d(seq({2, 4, 5}, 0.7, 0.3, false), seq({6, 4, 3, 3}, 0.7, 0.3, false));
      },
      "Expected 4-dimensional input for 4-dimensional weight [6, 4, 3, 3], but got 3-dimensional input");
  expect_error([&] { (void)conv2d(x.to(ScalarType::kBool), w.to(ScalarType::kBool), std::nullopt, 1, 0, 1, 2); },
               "\"slow_conv2d_cpu\" not implemented for 'Bool'");
}

// Integer convolution, which PyTorch's CPU computes: exact, and equal to the
// float64 one on integer-valued data, with stride, padding, dilation, groups and bias.
TEST_F(Conv, IntegerConvolutionIsExact) {
  const Tensor x = round(mul(seq({2, 4, 6, 5}, 0.7, 0.3, false), 10.0)).to(ScalarType::kInt64);
  const Tensor w = round(mul(seq({6, 2, 3, 2}, 0.7, 0.3, false), 10.0)).to(ScalarType::kInt64);
  const Tensor b = arange(0, 6, 1, ScalarType::kInt64);
  const std::int64_t stride[] = {2, 1};
  const std::int64_t dilation[] = {1, 2};
  const Tensor got = conv2d(x, w, b, IntArrayRef(stride, 2), 1, IntArrayRef(dilation, 2), 2);
  const Tensor want = conv2d(x.to(ScalarType::kFloat64), w.to(ScalarType::kFloat64), b.to(ScalarType::kFloat64),
                             IntArrayRef(stride, 2), 1, IntArrayRef(dilation, 2), 2);
  EXPECT_EQ(got.dtype(), ScalarType::kInt64);
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec());
  EXPECT_EQ(amax(abs(sub(got.to(ScalarType::kFloat64), want))).item<double>(), 0.0);
}

class Pool : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(Pool, MaxPool2dCeilModeAndIndices) {
  Tensor x = seq({2, 3, 5, 7});
  auto [out, idx] = F::max_pool2d_with_indices(x, 3, IntArrayRef(2), 1, 1, true);
  EXPECT_EQ(out.grad_fn()->name(), "MaxPool2DWithIndicesBackward0");
  EXPECT_EQ(idx.dtype(), ScalarType::kInt64);
  expect_values(idx, E::kMaxpoolIdx);
  expect_case(out, {2, 3, 3, 4}, E::kMaxpoolOut, {x}, {&E::kMaxpoolG0});
  Value both =
      call("torch.nn.functional.max_pool2d", {seq({2, 3, 5, 7}), Value(3)},
           {{"stride", Value(2)}, {"padding", Value(1)}, {"ceil_mode", Value(true)}, {"return_indices", Value(true)}});
  ASSERT_TRUE(both.is_tuple());
  expect_values(both.items()[1].to_tensor(), E::kMaxpoolIdx);
}

TEST_F(Pool, MaxPool2dDilationAndTorchTwin) {
  Tensor x = seq({1, 2, 5, 7});
  const std::vector<std::int64_t> k = {2, 3};
  Tensor out = max_pool2d(x, k, 1, 0, 2);
  expect_case(out, {1, 2, 3, 3}, E::kMaxpoolDilOut, {x}, {&E::kMaxpoolDilG0});
  // A NaN in the window wins.
  Tensor y = tensor(Value::list({Value(1.0), Value(std::nan("")), Value(0.0), Value(2.0)}), ScalarType::kFloat64)
                 .reshape({1, 1, 2, 2});
  EXPECT_TRUE(std::isnan(values(F::max_pool2d(y, 2))[0]));
}

TEST_F(Pool, AvgPool2d) {
  Tensor x = seq({1, 2, 5, 7});
  Tensor out = F::avg_pool2d(x, 3, IntArrayRef(2), 1, true, false);
  EXPECT_EQ(out.grad_fn()->name(), "AvgPool2DBackward0");
  expect_case(out, {1, 2, 3, 4}, E::kAvgpoolOut, {x}, {&E::kAvgpoolG0});
  Tensor xu = seq({2, 5, 7});
  const std::vector<std::int64_t> k = {2, 3};
  Tensor outu = F::avg_pool2d(xu, k, std::nullopt, 1, false, true, 2);
  expect_case(outu, {2, 3, 3}, E::kAvgpoolDivOut, {xu}, {&E::kAvgpoolDivG0});
  Tensor xc = seq({1, 2, 6, 6});
  Tensor outc = F::avg_pool2d(xc, 3, IntArrayRef(2), 1, true);
  expect_case(outc, {1, 2, 4, 4}, E::kAvgpoolCeilPadOut, {xc}, {&E::kAvgpoolCeilPadG0});
}

TEST_F(Pool, AvgPool2dOfIntegersTruncates) {
  Tensor x = tensor(Value(std::vector<std::int64_t>{-3, 0, 5, 0, 0, 7, 1, 2, 3})).reshape({1, 1, 3, 3});
  Tensor out = F::avg_pool2d(x, 2, IntArrayRef(1));
  EXPECT_EQ(out.dtype(), ScalarType::kInt64);
  expect_values(out, {0, 3, 0, 3});
  expect_values(F::avg_pool2d(x, 2, std::nullopt, 1, false, false), {-3, 2, 0, 3});
  expect_error([&] { (void)F::adaptive_avg_pool2d(x, 2); }, "\"adaptive_avg_pool2d\" not implemented for 'Long'");
  expect_error([&] { (void)F::avg_pool2d(x.to(ScalarType::kInt32), 2); }, "\"avg_pool2d\" not implemented for 'Int'");
}

TEST_F(Pool, AdaptiveAndOneDimensional) {
  Tensor x = seq({2, 3, 5, 7});
  const std::vector<std::int64_t> size = {3, 4};
  Tensor out = F::adaptive_avg_pool2d(x, size);
  EXPECT_EQ(out.grad_fn()->name(), "AdaptiveAvgPool2DBackward0");
  expect_case(out, {2, 3, 3, 4}, E::kAdaptiveOut, {x}, {&E::kAdaptiveG0});
  Tensor x1 = seq({2, 7});
  expect_case(adaptive_avg_pool1d(x1, 3), {2, 3}, E::kAdaptive1dOut, {x1}, {&E::kAdaptive1dG0});
  Tensor xa = seq({2, 2, 8});
  Value outa = call("torch.nn.functional.avg_pool1d", {xa, Value(3)},
                    {{"stride", Value(2)}, {"padding", Value(1)}, {"count_include_pad", Value(false)}});
  expect_case(outa.to_tensor(), {2, 2, 4}, E::kAvgpool1dOut, {xa}, {&E::kAvgpool1dG0});
}

TEST_F(Pool, DoubleBackwardAndForwardMode) {
  autograd::GradcheckOptions opt{.check_forward_ad = true};
  auto check = [&](auto fn, const Shape& shape) {
    autograd::tensor_list in = {seq(shape)};
    EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), in, opt));
    EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(fn), in, {}, opt));
  };
  check([](const autograd::tensor_list& in) { return F::max_pool2d(in[0], 3, IntArrayRef(2), 1); }, {1, 2, 5, 6});
  check([](const autograd::tensor_list& in) { return F::avg_pool2d(in[0], 3, IntArrayRef(2), 1, true, false); },
        {2, 5, 6});
  const std::vector<std::int64_t> size = {2, 4};
  check([&](const autograd::tensor_list& in) { return F::adaptive_avg_pool2d(in[0], size); }, {1, 2, 5, 7});
}

TEST_F(Pool, ErrorsAsPyTorch) {
  Tensor x = seq({1, 1, 5, 5}, 0.7, 0.3, false);
  expect_error([&] { (void)F::max_pool2d(x, 3, std::nullopt, 2); },
               "pad should be at most half of kernel size, but got pad=2 and kernel_size=3");
  expect_error([&] { (void)F::avg_pool2d(x, 3, std::nullopt, 2); },
               "pad should be at most half of kernel size, but got pad=2 and kernel_size=3");
  expect_error(
      [&] {
        (void)F::max_pool2d(seq({1, 1, 2, 2}, 0.7, 0.3, false), 3);
      },
      "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small");
  expect_error(
      [&] {
        (void)F::avg_pool2d(seq({1, 1, 2, 2}, 0.7, 0.3, false), 3);
      },
      "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small");
  expect_error([&] { (void)F::max_pool2d(seq({5, 5}, 0.7, 0.3, false), 2); }, "Expected 3D or 4D tensor");
  expect_error([&] { (void)F::max_pool2d(x.to(ScalarType::kInt64), 2); }, "\"max_pool2d\" not implemented for 'Long'");
  expect_error([&] { (void)F::avg_pool2d(x, 2, IntArrayRef(0)); }, "stride should not be zero");
  expect_error([&] { (void)F::max_pool2d(x, 0); }, "stride should not be zero");
  expect_error([&] { (void)F::avg_pool2d(x, 2, std::nullopt, 0, false, true, 0); }, "divisor must be not zero");
  expect_error(
      [&] {
        (void)F::adaptive_avg_pool2d(seq({5, 5}, 0.7, 0.3, false), 3);
      },
      "Expected 3D or 4D tensor, but got [5, 5]");
  expect_error(
      [&] {
        (void)F::adaptive_avg_pool2d(seq({1, 0, 5}, 0.7, 0.3, false), 3);
      },
      "Expected input to have non-zero size for non-batch dimensions, but input has sizes [1, 0, 5] with "
      "dimension 1 being empty");
  const std::vector<std::int64_t> two = {3, 3};
  expect_error(
      [&] {
        (void)adaptive_avg_pool1d(seq({1, 5, 5}, 0.7, 0.3, false), two);
      },
      "argument 'output_size' should contain one int (got 2)");
  expect_error([&] { (void)avg_pool1d(seq({5}, 0.7, 0.3, false), 3); },
               "Expected 2 to 3 dimensions, but got 1-dimensional tensor for argument #1 'self'");
}

}  // namespace
}  // namespace wick
