// tests/backends/cpu_norm_test.cpp - layer/batch/group norm, embedding, pad and the torch.linalg norms against
// PyTorch 1.13's values, gradients, node names and errors.
/// \file
/// Expected values were printed by PyTorch 1.13 (float64 unless said) for the same inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "wick/autograd.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

namespace F = wick::nn::functional;
using Shape = std::vector<std::int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor vec(std::vector<double> v, Shape shape = {}, ScalarType t = ScalarType::kFloat64) {
  std::vector<Value> items(v.begin(), v.end());
  Tensor r = tensor(Value::list(items), t);
  return shape.empty() ? r : r.reshape(shape);
}

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

template <class E, class Fn>
void expect_error(Fn fn, const std::string& part) {
  try {
    fn();
    ADD_FAILURE() << "no error; expected one containing: " << part;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

class Norms : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    x_ = vec({-0.6, -0.23, 0.14, 0.51, -0.32, 0.05, 0.42,  0.79, -0.04, 0.33, 0.70, -0.23,
              0.24, 0.61,  0.98, 0.05, 0.52,  0.89, -0.04, 0.33, 0.80,  1.17, 0.24, 0.61},
             {2, 3, 4});
    w_ = vec({0.5, -1.0, 2.0, 1.5});
    b_ = vec({0.1, 0.2, -0.3, 0.0});
  }
  Tensor x_, w_, b_;
};

TEST_F(Norms, LayerNormMatchesPyTorchWithItsGradients) {
  Tensor x = x_.clone().requires_grad_();
  Tensor w = w_.clone().requires_grad_();
  Tensor b = b_.clone().requires_grad_();
  Tensor y = F::layer_norm(x, {4}, w, b);
  EXPECT_EQ(y.grad_fn()->name(), "NativeLayerNormBackward0");
  expect_values(
      y, {-0.5708007938052553, 0.6472005292035035,  0.5944010584070074,   2.012402381415766,    -0.5708007938052553,
          0.6472005292035031,  0.5944010584070063,  2.012402381415766,    -0.22236796738564776, -0.19244796029557087,
          2.559263710724875,   -1.7660158213300687, -0.22236796738564776, -0.19244796029557087, 2.5592637107248746,
          -1.7660158213300687, 0.24153274438897304, -1.1855310766499483,  -3.0710621532998963,  -0.424598233166919,
          0.24153274438897376, -1.185531076649948,  -3.0710621532998954,  -0.42459823316692136},
      {2, 3, 4}, 1e-10);
  Tensor c = sub(div(arange(0, 24, 1, ScalarType::kFloat64).reshape({2, 3, 4}), wrap_scalar(Scalar(10.0))),
                 wrap_scalar(Scalar(1.0)));
  autograd::backward({sum(mul(y, c))});
  expect_values(x.grad(), {-1.3536001596097593,  3.0337410077069324,  -2.006388440617803,   0.3262475925206294,
                           -0.7251529689515961,  1.6316899660218032,  -1.0877974305040283,  0.18126043343382148,
                           -0.41837083933251695, 0.19524486473529243, -0.03209934611597859, 0.25522532071320303,
                           -0.630295909829569,   -1.8086266156989521, 1.2178422530270674,   1.2210802725014545,
                           -0.2710104396802686,  -0.3895074454996905, -0.7278563259922022,  1.388374211172163,
                           -0.1945189442535895,  -0.6423936466172062, -1.0708974696703635,  1.907810060541161},
                {2, 3, 4}, 1e-9);
  expect_values(w.grad(), {2.5994673222215323, 3.1985262709139257, -2.7358500461991255, -2.670751991454021}, {4},
                1e-10);
  expect_values(b.grad(), {0.0, 0.6, 1.2, 1.8}, {4}, 1e-12);
}

TEST_F(Norms, LayerNormOverSeveralDimsAndTorchTwin) {
  const std::vector<double> want = {
      -1.3944166694078892,  -0.6844155212231383,   0.02558562696161271, 0.7355867751463635,  -0.8571185032140238,
      -0.14711735502927256, 0.5628837931554778,    1.272884941340229,   -0.3198203370201583, 0.39018081116459297,
      1.1001819593493443,   -0.684415521223138,    -0.6082505301686915, 0.15897457038499832, 0.926199670938688,
      -1.0022309872097745,  -0.027647751371304003, 0.7395773491823857,  -1.1888533089660769, -0.42162820841238724,
      0.5529550274260834,   1.3201801279797716,    -0.6082505301686896, 0.15897457038499832};
  expect_values(F::layer_norm(x_, {3, 4}, std::nullopt, std::nullopt, 0.1), want, {2, 3, 4}, 1e-10);
  Value r = call("torch.layer_norm", {Value(x_), Value(std::vector<std::int64_t>{3, 4})}, {{"eps", Value(0.1)}});
  expect_values(r.to_tensor(), want, {2, 3, 4}, 1e-10);
}

