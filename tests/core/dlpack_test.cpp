// tests/core/dlpack_test.cpp - wick::to_dlpack / from_dlpack: no copies, the deleter runs once, dtypes as PyTorch 1.13 maps them.
/// \file
/// The exchange with libtorch itself (at::fromDLPack / at::toDLPack) is
/// tests/libtorch/dlpack_interop.cpp, built where libtorch is installed.
#include <dlpack/dlpack.h>
#include <gtest/gtest.h>

#include <vector>

#include <wick/dlpack.h>
#include <wick/wick.h>

namespace wick {
namespace {

class DlPack : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(DlPack, RoundTripSharesMemory) {
  Tensor x = arange(12, kFloat32).reshape({3, 4}).t();  // strided, non-contiguous
  DLManagedTensor* m = to_dlpack(x);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->dl_tensor.ndim, 2);
  EXPECT_EQ(m->dl_tensor.shape[0], 4);
  EXPECT_EQ(m->dl_tensor.strides[0], 1);
  EXPECT_EQ(m->dl_tensor.strides[1], 4);
  EXPECT_EQ(m->dl_tensor.dtype.code, kDLFloat);
  EXPECT_EQ(m->dl_tensor.dtype.bits, 32);
  EXPECT_EQ(m->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(m->dl_tensor.data, x.data_ptr());
  Tensor y = from_dlpack(m);
  EXPECT_EQ(y.data_ptr(), x.data_ptr());
  EXPECT_TRUE(y.allclose(x, 0, 0));
  y.mul_(2);
  EXPECT_EQ(x.index({1, 2}).item<float>(), 18.0f);  // written through y
  // A view keeps x's memory alive after x and y go.
  const Tensor row = y[0];
  x = Tensor();
  y = Tensor();
  EXPECT_EQ(row.repr(), "tensor([ 0.,  8., 16.])");  // column 0 of the original, doubled
}

TEST_F(DlPack, DtypesMapAsPyTorchMapsThem) {
  struct Case {
    ScalarType t;
    std::uint8_t code, bits;
    ScalarType back;
  };
  const std::vector<Case> cases = {
      {kFloat32, kDLFloat, 32, kFloat32},   {kFloat64, kDLFloat, 64, kFloat64},   {kFloat16, kDLFloat, 16, kFloat16},
      {kBFloat16, kDLBfloat, 16, kBFloat16}, {kInt64, kDLInt, 64, kInt64},       {kInt32, kDLInt, 32, kInt32},
      {kInt16, kDLInt, 16, kInt16},         {kInt8, kDLInt, 8, kInt8},           {kUInt8, kDLUInt, 8, kUInt8},
      {kBool, kDLUInt, 8, kUInt8},          {kComplex64, kDLComplex, 64, kComplex64},
      {kComplex128, kDLComplex, 128, kComplex128}};
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(dtype_name(c.t)));
    const Tensor x = ones({2}, c.t);
    DLManagedTensor* m = to_dlpack(x);
    EXPECT_EQ(m->dl_tensor.dtype.code, c.code);
    EXPECT_EQ(m->dl_tensor.dtype.bits, c.bits);
    EXPECT_EQ(m->dl_tensor.dtype.lanes, 1);
    const Tensor y = from_dlpack(m);
    EXPECT_EQ(y.dtype(), c.back);
    EXPECT_EQ(y.data_ptr(), x.data_ptr());
  }
}

// A producer's tensor, as another library would hand it over.
struct Produced {
  std::vector<double> data{1, 2, 3, 4, 5, 6};
  std::vector<std::int64_t> shape{2, 3};
  DLManagedTensor managed{};
  int* deleted = nullptr;
};

DLManagedTensor* produce(int* deleted, DLDataType dtype = {kDLFloat, 64, 1}, DLDeviceType device = kDLCPU) {
  auto* p = new Produced();
  p->deleted = deleted;
  DLTensor& t = p->managed.dl_tensor;
  t.data = p->data.data();
  t.device = {device, 0};
  t.ndim = 2;
  t.dtype = dtype;
  t.shape = p->shape.data();
  t.strides = nullptr;  // compact row-major
  t.byte_offset = sizeof(double);
  p->shape[1] = 2;  // with the offset: [[2, 3], [4, 5]]
  p->managed.manager_ctx = p;
  p->managed.deleter = [](DLManagedTensor* self) {
    auto* owner = static_cast<Produced*>(self->manager_ctx);
    ++*owner->deleted;
    delete owner;
  };
  return &p->managed;
}

TEST_F(DlPack, ImportedMemoryIsReleasedOnceByItsDeleter) {
  int deleted = 0;
  {
    const Tensor t = from_dlpack(produce(&deleted));
    EXPECT_EQ(t.dtype(), kFloat64);
    EXPECT_EQ(t.repr(), "tensor([[2., 3.],\n        [4., 5.]], dtype=torch.float64)");
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1);
  // Refused inputs are released too, with a RuntimeError.
  EXPECT_THROW((void)from_dlpack(produce(&deleted, {kDLFloat, 32, 4})), RuntimeError);
  EXPECT_EQ(deleted, 2);
  EXPECT_THROW((void)from_dlpack(produce(&deleted, {kDLFloat, 64, 1}, kDLOpenCL)), RuntimeError);
  EXPECT_EQ(deleted, 3);
  EXPECT_THROW((void)from_dlpack(produce(&deleted, {kDLOpaqueHandle, 64, 1})), RuntimeError);
  EXPECT_EQ(deleted, 4);
  EXPECT_THROW((void)from_dlpack(nullptr), RuntimeError);
  EXPECT_THROW((void)to_dlpack(Tensor()), RuntimeError);
  EXPECT_THROW((void)to_dlpack(empty({2}, std::nullopt, Device(DeviceType::kMeta))), RuntimeError);
}

}  // namespace
}  // namespace wick
