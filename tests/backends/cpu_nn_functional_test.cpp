// tests/backends/cpu_nn_functional_test.cpp - torch.nn.functional's activations, softmax, dropout and
// losses against PyTorch 1.13's values, dtypes, node names and errors.
/// \file
/// Expected values were printed by PyTorch 1.13 (float64) for the same inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/autograd.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

namespace F = wick::nn::functional;
using Shape = std::vector<std::int64_t>;

Tensor vec(std::vector<double> v, Shape shape = {}, ScalarType t = ScalarType::kFloat64) {
  std::vector<Value> items(v.begin(), v.end());
  Tensor r = tensor(Value::list(items), t);
  return shape.empty() ? r : r.reshape(shape);
}
Tensor ivec(std::vector<std::int64_t> v) { return tensor(Value(v)); }

std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

void expect_values(const Tensor& got, const std::vector<double>& want, Shape shape, double rel = 1e-12) {
  EXPECT_EQ(got.sizes().vec(), shape);
  const std::vector<double> v = values(got);
  ASSERT_EQ(v.size(), want.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_NEAR(v[i], want[i], rel * std::max(1.0, std::abs(want[i]))) << "element " << i;
}

std::string node_name(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "none"; }

class NnFunctional : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    // The inputs of PyTorch's reference run.
    x_ = vec({-2.5, -0.5, 0.0, 1.0, 3.0, 0.25, -1.5, 2.0, 100.0, 101.0, -100.0, 0.5}, {3, 4});
    y_ = vec({-3.0, -1.0, -0.1, 0.0, 0.2, 1.5, 4.0});
    logits_ = vec({1.0, 2.0, 0.5, -1.0, 0.0, -2.0, 3.0, 1.0, 2.5, 0.5, 0.5, -0.5}, {3, 4});
    target_ = ivec({1, 3, -100});
    weight_ = vec({1.0, 2.0, 0.5, 3.0});
  }
  Tensor x_, y_, logits_, target_, weight_;
};