TEST_F(Norms, LayerNormFloat32KeepsAccuracyUnderALargeOffset) {
  // 1e4 + x/100 in float32: the variance is ~1e-5 of the mean's square. The
  // expected values are PyTorch's float64 layer_norm of the same float32
  // data (PyTorch's own float32 kernel is up to 0.16 off on this input).
  Tensor x = add(mul(x_.to(ScalarType::kFloat32), wrap_scalar(Scalar(1e-2))), wrap_scalar(Scalar(1e4)));
  Tensor y = F::layer_norm(x, {4});
  EXPECT_EQ(y.dtype(), ScalarType::kFloat32);
  expect_values(
      y, {-1.0636932968996187,  -0.2900981718368469, 0.290098171960232,   1.0636932970230037,  -1.0636932969305326,
          -0.29009817186776066, 0.2900981719293182,  1.06369329699209,    -0.4265394986618958, 0.21326974944316804,
          1.0663487469165864,   -0.853078997398605,  -0.5712669860935546, 0.25966681192290575, 1.0906006099393661,
          -0.7790004355976697,  0.16299241639525042, 1.032285303491693,   -0.923623692475303,  -0.27165402715297093,
          0.2063467772851726,   1.0317338869146877,  -1.0317338871591,    -0.20634677752958497},
      {2, 3, 4}, 1e-6);
}

TEST_F(Norms, LayerNormErrorsNameTheArgument) {
  expect_error<RuntimeError>(
      [&] { (void)F::layer_norm(x_, {3}); },
      "Given normalized_shape=[3], expected input with shape [*, 3], but got input of size[2, 3, 4]");
  expect_error<RuntimeError>([&] { (void)F::layer_norm(x_, {4}, ones({3}, ScalarType::kFloat64)); },
                             "Expected weight to be of same shape as normalized_shape, but got weight of shape [3] "
                             "and normalized_shape = [4]");
  expect_error<RuntimeError>([&] { (void)F::layer_norm(x_, {4}, std::nullopt, ones({3}, ScalarType::kFloat64)); },
                             "Expected bias to be of same shape");
  expect_error<RuntimeError>(
      [&] {
        (void)F::layer_norm(ones({2, 4}, ScalarType::kInt64), {4});
      },
      "\"LayerNormKernelImpl\" not implemented for 'Long'");
  expect_error<RuntimeError>([&] { (void)F::layer_norm(x_, {}); }, "at least 1-dimensional");
  expect_error<RuntimeError>([&] { (void)F::layer_norm(x_, {4}, ones({4}, ScalarType::kFloat32)); },
                             "expected scalar type Double but found Float");
}

TEST_F(Norms, BatchNormTrainingUpdatesRunningStatsAndEvalUsesThem) {
  Tensor xb = x_.reshape({3, 2, 4});
  Tensor rm = vec({0.5, -0.5});
  Tensor rv = vec({2.0, 0.5});
  Tensor w = narrow(w_, 0, 0, 2);
  Tensor b = narrow(b_, 0, 0, 2);
  expect_values(
      F::batch_norm(xb, rm, rv, w, b, true, 0.2),
      {-0.8474120290619228, -0.4036874078557058, 0.04003721335051121, 0.4837618345567281,   2.0948240581238453,
       1.2073748157114108,  0.3199255732989776,  -0.5675236691134568, -0.17582881858764854, 0.2678958026185686,
       0.7116204238247859,  -0.4036874078557056, 0.7516576371752975,  -0.1357916052371368,  -1.0232408476495711,
       1.2073748157114117,  0.49575439188662573, 0.9394790130928429,  -0.17582881858764848, 0.26789580261856866,
       -0.591508783773253,  -1.4789580261856854, 0.7516576371752953,  -0.1357916052371368},
      {3, 2, 4}, 1e-10);
  expect_values(rm, {0.43800000000000006, -0.30600000000000005}, {2});
  expect_values(rv, {1.6379236363636365, 0.4379236363636364}, {2});
  expect_values(
      F::batch_norm(xb, rm, rv, w, b),
      {-0.3055264698056846, -0.16097464530847527, -0.016422820811265917, 0.12812900368594338,  0.22115552873482594,
       -0.3379548735427162, -0.8970652758202576,  -1.4561756780977997,   -0.08674533002612456, 0.05780649447108483,
       0.20235831896829423, -0.1609746453084752,  -0.6250656206582098,   -1.1841760229357519,  -1.743286425213294,
       -0.3379548735427157, 0.13203580975343548,  0.27658763425064486,   -0.08674533002612454, 0.05780649447108485,
       -1.4712867700512473, -2.0303971723287884,  -0.6250656206582111,   -1.1841760229357519},
      {3, 2, 4}, 1e-10);
  expect_error<RuntimeError>([&] { (void)F::batch_norm(xb, std::nullopt, std::nullopt); },
                             "running_mean must be defined in evaluation mode");
  expect_error<ValueError>(
      [&] {
        (void)F::batch_norm(ones({1, 3}, ScalarType::kFloat64), std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                            true);
      },
      "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])");
  expect_error<RuntimeError>(
      [&] {
        (void)F::batch_norm(xb, vec({1.0, 2.0, 3.0}), rv, std::nullopt, std::nullopt, true);
      },
      "running_mean should contain 2 elements not 3");
}

