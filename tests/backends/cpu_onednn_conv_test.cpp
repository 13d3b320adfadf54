// tests/backends/cpu_onednn_conv_test.cpp - convolution on oneDNN against the im2col + GEMM path, shape by shape.
/// \file
/// Note [Convolution on oneDNN] (backends/cpu/onednn.h): float32 and
/// bfloat16 convolutions run on oneDNN where the build has it, and
/// `backends::set_mkldnn_enabled(false)` sends them to im2col + GEMM. Each
/// case computes a convolution's output and its three gradients both ways
/// and compares them: odd geometries (groups, depthwise, dilation, strides
/// that leave input unread, padding past the kernel, 1x1 and 7x7 kernels,
/// channel counts off oneDNN's blocks of 16), batch 1, conv1d and the
/// transposed convolutions. In a build without oneDNN both runs take
/// im2col and agree trivially. float64 has no oneDNN kernel and stays on
/// im2col: gradcheck covers it (tests/backends/cpu_conv_test.cpp, and the
/// transposed cases here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "wick/autograd.h"
#include "wick/backends.h"
#include "wick/gradcheck.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

using Shape = std::vector<std::int64_t>;

// Restores the oneDNN switches when a test ends, however it ends.
class MkldnnSwitch {
 public:
  explicit MkldnnSwitch(bool on, bool winograd = false)
      : was_(backends::mkldnn_enabled()),
        winograd_was_(backends::mkldnn_winograd()),
        small_was_(backends::mkldnn_small_on_im2col()) {
    backends::set_mkldnn_enabled(on);
    backends::set_mkldnn_winograd(winograd);
    // The cases are small: oneDNN must take them all the same.
    backends::set_mkldnn_small_on_im2col(false);
  }
  ~MkldnnSwitch() {
    backends::set_mkldnn_enabled(was_);
    backends::set_mkldnn_winograd(winograd_was_);
    backends::set_mkldnn_small_on_im2col(small_was_);
  }
  MkldnnSwitch(const MkldnnSwitch&) = delete;
  MkldnnSwitch& operator=(const MkldnnSwitch&) = delete;

 private:
  bool was_;
  bool winograd_was_;
  bool small_was_;
};

// A convolution of (x, w, b): conv1d/conv2d or a transposed one.
using ConvFn = std::function<Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&)>;

struct Case {
  std::string name;
  Shape x, w;
  bool bias = true;
  ConvFn fn;
};

// out and the gradients of sum(out * g) for x, w (and b), in float64.
std::vector<Tensor> run(const Case& c, ScalarType dtype, bool onednn, bool winograd = false) {
  const MkldnnSwitch use(onednn, winograd);
  manual_seed(7);
  Tensor x = randn(c.x).to(dtype).requires_grad_();
  Tensor w = randn(c.w).to(dtype).requires_grad_();
  std::optional<Tensor> b;
  if (c.bias) b = randn({c.fn(x.detach(), w.detach(), std::nullopt).sizes()[1]}).to(dtype).requires_grad_();
  Tensor out = c.fn(x, w, b);
  Tensor g = randn(out.sizes().vec()).to(dtype);
  sum(mul(out, g)).backward();
  std::vector<Tensor> result = {out.detach(), x.grad(), w.grad()};
  if (b) result.push_back(b->grad());
  for (Tensor& t : result) t = t.to(ScalarType::kFloat64);
  return result;
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.sizes().vec(), want.sizes().vec()) << what;
  const Tensor a = got.contiguous();
  const Tensor e = want.contiguous();
  const double* pa = a.data_ptr<double>();
  const double* pe = e.data_ptr<double>();
  double scale = 1.0;
  for (std::int64_t i = 0; i < e.numel(); ++i) scale = std::max(scale, std::abs(pe[i]));
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < e.numel(); ++i)
    if (std::abs(pa[i] - pe[i]) > tol * scale && bad++ < 3)
      ADD_FAILURE() << what << " element " << i << ": " << pa[i] << " vs " << pe[i] << " (scale " << scale << ")";
}

// The direct kernels (winograd false) or Winograd's against im2col.
void compare(const Case& c, ScalarType dtype, double tol, bool winograd = false) {
  SCOPED_TRACE(c.name + (dtype == ScalarType::kBFloat16 ? " bfloat16" : " float32"));
  const std::vector<Tensor> fast = run(c, dtype, true, winograd);
  const std::vector<Tensor> slow = run(c, dtype, false);
  const char* names[] = {"output", "input gradient", "weight gradient", "bias gradient"};
  ASSERT_EQ(fast.size(), slow.size());
  for (std::size_t i = 0; i < fast.size(); ++i) expect_close(fast[i], slow[i], tol, names[i]);
}

