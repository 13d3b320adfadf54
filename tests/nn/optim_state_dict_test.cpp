// tests/nn/optim_state_dict_test.cpp - the optimizers' flat state_dict, loading it back, and option checks.
/// \file
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "tests/autograd/test_util.h"
#include "wick/optim.h"
#include "wick/optim_schedulers.h"

namespace wick::testing {
namespace {

using namespace wick::optim;  // NOLINT(google-build-using-namespace)

std::vector<std::string> keys_of(const OptimizerStateDict& sd) {
  std::vector<std::string> keys;
  for (const auto& entry : sd) keys.push_back(entry.first);
  return keys;
}

const Tensor& entry(const OptimizerStateDict& sd, const std::string& key) {
  for (const auto& e : sd) {
    if (e.first == key) return e.second;
  }
  ADD_FAILURE() << "no key " << key;
  static const Tensor none;
  return none;
}

// Sets each parameter's gradient to a fixed function of the step.
void set_grads(const std::vector<Tensor>& params, int step) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    const double k = 0.3 * static_cast<double>(step + 1) + static_cast<double>(i);
    Tensor(params[i]).mutable_grad() = (params[i].detach() * k).sin() + 0.1;
  }
}

class OptimStateDict : public AutogradTest {};

TEST_F(OptimStateDict, KeysFollowPyTorchsNumbering) {
  Tensor a = vec({1, 2}).requires_grad_();
  Tensor b = vec({3}).requires_grad_();
  Tensor c = vec({4, 5, 6}).requires_grad_();
  Adam opt({{.params = {a, b}}, {.params = {c}, .options = {{"lr", 0.5}}}});
  set_grads({a, c}, 0);  // b has no gradient: no state
  opt.step();
  const OptimizerStateDict sd = opt.state_dict();
  const std::vector<std::string> want = {"state.0.step",
                                         "state.0.exp_avg",
                                         "state.0.exp_avg_sq",
                                         "state.2.step",
                                         "state.2.exp_avg",
                                         "state.2.exp_avg_sq",
                                         "param_groups.0.params",
                                         "param_groups.0.lr",
                                         "param_groups.0.betas",
                                         "param_groups.0.eps",
                                         "param_groups.0.weight_decay",
                                         "param_groups.0.amsgrad",
                                         "param_groups.0.maximize",
                                         "param_groups.1.params",
                                         "param_groups.1.lr",
                                         "param_groups.1.betas",
                                         "param_groups.1.eps",
                                         "param_groups.1.weight_decay",
                                         "param_groups.1.amsgrad",
                                         "param_groups.1.maximize"};
  EXPECT_EQ(keys_of(sd), want);
  expect_near(entry(sd, "param_groups.0.params"), {0, 1});
  EXPECT_EQ(entry(sd, "param_groups.0.params").scalar_type(), ScalarType::kInt64);
  expect_near(entry(sd, "param_groups.1.params"), {2});
  const Tensor& lr = entry(sd, "param_groups.1.lr");
  EXPECT_EQ(lr.dim(), 0);
  EXPECT_EQ(lr.scalar_type(), ScalarType::kFloat64);
  EXPECT_EQ(lr.item<double>(), 0.5);
  expect_near(entry(sd, "param_groups.0.betas"), {0.9, 0.999});
  expect_near(entry(sd, "state.2.step"), {1});
  EXPECT_TRUE(entry(sd, "state.0.exp_avg").is_same(opt.state(a).at("exp_avg")));
  // A scheduler's initial_lr is saved with the group.
  StepLR sched(opt, 2);
  EXPECT_EQ(entry(opt.state_dict(), "param_groups.1.initial_lr").item<double>(), 0.5);
}