TEST_F(Norms, NativeBatchNormReturnsTheStatisticsAndItsGradientsMatchPyTorch) {
  Tensor x = x_.clone().requires_grad_();
  Tensor w = vec({0.5, -1.0, 2.0}).requires_grad_();
  Tensor b = vec({0.1, 0.2, -0.3}).requires_grad_();
  Tensor rm = vec({0.5, -0.5, 0.25});
  Tensor rv = vec({2.0, 0.5, 1.5});
  auto [y, mean, invstd] = native_batch_norm(x, w, b, rm, rv, true, 0.2, 1e-5);
  EXPECT_EQ(y.grad_fn()->name(), "NativeBatchNormBackward0");
  EXPECT_TRUE(mean.requires_grad());  // differentiable here (PyTorch leaves the statistics out of the graph)
  EXPECT_TRUE(invstd.requires_grad());
  expect_values(
      y, {-0.7751166727398986,  -0.37660200330757554, 0.02191266612474753, 0.42042733555707057, 1.8732250086664763,
          0.9207738498870975,   -0.03167730889228122, -0.9841284676716602, -2.5591865974428636, -0.8445218978452028,
          0.8701428017524574,   -3.4396900918308515,  0.12961933353888888, 0.5281340029712119,  0.926648672403535,
          -0.07502333454797971, -0.28909654099481613, -1.241547699774195,  1.1524511587793789,  0.20000000000000004,
          1.3335656935356093,   3.0482303931332693,   -1.2616025004500393, 0.45306219914762125},
      {2, 3, 4}, 1e-10);
  expect_values(mean, {0.2125, 0.33, 0.44749999999999995}, {3}, 1e-12);
  expect_values(invstd, {2.1541333482828273, 2.574192321025348, 2.3171144589157575}, {3}, 1e-10);
  expect_values(rm, {0.4425, -0.334, 0.2895}, {3}, 1e-12);
  expect_values(rv, {1.6492557142857143, 0.4344914285714286, 1.2425700000000002}, {3}, 1e-12);
  const Tensor g = linspace(-1, 1, 24, ScalarType::kFloat64).reshape({2, 3, 4});
  autograd::tensor_list grads = autograd::grad({y}, {x, w, b}, {g});
  expect_values(grads[0], {-0.07963233688762064, -0.2695890196483644,  -0.4595457024091079,  -0.6495023851698515,
                           0.9966945631937162,   1.1611391539348004,   1.3255837446758842,   1.4900283354169683,
                           -1.5048026825083665,  -2.253585422390907,   -3.0023681622734473,  0.2955704972388299,
                           0.40038140493148766,  0.21042472217074404,  0.020468039410000378, 0.8269952776027126,
                           -0.8079018196811092,  -0.6434572289400252,  -1.8432656696706589,  -1.678821078929575,
                           0.7161098526098739,   -0.03267288727266626, 3.2652657722396103,   2.5164830323570704},
                {2, 3, 4}, 1e-9);
  expect_values(grads[1], {2.6430279603713642, 1.2669503075655193, 2.3191293410539453}, {3}, 1e-9);
  expect_values(grads[2], {-2.7826086956521743, 0.0, 2.782608695652174}, {3}, 1e-9);

  // Evaluation: the running statistics, two empty saved tensors.
  auto [ye, me, ie] = native_batch_norm(x, w, b, rm, rv, false, 0.2, 1e-5);
  EXPECT_EQ(me.sizes().vec(), Shape{0});
  EXPECT_EQ(ie.sizes().vec(), Shape{0});
  expect_values(rm, {0.4425, -0.334, 0.2895}, {3}, 1e-12);  // untouched
  expect_values(ye, {-0.30588289803176183, -0.16182853614039314, -0.017774174249024423, 0.1262801876423443,
                     0.17876107988940307,  -0.38255323731923,    -0.9438675545278631,   -1.5051818717364962,
                     -0.8911847668945964,  -0.22733540801447288, 0.4365139508656504,    -1.232080383616822,
                     0.021159437072967115, 0.16521379896433583,  0.3092681608557046,    -0.052814424438816815,
                     -1.0955741267464127,  -1.6568884439550458,  -0.2460173223225355,   -0.8073316395311686,
                     0.6159326965089272,   1.2797820553890504,   -0.38881227909342186,  0.27503707978670155},
                {2, 3, 4}, 1e-10);
  grads = autograd::grad({ye}, {x, w, b}, {g});
  expect_values(grads[0], {-0.38933611321991546, -0.35548079902687935, -0.32162548483384323, -0.28777017064080707,
                           0.9893906883818445,   0.857471929930932,    0.7255531714800193,   0.5936344130291067,
                           -0.5460570519577984,  -0.3900407513984274,  -0.23402445083905649, -0.07800815027968552,
                           0.016927657096518074, 0.050782971289554196, 0.08463828548259032,  0.11849359967562645,
                           -0.5936344130291067,  -0.7255531714800193,  -0.857471929930932,   -0.9893906883818445,
                           1.3261385547546531,   1.4821548553140238,   1.638171155873395,    1.794187456432766},
                {2, 3, 4}, 1e-9);
  expect_values(grads[1], {1.4537471914489712, 0.7466601728321655, 1.2922830175332694}, {3}, 1e-9);
}

// The two backward paths of training (the saved statistics, or recomputed
// ones when the backward records) agree, and the recorded one has a
// gradient of its own (double backward).
TEST_F(Norms, NativeBatchNormBackwardWithAndWithoutCreateGraphAgree) {
  Tensor x = x_.clone().requires_grad_();
  Tensor w = vec({0.5, -1.0, 2.0}).requires_grad_();
  const Tensor g = linspace(-1, 1, 24, ScalarType::kFloat64).reshape({2, 3, 4});
  Tensor y = std::get<0>(native_batch_norm(x, w, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5));
  const autograd::tensor_list plain = autograd::grad({y}, {x, w}, {g}, true, false);
  const autograd::tensor_list recorded = autograd::grad({y}, {x, w}, {g}, true, true);
  for (std::size_t k = 0; k < 2; ++k) {
    const std::vector<double> a = values(plain[k]);
    const std::vector<double> r = values(recorded[k]);
    ASSERT_EQ(a.size(), r.size());
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], r[i], 1e-12) << k << ", " << i;
  }
  ASSERT_TRUE(recorded[0].requires_grad());
  const Tensor gg = autograd::grad({sum(mul(recorded[0], recorded[0]))}, {x})[0];
  EXPECT_EQ(gg.sizes().vec(), (Shape{2, 3, 4}));
  EXPECT_GT(values(sum(abs(gg)))[0], 0.0);
}

