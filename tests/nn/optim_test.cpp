// tests/nn/optim_test.cpp - optim::SGD against hand-computed updates, and a small training run.
/// \file
#include "wick/optim.h"

#include <cmath>

#include "tests/autograd/test_util.h"
#include "wick/nn.h"

namespace wick::testing {
namespace {

using optim::SGD;
using optim::SGDOptions;

template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const ValueError& e) {
    return e.what();
  }
  return "<no ValueError>";
}

class Sgd : public AutogradTest {
 protected:
  // A leaf parameter [1, 2] with gradient `g`.
  static Tensor param_with_grad(std::vector<double> g) {
    Tensor p = vec({1, 2}).requires_grad_();
    p.mutable_grad() = vec(std::move(g));
    return p;
  }
};

TEST_F(Sgd, PlainStep) {
  Tensor p = param_with_grad({0.5, -1});
  TensorImpl* impl = p.impl();
  SGD opt({p}, {.lr = 0.1});
  opt.step();
  expect_near(p, {0.95, 2.1});
  EXPECT_EQ(p.impl(), impl);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
  EXPECT_EQ(opt.options().lr, 0.1);
  EXPECT_EQ(opt.params().size(), 1u);
}

TEST_F(Sgd, MomentumTwoSteps) {
  Tensor p = param_with_grad({1, 2});
  SGD opt({p}, {.lr = 0.1, .momentum = 0.9});
  opt.step();  // buf = g
  expect_near(p, {0.9, 1.8});
  p.mutable_grad() = vec({0.5, 0.5});
  opt.step();  // buf = 0.9 * [1, 2] + [0.5, 0.5] = [1.4, 2.3]
  expect_near(p, {0.76, 1.57});
}

TEST_F(Sgd, MomentumWithDampening) {
  Tensor p = param_with_grad({1, 2});
  SGD opt({p}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.5});
  opt.step();  // the first step is not dampened
  expect_near(p, {0.9, 1.8});
  p.mutable_grad() = vec({0.5, 0.5});
  opt.step();  // buf = 0.9 * [1, 2] + 0.5 * [0.5, 0.5] = [1.15, 2.05]
  expect_near(p, {0.785, 1.595});
}

TEST_F(Sgd, Nesterov) {
  Tensor p = param_with_grad({1, 2});
  SGD opt({p}, {.lr = 0.1, .momentum = 0.9, .nesterov = true});
  opt.step();  // d = g + 0.9 * g = [1.9, 3.8]
  expect_near(p, {0.81, 1.62});
  p.mutable_grad() = vec({0.5, 0.5});
  opt.step();  // buf = [1.4, 2.3]; d = [0.5, 0.5] + 0.9 * buf = [1.76, 2.57]
  expect_near(p, {0.634, 1.363});
}

TEST_F(Sgd, WeightDecay) {
  Tensor p = param_with_grad({0.5, 0.5});
  SGD opt({p}, {.lr = 0.1, .weight_decay = 0.1});
  opt.step();  // d = [0.5, 0.5] + 0.1 * [1, 2] = [0.6, 0.7]
  expect_near(p, {0.94, 1.93});
  expect_near(p.grad(), {0.5, 0.5});  // the gradient itself is untouched
}

TEST_F(Sgd, Maximize) {
  Tensor p = param_with_grad({0.5, 0.5});
  SGD(std::vector<Tensor>{p}, {.lr = 0.1, .maximize = true}).step();
  expect_near(p, {1.05, 2.05});
  // The gradient is negated before weight decay is added (PyTorch 1.13).
  Tensor q = param_with_grad({0.5, 0.5});
  SGD({q}, {.lr = 0.1, .weight_decay = 0.1, .maximize = true}).step();  // d = [-0.4, -0.3]
  expect_near(q, {1.04, 2.03});
}

