// tests/core/meta_tensor_test.cpp - tensors on the meta device: shapes and dtypes through the meta functions, no data.
/// \file
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

#include "wick/error.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick {
namespace {

Device meta() { return Device(DeviceType::kMeta); }

namespace F = wick::nn::functional;
using Shape = std::vector<std::int64_t>;

// What fn(device) throws, as "<type>: <message>" ("" when it returns).
template <typename Fn>
std::string error_on(Device device, Fn&& fn) {
  try {
    (void)fn(device);
  } catch (const Error& e) {
    return std::string(typeid(e).name()) + ": " + e.message();
  }
  return "";
}

// fn(device) fails on the CPU, and on meta with the same error.
template <typename Fn>
void expect_same_error(Fn&& fn) {
  const std::string cpu = error_on(Device(), fn);
  EXPECT_NE(cpu, "") << "no error on the CPU";
  EXPECT_EQ(error_on(meta(), fn), cpu);
}

// fn(device) gives a result of the same sizes, strides and dtype on the CPU and on meta.
template <typename Fn>
void expect_same_geometry(Fn&& fn) {
  const Tensor cpu = fn(Device());
  const Tensor m = fn(meta());
  EXPECT_TRUE(m.device().is_meta());
  EXPECT_EQ(m.sizes().vec(), cpu.sizes().vec());
  EXPECT_EQ(m.strides().vec(), cpu.strides().vec());
  EXPECT_EQ(m.dtype(), cpu.dtype());
}

class MetaTensor : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(MetaTensor, FactoriesMakeStoragelessTensors) {
  const Tensor t = ones({2, 3}, std::nullopt, meta());
  EXPECT_TRUE(t.device().is_meta());
  EXPECT_EQ(t.sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(t.data_ptr(), nullptr);
  EXPECT_EQ(Device::parse("meta"), meta());
  // No memory: a size no host could hold is fine.
  const Tensor huge = empty({std::int64_t{1} << 40}, std::nullopt, meta());
  EXPECT_EQ(huge.numel(), std::int64_t{1} << 40);
}

TEST_F(MetaTensor, ElementwiseOperatorsRunThroughTheirMetaFunctions) {
  const Tensor a = ones({4, 1}, ScalarType::kInt64, meta());
  const Tensor b = ones({3}, ScalarType::kFloat64, meta());
  const Tensor c = a + b;
  EXPECT_EQ(c.sizes().vec(), (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(c.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(wick::exp(a).dtype(), ScalarType::kFloat32);  // float function of an integer
  EXPECT_EQ(wick::gt(a, 0).dtype(), ScalarType::kBool);
  EXPECT_EQ(wick::div(a, a).dtype(), ScalarType::kFloat32);
  // The same checks as on the CPU.
  EXPECT_THROW((void)(ones({2}, std::nullopt, meta()) + ones({3}, std::nullopt, meta())), RuntimeError);
  EXPECT_THROW((void)wick::neg(ones({2}, ScalarType::kBool, meta())), RuntimeError);
  // Mixing devices is PyTorch's error (a Python number is fine).
  EXPECT_EQ((b * 2).dtype(), ScalarType::kFloat64);
  try {
    (void)(b + ones({3}, ScalarType::kFloat64));
    ADD_FAILURE() << "meta + cpu must fail";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("found at least two devices, meta and cpu"), std::string::npos) << e.what();
  }
}

TEST_F(MetaTensor, OutVariantsAndInPlaceOperators) {
  Tensor out = empty({1}, ScalarType::kFloat64, meta());
  add_out(out, ones({2, 2}, std::nullopt, meta()), ones({2}, std::nullopt, meta()));
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(out.dtype(), ScalarType::kFloat64);
  Tensor x = zeros({3}, std::nullopt, meta());
  const std::uint32_t before = x.version();
  x.add_(ones({3}, std::nullopt, meta()));
  x.exp_();
  EXPECT_GT(x.version(), before);
  // Copying in is allowed, copying out is not: there is no data.
  Tensor dst = zeros({3}, std::nullopt, meta());
  dst.copy_(ones({3}));
  EXPECT_THROW((void)x.cpu(), NotImplementedError);
  EXPECT_THROW((void)zeros({}, std::nullopt, meta()).item(), RuntimeError);
}

TEST_F(MetaTensor, PrintsAsPyTorchDoes) {
  EXPECT_EQ(ones({2, 3}, std::nullopt, meta()).repr(), "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(ones({2}, ScalarType::kInt64, meta()).repr(), "tensor(..., device='meta', size=(2,), dtype=torch.int64)");
  EXPECT_EQ(ones({2}, ScalarType::kInt32, meta()).repr(),
            "tensor(..., device='meta', dtype=torch.int32, size=(2,), dtype=torch.int32)");
  EXPECT_EQ(empty({0}, std::nullopt, meta()).repr(), "tensor([], device='meta')");
}

TEST_F(MetaTensor, NnOperatorsRunThroughTheirMetaFunctions) {
  constexpr auto kLong = ScalarType::kInt64;
  constexpr auto kDouble = ScalarType::kFloat64;
  auto x = [](Device d, ScalarType t = ScalarType::kFloat32) { return ones({2, 3, 4}, t, d); };
  auto target = [](Device d, Shape s) { return zeros(s, ScalarType::kInt64, d); };
  expect_same_geometry([&](Device d) { return softmax(x(d), 1); });
  expect_same_geometry([&](Device d) { return log_softmax(x(d), -1, kDouble); });
  expect_same_geometry([&](Device d) { return softmax(ones({}, std::nullopt, d), 0); });
  expect_same_geometry([&](Device d) { return log_softmax(empty({0, 3}, std::nullopt, d), 1); });
  expect_same_geometry([&](Device d) { return F::softmax(x(d).transpose(0, 2), 0); });
  expect_same_geometry([&](Device d) { return F::leaky_relu(x(d, kDouble), 0.2); });
  expect_same_geometry([&](Device d) { return F::elu(x(d).transpose(1, 2)); });
  expect_same_geometry([&](Device d) { return F::gelu(x(d), "tanh"); });
  expect_same_geometry([&](Device d) { return F::silu(x(d)); });
  expect_same_geometry([&](Device d) { return F::logsigmoid(x(d, kDouble)); });
  for (const char* reduction : {"none", "mean", "sum"}) {
    expect_same_geometry([&](Device d) { return F::nll_loss(x(d), target(d, {2, 4}), std::nullopt, -100, reduction); });
    expect_same_geometry([&](Device d) {
      return F::nll_loss(ones({5, 3}, std::nullopt, d), target(d, {5}), ones({3}, std::nullopt, d), 1, reduction);
    });
  }
  expect_same_geometry([&](Device d) { return F::nll_loss(ones({3}, std::nullopt, d), target(d, {})); });
  expect_same_geometry([&](Device d) { return F::cross_entropy(ones({5, 3}, std::nullopt, d), target(d, {5})); });
  expect_same_geometry([&](Device d) {
    return F::layer_norm(x(d, kDouble), {3, 4}, ones({3, 4}, kDouble, d), zeros({3, 4}, kDouble, d));
  });
  expect_same_geometry([&](Device d) { return F::layer_norm(empty({0, 4}, std::nullopt, d), {4}); });

  // inplace=True writes into the input and returns it, on meta too.
  Tensor z = ones({2, 3}, std::nullopt, meta());
  const std::uint32_t before = z.version();
  EXPECT_TRUE(F::elu(z, 1.0, true).is_same(z));
  EXPECT_TRUE(F::leaky_relu(z, 0.1, true).is_same(z));
  EXPECT_TRUE(F::silu(z, true).is_same(z));
  EXPECT_GT(z.version(), before);

  // The CPU's checks and messages.
  expect_same_error([&](Device d) { return softmax(x(d, kLong), 0); });
  expect_same_error([&](Device d) { return log_softmax(x(d), 0, kLong); });
  expect_same_error([&](Device d) { return softmax(x(d), 3); });
  expect_same_error([&](Device d) { return F::gelu(x(d), "fast"); });
  expect_same_error([&](Device d) { return F::gelu(x(d, kLong)); });
  expect_same_error([&](Device d) { return F::leaky_relu(x(d, ScalarType::kInt32)); });
  expect_same_error([&](Device d) { return F::elu(x(d, ScalarType::kBool)); });
  expect_same_error([&](Device d) { return F::silu(x(d, kLong)); });
  expect_same_error([&](Device d) { return F::logsigmoid(x(d, kLong)); });
  expect_same_error([&](Device d) { return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {3})); });
  expect_same_error([&](Device d) { return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {2, 1})); });
  expect_same_error([&](Device d) { return F::nll_loss(x(d), target(d, {2, 3})); });
  expect_same_error([&](Device d) { return F::nll_loss(ones({2, 3}, std::nullopt, d), ones({2}, std::nullopt, d)); });
  expect_same_error([&](Device d) { return F::nll_loss(ones({2, 3}, kLong, d), target(d, {2})); });
  expect_same_error([&](Device d) { return F::nll_loss(ones({}, std::nullopt, d), target(d, {})); });
  expect_same_error([&](Device d) {
    return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {2}), ones({4}, std::nullopt, d));
  });
  expect_same_error([&](Device d) {
    return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {2}), ones({3}, kDouble, d));
  });
  expect_same_error([&](Device d) {
    return F::nll_loss(ones({2, 3}, std::nullopt, d), target(d, {2}), std::nullopt, 0, "avg");
  });
  expect_same_error([&](Device d) { return F::layer_norm(x(d), {3}); });
  expect_same_error([&](Device d) { return F::layer_norm(x(d), {}); });
  expect_same_error([&](Device d) { return F::layer_norm(x(d, kLong), {4}); });
  expect_same_error([&](Device d) { return F::layer_norm(x(d), {4}, ones({3}, std::nullopt, d)); });
  expect_same_error([&](Device d) { return F::layer_norm(x(d), {4}, std::nullopt, ones({4}, kDouble, d)); });
  // A target out of range is data: the CPU finds it, meta has none to read.
  const Tensor bad = tensor(Value(std::vector<std::int64_t>{0, 7}));
  EXPECT_THROW((void)F::nll_loss(ones({2, 3}), bad), IndexError);
  EXPECT_EQ(F::nll_loss(ones({2, 3}, std::nullopt, meta()), target(meta(), {2})).dim(), 0);
}