// Both kernel paths (columns of an [n, c] input, planes of an [n, c, s]
// one), over several threads' worth of work, against the same formula in
// float64: float32 and float64, a large common offset, and evaluation.
TEST_F(Norms, NativeBatchNormKernelsMatchTheFormulaInFloat64) {
  const std::vector<Shape> shapes = {{700, 96}, {3, 5}, {6, 40, 33, 17}, {2, 3, 7}};
  for (const Shape& shape : shapes) {
    for (const ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64}) {
      for (const double offset : {0.0, 1000.0}) {
        const std::int64_t c = shape[1];
        manual_seed(static_cast<std::uint64_t>(c) * 7 + 1);
        const Tensor x = add(randn(shape, t), wrap_scalar(Scalar(offset)));
        const Tensor w = randn({c}, t);
        const Tensor b = randn({c}, t);
        Tensor rm = zeros({c}, t);
        Tensor rv = ones({c}, t);
        auto [y, saved_mean, invstd] = native_batch_norm(x, w, b, rm, rv, true, 0.1, 1e-5);
        const Tensor xd = x.to(ScalarType::kFloat64);
        DimVector axes;
        Shape bc(shape.size(), 1);
        bc[1] = c;
        for (std::size_t i = 0; i < shape.size(); ++i) {
          if (i != 1) axes.push_back(static_cast<std::int64_t>(i));
        }
        const Tensor mu = mean(xd, IntArrayRef(axes), true);
        const Tensor centered = sub(xd, mu);
        const Tensor var = mean(mul(centered, centered), IntArrayRef(axes), true);
        const Tensor rstd = rsqrt(add(var, wrap_scalar(Scalar(1e-5))));
        const Tensor want = add(mul(mul(centered, rstd), w.to(ScalarType::kFloat64).reshape(bc)),
                                b.to(ScalarType::kFloat64).reshape(bc));
        const double tol = t == ScalarType::kFloat32 ? (offset == 0 ? 2e-5 : 2e-3) : 1e-9;
        const std::string what =
            format_shape(IntArrayRef(shape)) + " " + std::string(type_title(t)) + " offset " + std::to_string(offset);
        EXPECT_LT(values(amax(abs(sub(y.to(ScalarType::kFloat64), want)), {}, false))[0], tol) << what;
        EXPECT_LT(values(amax(abs(sub(invstd.to(ScalarType::kFloat64), rstd.reshape({c}))), {}, false))[0],
                  tol * values(amax(rstd, {}, false))[0])
            << what;
        const double count = static_cast<double>(x.numel() / c);
        const Tensor want_rv =
            add(wrap_scalar(Scalar(0.9)), mul(var.reshape({c}), wrap_scalar(Scalar(0.1 * count / (count - 1)))));
        EXPECT_LT(values(amax(abs(sub(rv.to(ScalarType::kFloat64), want_rv)), {}, false))[0],
                  t == ScalarType::kFloat32 ? 1e-4 : 1e-12)
            << what;
        // Evaluation with those running statistics.
        const Tensor ye = std::get<0>(native_batch_norm(x, w, b, rm, rv, false, 0.1, 1e-5));
        const Tensor rmd = rm.to(ScalarType::kFloat64).reshape(bc);
        const Tensor rvd = rv.to(ScalarType::kFloat64).reshape(bc);
        const Tensor want_e = add(
            mul(mul(sub(xd, rmd), rsqrt(add(rvd, wrap_scalar(Scalar(1e-5))))), w.to(ScalarType::kFloat64).reshape(bc)),
            b.to(ScalarType::kFloat64).reshape(bc));
        const double scale = std::max(1.0, values(amax(abs(want_e), {}, false))[0]);
        EXPECT_LT(values(amax(abs(sub(ye.to(ScalarType::kFloat64), want_e)), {}, false))[0],
                  (t == ScalarType::kFloat32 ? 1e-5 : 1e-12) * scale)
            << what;
      }
    }
  }
}