ConvFn conv2d_with(Shape stride, Shape padding, Shape dilation, std::int64_t groups) {
  return [=](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
    return conv2d(x, w, b, stride, padding, dilation, groups);
  };
}

std::vector<Case> cases_2d() {
  return {
      {"3x3 groups 2, stride (2, 1), padding (1, 2), dilation (1, 2)",
       {2, 32, 9, 11},
       {32, 16, 3, 3},
       true,
       conv2d_with({2, 1}, {1, 2}, {1, 2}, 2)},
      {"ResNet 3x3, batch 1", {1, 64, 14, 14}, {64, 64, 3, 3}, true, conv2d_with({1, 1}, {1, 1}, {1, 1}, 1)},
      {"first layer 7x7 stride 2, 3 channels", {2, 3, 23, 19}, {16, 3, 7, 7}, true,
       conv2d_with({2, 2}, {3, 3}, {1, 1}, 1)},
      {"1x1 projection stride 2", {3, 48, 7, 9}, {32, 48, 1, 1}, false, conv2d_with({2, 2}, {0, 0}, {1, 1}, 1)},
      {"depthwise 3x3", {2, 24, 10, 10}, {24, 1, 3, 3}, true, conv2d_with({1, 1}, {1, 1}, {1, 1}, 24)},
      {"20 output channels, 4x4 stride 2 (DCGAN)", {1, 16, 12, 10}, {20, 16, 4, 4}, true,
       conv2d_with({2, 2}, {1, 1}, {1, 1}, 1)},
      {"stride 3 leaves input unread", {2, 16, 8, 9}, {16, 16, 2, 2}, false, conv2d_with({3, 3}, {0, 0}, {1, 1}, 1)},
      {"padding past the kernel", {1, 16, 4, 5}, {17, 16, 3, 3}, true, conv2d_with({1, 2}, {3, 4}, {1, 1}, 1)},
      {"dilation 3, groups 4, 5x3 kernel", {2, 64, 13, 12}, {32, 16, 5, 3}, true,
       conv2d_with({1, 1}, {2, 1}, {3, 2}, 4)},
  };
}

class OneDnnConv : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(OneDnnConv, SwitchesDefaultOnAndToggle) {
  EXPECT_TRUE(backends::mkldnn_enabled());
  EXPECT_TRUE(backends::mkldnn_winograd());
  {
    const MkldnnSwitch off(false);
    EXPECT_FALSE(backends::mkldnn_enabled());
    EXPECT_FALSE(backends::mkldnn_winograd());
  }
  EXPECT_TRUE(backends::mkldnn_enabled());
  EXPECT_TRUE(backends::mkldnn_winograd());
  EXPECT_TRUE(backends::mkldnn_small_on_im2col());
}

// Note [Small convolutions on im2col]: by default a convolution under the
// work bound (here DCGAN's 4x4 stride-2 layer, 64 -> 128 channels, on one
// 14x14 image: 6.4 Mi multiply-adds) takes im2col, so it matches the
// im2col path bit for bit; with the rule off, oneDNN takes it and rounds
// differently.
TEST_F(OneDnnConv, SmallConvolutionsTakeIm2colByDefault) {
  manual_seed(3);
  const Tensor x = randn({1, 64, 14, 14});
  const Tensor w = randn({128, 64, 4, 4});
  const auto conv = [&] { return conv2d(x, w, std::nullopt, {2, 2}, {1, 1}); };
  Tensor im2col;
  {
    const MkldnnSwitch off(false);
    im2col = conv();
  }
  ASSERT_TRUE(backends::mkldnn_small_on_im2col());
  EXPECT_TRUE(equal(conv(), im2col));
  if (backends::mkldnn_enabled()) {
    const MkldnnSwitch onednn(true);  // the rule off
    const Tensor fast = conv();
    EXPECT_TRUE(allclose(fast, im2col, 1e-4, 1e-4));
  }
}

// Note [Winograd convolution on oneDNN]: 3x3 stride-1 layers with
// channels in multiples of 16 take Winograd's kernels, within ten times
// the direct kernels' tolerance.
TEST_F(OneDnnConv, WinogradMatchesIm2colWithinItsRounding) {
  const std::vector<Case> cases = {
      {"ResNet 3x3 64 channels", {2, 64, 14, 14}, {64, 64, 3, 3}, true, conv2d_with({1, 1}, {1, 1}, {1, 1}, 1)},
      {"3x3 groups 2, padding (0, 2)", {1, 64, 9, 13}, {32, 32, 3, 3}, false, conv2d_with({1, 1}, {0, 2}, {1, 1}, 2)},
  };
  for (const Case& c : cases) {
    compare(c, ScalarType::kFloat32, 1e-5, true);
    compare(c, ScalarType::kBFloat16, 2e-2, true);  // no Winograd for bfloat16: the direct kernels
  }
}

