// tests/serialization/optimizer_serialization_test.cpp - wick::save / wick::load of an optimizer: state and options restored, mismatches refused.
/// \file
#include "tests/serialization/serialization_test_util.h"
#include "wick/optim.h"
#include "wick/optim_algorithms.h"

namespace {

using namespace wick_test::serialization;  // NOLINT(google-build-using-namespace)

class OptimizerSerialization : public ::testing::Test {
 protected:
  void SetUp() override { wick::init(); }
  // Two steps of Adam on a fixed quadratic, so that there is state to save.
  static void train(wick::optim::Optimizer& opt, const std::vector<wick::Tensor>& params) {
    for (int i = 0; i < 2; ++i) {
      opt.zero_grad();
      wick::Tensor loss = wick::zeros({});
      for (const wick::Tensor& p : params) loss = loss + (p * p * 3 - p).sum();
      loss.backward();
      opt.step();
    }
  }
};

TEST_F(OptimizerSerialization, SaveThenLoadRestoresStateAndOptions) {
  for (const char* name : {"adam.pt", "adam.safetensors"}) {
    SCOPED_TRACE(name);
    if (std::string(name).ends_with(".pt") && !wick::pt_format_available()) continue;
    TempDir dir;
    const std::vector<wick::Tensor> a = {wick::tensor({1., 2.}, wick::kFloat64).requires_grad_(),
                                         wick::tensor({{-1.}}, wick::kFloat64).requires_grad_()};
    wick::optim::Adam opt(a, {.lr = 0.1, .amsgrad = true});
    train(opt, a);
    opt.param_groups()[0].options.lr = 0.05;
    wick::save(opt, dir.file(name));

    std::vector<wick::Tensor> b;
    for (const wick::Tensor& p : a) b.push_back(p.detach().clone().requires_grad_());
    wick::optim::Adam restored(b, {.lr = 0.1});
    wick::load(restored, dir.file(name));
    EXPECT_EQ(restored.param_groups()[0].options.lr, 0.05);
    EXPECT_TRUE(restored.param_groups()[0].options.amsgrad);
    EXPECT_EQ(restored.state(b[0]).step, 2);
    EXPECT_TRUE(restored.state(b[1]).at("exp_avg").allclose(opt.state(a[1]).at("exp_avg"), 0, 0));
    EXPECT_TRUE(restored.state(b[0]).at("max_exp_avg_sq").allclose(opt.state(a[0]).at("max_exp_avg_sq"), 0, 0));
    // Both continue identically.
    train(opt, a);
    train(restored, b);
    EXPECT_TRUE(a[0].allclose(b[0], 0, 0));
    EXPECT_TRUE(a[1].allclose(b[1], 0, 0));
  }
}

TEST_F(OptimizerSerialization, AFileThatDoesNotFitIsRefusedAndChangesNothing) {
  TempDir dir;
  const std::vector<wick::Tensor> a = {wick::tensor({1., 2.}).requires_grad_()};
  wick::optim::Adam opt(a, {.lr = 0.1});
  train(opt, a);
  const std::string path = dir.file("adam.safetensors");
  wick::save(opt, path);
  // Another parameter count.
  const std::vector<wick::Tensor> two = {wick::tensor({1., 2.}).requires_grad_(), wick::ones({3}).requires_grad_()};
  wick::optim::Adam other(two, {.lr = 0.3});
  try {
    wick::load(other, path);
    FAIL() << "no SerializationError";
  } catch (const wick::SerializationError& e) {
    EXPECT_EQ(e.path(), path);
    EXPECT_NE(std::string(e.what()).find("doesn't match the size of optimizer's group"), std::string::npos) << e.what();
  }
  EXPECT_EQ(other.param_groups()[0].options.lr, 0.3);
  EXPECT_TRUE(other.state(two[0]).empty());
  EXPECT_THROW(wick::load(other, dir.file("missing.safetensors")), wick::SerializationError);
}

}  // namespace
