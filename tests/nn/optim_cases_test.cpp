// tests/nn/optim_cases_test.cpp - every optimizer and scheduler against PyTorch 1.13's trajectories.
/// \file
/// tests/data/optim/optim_cases.json is written by tests/nn/make_optim_cases.py:
/// 10 steps of each optimizer (several option sets each) on a small fixed
/// problem, and 10-20 steps of each scheduler. The problem is replayed here
/// with the same loss, the optimizer built from the case's options by name
/// (as a parameter group's options), and the parameters compared after every
/// step (1e-6 relative, float64), then the first parameter's state.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/autograd/test_util.h"
#include "tests/support/test_paths.h"
#include "wick/optim.h"
#include "wick/optim_schedulers.h"

namespace wick::testing {
namespace {

using json = nlohmann::json;
using namespace wick::optim;  // NOLINT(google-build-using-namespace)

const json& cases() {
  static const json data = [] {
    const auto path = std::filesystem::path(wick_test::build_dir()) / "tests" / "data" / "optim" / "optim_cases.json";
    std::ifstream f(path);
    EXPECT_TRUE(f.good()) << "missing " << path;
    return f.good() ? json::parse(f) : json::object();
  }();
  return data;
}

// The generator's loss (make_optim_cases.py's loss_fn).
Tensor loss_fn(const Tensor& w1, const Tensor& w2) {
  const Tensor a = vec({1.0, 0.5, -0.5});
  const Tensor c = vec({1.0, 2.0, 0.5});
  const Tensor d1 = w1 - a;
  const Tensor quad1 = (d1 * d1 * c).sum();
  const Tensor d2 = w2 - 0.25;
  const Tensor quad2 = (d2 * d2).sum();
  const Tensor wave = (w1 * 3.0).sin().sum() + (w2 * 2.0).sin().sum() * 0.5;
  const Tensor coupling = w1.sum() * w2.sum() * 0.1;
  return quad1 + quad2 + wave + coupling;
}

// A JSON option as an optimizer option Value.
Value option_value(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) return v.get<std::vector<double>>();
  return Value();
}

std::unique_ptr<Optimizer> make_optimizer(const std::string& name, std::vector<Tensor> params, const json& options) {
  ParamGroupSpec group{std::move(params), {}};
  for (const auto& [key, value] : options.items()) group.options.emplace_back(key, option_value(value));
  // The cases give constructor arguments; LBFGS's constructor derives max_eval from its own max_iter.
  if (name == "LBFGS" && options.contains("max_iter") && !options.contains("max_eval")) {
    group.options.emplace_back("max_eval", options["max_iter"].get<std::int64_t>() * 5 / 4);
  }
  std::vector<ParamGroupSpec> groups{group};
  if (name == "SGD") return std::make_unique<SGD>(groups, SGDOptions{.lr = 0.1});
  if (name == "Adam") return std::make_unique<Adam>(groups);
  if (name == "AdamW") return std::make_unique<AdamW>(groups);
  if (name == "RMSprop") return std::make_unique<RMSprop>(groups);
  if (name == "Adagrad") return std::make_unique<Adagrad>(groups);
  if (name == "Adadelta") return std::make_unique<Adadelta>(groups);
  if (name == "Adamax") return std::make_unique<Adamax>(groups);
  if (name == "NAdam") return std::make_unique<NAdam>(groups);
  if (name == "RAdam") return std::make_unique<RAdam>(groups);
  if (name == "LBFGS") return std::make_unique<LBFGS>(groups);
  ADD_FAILURE() << "unknown optimizer " << name;
  return nullptr;
}

void expect_close(const std::vector<double>& got, const json& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = want[i].get<double>();
    EXPECT_NEAR(got[i], w, 1e-6 * std::abs(w) + 1e-9) << what << ", element " << i;
  }
}

std::vector<double> flat(const Tensor& a, const Tensor& b) {
  std::vector<double> out = values(a);
  const std::vector<double> more = values(b);
  out.insert(out.end(), more.begin(), more.end());
  return out;
}

class OptimCases : public AutogradTest {};