// Runs `steps` steps on fresh parameters, saves, loads into a second
// optimizer over copies, and checks both continue identically.
template <class Opt, class Options>
void expect_round_trip(const Options& options, int steps, double tol = 1e-12) {
  Tensor a = vec({0.5, -1}).requires_grad_();
  Tensor b = vec({2, 0.25, 1}).requires_grad_();
  Opt first({a, b}, options);
  for (int s = 0; s < steps; ++s) {
    set_grads({a, b}, s);
    first.step();
  }
  const OptimizerStateDict saved = first.state_dict();
  Tensor a2 = a.detach().clone().requires_grad_();
  Tensor b2 = b.detach().clone().requires_grad_();
  Opt second({a2, b2}, options);
  second.load_state_dict(saved);
  EXPECT_EQ(keys_of(second.state_dict()), keys_of(saved));
  for (int s = steps; s < steps + 3; ++s) {
    set_grads({a, b}, s);
    set_grads({a2, b2}, s);
    first.step();
    second.step();
  }
  expect_near(a2, values(a), tol);
  expect_near(b2, values(b), tol);
}

TEST_F(OptimStateDict, RoundTripContinuesIdentically) {
  expect_round_trip<SGD>(SGDOptions{.lr = 0.1, .momentum = 0.9, .nesterov = true}, 2);
  expect_round_trip<Adam>(AdamOptions{.lr = 0.1, .amsgrad = true}, 3);
  expect_round_trip<AdamW>(AdamWOptions{}, 3);
  expect_round_trip<RMSprop>(RMSpropOptions{.momentum = 0.5, .centered = true}, 2);
  expect_round_trip<Adagrad>(AdagradOptions{.lr_decay = 0.1}, 2);
  expect_round_trip<Adadelta>(AdadeltaOptions{}, 2);
  expect_round_trip<Adamax>(AdamaxOptions{}, 2);
  // NAdam's float32 mu_product is loaded as float64 (PyTorch casts all
  // floating state but the step to the parameter's dtype), so the loaded
  // copy continues with a more exact product.
  expect_round_trip<NAdam>(NAdamOptions{}, 2, 1e-9);
  expect_round_trip<RAdam>(RAdamOptions{}, 7);
}

TEST_F(OptimStateDict, LbfgsHistoryRoundTrips) {
  auto run = [](Tensor& w, LBFGS& opt) {
    return opt.step([&] {
      opt.zero_grad();
      Tensor d = w - vec({1, -2});
      Tensor l = (d * d * vec({1, 10})).sum() + (w * 3).sin().sum();
      l.backward();
      return l;
    });
  };
  Tensor w = vec({0.0, 0.0}).requires_grad_();
  LBFGS first({w}, {.max_iter = 3, .history_size = 2});
  run(w, first);
  run(w, first);
  const OptimizerStateDict saved = first.state_dict();
  EXPECT_GE(entry(saved, "state.0.n_iter").item<double>(), 2);
  EXPECT_EQ(entry(saved, "param_groups.0.history_size").item<double>(), 2);
  EXPECT_TRUE(std::isnan(entry(saved, "param_groups.0.line_search_fn").item<double>()));
  Tensor w2 = w.detach().clone().requires_grad_();
  LBFGS second({w2}, {.max_iter = 3, .history_size = 2});
  second.load_state_dict(saved);
  run(w, first);
  run(w2, second);
  expect_near(w2, values(w), 1e-12);
  // A string option survives the round trip as character codes.
  LBFGS wolfe({w2}, {.line_search_fn = "strong_wolfe"});
  LBFGS plain({w2});
  plain.load_state_dict(wolfe.state_dict());
  EXPECT_EQ(plain.param_groups()[0].options.line_search_fn.value_or(""), "strong_wolfe");
}

TEST_F(OptimStateDict, LoadingRestoresOptions) {
  Tensor p = vec({1}).requires_grad_();
  SGD first({p}, {.lr = 0.5, .momentum = 0.25, .nesterov = true});
  SGD second({vec({1}).requires_grad_()}, {.lr = 0.1});
  second.load_state_dict(first.state_dict());
  EXPECT_EQ(second.param_groups()[0].options.lr, 0.5);
  EXPECT_EQ(second.param_groups()[0].options.momentum, 0.25);
  EXPECT_TRUE(second.param_groups()[0].options.nesterov);
  EXPECT_EQ(second.options().lr, 0.1);  // the defaults stay
}

