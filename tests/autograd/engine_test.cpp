// tests/autograd/engine_test.cpp - the engine: backward, grad, leaves, grad mode, freed graphs,
// views and in-place, hooks.
/// \file
#include <cmath>
#include <limits>

#include "tests/autograd/test_util.h"
#include "wick/gradcheck.h"

namespace wick::testing {
namespace {

using autograd::tensor_list;

class Engine : public AutogradTest {};

TEST_F(Engine, SmallGraphBackward) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  Tensor y = ((x * 2) + 1).sum();
  EXPECT_TRUE(y.requires_grad());
  EXPECT_FALSE(y.is_leaf());
  ASSERT_NE(y.grad_fn(), nullptr);
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  y.backward();
  expect_near(x.grad(), {2, 2, 2});
  EXPECT_TRUE(x.is_leaf());
  EXPECT_EQ(x.grad_fn(), nullptr);
}

TEST_F(Engine, PrintingShowsGradFnOrRequiresGrad) {
  Tensor x = vec({1, 2}, ScalarType::kFloat32).requires_grad_();
  EXPECT_EQ(x.repr(), "tensor([1., 2.], requires_grad=True)");
  EXPECT_EQ((x * 2).repr(), "tensor([2., 4.], grad_fn=<MulBackward0>)");
  EXPECT_EQ(x.sum().repr(), "tensor(3., grad_fn=<SumBackward0>)");
  EXPECT_EQ(x.detach().repr(), "tensor([1., 2.])");
}

TEST_F(Engine, GradientsAccumulateIntoLeaves) {
  Tensor x = vec({1, 2}).requires_grad_();
  (x * x).sum().backward();
  (x * 3).sum().backward();
  expect_near(x.grad(), {2 + 3, 4 + 3});
  x.mutable_grad() = Tensor();
  (x * x).sum().backward();
  expect_near(x.grad(), {2, 4});
}

TEST_F(Engine, BroadcastingGradientsAreSummedToInputShape) {
  Tensor a = drandn({2, 3});
  Tensor b = drandn({3});
  (a * b).sum().backward();
  EXPECT_EQ(b.grad().sizes().vec(), (std::vector<std::int64_t>{3}));
  expect_near(b.grad(), values(a.detach().sum({0})));
}

// relu's backward is PyTorch's threshold_backward: an exact 0 where the
// result is not positive, whatever the gradient there (NaN and inf included:
// a product with a 0/1 mask would give NaN), the gradient itself where the
// result is positive or NaN; and it differentiates again.
TEST_F(Engine, ReluGradientIsAThresholdNotAProduct) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = vec({-1, 0, 2, nan, -3}).requires_grad_();
  wick::relu(x).backward(vec({nan, inf, 5, 7, -inf}));
  const Tensor g = x.grad();
  EXPECT_EQ(g.select(0, 0).item<double>(), 0.0);
  EXPECT_FALSE(std::signbit(g.select(0, 0).item<double>()));
  EXPECT_EQ(g.select(0, 1).item<double>(), 0.0);
  EXPECT_EQ(g.select(0, 2).item<double>(), 5.0);
  EXPECT_EQ(g.select(0, 3).item<double>(), 7.0) << "relu(NaN) is NaN: the gradient passes, as in PyTorch";
  EXPECT_EQ(g.select(0, 4).item<double>(), 0.0);
  EXPECT_EQ(wick::relu(x).grad_fn()->name(), "ReluBackward0");
  EXPECT_TRUE(autograd::gradgradcheck([](const tensor_list& in) { return wick::relu(in[0]); },
                                      {vec({-1.5, -0.5, 0.5, 1.5}).requires_grad_()}));
}

TEST_F(Engine, GradFunctionReturnsWithoutAccumulating) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  Tensor w = vec({4, 5, 6}).requires_grad_();
  Tensor y = (x * w).sum();
  tensor_list g = autograd::grad({y}, {x});
  expect_near(g[0], {4, 5, 6});
  EXPECT_FALSE(x.grad().defined());
  EXPECT_FALSE(w.grad().defined());
}

TEST_F(Engine, GradWithRespectToIntermediatesAndSeveralOutputs) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor h = x * 3;
  Tensor a = (h * h).sum();
  Tensor b = h.sum();
  tensor_list g = autograd::grad({a, b}, {h, x}, {vec({1}).reshape({}), vec({10}).reshape({})});
  expect_near(g[0], {2 * 3 + 10, 2 * 6 + 10});       // d/dh (h² + 10h)
  expect_near(g[1], {3 * (6 + 10), 3 * (12 + 10)});  // through h = 3x
  EXPECT_FALSE(x.grad().defined());
}