TEST_F(MetaTensor, ConvolutionAndPoolingRunThroughTheirMetaFunctions) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  auto t = [](Shape s, Device d, ScalarType type = ScalarType::kFloat32) { return ones(s, type, d); };
  const Shape one{1};
  const Shape two{2};
  expect_same_geometry([&](Device d) {
    return conv2d(t({2, 3, 9, 9}, d), t({4, 3, 3, 3}, d), t({4}, d), Shape{2, 1}, Shape{1, 0}, Shape{1, 2});
  });
  expect_same_geometry([&](Device d) { return conv2d(t({4, 9, 7}, d), t({6, 2, 3, 1}, d), std::nullopt, 1, 0, 1, 2); });
  expect_same_geometry([&](Device d) {
    return conv2d(t({1, 2, 5, 5}, d), t({2, 2, 3, 3}, d), std::nullopt, one, "same");
  });
  expect_same_geometry([&](Device d) { return conv1d(t({3, 10}, d), t({5, 3, 4}, d), t({5}, d), two, 3); });
  expect_same_geometry([&](Device d) { return F::max_pool2d(t({2, 3, 9, 9}, d), Shape{3}, two, one, one, true); });
  expect_same_geometry([&](Device d) { return std::get<1>(F::max_pool2d_with_indices(t({3, 8, 7}, d), two)); });
  expect_same_geometry([&](Device d) { return F::avg_pool2d(t({2, 3, 9, 9}, d), Shape{3}, two, one, true, false, 2); });
  expect_same_geometry([&](Device d) { return F::avg_pool2d(t({3, 5, 5}, d, ScalarType::kInt64), two); });
  expect_same_geometry([&](Device d) { return F::adaptive_avg_pool2d(t({2, 3, 9, 9}, d), Shape{4, 3}); });
  expect_same_geometry([&](Device d) { return F::adaptive_avg_pool2d(t({3, 9, 9}, d), Shape{0, 3}); });
  expect_same_geometry([&](Device d) { return avg_pool1d(t({2, 3, 9}, d), Shape{3}); });
  expect_same_geometry([&](Device d) { return adaptive_avg_pool1d(t({3, 9}, d), Shape{4}); });
  // The internal operators, the backwards among them.
  const Shape s11{1, 1};
  const Shape s00{0, 0};
  const Shape s22{2, 2};
  expect_same_geometry([&](Device d) {
    return aten::convolution2d_input_backward(t({2, 4, 7, 7}, d), t({4, 3, 3, 3}, d), Shape{2, 3, 9, 9}, s11, s00, s11,
                                              1);
  });
  expect_same_geometry([&](Device d) {
    return aten::convolution2d_weight_backward(t({2, 4, 7, 7}, d), t({2, 3, 9, 9}, d), Shape{4, 3, 3, 3}, s11, s00, s11,
                                               1);
  });
  expect_same_geometry([&](Device d) {
    return aten::avg_pool2d_backward(t({1, 2, 3, 3}, d), Shape{1, 2, 6, 6}, s22, s22, s00, false, true, std::nullopt);
  });
  expect_same_geometry([&](Device d) {
    return aten::adaptive_avg_pool2d_backward(t({1, 2, 3, 3}, d), Shape{1, 2, 7, 7});
  });
  // The fuzzer's huge kernel: the 128-bit output size, on meta too.
  expect_same_geometry([&](Device d) { return F::max_pool2d(t({1, 1, 2, 2}, d), Shape{kMax}, one, Shape{kMax / 2}); });

  // The CPU's checks and messages.
  expect_same_error([&](Device d) { return F::max_pool2d(t({1, 1, 4, 4}, d), two, std::nullopt, two); });
  expect_same_error([&](Device d) { return F::max_pool2d(t({1, 1, 2, 2}, d), Shape{kMax}); });
  expect_same_error([&](Device d) { return F::max_pool2d(t({1, 1, 4, 4}, d, ScalarType::kInt64), two); });
  expect_same_error([&](Device d) { return F::max_pool2d(t({1, 1, 4, 4}, d), two, std::nullopt, 0, Shape{0}); });
  expect_same_error([&](Device d) { return F::avg_pool2d(t({1, 1, 4, 4}, d), two, std::nullopt, 0, false, true, 0); });
  expect_same_error([&](Device d) { return F::avg_pool2d(t({1, 1, 4, 4}, d, ScalarType::kBool), two); });
  expect_same_error([&](Device d) { return F::adaptive_avg_pool2d(t({1, 1, 4, 4}, d, ScalarType::kInt64), two); });
  expect_same_error([&](Device d) { return conv2d(t({1, 2, 4, 4}, d), t({2, 2, 5, 5}, d)); });
  expect_same_error([&](Device d) {
    return conv2d(t({1, 2, 4, 4}, d, ScalarType::kInt64), t({2, 2, 3, 3}, d, ScalarType::kInt64));
  });
  expect_same_error([&](Device d) {
    return aten::convolution2d(t({1, 2, 4, 4}, d), t({3, 3, 1, 1}, d), std::nullopt, s11, s00, s11, 1);
  });
  expect_same_error([&](Device d) {
    return aten::convolution2d(t({1, 2, 4, 4}, d), t({3, 2, 1, 1}, d), std::nullopt, s11, Shape{kMax, 0}, s11, 1);
  });
  expect_same_error([&](Device d) {
    return aten::convolution2d(t({1, 2, 4, 4}, d), t({3, 2, 1}, d), std::nullopt, s11, s00, s11, 1);
  });
  expect_same_error([&](Device d) {
    return aten::convolution2d(t({1, 2, 4, 4}, d), t({3, 2, 1, 1}, d, ScalarType::kFloat64), std::nullopt, s11, s00,
                               s11, 1);
  });
  expect_same_error([&](Device d) {
    return aten::convolution2d_input_backward(t({2, 4, 6, 6}, d), t({4, 3, 3, 3}, d), Shape{2, 3, 9, 9}, s11, s00, s11,
                                              1);
  });
  expect_same_error([&](Device d) {
    return aten::avg_pool2d_backward(t({1, 2, 3, 3}, d), Shape{1, 2, 5, 5}, s22, s22, s00, false, true, std::nullopt);
  });
  expect_same_error([&](Device d) {
    return aten::adaptive_avg_pool2d_backward(t({1, 1, 2, 2}, d),
                                              Shape{-2, std::numeric_limits<std::int64_t>::min(), 1, 1});
  });
  // No memory on meta: pooling an image no host could hold.
  const Tensor big = empty({1, 1, std::int64_t{1} << 20, std::int64_t{1} << 20}, std::nullopt, meta());
  EXPECT_EQ(F::max_pool2d(big, two).sizes().vec(), (Shape{1, 1, std::int64_t{1} << 19, std::int64_t{1} << 19}));
  EXPECT_EQ(F::adaptive_avg_pool2d(big, Shape{3, 5}).sizes().vec(), (Shape{1, 1, 3, 5}));
}

