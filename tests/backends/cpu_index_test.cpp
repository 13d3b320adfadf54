// tests/backends/cpu_index_test.cpp - advanced indexing (aten::index, index_put) through the C++ API, against PyTorch 1.13.
/// \file
/// Expected values and messages were taken from PyTorch 1.13's
/// torch.ops.aten.index and torch.index_put (the differential test covers
/// `x[i, j]` and index_put through `wick eval`); these check the typed C++
/// calls with None entries, gradients and the meta device.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/autograd.h"
#include "wick/gradcheck.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

using Doubles = std::vector<double>;
using Shape = std::vector<std::int64_t>;
using Indices = std::vector<std::optional<Tensor>>;

Tensor ivec(std::vector<std::int64_t> v) { return tensor(Value(std::move(v))); }
Doubles values(const Tensor& t) {
  const Tensor c = t.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return Doubles(p, p + c.numel());
}
Shape shape(const Tensor& t) { return t.sizes().vec(); }
Tensor x234() { return arange(24, std::nullopt, 1, ScalarType::kFloat32).reshape({2, 3, 4}); }

class CpuIndex : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(CpuIndex, IndexTensorsBroadcastAndTakeTheirPlace) {
  const Tensor x = x234();
  EXPECT_EQ(shape(aten::index(x, Indices{ivec({1, 0})})), (Shape{2, 3, 4}));
  // Adjacent indexed dims: their broadcast shape stays where they were.
  const Tensor mid = aten::index(x, Indices{std::nullopt, ivec({2, 0}).reshape({2, 1}), ivec({3, 1})});
  EXPECT_EQ(shape(mid), (Shape{2, 2, 2}));
  EXPECT_EQ(values(mid.select(0, 0)), (Doubles{11, 9, 3, 1}));
  // Not adjacent: the broadcast shape leads.
  const Tensor apart = aten::index(x, Indices{ivec({1, 0}), std::nullopt, ivec({3, 1})});
  EXPECT_EQ(shape(apart), (Shape{2, 3}));
  EXPECT_EQ(values(apart), (Doubles{15, 19, 23, 1, 5, 9}));
  // A bool mask covers its dims; negative positions count from the end.
  const Tensor mask = tensor(Value(std::vector<std::int64_t>{1, 0, 1, 0, 0, 1})).reshape({2, 3}).to(ScalarType::kBool);
  EXPECT_EQ(shape(aten::index(x, Indices{mask})), (Shape{3, 4}));
  EXPECT_EQ(values(aten::index(x, Indices{std::nullopt, ivec({-1})})), (Doubles{8, 9, 10, 11, 20, 21, 22, 23}));
}

TEST_F(CpuIndex, IndexRefusesWithPyTorchsMessages) {
  const Tensor x = x234();
  WICK_EXPECT_THROW_MSG(aten::index(x, Indices{ivec({2})}), IndexError,
                        "index 2 is out of bounds for dimension 0 with size 2");
  WICK_EXPECT_THROW_MSG(aten::index(x, Indices{ivec({0}), ivec({0}), ivec({0}), ivec({0})}), IndexError,
                        "too many indices for tensor of dimension 3 (got 4)");
  WICK_EXPECT_THROW_MSG(aten::index(x, Indices{ivec({1, 0}), ivec({0, 1, 2})}), IndexError,
                        "shape mismatch: indexing tensors could not be broadcast together with shapes [2], [3]");
  WICK_EXPECT_THROW_MSG(aten::index(x, Indices{ones({1})}), IndexError,
                        "tensors used as indices must be long, byte or bool tensors");
  WICK_EXPECT_THROW_MSG(aten::index(x, Indices{ones({3}, ScalarType::kBool)}), IndexError,
                        "The shape of the mask [3] at index 0 does not match the shape of the indexed tensor [2, 3, 4] "
                        "at index 0");
}