TEST_F(OptimStateDict, LoadValidatesAndChangesNothingOnError) {
  Tensor a = vec({1, 2}).requires_grad_();
  Tensor b = vec({3}).requires_grad_();
  Adam opt({a, b}, {.lr = 0.1});
  set_grads({a, b}, 0);
  opt.step();
  const OptimizerStateDict good = opt.state_dict();
  const Tensor exp_avg = opt.state(a).at("exp_avg").clone();
  auto with = [&](const std::string& key, const Tensor& value) {
    OptimizerStateDict sd = good;
    for (auto& e : sd) {
      if (e.first == key) e.second = value;
    }
    if (std::none_of(sd.begin(), sd.end(), [&](const auto& e) { return e.first == key; })) sd.emplace_back(key, value);
    return sd;
  };
  auto without = [&](const std::string& key) {
    OptimizerStateDict sd;
    for (const auto& e : good) {
      if (e.first != key) sd.push_back(e);
    }
    return sd;
  };
  // The lr is changed first in each bad dict, so a partial load would show.
  auto bad = [&](OptimizerStateDict sd) {
    for (auto& e : sd) {
      if (e.first == "param_groups.0.lr") e.second = full({}, 7.0, ScalarType::kFloat64);
    }
    return sd;
  };
  WICK_EXPECT_THROW_MSG(opt.load_state_dict(bad(with("state.0.exp_avg", zeros({3}, ScalarType::kFloat64)))), ValueError,
                        "optimizer state_dict entry 'state.0.exp_avg' has shape [3], but its parameter has shape [2]");
  WICK_EXPECT_THROW_MSG(
      opt.load_state_dict(bad(with("param_groups.0.params", vec({0}).to(ScalarType::kInt64)))), ValueError,
      "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
  WICK_EXPECT_THROW_MSG(opt.load_state_dict(bad(with("param_groups.1.params", vec({9}).to(ScalarType::kInt64)))),
                        ValueError, "loaded state dict has a different number of parameter groups");
  WICK_EXPECT_THROW_MSG(opt.load_state_dict(bad(with("bogus.0.x", vec({1})))), ValueError,
                        "unexpected key in optimizer state_dict: 'bogus.0.x'");
  WICK_EXPECT_THROW_MSG(opt.load_state_dict(bad(with("state.x.step", vec({1})))), ValueError,
                        "unexpected key in optimizer state_dict: 'state.x.step'");
  WICK_EXPECT_THROW_MSG(opt.load_state_dict(bad(with("state.5.exp_avg", vec({1})))), ValueError,
                        "'state.5.exp_avg' refers to no parameter");
  WICK_EXPECT_THROW_MSG(opt.load_state_dict(bad(with("param_groups.0.betas", vec({0.9})))), ValueError,
                        "optimizer state_dict entry 'param_groups.0.betas' must hold 2 numbers");
  WICK_EXPECT_THROW_MSG(opt.load_state_dict(bad(with("param_groups.0.eps", vec({1, 2})))), ValueError,
                        "optimizer state_dict entry 'param_groups.0.eps' must be a 0-dim tensor");
  WICK_EXPECT_THROW_MSG(opt.load_state_dict(bad(without("param_groups.0.params"))), ValueError,
                        "missing key in optimizer state_dict: 'param_groups.0.params'");
  EXPECT_EQ(opt.lr(0), 0.1);
  expect_near(opt.state(a).at("exp_avg"), values(exp_avg));
  EXPECT_EQ(opt.state(a).step, 1);
  // The loaded tensors are copies, cast to the parameter's dtype.
  OptimizerStateDict f32 = with("state.0.exp_avg", vec({1, 2}, ScalarType::kFloat32));
  opt.load_state_dict(f32);
  EXPECT_EQ(opt.state(a).at("exp_avg").scalar_type(), ScalarType::kFloat64);
  opt.load_state_dict(good);
  EXPECT_FALSE(opt.state(a).at("exp_avg").is_same(entry(good, "state.0.exp_avg")));
}

class OptimOptions : public AutogradTest {};

TEST_F(OptimOptions, InvalidValuesGivePyTorchsErrors) {
  Tensor p = vec({1}).requires_grad_();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(error_of([&] { Adam({p}, {.lr = -1e-3}); }), "Invalid learning rate: -0.001");
  EXPECT_EQ(error_of([&] { Adam({p}, {.lr = nan}); }), "Invalid learning rate: nan");
  EXPECT_EQ(error_of([&] { Adam({p}, {.eps = -1}); }), "Invalid epsilon value: -1.0");
  EXPECT_EQ(error_of([&] { Adam({p}, {.betas = {1.0, 0.9}}); }), "Invalid beta parameter at index 0: 1.0");
  EXPECT_EQ(error_of([&] { AdamW({p}, {.betas = {0.9, -0.1}}); }), "Invalid beta parameter at index 1: -0.1");
  EXPECT_EQ(error_of([&] { AdamW({p}, {.weight_decay = -0.01}); }), "Invalid weight_decay value: -0.01");
  EXPECT_EQ(error_of([&] { RMSprop({p}, {.alpha = -0.5}); }), "Invalid alpha value: -0.5");
  EXPECT_EQ(error_of([&] { RMSprop({p}, {.momentum = -0.5}); }), "Invalid momentum value: -0.5");
  EXPECT_EQ(error_of([&] { Adagrad({p}, {.lr_decay = -1}); }), "Invalid lr_decay value: -1.0");
  EXPECT_EQ(error_of([&] { Adagrad({p}, {.initial_accumulator_value = -1}); }),
            "Invalid initial_accumulator_value value: -1.0");
  EXPECT_EQ(error_of([&] { Adadelta({p}, {.rho = 1.5}); }), "Invalid rho value: 1.5");
  EXPECT_EQ(error_of([&] { Adamax({p}, {.eps = -1e-8}); }), "Invalid epsilon value: -1e-08");
  EXPECT_EQ(error_of([&] { NAdam({p}, {.momentum_decay = -4e-3}); }), "Invalid momentum_decay value: -0.004");
  EXPECT_EQ(error_of([&] { RAdam({p}, {.betas = {0.9, 1.0}}); }), "Invalid beta parameter at index 1: 1.0");
  EXPECT_EQ(error_of([&] { RAdam({}); }), "optimizer got an empty parameter list");
  EXPECT_EQ(error_of([&] { LBFGS({}); }), "optimizer got an empty parameter list");
  EXPECT_EQ(error_of([&] { Adadelta({p * 2}); }), "can't optimize a non-leaf Tensor");
  // The options are checked before the parameters, as in PyTorch.
  EXPECT_EQ(error_of([&] { Adam({}, {.lr = -1}); }), "Invalid learning rate: -1.0");
  EXPECT_NO_THROW(Adadelta({p}, {.rho = 1.0}));
  EXPECT_NO_THROW(Adam({p}, {.lr = 0, .betas = {0, 0}}));
}

TEST_F(OptimOptions, DefaultsArePyTorchs) {
  EXPECT_EQ(AdamOptions{}.lr, 1e-3);
  EXPECT_EQ(AdamWOptions{}.weight_decay, 1e-2);
  EXPECT_EQ(RMSpropOptions{}.lr, 1e-2);
  EXPECT_EQ(RMSpropOptions{}.alpha, 0.99);
  EXPECT_EQ(AdagradOptions{}.eps, 1e-10);
  EXPECT_EQ(AdadeltaOptions{}.lr, 1.0);
  EXPECT_EQ(AdadeltaOptions{}.eps, 1e-6);
  EXPECT_EQ(AdamaxOptions{}.lr, 2e-3);
  EXPECT_EQ(NAdamOptions{}.momentum_decay, 4e-3);
  EXPECT_EQ(RAdamOptions{}.betas[1], 0.999);
  EXPECT_EQ(LBFGSOptions{}.tolerance_grad, 1e-7);
  EXPECT_EQ(LBFGSOptions{}.history_size, 100);
  EXPECT_FALSE(LBFGSOptions{}.max_eval.has_value());
}

}  // namespace
}  // namespace wick::testing
