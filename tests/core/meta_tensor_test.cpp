// tests/core/meta_tensor_test.cpp - tensors on the meta device: shapes and dtypes through the meta functions, no data.
/// \file
#include <gtest/gtest.h>

#include <string>

#include "wick/error.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

Device meta() { return Device(DeviceType::kMeta); }

class MetaTensor : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(MetaTensor, FactoriesMakeStoragelessTensors) {
  const Tensor t = ones({2, 3}, std::nullopt, meta());
  EXPECT_TRUE(t.device().is_meta());
  EXPECT_EQ(t.sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(t.data_ptr(), nullptr);
  EXPECT_EQ(Device::parse("meta"), meta());
  // No memory: a size no host could hold is fine.
  const Tensor huge = empty({std::int64_t{1} << 40}, std::nullopt, meta());
  EXPECT_EQ(huge.numel(), std::int64_t{1} << 40);
}

TEST_F(MetaTensor, ElementwiseOperatorsRunThroughTheirMetaFunctions) {
  const Tensor a = ones({4, 1}, ScalarType::kInt64, meta());
  const Tensor b = ones({3}, ScalarType::kFloat64, meta());
  const Tensor c = a + b;
  EXPECT_EQ(c.sizes().vec(), (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(c.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(wick::exp(a).dtype(), ScalarType::kFloat32);  // float function of an integer
  EXPECT_EQ(wick::gt(a, 0).dtype(), ScalarType::kBool);
  EXPECT_EQ(wick::div(a, a).dtype(), ScalarType::kFloat32);
  // The same checks as on the CPU.
  EXPECT_THROW((void)(ones({2}, std::nullopt, meta()) + ones({3}, std::nullopt, meta())), RuntimeError);
  EXPECT_THROW((void)wick::neg(ones({2}, ScalarType::kBool, meta())), RuntimeError);
  // Mixing devices is PyTorch's error (a Python number is fine).
  EXPECT_EQ((b * 2).dtype(), ScalarType::kFloat64);
  try {
    (void)(b + ones({3}, ScalarType::kFloat64));
    ADD_FAILURE() << "meta + cpu must fail";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("found at least two devices, meta and cpu"), std::string::npos) << e.what();
  }
}

TEST_F(MetaTensor, OutVariantsAndInPlaceOperators) {
  Tensor out = empty({1}, ScalarType::kFloat64, meta());
  add_out(out, ones({2, 2}, std::nullopt, meta()), ones({2}, std::nullopt, meta()));
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(out.dtype(), ScalarType::kFloat64);
  Tensor x = zeros({3}, std::nullopt, meta());
  const std::uint32_t before = x.version();
  x.add_(ones({3}, std::nullopt, meta()));
  x.exp_();
  EXPECT_GT(x.version(), before);
  // Copying in is allowed, copying out is not: there is no data.
  Tensor dst = zeros({3}, std::nullopt, meta());
  dst.copy_(ones({3}));
  EXPECT_THROW((void)x.cpu(), NotImplementedError);
  EXPECT_THROW((void)zeros({}, std::nullopt, meta()).item(), RuntimeError);
}

TEST_F(MetaTensor, PrintsAsPyTorchDoes) {
  EXPECT_EQ(ones({2, 3}, std::nullopt, meta()).repr(), "tensor(..., device='meta', size=(2, 3))");
  EXPECT_EQ(ones({2}, ScalarType::kInt64, meta()).repr(), "tensor(..., device='meta', size=(2,), dtype=torch.int64)");
  EXPECT_EQ(ones({2}, ScalarType::kInt32, meta()).repr(),
            "tensor(..., device='meta', dtype=torch.int32, size=(2,), dtype=torch.int32)");
  EXPECT_EQ(empty({0}, std::nullopt, meta()).repr(), "tensor([], device='meta')");
}

}  // namespace
}  // namespace wick
