// tests/autograd/extending_autograd_test.cpp - the note's examples (the bundled extending_autograd
// plugin): LinearFunction, MulConstant, the Linear module, training, and the plugin's operators.
/// \file
#include <sstream>

#include "plugins/extending_autograd/extending_autograd.h"
#include "tests/autograd/test_util.h"
#include "wick/catalog.h"
#include "wick/gradcheck.h"
#include "wick/optim.h"

namespace wick::testing {
namespace {

using autograd::tensor_list;
using extending_autograd::Linear;
using extending_autograd::LinearFunction;
using extending_autograd::MulConstant;
using extending_autograd::MulConstantLazy;

class ExtendingAutograd : public AutogradTest {};

Tensor linear(const tensor_list& in) {
  return LinearFunction::apply(in[0], in[1], in.size() > 2 ? std::optional<Tensor>(in[2]) : std::nullopt);
}

TEST_F(ExtendingAutograd, GradcheckLinearAsInTheNote) {
  tensor_list input = {randn({20, 20}, ScalarType::kFloat64).requires_grad_(),
                       randn({30, 20}, ScalarType::kFloat64).requires_grad_()};
  EXPECT_TRUE(autograd::gradcheck(linear, input, {.eps = 1e-6, .atol = 1e-4}));
  tensor_list with_bias = {drandn({5, 4}), drandn({3, 4}), drandn({3})};
  EXPECT_TRUE(autograd::gradcheck(linear, with_bias, {.eps = 1e-6, .atol = 1e-4}));
}

TEST_F(ExtendingAutograd, GradgradcheckLinear) {
  // The backward is made of differentiable ops, so it can be differentiated again.
  EXPECT_TRUE(autograd::gradgradcheck(linear, {drandn({4, 3}), drandn({2, 3}), drandn({2})}));
}

TEST_F(ExtendingAutograd, LinearBiasGradientOnlyWhenNeeded) {
  Tensor x = drandn({2, 3});
  Tensor w = drandn({4, 3});
  Tensor b = drandn({4}, /*requires_grad=*/false);
  LinearFunction::apply(x, w, b).sum().backward();
  EXPECT_TRUE(x.grad().defined());
  EXPECT_TRUE(w.grad().defined());
  EXPECT_FALSE(b.grad().defined());
  EXPECT_EQ(LinearFunction::apply(x, w, b).grad_fn()->name(), "LinearFunctionBackward");
}

TEST_F(ExtendingAutograd, MulConstantReturnsUndefinedForTheConstant) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  Tensor y = MulConstant::apply(x, 2.5);
  expect_near(y, {2.5, 5, 7.5});
  tensor_list grads = y.grad_fn()->apply({ones({3}, ScalarType::kFloat64)});
  ASSERT_EQ(grads.size(), 2u);
  expect_near(grads[0], {2.5, 2.5, 2.5});
  EXPECT_FALSE(grads[1].defined());
  y.sum().backward();
  expect_near(x.grad(), {2.5, 2.5, 2.5});
}

// Passes its input through and hands back no gradient: the function before
// it then receives an undefined gradient.
struct Block : autograd::Function<Block> {
  static Tensor forward(autograd::AutogradContext*, Tensor x) { return x; }
  static tensor_list backward(autograd::AutogradContext*, tensor_list) { return {Tensor()}; }
};

TEST_F(ExtendingAutograd, MaterializeGradsOffGetsUndefinedAndStaysCorrect) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor lazy = MulConstantLazy::apply(x, 3.0);
  Tensor loss = (Block::apply(lazy) + x * 2).sum();
  loss.backward();
  expect_near(x.grad(), {2, 2});  // only the x * 2 path contributes
  // With materialisation on, the same graph hands MulConstant zeros instead.
  Tensor x2 = vec({1, 2}).requires_grad_();
  (Block::apply(MulConstant::apply(x2, 3.0)) + x2 * 2).sum().backward();
  expect_near(x2.grad(), {2, 2});
  // And used normally, the lazy version differentiates as the plain one.
  Tensor x3 = vec({1, 2}).requires_grad_();
  MulConstantLazy::apply(x3, 3.0).sum().backward();
  expect_near(x3.grad(), {3, 3});
}

TEST_F(ExtendingAutograd, LinearModulePrintsAndRegistersParameters) {
  auto lin = std::make_shared<Linear>(4, 3);
  std::ostringstream os;
  os << *lin;
  EXPECT_EQ(os.str(), "Linear(input_features=4, output_features=3, bias=True)");
  auto named = lin->named_parameters();
  ASSERT_EQ(named.size(), 2u);
  EXPECT_EQ(named[0].first, "weight");
  EXPECT_EQ(named[1].first, "bias");
  EXPECT_TRUE(lin->weight.requires_grad());
  auto no_bias = std::make_shared<Linear>(4, 3, false);
  EXPECT_EQ(no_bias->repr(), "Linear(input_features=4, output_features=3, bias=False)");
  EXPECT_EQ(no_bias->parameters().size(), 1u);
  Tensor y = (*lin)(randn({2, 4}));
  EXPECT_EQ(y.sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(y.grad_fn()->name(), "LinearFunctionBackward");
}

TEST_F(ExtendingAutograd, TrainingLoopDrivesLossDown) {
  Tensor x = randn({128, 4});
  Tensor y = add(x.mm(randn({3, 4}).t()), randn({3}));
  auto model = std::make_shared<Linear>(4, 3);
  optim::SGD opt(model->parameters(), {.lr = 0.1, .momentum = 0.9});
  double first = 0;
  double last = 0;
  for (int step = 0; step < 200; ++step) {
    Tensor diff = (*model)(x) - y;
    Tensor loss = (diff * diff).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    last = loss.item<double>();
    if (step == 0) first = last;
  }
  EXPECT_LT(last, 1e-3 * first) << "loss went from " << first << " to " << last;
}

TEST_F(ExtendingAutograd, PluginOperatorsThroughTheDispatcher) {
  ASSERT_TRUE(try_find_op("extending_autograd.linear").has_value()) << "the bundled plugin was not loaded by init()";
  // linear: a composite over LinearFunction, reachable through the boxed API.
  auto via_op = [](const tensor_list& in) {
    return call("extending_autograd.linear", {in[0], in[1]}, {{"bias", in[2]}}).to_tensor();
  };
  EXPECT_TRUE(autograd::gradcheck(via_op, {drandn({3, 4}), drandn({2, 4}), drandn({2})}, {.atol = 1e-4}));
  // mul_constant: the plugin's own CPU kernel and Autograd kernel.
  auto mul = [](const tensor_list& in) { return call("extending_autograd.mul_constant", {in[0], 1.5}).to_tensor(); };
  EXPECT_TRUE(autograd::gradcheck(mul, {drandn({2, 3})}));
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = call("extending_autograd.mul_constant", {x, 4.0}).to_tensor();
  EXPECT_EQ(y.grad_fn()->name(), "MulConstantBackward");
  bool autograd_row = false;
  for (const auto& row : dispatch_table("extending_autograd.mul_constant"))
    autograd_row = autograd_row || (row.key == DispatchKey::kAutograd && row.provider == "extending_autograd");
  EXPECT_TRUE(autograd_row);
  WICK_EXPECT_THROW_MSG(call("extending_autograd.mul_constant", {ones({2}, ScalarType::kInt64), 2.0}), TypeError,
                        "extending_autograd.mul_constant(): argument 'self' must be a float32 or float64 tensor");
}

}  // namespace
}  // namespace wick::testing