// A small CNN's forward on meta tensors, and the backward of its convolution,
// activation and pooling layers: the gradients have the parameters' geometry.
TEST_F(MetaTensor, SmallCnnForwardAndBackward) {
  const Device d = meta();
  const Tensor x = ones({8, 3, 16, 16}, std::nullopt, d);
  Tensor w1 = ones({6, 3, 3, 3}, std::nullopt, d).requires_grad_();
  Tensor w2 = ones({10, 6, 3, 3}, std::nullopt, d).requires_grad_();
  Tensor h = F::leaky_relu(conv2d(x, w1, std::nullopt, 1, 1), 0.1);
  h = F::avg_pool2d(h, Shape{2});
  h = F::silu(conv2d(h, w2));
  h = F::adaptive_avg_pool2d(h, Shape{1, 1}).reshape({8, 10});
  EXPECT_EQ(h.sizes().vec(), (Shape{8, 10}));
  h.backward(ones({8, 10}, std::nullopt, d));
  ASSERT_TRUE(w1.grad().defined());
  EXPECT_TRUE(w1.grad().device().is_meta());
  EXPECT_EQ(w1.grad().sizes().vec(), w1.sizes().vec());
  EXPECT_EQ(w2.grad().sizes().vec(), w2.sizes().vec());
  // The whole forward of a classifier: bias, max pooling, layer_norm, the loss.
  const Tensor b1 = zeros({6}, std::nullopt, d);
  Tensor y = F::max_pool2d(F::gelu(conv2d(x, w1.detach(), b1, 1, 1)), Shape{2});
  y = F::layer_norm(y, {8, 8});
  const Tensor logits = F::adaptive_avg_pool2d(y, Shape{1, 1}).reshape({8, 6});
  const Tensor loss = F::cross_entropy(logits, zeros({8}, ScalarType::kInt64, d));
  EXPECT_TRUE(loss.device().is_meta());
  EXPECT_EQ(loss.dim(), 0);
}

}  // namespace
}  // namespace wick