TEST_F(Norms, BatchNormEdgeCasesFollowPyTorch) {
  // One value per channel: torch.batch_norm normalises it to 0 and the
  // unbiased running variance is NaN; F.batch_norm refuses it.
  Tensor rm = vec({0.0, 0.0, 0.0});
  Tensor rv = vec({1.0, 1.0, 1.0});
  const Tensor one = vec({1.0, 2.0, 3.0}, {1, 3});
  expect_values(batch_norm(one, std::nullopt, std::nullopt, rm, rv, true, 0.1, 1e-5, true), {0.0, 0.0, 0.0}, {1, 3});
  expect_values(rm, {0.1, 0.2, 0.30000000000000004}, {3});
  for (const double v : values(rv)) EXPECT_TRUE(std::isnan(v));
  expect_error<ValueError>([&] { (void)F::batch_norm(one, rm, rv, std::nullopt, std::nullopt, true); },
                           "Expected more than 1 value per channel when training");
  // An empty batch: an empty output, still connected to weight; the
  // running statistics stay.
  Tensor rm2 = vec({0.5, 0.5, 0.5});
  Tensor w = vec({2.0, 3.0, 4.0}).requires_grad_();
  const Tensor y = F::batch_norm(zeros({0, 3}, ScalarType::kFloat64), rm2, rv, w, std::nullopt, true);
  EXPECT_EQ(y.sizes().vec(), (Shape{0, 3}));
  EXPECT_EQ(y.grad_fn()->name(), "MulBackward0");
  expect_values(rm2, {0.5, 0.5, 0.5}, {3});
  // native_batch_norm's own checks.
  expect_error<RuntimeError>(
      [&] {
        (void)native_batch_norm(ones({4, 3}, ScalarType::kInt64), std::nullopt, std::nullopt, std::nullopt,
                                std::nullopt, true, 0.1, 1e-5);
      },
      "\"batch_norm\" not implemented for 'Long'");
  expect_error<IndexError>(
      [&] {
        (void)native_batch_norm(ones({4}, ScalarType::kFloat64), std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                true, 0.1, 1e-5);
      },
      "Dimension out of range");
  expect_error<RuntimeError>(
      [&] {
        (void)native_batch_norm(ones({4, 3}, ScalarType::kFloat64), vec({1.0, 2.0}), std::nullopt, std::nullopt,
                                std::nullopt, true, 0.1, 1e-5);
      },
      "torch.native_batch_norm: weight should contain 3 elements not 2");
  expect_error<RuntimeError>(
      [&] {
        (void)native_batch_norm(ones({4, 3}, ScalarType::kFloat64), std::nullopt, std::nullopt, std::nullopt,
                                std::nullopt, false, 0.1, 1e-5);
      },
      "running_mean must be defined in evaluation mode");
  // bfloat16 computes in float32 and rounds once.
  const Tensor xb = linspace(-2, 2, 12, ScalarType::kFloat32).reshape({4, 3});
  const Tensor yb = std::get<0>(native_batch_norm(xb.to(ScalarType::kBFloat16), std::nullopt, std::nullopt,
                                                  std::nullopt, std::nullopt, true, 0.1, 1e-5));
  EXPECT_EQ(yb.dtype(), ScalarType::kBFloat16);
  const Tensor yf =
      std::get<0>(native_batch_norm(xb, std::nullopt, std::nullopt, std::nullopt, std::nullopt, true, 0.1, 1e-5));
  EXPECT_LT(values(amax(abs(sub(yb.to(ScalarType::kFloat64), yf.to(ScalarType::kFloat64))), {}, false))[0], 2e-2);
}

TEST_F(Norms, NativeGroupNormReturnsTheStatisticsAndItsGradientsMatchPyTorch) {
  Tensor x = x_.reshape({2, 6, 2}).clone().requires_grad_();
  Tensor w = linspace(-1, 1, 6, ScalarType::kFloat64).requires_grad_();
  Tensor b = linspace(0, 1, 6, ScalarType::kFloat64).requires_grad_();
  auto [y, mean, rstd] = native_group_norm(x, w, b, 2, 6, 2, 3, 1e-5);
  EXPECT_EQ(y.grad_fn()->name(), "NativeGroupNormBackward0");
  expect_values(
      y, {1.3416015876105107, 0.44720052920350356,  -0.06832031752210219, -0.6049609525663064, 0.6683203175221021,
          0.4894401058407007, 0.6894401058407007,   0.868320317522102,    0.413158439137223,   1.0354687761773427,
          2.429631855362437,  -0.17734388088671277, 0.6447359347712951,   -0.392447960295571,  -0.6577791132174622,
          0.9064063285320277, 0.34338690224441076,  0.12289378467001048,  0.3228937846700104,  0.5433869022444107,
          0.9698392932667678, 1.6313186459899687,   -0.38553107664994846, 0.7169345112220533},
      {2, 6, 2}, 1e-10);
  expect_values(mean, {-0.045, 0.235, 0.19, 0.47, 0.425, 0.705}, {2, 3}, 1e-12);
  expect_values(rstd,
                {2.417300157856776, 2.417300157856776, 2.8031997163969353, 2.8031997163969353, 2.9796367239783828,
                 2.979636723978383},
                {2, 3}, 1e-10);
  const Tensor g = linspace(-1, 1, 24, ScalarType::kFloat64).reshape({2, 6, 2});
  const autograd::tensor_list grads = autograd::grad({y}, {x, w, b}, {g});
  expect_values(grads[0], {-0.06301578639226468,  0.23123475434125673,   -0.27327475708659144,  0.1050557891376005,
                           -0.029410314831439494, 0.13032990420730428,   -0.1723699069526395,   0.0714503175767747,
                           -0.20168810209666493,  -0.005470442838714007, 0.04449331817244018,   0.1626652267629388,
                           0.22180385514014356,   -0.02585052400255078,  -0.029748406067250655, -0.166204925070342,
                           -0.2115818632454162,   0.022576691257436443,  -0.07439646037010411,  0.2634016323580836,
                           -0.6480484585061053,   0.11171028266231309,   -0.16353005177498137,  0.6998682276187722},
                {2, 6, 2}, 1e-9);
  expect_values(grads[1],
                {1.7730719814969886, -1.4085776058104371, 1.9011331276501806, -1.706587236428333, 1.4647006742389266,
                 -1.6834004581192297},
                {6}, 1e-9);
  expect_values(grads[2],
                {-1.7391304347826086, -1.043478260869565, -0.34782608695652173, 0.34782608695652173, 1.043478260869565,
                 1.7391304347826086},
                {6}, 1e-9);
  // PyTorch's checks, in its words.
  expect_error<RuntimeError>([&] { (void)native_group_norm(x_, std::nullopt, std::nullopt, 2, 3, 5, 3, 1e-5); },
                             "Expected X.numel() == N * C * HxW to be true, but got false.");
  expect_error<RuntimeError>([&] { (void)native_group_norm(x_, std::nullopt, std::nullopt, 2, 3, 4, 0, 1e-5); },
                             "Expected num groups to be greater than 0, got 0");
  expect_error<RuntimeError>(
      [&] { (void)native_group_norm(x_, std::nullopt, std::nullopt, 2, 3, 4, 2, 1e-5); },
      "Expected number of channels in input to be divisible by num_groups, but got input of shape [2, 3, 4] and "
      "num_groups=2");
  expect_error<RuntimeError>(
      [&] {
        (void)native_group_norm(x_, vec({1.0, 2.0}), std::nullopt, 2, 3, 4, 3, 1e-5);
      },
      "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [2] "
      "and input of shape [2, 3, 4]");
  expect_error<RuntimeError>(
      [&] { (void)native_group_norm(x_, ones({3}, ScalarType::kFloat32), std::nullopt, 2, 3, 4, 3, 1e-5); },
      "expected scalar type Double but found Float");
  expect_error<RuntimeError>(
      [&] {
        (void)native_group_norm(ones({2, 3, 4}, ScalarType::kInt64), std::nullopt, std::nullopt, 2, 3, 4, 3, 1e-5);
      },
      "\"GroupNormKernelImpl\" not implemented for 'Long'");
}