TEST_F(NnFunctional, SoftmaxAndLogSoftmaxAreStableAlongAnyDim) {
  expect_values(softmax(x_, 1),
                {0.01862648243346952, 0.13763212362665256, 0.22691700975489176, 0.6168243841849862, 0.6930408927745736,
                 0.044304622003865646, 0.007698988878693095, 0.2549554963428676, 0.26894142136999516,
                 0.7310585786300049, 3.721870989295777e-88, 1.6495168126693405e-44},
                {3, 4});
  expect_values(softmax(x_, 0),
                {3.0536243137246927e-45, 8.300611482938556e-45, 0.8175744761936437, 0.23122389762214907,
                 7.47197233734299e-43, 1.757239464727628e-44, 0.18242552380635632, 0.6285317192117624, 1.0, 1.0,
                 3.041439167495793e-44, 0.14024438316608848},
                {3, 4});
  expect_values(log_softmax(x_, 1),
                {-3.9831709241405977, -1.983170924140598, -1.483170924140598, -0.48317092414059787, -0.3666662732004389,
                 -3.1166662732004387, -4.866666273200439, -1.3666662732004389, -1.3132616875182228,
                 -0.31326168751822286, -201.31326168751824, -100.81326168751822},
                {3, 4});
  expect_values(F::log_softmax(x_, -2),
                {-102.5, -101.5, -0.20141327798275246, -1.464368784107945, -97.0, -100.75, -1.7014132779827524,
                 -0.4643687841079449, 0.0, 0.0, -100.20141327798275, -1.964368784107945},
                {3, 4});
  // A non-contiguous input, the method alias, dtype=, 0-dim and the implicit dim.
  expect_values(softmax(x_.t(), 1), values(softmax(x_, 0).t()), {4, 3});
  EXPECT_EQ(values(call("torch.Tensor.softmax", {Value(x_), Value(std::int64_t{1})}).to_tensor()),
            values(softmax(x_, 1)));
  Tensor f32 = softmax(x_.to(ScalarType::kFloat32), 1, ScalarType::kFloat64);
  EXPECT_EQ(f32.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(softmax(ivec({1, 2}), 0, ScalarType::kFloat32).dtype(), ScalarType::kFloat32);
  expect_values(softmax(vec({2.0}).reshape({}), 0), {1.0}, {});
  EXPECT_EQ(values(F::softmax(x_, std::nullopt)), values(softmax(x_, 1)));  // 2-dim: dim 1
  EXPECT_EQ(values(F::softmax(y_, std::nullopt)), values(softmax(y_, 0)));
  Tensor inf_row = softmax(vec({-INFINITY, 0.0, 1.0}), 0);
  EXPECT_EQ(values(inf_row)[0], 0.0);
  WICK_EXPECT_THROW_MSG(softmax(ivec({1, 2}), 0), RuntimeError,
                        "torch.softmax: \"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
  WICK_EXPECT_THROW_MSG(log_softmax(ivec({1, 2}), 0), RuntimeError, "\"log_softmax_lastdim_kernel_impl\"");
  WICK_EXPECT_THROW_MSG(softmax(x_, 2), IndexError,
                        "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// Rows long enough for several partial-sum blocks, enough rows to be spread
// over threads, and columns in several blocks (Note [Softmax loops]):
// float32 against the same softmax of the same (float32) values computed in
// float64, within the golden tests' float32 tolerance.
TEST_F(NnFunctional, SoftmaxOfLargeTensorsMatchesDouble) {
  manual_seed(7);
  Tensor x = mul(randn({3, 40, 2500}, ScalarType::kFloat64), wrap_scalar(Scalar(4.0)));
  Tensor x32 = x.to(ScalarType::kFloat32);
  x = x32.to(ScalarType::kFloat64);
  for (std::int64_t dim : {2, 1, 0}) {
    SCOPED_TRACE("dim " + std::to_string(dim));
    for (bool log : {false, true}) {
      Tensor want = log ? log_softmax(x, dim) : softmax(x, dim);
      Tensor got = log ? log_softmax(x32, dim) : softmax(x32, dim);
      ASSERT_EQ(got.dtype(), ScalarType::kFloat32);
      const std::vector<double> w = values(want);
      const std::vector<double> g = values(got);
      double worst = 0;
      for (std::size_t i = 0; i < w.size(); ++i)
        worst = std::max(worst, std::abs(g[i] - w[i]) / std::max(1.0, std::abs(w[i])));
      EXPECT_LT(worst, 1e-5);
    }
    // Each softmax slice sums to 1.
    Tensor total = sum(softmax(x32, dim), IntArrayRef(dim));
    for (double v : values(total)) EXPECT_NEAR(v, 1.0, 1e-5);
  }
  // A NaN makes its own row NaN and no other.
  Tensor y = x32.clone();
  y.select(0, 1).select(0, 5).select(0, 1234).fill_(Scalar(NAN));
  Tensor s = softmax(y, 2);
  for (double v : values(s.select(0, 1).select(0, 5))) EXPECT_TRUE(std::isnan(v));
  for (double v : values(s.select(0, 1).select(0, 6))) EXPECT_FALSE(std::isnan(v));
  Tensor ls = log_softmax(y, 2);
  for (double v : values(ls.select(0, 1).select(0, 5))) EXPECT_TRUE(std::isnan(v));
}

TEST_F(NnFunctional, ActivationsMatchPyTorch) {
  expect_values(F::gelu(y_),
                {-0.00404969409489031, -0.15865525393145702, -0.0460172162722971, 0.0, 0.11585194188782061,
                 1.399789198096713, 3.9998733150326675},
                {7});
  expect_values(F::gelu(y_, "tanh"),
                {-0.0036373920817729943, -0.15880800939172324, -0.04601724895456484, 0.0, 0.11585142978210627,
                 1.3995715769802328, 3.9999297540518075},
                {7});
  expect_values(F::leaky_relu(y_, 0.2), {-0.6000000000000001, -0.2, -0.020000000000000004, 0.0, 0.2, 1.5, 4.0}, {7});
  expect_values(F::elu(y_, 0.7), {-0.6651490521424952, -0.44248439117999033, -0.06661380737482833, 0.0, 0.2, 1.5, 4.0},
                {7});
  expect_values(F::silu(y_),
                {-0.14227761953270035, -0.2689414213699951, -0.047502081252106004, 0.0, 0.1099667994624956,
                 1.2263617142904655, 3.928055160151634},
                {7});
  expect_values(F::logsigmoid(vec({-800., -3., 0., 2., 800.})),
                {-800.0, -3.048587351573742, -0.6931471805599453, -0.1269280110429725, 0.0}, {5});
  EXPECT_EQ(F::gelu(y_.to(ScalarType::kFloat32)).dtype(), ScalarType::kFloat32);
  // inplace=True writes into the input.
  Tensor z = y_.clone();
  Tensor r = F::leaky_relu(z, 0.2, true);
  EXPECT_EQ(values(z), values(F::leaky_relu(y_, 0.2)));
  EXPECT_TRUE(r.is_same(z));
  WICK_EXPECT_THROW_MSG(F::gelu(y_, "fast"), RuntimeError, "approximate argument must be either none or tanh.");
  WICK_EXPECT_THROW_MSG(F::gelu(ivec({1})), RuntimeError, "\"GeluKernelImpl\" not implemented for 'Long'");
  WICK_EXPECT_THROW_MSG(F::leaky_relu(ivec({1})), RuntimeError, "\"leaky_relu_cpu\" not implemented for 'Long'");
  WICK_EXPECT_THROW_MSG(F::elu(ivec({1})), RuntimeError, "\"elu_cpu\" not implemented for 'Long'");
  WICK_EXPECT_THROW_MSG(F::silu(ivec({1})), RuntimeError, "\"silu_cpu\" not implemented for 'Long'");
}

TEST_F(NnFunctional, NodeNamesAreThoseOfPyTorch) {
  Tensor x = y_.clone().requires_grad_();
  EXPECT_EQ(node_name(F::gelu(x)), "GeluBackward0");
  EXPECT_EQ(node_name(softmax(x, 0)), "SoftmaxBackward0");
  EXPECT_EQ(node_name(log_softmax(x, 0)), "LogSoftmaxBackward0");
  EXPECT_EQ(node_name(F::leaky_relu(x)), "LeakyReluBackward0");
  EXPECT_EQ(node_name(F::elu(x)), "EluBackward0");
  EXPECT_EQ(node_name(F::silu(x)), "SiluBackward0");
  EXPECT_EQ(node_name(F::logsigmoid(x)), "LogSigmoidBackward0");
  Tensor l = logits_.clone().requires_grad_();
  EXPECT_EQ(node_name(F::nll_loss(l, target_)), "NllLossBackward0");
  EXPECT_EQ(node_name(F::cross_entropy(l, target_)), "NllLossBackward0");
  EXPECT_EQ(node_name(F::dropout(x, 0.5)), "MulBackward0");
}

TEST_F(NnFunctional, InplaceActivationsKeepTheGraph) {
  Tensor a = y_.clone().requires_grad_();
  Tensor b = mul(a, wrap_scalar(1.0));
  Tensor r = F::elu(b, 0.7, true);
  EXPECT_TRUE(r.is_same(b));
  sum(r).backward();
  // d elu = 1 for x > 0, else alpha * exp(x)
  std::vector<double> want;
  for (double v : values(y_)) want.push_back(v > 0 ? 1.0 : 0.7 * std::exp(v));
  expect_values(a.grad(), want, {7});
  // In-place dropout: the gradient is the scaled mask.
  Tensor c = y_.clone().requires_grad_();
  Tensor d = mul(c, wrap_scalar(1.0));
  Tensor dropped = F::dropout(d, 0.5, true, true);
  EXPECT_TRUE(dropped.is_same(d));
  sum(dropped).backward();
  for (double g : values(c.grad())) EXPECT_TRUE(g == 0.0 || g == 2.0) << g;
}

TEST_F(NnFunctional, LinearAndRegressionLosses) {
  Tensor a = vec({0.5, -1.0, 2.0, 1.5, 0.0, -0.5}, {2, 3});
  Tensor b = vec({1.0, 1.0, 1.0, -1.0, 2.0, 0.5}, {2, 3});
  Tensor w = vec({1.0, 2.0, -1.0, 0.5, 0.0, 3.0}, {2, 3});
  expect_values(F::linear(a, w, vec({0.1, -0.2})), {-3.4, 6.05, 2.1, -0.95}, {2, 2});
  expect_values(F::linear(a, w), {-3.5, 6.25, 2.0, -0.75}, {2, 2});
  expect_values(F::linear(vec({1.0, 2.0, 3.0}), vec({1.0, 1.0, 1.0})), {6.0}, {});
  WICK_EXPECT_THROW_MSG(F::linear(a, vec({1.0, 2.0}, {1, 2})), RuntimeError,
                        "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x1)");
  expect_values(F::mse_loss(a, b), {2.75}, {});
  expect_values(F::mse_loss(a, b, "sum"), {16.5}, {});
  expect_values(F::mse_loss(a, b, "none"), {0.25, 4.0, 1.0, 6.25, 4.0, 1.0}, {2, 3});
  expect_values(F::l1_loss(a, b), {1.5}, {});
  expect_values(F::l1_loss(a, b, "sum"), {9.0}, {});
  expect_values(F::l1_loss(a, b, "none"), {0.5, 2.0, 1.0, 2.5, 2.0, 1.0}, {2, 3});
  // The deprecated size_average / reduce spellings.
  Value none;
  auto mse = [&](Value size_average, Value reduce) {
    return call("torch.nn.functional.mse_loss", {Value(a), Value(b), size_average, reduce}).to_tensor();
  };
  expect_values(mse(Value(false), none), {16.5}, {});
  expect_values(mse(none, Value(false)), {0.25, 4.0, 1.0, 6.25, 4.0, 1.0}, {2, 3});
  expect_values(mse(Value(true), Value(true)), {2.75}, {});
  Tensor ag = a.clone().requires_grad_();
  Tensor mse_loss = F::mse_loss(ag, vec({1.0, 1.0, 1.0}));  // the target broadcasts (with a warning)
  EXPECT_EQ(node_name(mse_loss), "MseLossBackward0");
  mse_loss.backward();
  expect_values(
      ag.grad(),
      {-0.16666666666666666, -0.6666666666666666, 0.3333333333333333, 0.16666666666666666, -0.3333333333333333, -0.5},
      {2, 3});
  WICK_EXPECT_THROW_MSG(F::mse_loss(a, b, "avg"), ValueError,
                        "torch.nn.functional.mse_loss: avg is not a valid value for reduction");
  WICK_EXPECT_THROW_MSG(F::l1_loss(a, b, "total"), ValueError, "total is not a valid value for reduction");
  WICK_EXPECT_THROW_MSG(F::mse_loss(ivec({1}), ivec({1})), RuntimeError, "\"mse_cpu\" not implemented for 'Long'");
}

TEST_F(NnFunctional, NllLossWithWeightsIgnoreIndexAndExtraDims) {
  expect_values(F::nll_loss(logits_, target_), {-1.5}, {});
  expect_values(F::nll_loss(logits_, target_, std::nullopt, -100, "sum"), {-3.0}, {});
  expect_values(F::nll_loss(logits_, target_, std::nullopt, -100, "none"), {-2.0, -1.0, 0.0}, {3});
  expect_values(F::nll_loss(logits_, target_, weight_), {-1.4}, {});
  expect_values(F::nll_loss(logits_, target_, weight_, -100, "sum"), {-7.0}, {});
  expect_values(F::nll_loss(logits_, target_, weight_, -100, "none"), {-4.0, -3.0, 0.0}, {3});
  Tensor x3 = div(arange(0, 24, 1, ScalarType::kFloat64).reshape({2, 3, 4}), wrap_scalar(10.0)) - wrap_scalar(1.0);
  Tensor t3 = ivec({0, 2, 1, -100, 1, 1, 0, 2}).reshape({2, 4});
  expect_values(
      F::nll_loss(x3, t3, std::nullopt, -100, "none"),
      {1.0, 0.09999999999999998, 0.4, 0.0, -0.6000000000000001, -0.7, -0.3999999999999999, -1.2999999999999998},
      {2, 4});
  expect_values(F::nll_loss(vec({0.5, -1.0, 2.0}), ivec({2}).reshape({})), {-2.0}, {});
  EXPECT_TRUE(std::isnan(values(F::nll_loss(logits_, ivec({-100, -100, -100})))[0]));  // 0 / 0
  WICK_EXPECT_THROW_MSG(F::nll_loss(logits_, ivec({0, 1, 5})), IndexError, "Target 5 is out of bounds.");
  WICK_EXPECT_THROW_MSG(F::nll_loss(logits_, ivec({0, 1, -1})), IndexError, "Target -1 is out of bounds.");
  WICK_EXPECT_THROW_MSG(F::nll_loss(logits_, vec({0, 1, 2})), RuntimeError,
                        "expected scalar type Long but found Double");
  WICK_EXPECT_THROW_MSG(F::nll_loss(logits_, ivec({0, 1})), ValueError,
                        "Expected input batch_size (3) to match target batch_size (2).");
  WICK_EXPECT_THROW_MSG(F::nll_loss(logits_, target_, vec({1, 1, 1})), RuntimeError,
                        "weight tensor should be defined either for all 4 classes or no classes but got weight tensor "
                        "of shape: [3]");
  WICK_EXPECT_THROW_MSG(F::nll_loss(logits_, target_, std::nullopt, -100, "bad"), ValueError,
                        "bad is not a valid value for reduction");
  WICK_EXPECT_THROW_MSG(F::nll_loss(x3, ivec({0, 1})), RuntimeError, "Expected target size [2, 4], got [2]");
  WICK_EXPECT_THROW_MSG(F::nll_loss(logits_, ivec({1}).reshape({})), ValueError,
                        "Expected input batch_size (3) to match target batch_size (0).");
  WICK_EXPECT_THROW_MSG(F::nll_loss(vec({1.0}).reshape({}), ivec({1}).reshape({})), ValueError,
                        "Expected 1 or more dimensions (got 0)");
  WICK_EXPECT_THROW_MSG(F::cross_entropy(vec({1.0}).reshape({}), ivec({1}).reshape({})), RuntimeError,
                        "Expected floating point type for target with class probabilities, got Long");
  WICK_EXPECT_THROW_MSG(F::nll_loss(vec({1, 2, 3, 4}), ivec({1})), RuntimeError,
                        "size mismatch (got input: [4], target: [1])");
}

TEST_F(NnFunctional, CrossEntropyWithIndicesProbabilitiesAndSmoothing) {
  const char* reductions[] = {"mean", "sum", "none"};
  const std::vector<std::vector<double>> plain = {
      {1.3353486303512851}, {2.6706972607025703}, {0.49518189808585605, 2.1755153626167143, 0.0}};
  const std::vector<std::vector<double>> smooth = {
      {1.5228486303512851}, {3.0456972607025703}, {0.7701818980858561, 2.2755153626167144, 0.0}};
  const std::vector<std::vector<double>> weighted = {
      {1.543800903389164}, {7.7190045169458195}, {1.4907251538152728, 6.228279363130547, 0.0}};
  Tensor probs = softmax(vec({0.3, 0.1, 0.5, 0.1, 1.0, 0.0, 0.0, 2.0, 0.2, 0.2, 0.2, 0.4}, {3, 4}), 1);
  const std::vector<std::vector<double>> by_probs = {
      {2.1472577319072936}, {6.441773195721881}, {1.8656100951531582, 2.4826251377595563, 2.0935379628091666}};
  const std::vector<std::vector<double>> by_probs_weighted = {
      {4.271102101217022}, {12.813306303651066}, {3.2442885787793236, 5.401346732547367, 4.167670992324375}};
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(reductions[k]);
    const Shape shape = k == 2 ? Shape{3} : Shape{};
    expect_values(F::cross_entropy(logits_, target_, std::nullopt, -100, reductions[k]), plain[k], shape);
    expect_values(F::cross_entropy(logits_, target_, std::nullopt, -100, reductions[k], 0.2), smooth[k], shape);
    expect_values(F::cross_entropy(logits_, target_, weight_, -100, reductions[k], 0.2), weighted[k], shape);
    expect_values(F::cross_entropy(logits_, probs, std::nullopt, -100, reductions[k]), by_probs[k], shape);
    expect_values(F::cross_entropy(logits_, probs, weight_, -100, reductions[k], 0.3), by_probs_weighted[k], shape);
  }
  Tensor x3 = div(arange(0, 24, 1, ScalarType::kFloat64).reshape({2, 3, 4}), wrap_scalar(10.0)) - wrap_scalar(1.0);
  expect_values(F::cross_entropy(x3, ivec({0, 2, 1, 0, 1, 1, 0, 2}).reshape({2, 4}), std::nullopt, 1),
                {1.2312505137284941}, {});
  // Gradients as PyTorch's: with label smoothing, and nll_loss's weighted mean.
  Tensor a = vec({0.5, -1.0, 2.0, 1.5, 0.0, -0.5}, {2, 3}).requires_grad_();
  F::cross_entropy(a, ivec({0, 2}), std::nullopt, -100, "mean", 0.1).backward();
  expect_values(a.grad(),
                {-0.3790214705966483, 0.0028896199686770582, 0.3761318506279713, 0.35139569548963023,
                 0.06545914714587724, -0.41685484263550754},
                {2, 3});
  Tensor l = logits_.clone().requires_grad_();
  F::nll_loss(l, target_, weight_).backward();
  expect_values(l.grad(), {0.0, -0.4, 0.0, 0.0, 0.0, 0.0, 0.0, -0.6, 0.0, 0.0, 0.0, 0.0}, {3, 4});
  WICK_EXPECT_THROW_MSG(F::nll_loss(l, target_, weight_.clone().requires_grad_()), RuntimeError,
                        "nll_loss: the derivative for 'weight' is not implemented.");
  WICK_EXPECT_THROW_MSG(F::cross_entropy(logits_, probs, std::nullopt, -100, "mean", 1.5), RuntimeError,
                        "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  WICK_EXPECT_THROW_MSG(F::cross_entropy(logits_, vec({0, 1, 2}, {3}, ScalarType::kFloat64)), RuntimeError,
                        "expected scalar type Long but found Double");
  WICK_EXPECT_THROW_MSG(F::cross_entropy(logits_, probs, std::nullopt, 1), RuntimeError,
                        "ignore_index is not supported for floating point target");
  WICK_EXPECT_THROW_MSG(F::cross_entropy(logits_, target_, std::nullopt, -100, "batch"), ValueError,
                        "batch is not a valid value for reduction");
}

TEST_F(NnFunctional, BinaryCrossEntropyAndWithLogits) {
  Tensor x = vec({0.1, 0.5, 0.9, 0.0, 1.0});
  Tensor t = vec({0.0, 1.0, 0.3, 0.0, 1.0});
  expect_values(F::binary_cross_entropy(x, t), {0.48838508320219026}, {});
  expect_values(F::binary_cross_entropy(x, t, std::nullopt, "sum"), {2.4419254160109514}, {});
  expect_values(F::binary_cross_entropy(x, t, std::nullopt, "none"),
                {0.10536051565782628, 0.6931471805599453, 1.6434177197931799, 0.0, 0.0}, {5});
  expect_values(F::binary_cross_entropy(x, vec({1.0, 0., 0.5, 1., 0.}), vec({2.0, 1, 1, 1, 0.5})), {31.300458034174795},
                {});
  Tensor logits = vec({-200.0, -1.0, 0.0, 0.5, 50.0});
  expect_values(F::binary_cross_entropy_with_logits(logits, t), {0.5960971704516549}, {});
  expect_values(F::binary_cross_entropy_with_logits(logits, t, std::nullopt, "sum"), {2.9804858522582744}, {});
  expect_values(F::binary_cross_entropy_with_logits(logits, t, std::nullopt, "none"),
                {0.0, 1.3132616875182228, 0.6931471805599453, 0.9740769841801067, 0.0}, {5});
  expect_values(
      F::binary_cross_entropy_with_logits(logits, t, vec({2.0, 1, 1, 1, 0.5}), "mean", vec({3.0, 1, 0.5, 2, 1})),
      {0.5753027550348566}, {});
  // torch.binary_cross_entropy_with_logits is ATen's: an int reduction, none by default as in PyTorch 1.13.
  EXPECT_EQ(values(call("torch.binary_cross_entropy_with_logits", {Value(logits), Value(t)}).to_tensor()),
            values(F::binary_cross_entropy_with_logits(logits, t, std::nullopt, "none")));
  EXPECT_EQ(values(call("torch.binary_cross_entropy_with_logits", {Value(logits), Value(t)}, {{"reduction", Value(1)}})
                       .to_tensor()),
            values(F::binary_cross_entropy_with_logits(logits, t)));
  Tensor xg = vec({0.1, 0.5, 0.9}).requires_grad_();
  F::binary_cross_entropy(xg, vec({0.0, 1.0, 0.3})).backward();
  expect_values(xg.grad(), {0.3703703703703703, -0.6666666666666666, 2.2222222222222228}, {3}, 1e-10);
  // PyTorch's formula: finite input gradients at 0 and 1, and the target's gradient.
  Tensor edge = vec({0.0, 1.0, 0.5}).requires_grad_();
  Tensor edge_t = vec({0.0, 1.0, 0.2}).requires_grad_();
  Tensor edge_loss = F::binary_cross_entropy(edge, edge_t, std::nullopt, "sum");
  EXPECT_EQ(node_name(edge_loss), "BinaryCrossEntropyBackward0");
  edge_loss.backward();
  expect_values(edge.grad(), {0.0, 0.0, 1.2}, {3});
  EXPECT_EQ(values(edge_t.grad()), (std::vector<double>{INFINITY, -INFINITY, 0.0}));
  WICK_EXPECT_THROW_MSG(F::binary_cross_entropy(x, vec({0.5, 0.5})), ValueError,
                        "Using a target size (torch.Size([2])) that is different to the input size (torch.Size([5])) "
                        "is deprecated. Please ensure they have the same size.");
  WICK_EXPECT_THROW_MSG(F::binary_cross_entropy(add(x, wrap_scalar(1.0)), t), RuntimeError,
                        "all elements of input should be between 0 and 1");
  Tensor lx = logits.clone().requires_grad_();
  Tensor lt = t.clone().requires_grad_();
  Tensor lloss =
      F::binary_cross_entropy_with_logits(lx, lt, vec({2.0, 1, 1, 1, 0.5}), "mean", vec({3.0, 1, 0.5, 2, 1}));
  EXPECT_EQ(node_name(lloss), "BinaryCrossEntropyWithLogitsBackward0");
  lloss.backward();
  expect_values(lx.grad(), {5.53558610694695e-88, -0.14621171572600097, 0.05499999999999998, 0.12449186624037092, 0.0},
                {5});
  expect_values(lt.grad(), {240.0, 0.2, -0.06931471805599453, -0.0051846031639786625, -5.0}, {5});
  WICK_EXPECT_THROW_MSG(F::binary_cross_entropy(xg, vec({0.0, 1.0, 0.3}), vec({1.0, 1, 1}).requires_grad_()),
                        RuntimeError, "binary_cross_entropy: the derivative for 'weight' is not implemented.");
  WICK_EXPECT_THROW_MSG(F::binary_cross_entropy_with_logits(x, t, std::nullopt, "mean", t.clone().requires_grad_()),
                        RuntimeError, "the derivative for 'pos_weight' is not implemented.");
  WICK_EXPECT_THROW_MSG(F::binary_cross_entropy_with_logits(x, vec({0.5, 0.5})), ValueError,
                        "Target size (torch.Size([2])) must be the same as input size (torch.Size([5]))");
  WICK_EXPECT_THROW_MSG(F::binary_cross_entropy(x, t, std::nullopt, "all"), ValueError,
                        "all is not a valid value for reduction");
}

TEST_F(NnFunctional, DropoutIsSeededScaledAndChecked) {
  Tensor x = add(zeros({1000}, ScalarType::kFloat64), wrap_scalar(1.0));
  manual_seed(7);
  Tensor a = F::dropout(x, 0.25);
  manual_seed(7);
  Tensor b = dropout(x, 0.25, true);
  EXPECT_EQ(values(a), values(b));
  std::size_t kept = 0;
  for (double v : values(a)) {
    EXPECT_TRUE(v == 0.0 || std::abs(v - 1.0 / 0.75) < 1e-12) << v;
    kept += v != 0.0 ? 1 : 0;
  }
  EXPECT_GT(kept, 650u);
  EXPECT_LT(kept, 850u);
  EXPECT_TRUE(F::dropout(x, 0.5, false).is_same(x));  // eval mode: the input itself
  EXPECT_TRUE(F::dropout(x, 0.0).is_same(x));
  EXPECT_EQ(values(sum(F::dropout(x, 1.0)))[0], 0.0);
  Tensor y = x.clone();
  Tensor r = F::dropout(y, 0.5, true, true);
  EXPECT_TRUE(r.is_same(y));
  EXPECT_EQ(F::dropout(x.to(ScalarType::kFloat32), 0.5).dtype(), ScalarType::kFloat32);
  WICK_EXPECT_THROW_MSG(F::dropout(x, 1.5), ValueError, "dropout probability has to be between 0 and 1, but got 1.5");
  WICK_EXPECT_THROW_MSG(dropout(x, -0.1, true), ValueError,
                        "torch.dropout: dropout probability has to be between 0 and 1");
  WICK_EXPECT_THROW_MSG(F::dropout(ivec({1, 2}), 0.5), RuntimeError,
                        "result type Float can't be cast to the desired output type Long");
}

}  // namespace
}  // namespace wick