TEST_F(CpuIndex, IndexPutWritesOrAccumulatesThroughTheSameRows) {
  const Tensor x = arange(12, std::nullopt, 1, ScalarType::kFloat32).reshape({3, 4});
  const Tensor put = index_put(x, Indices{ivec({2, 0})}, full({4}, 1.0));
  EXPECT_EQ(values(put), (Doubles{1, 1, 1, 1, 4, 5, 6, 7, 1, 1, 1, 1}));
  const Tensor acc = index_put(x, Indices{ivec({1, 1}), ivec({0, 0})}, full({2}, 5.0), true);
  EXPECT_EQ(values(acc.select(0, 1)), (Doubles{14, 5, 6, 7}));
  // Not adjacent in a 3-D tensor: values shaped as the index result.
  const Tensor y = zeros({2, 3, 4});
  const Tensor apart = index_put(y, Indices{ivec({1, 0}), std::nullopt, ivec({3, 1})},
                                 arange(6, std::nullopt, 1, ScalarType::kFloat32).reshape({2, 3}));
  EXPECT_EQ(values(apart.select(0, 1).select(1, 3)), (Doubles{0, 1, 2}));
  EXPECT_EQ(values(apart.select(0, 0).select(1, 1)), (Doubles{3, 4, 5}));
  // In place: the same tensor, its version bumped.
  Tensor z = x.clone();
  const auto before = z.version();
  z.index_put_(Indices{ivec({0})}, full({}, 0.0));
  EXPECT_GT(z.version(), before);
  EXPECT_EQ(values(z.select(0, 0)), (Doubles{0, 0, 0, 0}));
  WICK_EXPECT_THROW_MSG(index_put(x, Indices{ivec({1})}, ones({2})), RuntimeError,
                        "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of shape [1, 4]");
  WICK_EXPECT_THROW_MSG(index_put(x, Indices{ivec({1})}, ones({4}, ScalarType::kFloat64)), RuntimeError,
                        "Index put requires the source and destination dtypes match, got Float for the destination and "
                        "Double for the source.");
}

TEST_F(CpuIndex, GradientsFlowThroughIndexAndIndexPut) {
  const Tensor rows = ivec({1, 0, 1});
  const Tensor cols = ivec({3, 3, 0});
  auto read = [&](const autograd::tensor_list& in) {
    return aten::index(in[0], Indices{std::nullopt, rows.reshape({3, 1}), cols});
  };
  const Tensor a = randn({2, 3, 4}, ScalarType::kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(read), {a}));
  EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(read), {a}));
  auto write = [&](const autograd::tensor_list& in) {
    return index_put(in[0], Indices{ivec({2, 0})}, in[1], true);
  };
  const Tensor b = randn({3, 4}, ScalarType::kFloat64).requires_grad_();
  const Tensor v = randn({2, 4}, ScalarType::kFloat64).requires_grad_();
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(write), {b, v}));
}

TEST_F(CpuIndex, IndexRunsOnMetaTensorsWithPositions) {
  const Tensor x = zeros({2, 3, 4}, std::nullopt, Device(DeviceType::kMeta));
  const Tensor r = aten::index(x, Indices{std::nullopt, ivec({2, 0}).to(x.device())});
  EXPECT_TRUE(r.device().is_meta());
  EXPECT_EQ(shape(r), (Shape{2, 2, 4}));
}

}  // namespace
}  // namespace wick

