// tests/data_loading/data_transforms_test.cpp - Normalize, Stack, Transform and map.
/// \file
/// The Normalize values are PyTorch 1.13's: x = torch.arange(24.).reshape(2, 3, 4) / 7, then
/// (x - torch.tensor([0.5, 1.5]).view(-1, 1, 1)) / torch.tensor([0.25, 2.0]).view(-1, 1, 1)
/// (torchvision's Normalize), and (x - 0.1307) / 0.3081.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/data.h"

namespace wick::testing {
namespace {

using data::Example;

class DataTransformsTest : public AutogradTest {
 protected:
  static Tensor image() { return arange(24, ScalarType::kFloat32).reshape({2, 3, 4}).div(7); }
};

TEST_F(DataTransformsTest, NormalizePerChannel) {
  const Tensor out = data::Normalize({0.5, 1.5}, {0.25, 2.0})(image());
  EXPECT_EQ(out.dtype(), ScalarType::kFloat32);
  expect_near(out,
              {-2.0, -1.4285714626312256, -0.8571428060531616, -0.2857142686843872, 0.28571438789367676,
               0.8571429252624512, 1.4285714626312256, 2.0, 2.5714287757873535, 3.142857074737549, 3.7142858505249023,
               4.285714149475098, 0.1071428656578064, 0.1785714030265808, 0.25, 0.3214285373687744, 0.3928571939468384,
               0.4642857313156128, 0.5357142686843872, 0.6071428060531616, 0.6785714626312256, 0.75,
               0.8214285373687744, 0.8928571939468384},
              1e-6);
  const Tensor one = data::Normalize(0.1307, 0.3081)(image());
  const std::vector<double> v = values(one);
  EXPECT_NEAR(v[0], -0.4242129623889923, 1e-6);
  EXPECT_NEAR(v[4], 1.4304726123809814, 1e-6);
  EXPECT_NEAR(v[23], 10.240228652954102, 1e-5);
  // A batch [N, C, H, W] normalizes the same way.
  const Tensor batch = stack({image(), image()});
  expect_near(data::Normalize({0.5, 1.5}, {0.25, 2.0})(batch)[1], values(out), 1e-6);
}

TEST_F(DataTransformsTest, NormalizeErrors) {
  EXPECT_EQ(error_of([] { (void)data::Normalize(0, 1)(zeros({1, 2, 2}, ScalarType::kUInt8)); }),
            "Input tensor should be a float tensor. Got torch.uint8.");
  EXPECT_EQ(error_of([] { (void)data::Normalize(0, 1)(zeros({3, 4})); }),
            "Expected tensor to be a tensor image of size (..., C, H, W). Got tensor.size() = torch.Size([3, 4])");
  EXPECT_EQ(error_of([] { (void)data::Normalize({0, 0}, {1, 0})(zeros({2, 2, 2})); }),
            "std evaluated to zero after conversion to torch.float32, leading to division by zero.");
  EXPECT_THROW((void)data::Normalize({0, 0}, {1})(zeros({2, 2, 2})), ValueError);
  EXPECT_THROW((void)data::Normalize({0, 0, 0}, {1, 1, 1})(zeros({2, 2, 2})), RuntimeError);
}

TEST_F(DataTransformsTest, StackCollates) {
  const Example batch = data::Stack()({{zeros({2}), full({}, 1, ScalarType::kInt64)}, {ones({2}), full({}, 2, ScalarType::kInt64)}});
  EXPECT_EQ(batch.data.sizes(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(values(batch.target), (std::vector<double>{1, 2}));
  EXPECT_FALSE(data::Stack()({{zeros({2}), Tensor()}}).target.defined());
  EXPECT_THROW((void)data::Stack()({}), ValueError);
  EXPECT_EQ(error_of([] { (void)data::Stack()({{zeros({2}), zeros({})}, {zeros({2}), Tensor()}}); }),
            "Stack: example 1 has no target but example 0 has one");
  EXPECT_THROW((void)data::Stack()({{zeros({2}), Tensor()}, {zeros({3}), Tensor()}}), RuntimeError);
}

TEST_F(DataTransformsTest, MapAppliesTransformsInOrder) {
  const data::TensorDataset base(arange(4, ScalarType::kFloat64).reshape({4, 1}), arange(4, ScalarType::kInt64));
  // A tensor transform applies to data; an example transform sees both.
  auto ds = base.map([](const Tensor& x) { return x.mul(10); }).map([](Example e) {
    e.target = e.target.add(100);
    return e;
  });
  EXPECT_EQ(ds.size(), 4);
  const Example e = ds.get(3);
  EXPECT_EQ(values(e.data), (std::vector<double>{30}));
  EXPECT_EQ(e.target.item<std::int64_t>(), 103);
  EXPECT_EQ(base.get(3).data.item<double>(), 3);  // map copied, not changed, the base
  data::DataLoader loader(ds, {.batch_size = 4, .num_workers = 2});
  for (auto& batch : loader) {
    EXPECT_EQ(values(batch.data), (std::vector<double>{0, 10, 20, 30}));
    EXPECT_EQ(values(batch.target), (std::vector<double>{100, 101, 102, 103}));
  }
  // TransformDataset over a shared dataset.
  auto shared = std::make_shared<data::TensorDataset>(base);
  data::TransformDataset twice(shared, [](const Tensor& x) { return x.mul(2); });
  EXPECT_EQ(twice.get(1).data.item<double>(), 2);
  EXPECT_THROW(data::TransformDataset(nullptr, [](const Tensor& x) { return x; }), RuntimeError);
}

}  // namespace
}  // namespace wick::testing