TEST_F(OneDnnConv, Conv2dMatchesIm2colFloat32) {
  for (const Case& c : cases_2d()) compare(c, ScalarType::kFloat32, 1e-6);
}

// bfloat16: both round the float32 sums once; they may differ by the last bit.
TEST_F(OneDnnConv, Conv2dMatchesIm2colBFloat16) {
  for (const Case& c : cases_2d()) compare(c, ScalarType::kBFloat16, 2e-2);
}

TEST_F(OneDnnConv, Conv1dMatchesIm2col) {
  const Case c{"conv1d stride 2, padding 2, dilation 2, groups 2",
               {2, 32, 50},
               {32, 16, 5},
               true,
               [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
                 return conv1d(x, w, b, IntArrayRef{2}, IntArrayRef{2}, IntArrayRef{2}, 2);
               }};
  compare(c, ScalarType::kFloat32, 1e-5);
  compare(c, ScalarType::kBFloat16, 2e-2);
}

std::vector<Case> transposed_cases() {
  return {
      {"conv_transpose2d DCGAN 4x4 stride 2 padding 1",
       {2, 64, 4, 4},
       {64, 32, 4, 4},
       true,
       [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
         return conv_transpose2d(x, w, b, IntArrayRef{2, 2}, IntArrayRef{1, 1});
       }},
      {"conv_transpose2d groups 2, output_padding (1, 0), dilation (1, 2), batch 1",
       {1, 32, 5, 6},
       {32, 24, 3, 3},
       true,
       [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
         return conv_transpose2d(x, w, b, IntArrayRef{2, 3}, IntArrayRef{1, 0}, IntArrayRef{1, 0}, 2,
                                 IntArrayRef{1, 2});
       }},
      {"conv_transpose1d stride 3",
       {2, 16, 9},
       {16, 20, 4},
       false,
       [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b) {
         return conv_transpose1d(x, w, b, IntArrayRef{3}, IntArrayRef{1});
       }},
  };
}

TEST_F(OneDnnConv, TransposedMatchIm2col) {
  for (const Case& c : transposed_cases()) {
    compare(c, ScalarType::kFloat32, 1e-5);
    compare(c, ScalarType::kBFloat16, 2e-2);
  }
}

// float64 stays on im2col: gradients and gradients of gradients of the
// transposed convolution by finite differences, forward mode too.
TEST_F(OneDnnConv, TransposedGradcheckFloat64) {
  auto fn = [](const autograd::tensor_list& in) {
    return conv_transpose2d(in[0], in[1], in[2], IntArrayRef{2, 1}, IntArrayRef{1, 0}, IntArrayRef{1, 0}, 2,
                            IntArrayRef{1, 2});
  };
  manual_seed(3);
  autograd::tensor_list inputs = {randn({2, 4, 3, 4}, ScalarType::kFloat64).requires_grad_(),
                                  randn({4, 3, 2, 3}, ScalarType::kFloat64).requires_grad_(),
                                  randn({6}, ScalarType::kFloat64).requires_grad_()};
  autograd::GradcheckOptions opt{.check_forward_ad = true};
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), inputs, opt));
  EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(fn), inputs, {}, opt));
}

// The plan cache is shared: threads running the same and different
// geometries at once get what one thread alone gets.
TEST_F(OneDnnConv, ConcurrentCallsAgree) {
  const std::vector<Case> cases = cases_2d();
  const MkldnnSwitch use(true);
  std::vector<Tensor> inputs;
  std::vector<Tensor> weights;
  std::vector<Tensor> alone;
  manual_seed(11);
  for (const Case& c : cases) {
    inputs.push_back(randn(c.x));
    weights.push_back(randn(c.w));
    alone.push_back(c.fn(inputs.back(), weights.back(), std::nullopt));
  }
  std::vector<std::vector<Tensor>> got(4, std::vector<Tensor>(cases.size()));
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 3; ++round)
        for (std::size_t i = 0; i < cases.size(); ++i) {
          const std::size_t k = (i + t) % cases.size();
          got[t][k] = cases[k].fn(inputs[k], weights[k], std::nullopt);
        }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::size_t t = 0; t < got.size(); ++t)
    for (std::size_t i = 0; i < cases.size(); ++i) {
      SCOPED_TRACE(cases[i].name);
      EXPECT_TRUE(equal(got[t][i], alone[i]));
    }
}

}  // namespace
}  // namespace wick