TEST_F(OptimCases, MatchPyTorchTrajectories) {
  const json& all = cases()["optimizers"];
  ASSERT_GE(all.size(), 30u);
  for (const json& c : all) {
    const std::string name = c["optimizer"];
    const std::string label = name + " " + c["options"].dump();
    SCOPED_TRACE(label);
    Tensor w1 = vec({0.5, -1.2, 2.0}).requires_grad_();
    Tensor w2 = vec({1.0, -0.3, 0.7, 1.5}).view({2, 2}).detach().requires_grad_();
    std::unique_ptr<Optimizer> opt = make_optimizer(name, {w1, w2}, c["options"]);
    ASSERT_TRUE(opt);
    auto closure = [&] {
      opt->zero_grad();
      Tensor loss = loss_fn(w1, w2);
      loss.backward();
      return loss;
    };
    for (std::size_t step = 0; step < c["params"].size(); ++step) {
      const Tensor loss = opt->step(closure);
      EXPECT_NEAR(loss.item<double>(), c["losses"][step].get<double>(),
                  1e-6 * std::abs(c["losses"][step].get<double>()) + 1e-9)
          << "loss of step " << step;
      expect_close(flat(w1, w2), c["params"][step], label + " after step " + std::to_string(step + 1));
      if (::testing::Test::HasFailure()) return;  // one diverging case is enough to read
    }
    const ParamState& st = opt->state(w1);
    for (const auto& [key, want] : c["state"].items()) {
      if (key == "step") {
        EXPECT_EQ(st.step, static_cast<std::int64_t>(want[0].get<double>())) << label;
      } else {
        ASSERT_TRUE(st.contains(key)) << label << ": no state " << key;
        expect_close(values(st.at(key)), want, label + " state " + key);
      }
    }
    if (name != "LBFGS") {
      EXPECT_EQ(st.tensors.size(), c["state"].size() - c["state"].count("step")) << label;
    }
  }
}

