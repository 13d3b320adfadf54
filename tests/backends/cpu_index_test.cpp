// tests/backends/cpu_index_test.cpp - advanced indexing (aten::index, index_put) through the C++ API, against PyTorch 1.13.
/// \file
/// Expected values and messages were taken from PyTorch 1.13's
/// torch.ops.aten.index and torch.index_put (the differential test covers
/// `x[i, j]` and index_put through `wick eval`); these check the typed C++
/// calls with None entries, gradients and the meta device.
#include <gtest/gtest.h>

#include <optional>
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