// Blocks of one value per channel (an [n, c] input) and of planes, over
// several threads' worth of work, against the same formula in float64.
TEST_F(Norms, NativeGroupNormKernelMatchesTheFormulaInFloat64) {
  struct Case {
    Shape shape;
    std::int64_t groups;
  };
  const std::vector<Case> cases = {{{512, 256}, 32}, {{3, 4}, 2}, {{4, 64, 21, 19}, 8}, {{2, 6, 5}, 6}};
  for (const Case& cs : cases) {
    for (const ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64}) {
      const std::int64_t n = cs.shape[0];
      const std::int64_t c = cs.shape[1];
      manual_seed(static_cast<std::uint64_t>(c) + 3);
      const Tensor x = add(randn(cs.shape, t), wrap_scalar(Scalar(3.0)));
      const Tensor w = randn({c}, t);
      const Tensor b = randn({c}, t);
      const Tensor y = F::group_norm(x, cs.groups, w, b);
      const Tensor xg = x.to(ScalarType::kFloat64).reshape({n, cs.groups, -1});
      const std::int64_t last[] = {2};
      const Tensor centered = sub(xg, mean(xg, IntArrayRef(last), true));
      const Tensor var = mean(mul(centered, centered), IntArrayRef(last), true);
      const Tensor xhat = mul(centered, rsqrt(add(var, wrap_scalar(Scalar(1e-5))))).reshape({n, c, -1});
      const Tensor want =
          add(mul(xhat, w.to(ScalarType::kFloat64).reshape({1, c, 1})), b.to(ScalarType::kFloat64).reshape({1, c, 1}));
      const double err = values(amax(abs(sub(y.to(ScalarType::kFloat64).reshape({n, c, -1}), want)), {}, false))[0];
      EXPECT_LT(err, t == ScalarType::kFloat32 ? 5e-5 : 1e-10)
          << format_shape(IntArrayRef(cs.shape)) << " " << type_title(t);
    }
  }
}

TEST_F(Norms, GroupNorm) {
  Tensor w = linspace(-1, 1, 6, ScalarType::kFloat64);
  Tensor b = linspace(0, 1, 6, ScalarType::kFloat64);
  expect_values(
      F::group_norm(x_.reshape({2, 6, 2}), 3, w, b),
      {1.3416015876105105, 0.44720052920350345,  -0.06832031752210221, -0.6049609525663063, 0.6683203175221021,
       0.4894401058407007, 0.6894401058407006,   0.868320317522102,    0.4131584391372227,  1.0354687761773425,
       2.4296318553624374, -0.17734388088671246, 0.6447359347712955,   -0.3924479602955709, -0.6577791132174623,
       0.9064063285320275, 0.3433869022444108,   0.12289378467001046,  0.3228937846700104,  0.5433869022444108,
       0.9698392932667685, 1.631318645989969,    -0.38553107664994785, 0.7169345112220524},
      {2, 6, 2}, 1e-10);
  expect_error<RuntimeError>(
      [&] {
        (void)F::group_norm(ones({2, 6, 4}, ScalarType::kFloat64), 4);
      },
      "Expected number of channels in input to be divisible by num_groups, but got input of "
      "shape [2, 6, 4] and num_groups=4");
}

TEST_F(Norms, EmbeddingPicksRowsAndSkipsThePaddingRowsGradient) {
  Tensor w = div(arange(0, 12, 1, ScalarType::kFloat64).reshape({4, 3}), wrap_scalar(Scalar(4.0))).requires_grad_();
  Tensor idx = tensor(Value(std::vector<std::int64_t>{0, 3, 3, 1, 2, 3})).reshape({3, 2});
  Tensor e = F::embedding(idx, w, 3);
  expect_values(e, {0.0, 0.25, 0.5, 2.25, 2.5, 2.75, 2.25, 2.5, 2.75, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75},
                {3, 2, 3});
  autograd::backward({sum(mul(e, arange(0, 18, 1, ScalarType::kFloat64).reshape({3, 2, 3})))});
  expect_values(w.grad(), {0.0, 1.0, 2.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 0.0, 0.0, 0.0}, {4, 3});
  // int32 indices and a 0-dim index; torch.embedding takes the weight first (ATen's order).
  Tensor i32 = tensor(Value(std::vector<std::int64_t>{2, 0}), ScalarType::kInt32);
  expect_values(F::embedding(i32, w.detach()), {1.5, 1.75, 2.0, 0.0, 0.25, 0.5}, {2, 3});
  Value r = call("torch.embedding", {Value(w.detach()), Value(tensor(Value(std::int64_t{1})))});
  expect_values(r.to_tensor(), {0.75, 1.0, 1.25}, {3});
}

