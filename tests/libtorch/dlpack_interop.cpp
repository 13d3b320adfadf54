// tests/libtorch/dlpack_interop.cpp - tensors move between wick and libtorch through DLPack without copying.
/// \file
/// Built as wick_libtorch_tests where Debian's libtorch-dev is installed
/// (tests/CMakeLists.txt); libtorch is never a dependency of wick itself.
#include <ATen/DLConvertor.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <wick/dlpack.h>
#include <wick/wick.h>

namespace {

class LibtorchDlpack : public ::testing::Test {
 protected:
  void SetUp() override { wick::init(); }
};

TEST_F(LibtorchDlpack, WickToLibtorchSharesMemory) {
  wick::Tensor x = wick::arange(12, wick::kFloat32).reshape({3, 4}).t();
  at::Tensor a = at::fromDLPack(wick::to_dlpack(x));
  EXPECT_EQ(a.data_ptr(), x.data_ptr());
  EXPECT_EQ(a.sizes().vec(), x.sizes().vec());
  EXPECT_EQ(a.strides().vec(), x.strides().vec());
  EXPECT_EQ(a.dtype(), at::kFloat);
  a.mul_(2);  // libtorch writes wick's memory
  EXPECT_EQ(x.index({1, 2}).item<float>(), 18.0f);
  EXPECT_FLOAT_EQ(a.sum().item<float>(), 132.0f);
}

TEST_F(LibtorchDlpack, LibtorchToWickSharesMemory) {
  at::Tensor a = torch::arange(6, torch::kFloat64).reshape({2, 3}).narrow(1, 1, 2);
  wick::Tensor x = wick::from_dlpack(at::toDLPack(a));
  EXPECT_EQ(x.data_ptr(), a.data_ptr());
  EXPECT_EQ(x.dtype(), wick::kFloat64);
  EXPECT_EQ(x.repr(), "tensor([[1., 2.],\n        [4., 5.]], dtype=torch.float64)");
  x.add_(10);
  EXPECT_DOUBLE_EQ(a[1][1].item<double>(), 15.0);
  // Each dtype makes the round trip libtorch -> wick -> libtorch unchanged, in the same memory.
  for (auto t : {torch::kFloat32, torch::kFloat16, torch::kBFloat16, torch::kInt64, torch::kInt32, torch::kInt16,
                 torch::kInt8, torch::kUInt8, torch::kComplexFloat, torch::kComplexDouble}) {
    at::Tensor s = torch::ones({3}, t);
    wick::Tensor w = wick::from_dlpack(at::toDLPack(s));
    EXPECT_EQ(w.data_ptr(), s.data_ptr());
    at::Tensor back = at::fromDLPack(wick::to_dlpack(w));
    EXPECT_EQ(back.scalar_type(), t);
    EXPECT_EQ(back.data_ptr(), s.data_ptr());
  }
}

}  // namespace