TEST_F(Sgd, SkipsParametersWithoutGradient) {
  Tensor a = param_with_grad({1, 1});
  Tensor b = vec({5, 6}).requires_grad_();
  SGD opt({a, b}, {.lr = 0.5, .momentum = 0.9});
  opt.step();
  expect_near(a, {0.5, 1.5});
  expect_near(b, {5, 6});
  // A parameter listed twice is updated once.
  Tensor c = param_with_grad({1, 1});
  SGD twice({c, c}, {.lr = 1});
  EXPECT_EQ(twice.params().size(), 1u);
  twice.step();
  expect_near(c, {0, 1});
}

TEST_F(Sgd, ZeroGrad) {
  Tensor p = param_with_grad({1, 2});
  Tensor g = p.grad();
  SGD opt({p}, {.lr = 0.1});
  opt.zero_grad();
  EXPECT_TRUE(p.grad().is_same(g));
  expect_near(g, {0, 0});
  opt.zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(p.grad().defined());
  opt.step();  // no gradient: nothing happens
  expect_near(p, {1, 2});
}

TEST_F(Sgd, ValidationErrors) {
  Tensor p = vec({1}).requires_grad_();
  EXPECT_EQ(error_of([&] { SGD({p}, {.lr = -0.1}); }), "Invalid learning rate: -0.1");
  EXPECT_EQ(error_of([&] { SGD({p}, {.lr = 0.1, .momentum = -0.5}); }), "Invalid momentum value: -0.5");
  EXPECT_EQ(error_of([&] { SGD({p}, {.lr = 0.1, .weight_decay = -1}); }), "Invalid weight_decay value: -1.0");
  EXPECT_EQ(error_of([&] { SGD({p}, {.lr = 0.1, .nesterov = true}); }),
            "Nesterov momentum requires a momentum and zero dampening");
  EXPECT_EQ(error_of([&] { SGD({p}, {.lr = 0.1, .momentum = 0.9, .dampening = 0.1, .nesterov = true}); }),
            "Nesterov momentum requires a momentum and zero dampening");
  EXPECT_EQ(error_of([&] { SGD({}, {.lr = 0.1}); }), "optimizer got an empty parameter list");
  EXPECT_EQ(error_of([&] { SGD({p * 2}, {.lr = 0.1}); }), "can't optimize a non-leaf Tensor");
  EXPECT_EQ(error_of([&] { SGD({Tensor()}, {.lr = 0.1}); }), "can't optimize an undefined Tensor");
  EXPECT_NO_THROW(SGD({p}, {.lr = 0.0}));
}

// y = x w^T + b, on one input feature.
class Affine : public nn::Callable<Affine> {
 public:
  Affine() {
    weight = register_parameter("weight", nn::init::uniform_(empty({1, 1}, ScalarType::kFloat64), -1, 1));
    bias = register_parameter("bias", zeros({1}, ScalarType::kFloat64));
  }
  Tensor forward(const Tensor& x) { return x.matmul(weight.t()) + bias; }
  Tensor weight, bias;
};

TEST_F(Sgd, TrainsATinyRegression) {
  auto model = std::make_shared<Affine>();
  Tensor x = vec({-1, -0.75, -0.5, -0.25, 0, 0.25, 0.5, 0.75, 1}).view({9, 1});
  Tensor y = x * 3 - 2;
  SGD opt(model->parameters(), {.lr = 0.1, .momentum = 0.9});
  double loss_value = 0;
  for (int step = 0; step < 300; ++step) {
    opt.zero_grad();
    Tensor err = (*model)(x) - y;
    Tensor loss = (err * err).mean();
    loss.backward();
    opt.step();
    loss_value = loss.item<double>();
  }
  EXPECT_LT(loss_value, 1e-8);
  expect_near(model->weight, {3}, 1e-4);
  expect_near(model->bias, {-2}, 1e-4);
  EXPECT_TRUE(model->parameter("weight").is_same(model->weight));
}

}  // namespace
}  // namespace wick::testing