TEST_F(Norms, EmbeddingErrors) {
  Tensor w = ones({3, 2}, ScalarType::kFloat64);
  expect_error<RuntimeError>(
      [&] {
        (void)F::embedding(vec({0.0, 1.0}), w);
      },
      "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
      "Long, Int; but got torch.DoubleTensor instead");
  expect_error<IndexError>(
      [&] {
        (void)F::embedding(tensor(Value(std::vector<std::int64_t>{0, 5})), w);
      },
      "index out of range");
  expect_error<RuntimeError>([&] { (void)F::embedding(tensor(Value(std::vector<std::int64_t>{0})), ones({3})); },
                             "'weight' must be 2-D");
  expect_error<ValueError>([&] { (void)F::embedding(tensor(Value(std::vector<std::int64_t>{0})), w, 3); },
                           "Padding_idx must be within num_embeddings");
}

// max_norm: the picked rows whose norm exceeds it are scaled in place to it
// (by max_norm / (norm + 1e-7)), outside the graph; the others stay.
TEST_F(Norms, EmbeddingMaxNormRenormalisesThePickedRowsInPlace) {
  Tensor w = arange(0, 12, 1, ScalarType::kFloat32).reshape({4, 3});
  w.requires_grad_(true);
  const std::uint32_t version = w.version();
  const Tensor idx = tensor(Value(std::vector<std::int64_t>{1, 3, 1}));
  const Tensor out =
      call("torch.nn.functional.embedding", {Value(idx), Value(w)}, {{"max_norm", Value(2.0)}}).to_tensor();
  EXPECT_GT(w.version(), version);
  const double n1 = std::sqrt(9.0 + 16.0 + 25.0);
  const double n3 = std::sqrt(81.0 + 100.0 + 121.0);
  expect_values(w.detach(),
                {0, 1, 2, 3 * 2 / (n1 + 1e-7), 4 * 2 / (n1 + 1e-7), 5 * 2 / (n1 + 1e-7), 6, 7, 8, 9 * 2 / (n3 + 1e-7),
                 10 * 2 / (n3 + 1e-7), 11 * 2 / (n3 + 1e-7)},
                {4, 3}, 1e-6);
  EXPECT_TRUE(out.requires_grad());
  expect_values(out.detach(), values(index_select(w.detach(), 0, idx)), {3, 3});
}

TEST_F(Norms, PadConstantReflectAndReplicate) {
  Tensor p = arange(0, 6, 1, ScalarType::kFloat64).reshape({2, 3});
  expect_values(F::pad(p, {2, -1, 1, 0}, "constant", -1.5),
                {-1.5, -1.5, -1.5, -1.5, -1.5, -1.5, 0.0, 1.0, -1.5, -1.5, 3.0, 4.0}, {3, 4});
  Tensor p3 = arange(0, 12, 1, ScalarType::kFloat64).reshape({1, 3, 4});
  expect_values(F::pad(p3, {3, 2}, "reflect"),
                {3.0, 2.0, 1.0, 0.0, 1.0,  2.0,  3.0, 2.0, 1.0, 7.0,  6.0,  5.0,  4.0, 5.0,
                 6.0, 7.0, 6.0, 5.0, 11.0, 10.0, 9.0, 8.0, 9.0, 10.0, 11.0, 10.0, 9.0},
                {1, 3, 9});
  expect_values(F::pad(p3, {1, 2, 2, 0}, "replicate"),
                {0.0, 0.0, 1.0, 2.0, 3.0, 3.0, 3.0, 0.0, 0.0, 1.0, 2.0, 3.0, 3.0, 3.0,  0.0,  0.0,  1.0, 2.0,
                 3.0, 3.0, 3.0, 4.0, 4.0, 5.0, 6.0, 7.0, 7.0, 7.0, 8.0, 8.0, 9.0, 10.0, 11.0, 11.0, 11.0},
                {1, 5, 7});
  // An integer input keeps its dtype; the value is cast as PyTorch does.
  Tensor ip = F::pad(tensor(Value(std::vector<std::int64_t>{1, 2, 3, 4})).reshape({2, 2}), {1, 0}, "constant", 2.7);
  EXPECT_EQ(ip.dtype(), ScalarType::kInt64);
  expect_values(ip, {2, 1, 2, 2, 3, 4}, {2, 3});
  expect_values(call("torch.constant_pad_nd", {Value(p), Value(std::vector<std::int64_t>{0, 1}), Value(9)}).to_tensor(),
                {0, 1, 2, 9, 3, 4, 5, 9}, {2, 4});
}

TEST_F(Norms, PadErrors) {
  expect_error<RuntimeError>([&] { (void)F::pad(x_, {1}); }, "Padding length must be divisible by 2");
  expect_error<RuntimeError>([&] { (void)F::pad(x_, {1, 1, 1, 1, 1, 1, 1, 1}); }, "Padding length too large");
  expect_error<RuntimeError>(
      [&] {
        (void)F::pad(x_, {4, 1}, "reflect");
      },
      "Padding size should be less than the corresponding input dimension, but got: padding "
      "(4, 1) at dimension 2 of input [2, 3, 4]");
  expect_error<NotImplementedError>(
      [&] {
        (void)F::pad(vec({1.0, 2.0}), {1, 1}, "reflect");
      },
      "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  expect_error<NotImplementedError>(
      [&] {
        (void)F::pad(x_, {1, 1}, "circular2");
      },
      "Unrecognised padding mode circular2");
  expect_error<RuntimeError>(
      [&] {
        (void)F::pad(x_, {1, 1}, "reflect", 1.0);
      },
      "Padding mode \"reflect\" doesn't take in value argument");
}

