// tests/nn/clip_grad_test.cpp - nn::utils::clip_grad_norm_ / clip_grad_value_, and the schedulers' rules.
/// \file
/// The clipping values are PyTorch 1.13's (torch.nn.utils on the same gradients).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "tests/autograd/test_util.h"
#include "wick/nn_utils.h"
#include "wick/optim.h"
#include "wick/optim_schedulers.h"

namespace wick::testing {
namespace {

using nn::utils::clip_grad_norm_;
using nn::utils::clip_grad_value_;

class ClipGrad : public AutogradTest {
 protected:
  void SetUp() override {
    AutogradTest::SetUp();
    a_ = vec({1, 2}).requires_grad_();
    b_ = vec({3}).requires_grad_();
    a_.mutable_grad() = vec({3, -4});
    b_.mutable_grad() = vec({12});
  }
  Tensor a_, b_;
};

TEST_F(ClipGrad, NormScalesAllGradientsTogether) {
  const Tensor g = a_.grad();
  const Tensor total = clip_grad_norm_({a_, b_}, 6.5);
  EXPECT_EQ(total.dim(), 0);
  EXPECT_DOUBLE_EQ(total.item<double>(), 13.0);
  expect_near(a_.grad(), {1.4999998846153937, -1.9999998461538582}, 1e-15);
  expect_near(b_.grad(), {5.999999538461575}, 1e-15);
  EXPECT_TRUE(a_.grad().is_same(g));  // in place
}

TEST_F(ClipGrad, InfinityAndOtherNorms) {
  EXPECT_DOUBLE_EQ(clip_grad_norm_({a_, b_}, 6.0, std::numeric_limits<double>::infinity()).item<double>(), 12.0);
  expect_near(a_.grad(), {1.4999998750000105, -1.9999998333333475}, 1e-15);
  expect_near(b_.grad(), {5.999999500000042}, 1e-15);
  a_.mutable_grad() = vec({3, -4});
  b_.mutable_grad() = vec({12});
  EXPECT_DOUBLE_EQ(clip_grad_norm_({a_, b_}, 100.0, 1.0).item<double>(), 19.0);  // below max_norm: unchanged
  expect_near(a_.grad(), {3, -4});
}

TEST_F(ClipGrad, NonFiniteNorm) {
  a_.mutable_grad() = vec({std::nan(""), -4});
  WICK_EXPECT_THROW_MSG(clip_grad_norm_({a_, b_}, 1.0, 2.0, /*error_if_nonfinite=*/true), RuntimeError,
                        "The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot be "
                        "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                        "`error_if_nonfinite=False`");
  expect_near(b_.grad(), {12});  // untouched
  a_.mutable_grad() = vec({std::numeric_limits<double>::infinity(), -4});
  WICK_EXPECT_THROW_MSG(clip_grad_norm_({a_, b_}, 1.0, std::numeric_limits<double>::infinity(), true), RuntimeError,
                        "The total norm of order inf for gradients");
  EXPECT_TRUE(std::isinf(clip_grad_norm_({a_, b_}, 1.0).item<double>()));  // without the flag: no error
}

TEST_F(ClipGrad, NoGradientsAndValueClipping) {
  Tensor c = vec({1}).requires_grad_();
  const Tensor zero = clip_grad_norm_({c}, 1.0);
  EXPECT_EQ(zero.scalar_type(), ScalarType::kFloat32);
  EXPECT_EQ(zero.item<double>(), 0.0);
  const Tensor g = a_.grad();
  clip_grad_value_({a_, b_, c}, 3.5);
  expect_near(a_.grad(), {3, -3.5});
  expect_near(b_.grad(), {3.5});
  EXPECT_TRUE(a_.grad().is_same(g));
  EXPECT_FALSE(c.grad().defined());
}

// --- the schedulers' rules beyond the PyTorch trajectories (optim_cases_test.cpp) -------------

using namespace wick::optim;  // NOLINT(google-build-using-namespace)

class SchedRules : public AutogradTest {};

TEST_F(SchedRules, ConstructionStoresInitialLrAndSteps) {
  Tensor p = vec({1}).requires_grad_();
  SGD opt({p}, {.lr = 0.1});
  EXPECT_FALSE(opt.group_has(0, "initial_lr"));
  ExponentialLR sched(opt, 0.5);
  EXPECT_EQ(opt.option(0, "initial_lr").to_double(), 0.1);
  EXPECT_EQ(sched.last_epoch(), 0);
  EXPECT_EQ(sched.get_last_lr(), std::vector<double>{0.1});
  sched.step();
  EXPECT_EQ(sched.last_epoch(), 1);
  EXPECT_DOUBLE_EQ(opt.lr(0), 0.05);
  // A second scheduler keeps the first initial_lr.
  StepLR other(opt, 1, 0.5);
  EXPECT_EQ(other.base_lrs(), std::vector<double>{0.1});
  // The closed form of step(epoch).
  sched.step(3);
  EXPECT_DOUBLE_EQ(opt.lr(0), 0.1 * 0.125);
  EXPECT_EQ(sched.last_epoch(), 3);
}

TEST_F(SchedRules, ResumingNeedsInitialLr) {
  Tensor p = vec({1}).requires_grad_();
  SGD opt({p}, {.lr = 0.1});
  WICK_EXPECT_THROW_MSG(StepLR(opt, 2, 0.1, /*last_epoch=*/5), IndexError,
                        "param 'initial_lr' is not specified in param_groups[0] when resuming an optimizer");
  opt.set_option(0, "initial_lr", 1.0);
  StepLR resumed(opt, 2, 0.1, 5);  // the first step goes to epoch 6: 6 % 2 == 0, lr * 0.1
  EXPECT_EQ(resumed.last_epoch(), 6);
  EXPECT_DOUBLE_EQ(opt.lr(0), 0.01);
  EXPECT_EQ(resumed.base_lrs(), std::vector<double>{1.0});
}

TEST_F(SchedRules, CosineFollowsOutsideChanges) {
  Tensor p = vec({1}).requires_grad_();
  SGD opt({p}, {.lr = 1.0});
  CosineAnnealingLR sched(opt, 4);
  sched.step();
  const double lr1 = opt.lr(0);
  EXPECT_NEAR(lr1, (1 + std::cos(std::numbers::pi / 4)) / 2, 1e-15);
  opt.set_lr(0, lr1 / 2);  // the recursive form scales from the current lr
  sched.step();
  EXPECT_NEAR(opt.lr(0), (1 + std::cos(std::numbers::pi / 2)) / (1 + std::cos(std::numbers::pi / 4)) * lr1 / 2, 1e-15);
}

TEST_F(SchedRules, InvalidArguments) {
  Tensor p = vec({1}).requires_grad_();
  SGD opt({p}, {.lr = 0.1, .momentum = 0.9});
  EXPECT_EQ(error_of([&] { LambdaLR(opt, std::vector<LambdaLR::Lambda>{}); }), "Expected 1 lr_lambdas, but got 0");
  EXPECT_EQ(error_of([&] { OneCycleLR(opt, {.max_lr = {1.0}}); }),
            "You must define either total_steps OR (epochs AND steps_per_epoch)");
  EXPECT_EQ(error_of([&] { OneCycleLR(opt, {.max_lr = {1.0}, .total_steps = 0}); }),
            "Expected positive integer total_steps, but got 0");
  EXPECT_EQ(error_of([&] { OneCycleLR(opt, {.max_lr = {1.0}, .epochs = -1, .steps_per_epoch = 2}); }),
            "Expected positive integer epochs, but got -1");
  EXPECT_EQ(error_of([&] { OneCycleLR(opt, {.max_lr = {1.0}, .total_steps = 5, .pct_start = 1.5}); }),
            "Expected float between 0 and 1 pct_start, but got 1.5");
  EXPECT_EQ(error_of([&] { OneCycleLR(opt, {.max_lr = {1.0}, .total_steps = 5, .anneal_strategy = "exp"}); }),
            "anneal_strategy must by one of 'cos' or 'linear', instead got exp");
  EXPECT_EQ(error_of([&] {
              OneCycleLR(opt, {.max_lr = {1.0, 2.0}, .total_steps = 5});
            }),
            "expected 1 values for max_lr, got 2");
  Adagrad ada({p});
  EXPECT_EQ(error_of([&] { OneCycleLR(ada, {.max_lr = {1.0}, .total_steps = 5}); }),
            "optimizer must support momentum with `cycle_momentum` option enabled");
  OneCycleLR sched(opt, {.max_lr = {1.0}, .total_steps = 2});
  sched.step();
  sched.step();
  EXPECT_EQ(error_of([&] { sched.step(); }), "Tried to step 4 times. The specified number of total steps is 2");
  EXPECT_EQ(error_of([&] { ReduceLROnPlateau(opt, {.factor = 1.0}); }), "Factor should be < 1.0.");
  EXPECT_EQ(error_of([&] { ReduceLROnPlateau(opt, {.mode = "up"}); }), "mode up is unknown!");
  EXPECT_EQ(error_of([&] { ReduceLROnPlateau(opt, {.threshold_mode = "pct"}); }), "threshold mode pct is unknown!");
  EXPECT_EQ(error_of([&] { ReduceLROnPlateau(opt, {.min_lr = {0.1, 0.2}}); }), "expected 1 min_lrs, got 2");
}

}  // namespace
}  // namespace wick::testing