namespace wick {
namespace {

// scatter_reduce against PyTorch 1.13: values and both gradients (backward
// with grad_output 1..6) for every reduction, with and without self.
TEST_F(CpuIndex, ScatterReduceMatchesPyTorchValuesAndGradients) {
  const Tensor x = tensor(Value(Doubles{1, 2, 3, 4, 5, 6}), ScalarType::kFloat64).reshape({2, 3});
  const Tensor index = ivec({0, 1, 0, 1, 1, 0}).reshape({2, 3});
  const Tensor src = tensor(Value(Doubles{10, -20, 0, 10, 50, -60}), ScalarType::kFloat64).reshape({2, 3});
  const Tensor weights = arange(1, 7, 1, ScalarType::kFloat64).reshape({2, 3});
  struct Want {
    const char* reduce;
    bool include_self;
    Doubles out, grad_self, grad_src;
  };
  const Want wants[] = {
      {"sum", true, {11, 2, -57, 14, 35, 6}, {1, 2, 3, 4, 5, 6}, {1, 5, 3, 4, 5, 3}},
      {"sum", false, {10, 2, -60, 10, 30, 6}, {0, 2, 0, 0, 0, 6}, {1, 5, 3, 4, 5, 3}},
      {"prod", true, {10, 2, -0.0, 40, -5000, 6}, {10, 2, -0.0, 40, -5000, 6}, {1, 1250, -540, 16, -500, 0}},
      {"prod", false, {10, 2, -0.0, 10, -1000, 6}, {0, 2, 0, 0, 0, 6}, {1, 250, -180, 4, -100, 0}},
      {"mean", true, {5.5, 2, -19, 7, 35.0 / 3, 6}, {0.5, 2, 1, 2, 5.0 / 3, 6}, {0.5, 5.0 / 3, 1, 2, 5.0 / 3, 1}},
      {"mean", false, {10, 2, -30, 10, 15, 6}, {0, 2, 0, 0, 0, 6}, {1, 2.5, 1.5, 4, 2.5, 1.5}},
      {"amax", true, {10, 2, 3, 10, 50, 6}, {0, 2, 3, 0, 0, 6}, {1, 0, 0, 4, 5, 0}},
      {"amax", false, {10, 2, 0, 10, 50, 6}, {0, 2, 0, 0, 0, 6}, {1, 0, 3, 4, 5, 0}},
      {"amin", true, {1, 2, -60, 4, -20, 6}, {1, 2, 0, 4, 0, 6}, {0, 5, 0, 0, 0, 3}},
      {"amin", false, {10, 2, -60, 10, -20, 6}, {0, 2, 0, 0, 0, 6}, {1, 5, 0, 4, 0, 3}},
  };
  for (const Want& w : wants) {
    SCOPED_TRACE(std::string(w.reduce) + (w.include_self ? " with self" : " without self"));
    const Tensor a = x.clone().requires_grad_();
    const Tensor b = src.clone().requires_grad_();
    const Tensor r = scatter_reduce(a, 0, index, b, w.reduce, w.include_self);
    EXPECT_EQ(values(r), w.out);
    r.backward(weights);
    const auto near = [](const Tensor& got, const Doubles& want) {
      const Doubles v = values(got);
      ASSERT_EQ(v.size(), want.size());
      for (std::size_t k = 0; k < v.size(); ++k) EXPECT_NEAR(v[k], want[k], 1e-12) << "element " << k;
    };
    near(a.grad(), w.grad_self);
    near(b.grad(), w.grad_src);
    // The in-place and method forms compute the same.
    Tensor c = x.clone();
    c.scatter_reduce_(0, index, src, w.reduce, w.include_self);
    EXPECT_EQ(values(c), w.out);
  }
  // Ties share amax's gradient; a NaN entry wins.
  const Tensor one = tensor(Value(Doubles{1}), ScalarType::kFloat64).requires_grad_();
  const Tensor ties = tensor(Value(Doubles{1, 1}), ScalarType::kFloat64).requires_grad_();
  scatter_reduce(one, 0, ivec({0, 0}), ties, "amax").backward();
  EXPECT_NEAR(values(one.grad())[0], 1.0 / 3, 1e-15);
  EXPECT_NEAR(values(ties.grad())[1], 1.0 / 3, 1e-15);
  EXPECT_TRUE(std::isnan(values(scatter_reduce(ones({1}), 0, ivec({0}), full({1}, NAN), "amin"))[0]));
  // Integers: mean floors, amax without self starts from the dtype's lowest value.
  const Tensor xi = ivec({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  const Tensor si = ivec({10, -20, 30, 40, 50, -61}).reshape({2, 3});
  EXPECT_EQ(values(scatter_reduce(xi, 0, index, si, "mean", false)), (Doubles{10, 2, -16, 40, 15, 6}));
  EXPECT_EQ(values(scatter_reduce(xi, 0, index, si, "amax", false)), (Doubles{10, 2, 30, 40, 50, 6}));
  WICK_EXPECT_THROW_MSG(scatter_reduce(x, 0, index, src, "max"), RuntimeError,
                        "reduce argument must be either sum, prod, mean, amax or amin.");
  WICK_EXPECT_THROW_MSG(scatter_reduce(x, 0, index.add(5), src, "sum"), RuntimeError,
                        "index 5 is out of bounds for dimension 0 with size 2");
  // Gradients of gradients, and forward mode, by finite differences.
  const autograd::GradcheckOptions forward{.check_forward_ad = true};
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (const bool with_self : {true, false}) {
      const auto fn = [&](const autograd::tensor_list& in) {
        return scatter_reduce(in[0], 1, ivec({0, 0, 2, 1, 1, 1}).reshape({2, 3}), in[1], reduce, with_self);
      };
      const autograd::tensor_list in = {x.clone().requires_grad_(), src.add(0.5).requires_grad_()};
      EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), in, forward)) << reduce;
      EXPECT_TRUE(autograd::gradgradcheck(autograd::GradcheckFn1(fn), in)) << reduce;
    }
  }
}

}  // namespace
}  // namespace wick