// Two groups with their own options, some changed mid-run through set_option.
TEST_F(OptimCases, GroupsAndMidRunChangesMatchPyTorch) {
  const json& all = cases()["groups"];
  ASSERT_GE(all.size(), 3u);
  for (const json& c : all) {
    const std::string name = c["optimizer"];
    SCOPED_TRACE(name + " " + c["second"].dump());
    Tensor w1 = vec({0.5, -1.2, 2.0}).requires_grad_();
    Tensor w2 = vec({1.0, -0.3, 0.7, 1.5}).view({2, 2}).detach().requires_grad_();
    json second = c["defaults"];
    second.update(c["second"]);
    std::unique_ptr<Optimizer> opt = make_optimizer(name, {w1}, c["defaults"]);
    ASSERT_TRUE(opt);
    ParamGroupSpec group{{w2}, {}};
    for (const auto& [key, value] : second.items()) group.options.emplace_back(key, option_value(value));
    opt->add_param_group(group);
    for (std::size_t step = 0; step < c["params"].size(); ++step) {
      if (step == c["change_at"].get<std::size_t>()) {
        for (const auto& [g, changes] : c["changes"].items()) {
          for (const auto& [key, value] : changes.items()) opt->set_option(std::stoul(g), key, option_value(value));
        }
      }
      opt->zero_grad();
      loss_fn(w1, w2).backward();
      opt->step();
      expect_close(flat(w1, w2), c["params"][step], name + " after step " + std::to_string(step + 1));
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// --- schedulers -------------------------------------------------------------------------------

std::unique_ptr<LRScheduler> make_scheduler(const std::string& name, Optimizer& opt) {
  if (name == "StepLR") return std::make_unique<StepLR>(opt, 3, 0.5);
  if (name == "MultiStepLR") return std::make_unique<MultiStepLR>(opt, std::vector<std::int64_t>{2, 5, 5, 9}, 0.3);
  if (name == "ExponentialLR") return std::make_unique<ExponentialLR>(opt, 0.9);
  if (name == "CosineAnnealingLR") return std::make_unique<CosineAnnealingLR>(opt, 6, 0.001);
  if (name == "LambdaLR") {
    return std::make_unique<LambdaLR>(
        opt, std::vector<LambdaLR::Lambda>{[](std::int64_t e) { return std::pow(0.95, static_cast<double>(e)); },
                                           [](std::int64_t e) { return 1.0 / static_cast<double>(1 + e); }});
  }
  if (name == "OneCycleLR_cos")
    return std::make_unique<OneCycleLR>(opt, OneCycleLROptions{.max_lr = {1.0, 0.5}, .total_steps = 15});
  if (name == "OneCycleLR_linear_three_phase") {
    return std::make_unique<OneCycleLR>(opt, OneCycleLROptions{.max_lr = {0.8},
                                                               .epochs = 4,
                                                               .steps_per_epoch = 4,
                                                               .pct_start = 0.25,
                                                               .anneal_strategy = "linear",
                                                               .div_factor = 10.0,
                                                               .final_div_factor = 100.0,
                                                               .three_phase = true});
  }
  if (name == "OneCycleLR_adam") {
    return std::make_unique<OneCycleLR>(
        opt, OneCycleLROptions{.max_lr = {0.01}, .total_steps = 12, .base_momentum = 0.8, .max_momentum = 0.9});
  }
  if (name == "OneCycleLR_no_momentum") {
    return std::make_unique<OneCycleLR>(opt,
                                        OneCycleLROptions{.max_lr = {0.3}, .total_steps = 10, .cycle_momentum = false});
  }
  ADD_FAILURE() << "unknown scheduler " << name;
  return nullptr;
}

double momentum_of(const Optimizer& opt, std::size_t g) {
  if (opt.has_option("betas")) return opt.option(g, "betas").to_double_list()[0];
  return opt.option(g, "momentum").to_double();
}

class SchedCases : public AutogradTest {};

TEST_F(SchedCases, MatchPyTorchLearningRates) {
  const json& all = cases()["schedulers"];
  ASSERT_GE(all.size(), 11u);
  const std::vector<double> plateau = {1.0,  0.9,  0.95, 0.96, 0.97, 0.8,  0.85, 0.85, 0.85,
                                       0.85, 0.85, 0.85, 0.7,  0.71, 0.72, 0.73, 0.74, 0.75};
  const std::vector<double> rising = {0.1, 0.2, 0.2, 0.2001, 0.2, 0.19, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3};
  for (const json& c : all) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    Tensor w = zeros({2}, ScalarType::kFloat64).requires_grad_();
    Tensor v = zeros({1}, ScalarType::kFloat64).requires_grad_();
    std::vector<ParamGroupSpec> groups{{{w}}, {{v}, {{"lr", 0.03}}}};
    std::unique_ptr<Optimizer> opt;
    if (c["optimizer"] == "Adam") {
      opt = std::make_unique<Adam>(groups, AdamOptions{.lr = 0.001});
    } else {
      opt = std::make_unique<SGD>(groups, SGDOptions{.lr = 0.1, .momentum = 0.9});
    }
    std::unique_ptr<LRScheduler> sched;
    std::unique_ptr<ReduceLROnPlateau> plateau_sched;
    const std::vector<double>* metrics = nullptr;
    if (name == "ReduceLROnPlateau_min_rel") {
      plateau_sched = std::make_unique<ReduceLROnPlateau>(
          *opt, ReduceLROnPlateauOptions{.factor = 0.5, .patience = 2, .cooldown = 1, .min_lr = {0.01, 0.02}});
      metrics = &plateau;
    } else if (name == "ReduceLROnPlateau_max_abs") {
      plateau_sched = std::make_unique<ReduceLROnPlateau>(
          *opt,
          ReduceLROnPlateauOptions{
              .mode = "max", .factor = 0.1, .patience = 1, .threshold = 0.01, .threshold_mode = "abs", .eps = 1e-3});
      metrics = &rising;
    } else {
      sched = make_scheduler(name, *opt);
      ASSERT_TRUE(sched);
    }
    const json& lrs = c["lrs"];
    const json& momenta = c["momenta"];
    for (std::size_t i = 0; i < lrs.size(); ++i) {
      if (i > 0) {
        opt->step();
        if (metrics) {
          plateau_sched->step((*metrics)[i - 1]);
        } else {
          sched->step();
        }
      }
      const std::string at = name + " after " + std::to_string(i) + " steps";
      expect_close({opt->lr(0), opt->lr(1)}, lrs[i], at);
      expect_close({momentum_of(*opt, 0), momentum_of(*opt, 1)}, momenta[i], at + " (momentum)");
      if (sched) expect_close(sched->get_last_lr(), lrs[i], at + " (get_last_lr)");
      if (::testing::Test::HasFailure()) return;
    }
  }
}

}  // namespace
}  // namespace wick::testing