TEST_F(Norms, LinalgVectorNorm) {
  Tensor v = vec({3.0, -4.0, 0.0, 1.0, 2.0, -2.0}, {2, 3});
  struct Case {
    double ord;
    double all;
    std::vector<double> rows;
  };
  const Case cases[] = {{2, 5.830951894845301, {5.0, 3.0}},
                        {1, 12.0, {7.0, 5.0}},
                        {kInf, 4.0, {4.0, 2.0}},
                        {-kInf, 0.0, {0.0, 1.0}},
                        {0, 5.0, {2.0, 3.0}},
                        {3.5, 4.533524492706438, {4.372215289689355, 2.4683380713096383}},
                        {-1, 0.0, {0.0, 0.5}}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.ord);
    expect_values(linalg::vector_norm(v, c.ord), {c.all}, {});
    const std::vector<std::int64_t> dim1 = {1};
    expect_values(linalg::vector_norm(v, c.ord, IntArrayRef(dim1)), c.rows, {2});
  }
  EXPECT_EQ(linalg::vector_norm(v, 2, std::nullopt, true).sizes().vec(), (Shape{1, 1}));
  EXPECT_EQ(linalg::vector_norm(v.to(ScalarType::kFloat32), 2, std::nullopt, false, ScalarType::kFloat64).dtype(),
            ScalarType::kFloat64);
  expect_error<RuntimeError>([&] { (void)linalg::vector_norm(ones({2}, ScalarType::kInt64)); },
                             "Expected a floating point or complex tensor as input. Got Long");
  expect_error<RuntimeError>([&] { (void)linalg::vector_norm(v, 2, std::nullopt, false, ScalarType::kFloat32); },
                             "should be convertible without narrowing to the specified dtype (Float)");
}

TEST_F(Norms, LinalgMatrixNorm) {
  Tensor v = vec({3.0, -4.0, 0.0, 1.0, 2.0, -2.0}, {2, 3});
  expect_values(linalg::matrix_norm(v), {5.830951894845301}, {});
  expect_values(linalg::matrix_norm(v, 1.0), {6.0}, {});
  expect_values(linalg::matrix_norm(v, -1.0), {2.0}, {});
  expect_values(linalg::matrix_norm(v, kInf), {7.0}, {});
  expect_values(linalg::matrix_norm(v, -kInf), {5.0}, {});
  Tensor m3 = sub(arange(0, 12, 1, ScalarType::kFloat64).reshape({2, 2, 3}), wrap_scalar(Scalar(5.0)));
  expect_values(linalg::matrix_norm(m3, 1.0), {7.0, 9.0}, {2});
  expect_values(linalg::matrix_norm(m3, kInf, {0, 2}, true), {12.0, 15.0}, {1, 2, 1});
  Value by_name = call("torch.linalg.matrix_norm", {Value(v)}, {{"ord", Value(1)}});
  expect_values(by_name.to_tensor(), {6.0}, {});
  expect_error<RuntimeError>(
      [&] {
        (void)linalg::matrix_norm(vec({1.0, 2.0}));
      },
      "The input tensor A must have at least 2 dimensions.");
  expect_error<RuntimeError>([&] { (void)linalg::matrix_norm(v, 3.0); }, "Order 3 not supported.");
  expect_error<RuntimeError>([&] { (void)linalg::matrix_norm(v, "abc"); }, "Order abc not supported.");
  // The orders read off the singular values (PyTorch 1.13's figures).
  expect_values(linalg::matrix_norm(v, 2.0), {5.141398752485223}, {});
  expect_values(linalg::matrix_norm(v, -2.0), {2.750639719764004}, {});
  expect_values(linalg::matrix_norm(v, "nuc"), {7.892038472249228}, {});
  expect_values(linalg::matrix_norm(m3, 2.0, {0, 2}, true), {7.773373836829398, 8.903668817853081}, {1, 2, 1});
  expect_error<RuntimeError>([&] { (void)linalg::matrix_norm(v.to(ScalarType::kFloat16), 2.0); },
                             "Low precision dtypes not supported. Got Half");
}

TEST_F(Norms, LinalgNormPicksTheVectorOrMatrixNorm) {
  Tensor v = vec({3.0, -4.0, 0.0, 1.0, 2.0, -2.0}, {2, 3});
  expect_values(linalg::norm(v), {5.830951894845301}, {});
  expect_values(linalg::norm(v, 2.0), {5.141398752485223}, {});
  expect_values(linalg::norm(v, "nuc"), {7.892038472249228}, {});
  const std::vector<std::int64_t> rows = {1};
  expect_values(linalg::norm(v, 1.0, IntArrayRef(rows)), {7.0, 5.0}, {2});
  expect_values(nuclear_norm(v), {7.892038472249228}, {});
  expect_values(norm(v, "nuc"), {7.892038472249228}, {});
  expect_error<RuntimeError>(
      [&] {
        (void)linalg::norm(ones({2, 2, 2}, ScalarType::kFloat64), 2.0);
      },
      "If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.");
  expect_error<RuntimeError>([&] { (void)nuclear_norm(ones({2}, ScalarType::kFloat64)); },
                             "Expected a tensor with 2 dimensions, but got a tensor with 1 dimension instead.");
}

}  // namespace
}  // namespace wick
