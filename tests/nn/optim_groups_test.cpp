// tests/nn/optim_groups_test.cpp - optimizer parameter groups, options by name, state and closures.
/// \file
#include <gtest/gtest.h>

#include <cmath>

#include "tests/autograd/test_util.h"
#include "wick/optim.h"

namespace wick::testing {
namespace {

using namespace wick::optim;  // NOLINT(google-build-using-namespace)

// A leaf parameter with the given values and gradient.
Tensor param(std::vector<double> v, std::vector<double> g) {
  Tensor p = vec(std::move(v)).requires_grad_();
  p.mutable_grad() = vec(std::move(g));
  return p;
}

class OptimGroups : public AutogradTest {};

TEST_F(OptimGroups, EachGroupUsesItsOwnLearningRate) {
  Tensor a = param({1, 2}, {1, 1});
  Tensor b = param({3}, {1});
  SGD opt({{.params = {a}}, {.params = {b}, .options = {{"lr", 0.01}}}}, {.lr = 0.1});
  ASSERT_EQ(opt.param_group_count(), 2u);
  opt.step();
  expect_near(a, {0.9, 1.9});
  expect_near(b, {2.99});
  EXPECT_EQ(opt.param_groups()[1].options.lr, 0.01);
  EXPECT_EQ(opt.param_groups()[1].options.momentum, 0.0);  // from the defaults
  EXPECT_EQ(opt.params().size(), 2u);
}

TEST_F(OptimGroups, MissingOptionsComeFromTheDefaults) {
  Tensor a = param({1}, {1});
  Tensor b = param({1}, {1});
  Adam opt({{.params = {a}}, {.params = {b}, .options = {{"betas", std::vector<double>{0.5, 0.6}}, {"amsgrad", true}}}},
           {.lr = 0.2, .weight_decay = 0.1});
  const AdamOptions& second = opt.param_groups()[1].options;
  EXPECT_EQ(second.lr, 0.2);
  EXPECT_EQ(second.weight_decay, 0.1);
  EXPECT_EQ(second.betas[0], 0.5);
  EXPECT_EQ(second.betas[1], 0.6);
  EXPECT_TRUE(second.amsgrad);
  EXPECT_FALSE(opt.param_groups()[0].options.amsgrad);
  EXPECT_EQ(opt.defaults().betas[0], 0.9);
  // A name the optimizer has no option for is kept as a number, as in a group dict.
  SGD sgd({{.params = {param({1}, {1})}, .options = {{"custom", 3}}}}, {.lr = 0.1});
  EXPECT_EQ(sgd.param_groups()[0].extra.at("custom"), 3.0);
  EXPECT_TRUE(sgd.group_has(0, "custom"));
  EXPECT_FALSE(sgd.group_has(0, "initial_lr"));
}

TEST_F(OptimGroups, ChangingTheLearningRateTakesEffectOnTheNextStep) {
  Tensor p = param({1}, {1});
  SGD opt({p}, {.lr = 0.1});
  opt.step();
  expect_near(p, {0.9});
  opt.param_groups()[0].options.lr = 0.5;
  opt.step();
  expect_near(p, {0.4});
  opt.set_lr(0, 0.25);
  EXPECT_EQ(opt.lr(0), 0.25);
  opt.step();
  expect_near(p, {0.15});
  opt.set_option(0, "momentum", 0.9);
  EXPECT_EQ(opt.param_groups()[0].options.momentum, 0.9);
}

TEST_F(OptimGroups, OptionsByName) {
  Tensor p = param({1}, {1});
  LBFGS opt({p}, {.max_iter = 8});
  EXPECT_EQ(opt.option(0, "max_iter").to_int(), 8);
  EXPECT_EQ(opt.option(0, "max_eval").to_int(), 10);  // max_iter * 5 / 4, stored at construction
  EXPECT_TRUE(opt.option(0, "line_search_fn").is_none());
  opt.set_option(0, "line_search_fn", "strong_wolfe");
  EXPECT_EQ(*opt.param_groups()[0].options.line_search_fn, "strong_wolfe");
  EXPECT_TRUE(opt.has_option("history_size"));
  EXPECT_FALSE(opt.has_option("momentum"));
  WICK_EXPECT_THROW_MSG(opt.set_option(0, "max_iter", 2.5), TypeError, "option 'max_iter' expects an int");
  WICK_EXPECT_THROW_MSG(opt.set_option(0, "lr", "fast"), TypeError, "option 'lr' expects a float");
  WICK_EXPECT_THROW_MSG((void)opt.option(0, "nope"), IndexError, "'nope'");
  WICK_EXPECT_THROW_MSG((void)opt.option(3, "lr"), IndexError, "parameter group 3 is out of range");
  Adam adam({p});
  WICK_EXPECT_THROW_MSG(adam.set_option(0, "betas", 0.9), TypeError, "option 'betas' expects two floats");
  adam.set_option(0, "betas", Value::list({0.8, 0.7}, /*tuple=*/true));
  EXPECT_EQ(adam.param_groups()[0].options.betas[1], 0.7);
}

TEST_F(OptimGroups, AddParamGroup) {
  Tensor a = param({1}, {1});
  Tensor b = param({5}, {1});
  Adam opt({a}, {.lr = 0.1});
  opt.add_param_group({.params = {b}, .options = {{"lr", 1.0}}});
  ASSERT_EQ(opt.param_group_count(), 2u);
  opt.step();
  expect_near(a, {0.9}, 1e-7);  // Adam's first step moves by lr
  expect_near(b, {4.0}, 1e-7);
  WICK_EXPECT_THROW_MSG(opt.add_param_group({.params = {a}}), ValueError,
                        "some parameters appear in more than one parameter group");
  WICK_EXPECT_THROW_MSG(opt.add_param_group({.params = {a * 2}}), ValueError, "can't optimize a non-leaf Tensor");
  EXPECT_EQ(opt.param_group_count(), 2u);
  WICK_EXPECT_THROW_MSG((SGD({{.params = {a}}, {.params = {a}}}, {.lr = 0.1})), ValueError,
                        "some parameters appear in more than one parameter group");
  WICK_EXPECT_THROW_MSG(Adam(std::vector<ParamGroupSpec>{}), ValueError, "optimizer got an empty parameter list");
}

TEST_F(OptimGroups, StepRunsTheClosureWithGradOn) {
  Tensor p = vec({2}).requires_grad_();
  Adam opt({p}, {.lr = 0.1});
  NoGradGuard off;  // the closure still records
  const Tensor loss = opt.step([&] {
    opt.zero_grad();
    Tensor l = (p * p).sum();
    l.backward();
    return l;
  });
  EXPECT_NEAR(loss.item<double>(), 4.0, 1e-12);
  expect_near(p, {1.9}, 1e-7);
  EXPECT_FALSE(opt.step().defined());  // no closure: no loss
}

TEST_F(OptimGroups, ZeroGradAcrossGroups) {
  Tensor a = param({1}, {1});
  Tensor b = param({1}, {2});
  RMSprop opt({{.params = {a}}, {.params = {b}}});
  opt.zero_grad();
  expect_near(a.grad(), {0});
  expect_near(b.grad(), {0});
  opt.zero_grad(/*set_to_none=*/true);
  EXPECT_FALSE(a.grad().defined());
  EXPECT_FALSE(b.grad().defined());
}

TEST_F(OptimGroups, LbfgsNeedsAClosureAndOneGroup) {
  Tensor a = param({1}, {1});
  Tensor b = param({1}, {1});
  LBFGS opt({a});
  WICK_EXPECT_THROW_MSG(opt.step(), TypeError, "step() missing 1 required positional argument: 'closure'");
  WICK_EXPECT_THROW_MSG((LBFGS({{.params = {a}}, {.params = {b}}})), ValueError,
                        "LBFGS doesn't support per-parameter options (parameter groups)");
  LBFGS bad({a}, {.line_search_fn = "backtracking"});
  WICK_EXPECT_THROW_MSG(bad.step([&] { return (a * a).sum(); }), RuntimeError, "only 'strong_wolfe' is supported");
}

TEST_F(OptimGroups, ParametersKeepTheirIdentity) {
  Tensor p = param({1, 2}, {1, 1});
  TensorImpl* impl = p.impl();
  AdamW opt({p});
  opt.step();
  EXPECT_EQ(p.impl(), impl);
  EXPECT_TRUE(p.is_leaf());
  EXPECT_TRUE(p.requires_grad());
  EXPECT_FALSE(p.grad_fn());
}

class OptimState : public AutogradTest {};

TEST_F(OptimState, ReadsTheNamedStateTensorsAndStep) {
  Tensor p = param({1, 2}, {0.5, -1});
  Adam opt({p}, {.lr = 0.1, .amsgrad = true});
  EXPECT_TRUE(opt.state(p).empty());
  opt.step();
  const ParamState& st = opt.state(p);
  EXPECT_EQ(st.step, 1);
  ASSERT_EQ(st.tensors.size(), 3u);
  EXPECT_EQ(st.tensors[0].first, "exp_avg");
  EXPECT_EQ(st.tensors[1].first, "exp_avg_sq");
  EXPECT_EQ(st.tensors[2].first, "max_exp_avg_sq");
  expect_near(st.at("exp_avg"), {0.05, -0.1});         // (1 - 0.9) g
  expect_near(st.at("exp_avg_sq"), {0.00025, 0.001});  // (1 - 0.999) g^2
  WICK_EXPECT_THROW_MSG((void)st.at("momentum_buffer"), IndexError, "'momentum_buffer'");
  WICK_EXPECT_THROW_MSG((void)opt.state(vec({1})), ValueError, "not a parameter of this optimizer");
  // Adagrad creates its state in the constructor, as PyTorch does.
  Tensor q = param({1}, {1});
  Adagrad ada({q}, {.initial_accumulator_value = 0.5});
  expect_near(ada.state(q).at("sum"), {0.5});
  EXPECT_EQ(ada.state(q).step, 0);
  // SGD keeps a momentum buffer only with momentum.
  SGD sgd({q}, {.lr = 0.1});
  sgd.step();
  EXPECT_TRUE(sgd.state(q).empty());
}

TEST_F(OptimState, NAdamKeepsMuProductInFloat32) {
  Tensor p = param({1}, {1});
  NAdam opt({p});
  opt.step();
  const Tensor& mu = opt.state(p).at("mu_product");
  EXPECT_EQ(mu.scalar_type(), ScalarType::kFloat32);
  EXPECT_EQ(mu.dim(), 0);
  // beta1 * (1 - 0.5 * 0.96^0.004)
  EXPECT_NEAR(mu.item<double>(), 0.9 * (1 - 0.5 * std::pow(0.96, 0.004)), 1e-7);
}

}  // namespace
}  // namespace wick::testing