TEST_F(Engine, GradOfUnusedInput) {
  Tensor x = vec({1}).requires_grad_();
  Tensor z = vec({1}).requires_grad_();
  Tensor y = (x * 2).sum();
  WICK_EXPECT_THROW_MSG(autograd::grad({y}, {z}, {}, true), RuntimeError, "appears to not have been used in the graph");
  tensor_list g = autograd::grad({y}, {x, z}, {}, true, false, /*allow_unused=*/true);
  expect_near(g[0], {2});
  EXPECT_FALSE(g[1].defined());
}

TEST_F(Engine, BackwardOnTensorWithoutGrad) {
  Tensor x = vec({1, 2});
  WICK_EXPECT_THROW_MSG(x.sum().backward(), RuntimeError,
                        "element 0 of tensors does not require grad and does not have a grad_fn");
}

TEST_F(Engine, ImplicitGradOnlyForScalars) {
  Tensor x = vec({1, 2}).requires_grad_();
  WICK_EXPECT_THROW_MSG((x * 2).backward(), RuntimeError, "grad can be implicitly created only for scalar outputs");
  (x * 2).backward(vec({1, 10}));
  expect_near(x.grad(), {2, 20});
}

TEST_F(Engine, SecondBackwardThroughFreedGraph) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = (x * x).sum();
  y.backward();
  WICK_EXPECT_THROW_MSG(y.backward(), RuntimeError, "Trying to backward through the graph a second time");
  Tensor z = (x.exp()).sum();
  z.backward({}, /*retain_graph=*/true);
  z.backward();
}

TEST_F(Engine, NoGradAndEnableGrad) {
  Tensor x = vec({1, 2}).requires_grad_();
  {
    NoGradGuard no_grad;
    EXPECT_FALSE(autograd::GradMode::is_enabled());
    Tensor y = x * 2;
    EXPECT_FALSE(y.requires_grad());
    {
      EnableGradGuard enable;
      EXPECT_TRUE((x * 2).requires_grad());
    }
    EXPECT_FALSE((x * 2).requires_grad());
  }
  EXPECT_TRUE((x * 2).requires_grad());
}

TEST_F(Engine, DetachAndRequiresGradRules) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = x * 2;
  Tensor d = y.detach();
  EXPECT_FALSE(d.requires_grad());
  EXPECT_TRUE(d.is_leaf());
  EXPECT_EQ(d.data_ptr(), y.data_ptr());
  WICK_EXPECT_THROW_MSG(y.requires_grad_(false), RuntimeError, "only change requires_grad flags of leaf variables");
  Tensor i = tensor(Value(std::vector<std::int64_t>{1, 2}));
  WICK_EXPECT_THROW_MSG(i.requires_grad_(), RuntimeError, "only Tensors of floating point dtype can require gradients");
}

TEST_F(Engine, IntegerOutputsDoNotRequireGrad) {
  Tensor x = vec({1, 2}).requires_grad_();
  EXPECT_FALSE(eq(x, x).requires_grad());
  EXPECT_FALSE(x.to(ScalarType::kInt64).requires_grad());
}

TEST_F(Engine, LeafInPlaceErrors) {
  Tensor x = vec({1, 2}).requires_grad_();
  WICK_EXPECT_THROW_MSG(x.mul_(vec({2, 2})), RuntimeError,
                        "a leaf Variable that requires grad is being used in an in-place operation");
  WICK_EXPECT_THROW_MSG(x.narrow(0, 0, 1).fill_(0), RuntimeError,
                        "a view of a leaf Variable that requires grad is being used in an in-place operation");
  {
    NoGradGuard no_grad;
    x.mul_(vec({2, 2}));  // allowed without grad mode (optimizer updates)
  }
  expect_near(x, {2, 4});
}

TEST_F(Engine, SavedTensorModifiedInPlace) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor a = x * 1;
  Tensor y = (a * a).sum();
  a.add_(vec({1, 1}));
  WICK_EXPECT_THROW_MSG(y.backward(), RuntimeError, "modified by an inplace operation");
  WICK_EXPECT_THROW_MSG(y.backward(), RuntimeError,
                        "which is saved by MulBackward0, is at version 1; expected version 0");
}

TEST_F(Engine, InPlaceOnNonLeafRecords) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  Tensor y = x * 2;
  Tensor w = vec({5, 6, 7}).requires_grad_();
  y.mul_(w);
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  y.sum().backward();
  expect_near(x.grad(), {10, 12, 14});
  expect_near(w.grad(), {2, 4, 6});
  // Multiplying by an alias of itself: the saved factor changes under the write.
  Tensor z = x * 2;
  z.mul_(z.detach());
  WICK_EXPECT_THROW_MSG(z.sum().backward(), RuntimeError, "modified by an inplace operation");
}

TEST_F(Engine, InPlaceOnViewRewritesBaseHistory) {
  Tensor x = vec({1, 2, 3, 4}).requires_grad_();
  Tensor y = x * 1;
  Tensor v = y.narrow(0, 1, 2);
  v.mul_(vec({10, 100}));
  EXPECT_EQ(y.grad_fn()->name(), "CopySlices");
  expect_near(y, {1, 20, 300, 4});
  y.sum().backward();
  expect_near(x.grad(), {1, 10, 100, 1});
}

TEST_F(Engine, InPlaceCopyIntoViewOfTensorWithoutGrad) {
  Tensor base = zeros({3}, ScalarType::kFloat64);
  Tensor w = vec({5}).requires_grad_();
  Tensor b = base * 1;  // plain tensor: no history
  EXPECT_FALSE(b.requires_grad());
  Tensor src = w * 2;
  Tensor r = zeros({3}, ScalarType::kFloat64);
  r.requires_grad_();
  Tensor y = r * 1;
  y.select(0, 1).copy_(src.reshape({}));
  (y * vec({1, 2, 3})).sum().backward();
  expect_near(w.grad(), {4});
  expect_near(r.grad(), {1, 0, 3});
}

TEST_F(Engine, TensorHooksReplaceGradients) {
  Tensor x = vec({1, 2}).requires_grad_();
  int calls = 0;
  auto handle = x.register_hook([&](const Tensor& g) {
    ++calls;
    return g * 10;
  });
  (x * 3).sum().backward();
  expect_near(x.grad(), {30, 30});
  handle.remove();
  x.mutable_grad() = Tensor();
  (x * 3).sum().backward();
  expect_near(x.grad(), {3, 3});
  EXPECT_EQ(calls, 1);

  Tensor y = x * 2;
  Tensor seen;
  y.register_hook([&](const Tensor& g) {
    seen = g;
    return Tensor();
  });
  x.mutable_grad() = Tensor();
  (y * y).sum().backward();
  expect_near(seen, values(y.detach() * 2));
}

TEST_F(Engine, RetainGrad) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor y = x * 3;
  y.retain_grad();
  (y * y).sum().backward();
  expect_near(y.grad(), {6, 12});
}

TEST_F(Engine, CreateGraphGivesDifferentiableGradients) {
  Tensor x = vec({1, 2, 3}).requires_grad_();
  Tensor y = (x * x * x).sum();
  tensor_list g = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  expect_near(g[0], {3, 12, 27});
  ASSERT_TRUE(g[0].requires_grad());
  tensor_list gg = autograd::grad({g[0].sum()}, {x});
  expect_near(gg[0], {6, 12, 18});
}

TEST_F(Engine, BadGradientShapeFromGradOutputs) {
  Tensor x = vec({1, 2}).requires_grad_();
  WICK_EXPECT_THROW_MSG((x * 2).backward(vec({1, 2, 3})), RuntimeError, "Mismatch in shape");
}

TEST_F(Engine, OutVariantsRefuseTensorsThatRequireGrad) {
  Tensor x = vec({1, 2}).requires_grad_();
  Tensor out = zeros({2}, ScalarType::kFloat64);
  WICK_EXPECT_THROW_MSG(add_out(out, x, x), RuntimeError, "don't support automatic differentiation");
}

TEST_F(Engine, CompositeOpsRecordThroughTheirParts) {
  Tensor a = drandn({2, 3});
  Tensor b = drandn({3, 4});
  matmul(a, b).sum().backward();
  ASSERT_TRUE(a.grad().defined());
  expect_near(a.grad(), values(ones({2, 4}, ScalarType::kFloat64).mm(b.detach().t())), 1e-12);
}

}  // namespace
}  // namespace wick::testing
