// tests/core/tensor_api_test.cpp - the libtorch-style tensor API: literals, TensorOptions, from_blob, accessors, Scalar overloads, indexing, InferenceMode, threads.
/// \file
/// Expected texts are PyTorch 1.13's reprs of the same Python expressions.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <wick/autograd.h>
#include <wick/backends.h>
#include <wick/loader.h>
#include <wick/ops.h>

namespace wick {
namespace {

using namespace wick::indexing;  // NOLINT(google-build-using-namespace): as libtorch programs read

std::string str(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}
std::vector<std::int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

class TensorApi : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(TensorApi, BracedLiteralsInferTheDtypeAsTorchTensor) {
  const Tensor m = tensor({{1., 2.}, {3., 4.}});
  EXPECT_EQ(m.dtype(), kFloat32);
  EXPECT_EQ(str(m), "tensor([[1., 2.],\n        [3., 4.]])");
  EXPECT_EQ(tensor({1, 2, 3}).dtype(), kInt64);
  EXPECT_EQ(str(tensor({true, false})), "tensor([ True, False])");
  EXPECT_EQ(str(tensor(2.5)), "tensor(2.5000)");
  EXPECT_EQ(str(tensor({1, 2.5})), "tensor([1.0000, 2.5000])");
  EXPECT_EQ(tensor({{1, 2}}, kFloat64).dtype(), kFloat64);
  EXPECT_EQ(shape(tensor({{{1}, {2}}, {{3}, {4}}})), (std::vector<std::int64_t>{2, 2, 1}));
  EXPECT_EQ(tensor(Value(std::vector<double>{1, 2})).numel(), 2);
  EXPECT_THROW((void)tensor({{1., 2.}, {3.}}), ValueError);
}

TEST_F(TensorApi, TensorOptionsReachEveryCreationFunction) {
  const auto opts = TensorOptions().dtype(kFloat64).requires_grad(true);
  const Tensor w = randn({3, 4}, opts);
  EXPECT_EQ(w.dtype(), kFloat64);
  EXPECT_TRUE(w.requires_grad());
  EXPECT_TRUE(w.is_leaf());
  const TensorOptions o = w.options();
  EXPECT_EQ(o.dtype(), kFloat64);
  EXPECT_TRUE(o.device().is_cpu());
  EXPECT_TRUE(o.requires_grad());
  const Tensor z = zeros_like(w, w.options());
  EXPECT_EQ(z.dtype(), kFloat64);
  EXPECT_TRUE(z.requires_grad());
  EXPECT_EQ(str(arange(10, dtype(kInt32))), "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], dtype=torch.int32)");
  // A bare dtype or device where libtorch's implicit TensorOptions would go.
  EXPECT_EQ(str(arange(4, kFloat64)), "tensor([0., 1., 2., 3.], dtype=torch.float64)");
  EXPECT_EQ(str(arange(1, 3, kInt32)), "tensor([1, 2], dtype=torch.int32)");
  EXPECT_EQ(str(zeros({2}, kCPU)), "tensor([0., 0.])");
  EXPECT_EQ(str(eye(2, kInt64)), "tensor([[1, 0],\n        [0, 1]])");
  EXPECT_EQ(str(arange(0, 10, 3, dtype(kFloat64))), "tensor([0., 3., 6., 9.], dtype=torch.float64)");
  EXPECT_EQ(str(full({2}, 7, dtype(kInt64).device(kCPU))), "tensor([7, 7])");
  EXPECT_EQ(str(eye(2, 3, dtype(kInt64))), "tensor([[1, 0, 0],\n        [0, 1, 0]])");
  EXPECT_EQ(str(tensor({1, 2}, dtype(kFloat64))), "tensor([1., 2.], dtype=torch.float64)");
  // Unset fields keep the function's defaults: float32 for ones, int64 for arange of ints.
  EXPECT_EQ(ones({2}, requires_grad()).dtype(), kFloat32);
  EXPECT_EQ(arange(3, TensorOptions()).dtype(), kInt64);
  // The plain overloads still take a bare dtype.
  EXPECT_EQ(zeros({2}, kFloat16).dtype(), kFloat16);
  // Integer tensors cannot require grad.
  EXPECT_THROW((void)zeros({2}, dtype(kInt64).requires_grad(true)), RuntimeError);
  EXPECT_EQ(kFloat, ScalarType::kFloat32);
  EXPECT_EQ(kLong, ScalarType::kInt64);
  EXPECT_EQ(Device(kCUDA, 1).str(), "cuda:1");
}

TEST_F(TensorApi, FromBlobSharesMemoryAndRunsTheDeleterOnce) {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  int deleted = 0;
  void* seen = nullptr;
  {
    Tensor t = from_blob(data.data(), {2, 3}, [&](void* p) {
      ++deleted;
      seen = p;
    });
    EXPECT_EQ(t.dtype(), kFloat32);
    EXPECT_EQ(str(t), "tensor([[1., 2., 3.],\n        [4., 5., 6.]])");
    Tensor view = t[1];
    t.mul_(2);  // writes the caller's memory
    EXPECT_EQ(data[5], 12.0f);
    t = Tensor();
    EXPECT_EQ(deleted, 0);  // the view still holds the memory
    EXPECT_EQ(str(view), "tensor([ 8., 10., 12.])");
  }
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(seen, data.data());

  std::vector<double> d{1, 2, 3, 4, 5, 6};
  const Tensor strided = from_blob(d.data(), {3, 2}, {1, 3}, dtype(kFloat64).requires_grad(true));
  EXPECT_EQ(str(strided.detach()), "tensor([[1., 4.],\n        [2., 5.],\n        [3., 6.]], dtype=torch.float64)");
  EXPECT_TRUE(strided.requires_grad());
  EXPECT_THROW((void)from_blob(nullptr, {2}), RuntimeError);
  EXPECT_EQ(from_blob(nullptr, {0}).numel(), 0);
  EXPECT_THROW((void)from_blob(d.data(), {2}, {-1}), RuntimeError);
}

TEST_F(TensorApi, AccessorsReadAndWriteElements) {
  Tensor t = arange(6, kFloat32).reshape({2, 3});  // libtorch: torch::arange(6, torch::kFloat32)
  auto a = t.accessor<float, 2>();
  EXPECT_EQ(a.size(0), 2);
  EXPECT_EQ(a[1][2], 5.0f);
  a[0][1] = 10;
  EXPECT_EQ(t.index({0, 1}).item<float>(), 10.0f);
  const Tensor col = t.t();  // strided: the accessor follows the strides
  auto c = col.accessor<float, 2>();
  EXPECT_EQ(c[2][1], 5.0f);
  EXPECT_THROW((void)(t.accessor<double, 2>()), TypeError);
  EXPECT_THROW((void)(t.accessor<float, 3>()), RuntimeError);
}

TEST_F(TensorApi, ScalarOverloadsWhereTheSchemaTakesANumber) {
  Tensor x = tensor({1., 2., 4.});
  EXPECT_EQ(str(x.add(2)), "tensor([3., 4., 6.])");
  EXPECT_EQ(str(pow(x, 2)), "tensor([ 1.,  4., 16.])");
  EXPECT_EQ(str(x.sub(1, 2)), "tensor([-1.,  0.,  2.])");
  x.mul_(0.5);
  EXPECT_EQ(str(x), "tensor([0.5000, 1.0000, 2.0000])");
  x.add_(1).div_(2);
  EXPECT_EQ(str(x), "tensor([0.7500, 1.0000, 1.5000])");
  EXPECT_EQ(str(x.gt(1)), "tensor([False, False,  True])");
  EXPECT_EQ(str(where(x.gt(1), x, 0.0)), "tensor([0.0000, 0.0000, 1.5000])");
}

TEST_F(TensorApi, IndexReadsAsPythonSubscripts) {
  const Tensor x = arange(24.).reshape({2, 3, 4});
  EXPECT_EQ(str(x[1]), "tensor([[12., 13., 14., 15.],\n        [16., 17., 18., 19.],\n        [20., 21., 22., 23.]])");
  EXPECT_EQ(x[1].storage().get(), x.storage().get());  // a view
  EXPECT_EQ(shape(x.index({Slice(), Slice(1, None, 2), None, Ellipsis})), (std::vector<std::int64_t>{2, 1, 1, 4}));
  EXPECT_EQ(str(x.index({"...", Slice(None, None, 3)})),
            "tensor([[[ 0.,  3.],\n         [ 4.,  7.],\n         [ 8., 11.]],\n\n"
            "        [[12., 15.],\n         [16., 19.],\n         [20., 23.]]])");
  const Tensor m = tensor({true, false, true});
  EXPECT_EQ(str(x.index({Slice(), m, 0})), "tensor([[ 0.,  8.],\n        [12., 20.]])");
  EXPECT_EQ(str(x.index({0, tensor({2, 0}), Slice(1, 3)})), "tensor([[ 9., 10.],\n        [ 1.,  2.]])");
  EXPECT_EQ(str(x.index({None, 1, Ellipsis, -1})), "tensor([[15., 19., 23.]])");
  EXPECT_EQ(shape(x.index({true})), (std::vector<std::int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(shape(x.index({false})), (std::vector<std::int64_t>{0, 2, 3, 4}));
  EXPECT_EQ(shape(x.index({1, Slice(0, 0)})), (std::vector<std::int64_t>{0, 4}));
  EXPECT_EQ(str(x.index({0, Slice(2, 100, 2)})), "tensor([[ 8.,  9., 10., 11.]])");
  EXPECT_EQ(str(arange(5)[tensor(3)]), "tensor(3)");
  EXPECT_EQ(str(arange(5)[tensor({4, -5})]), "tensor([4, 0])");
}

TEST_F(TensorApi, IndexErrorsAreTyped) {
  const Tensor x = zeros({2, 3});
  EXPECT_THROW((void)x.index({0, 0, 0}), IndexError);
  EXPECT_THROW((void)x.index({Ellipsis, Ellipsis}), IndexError);
  EXPECT_THROW((void)x.index({Slice(None, None, -1)}), ValueError);
  EXPECT_THROW((void)x.index({tensor({0.5})}), IndexError);
  EXPECT_THROW((void)x.index({"..x"}), TypeError);
  try {
    (void)x[5];
    FAIL() << "no IndexError";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("index 5 is out of bounds for dimension 0 with size 2"), std::string::npos)
        << e.what();
  }
}

TEST_F(TensorApi, IndexPutWritesAsPythonAssignment) {
  Tensor y = zeros({3, 4});
  y.index_put_({Slice(), 0}, 1.5);
  y.index_put_({tensor({0, 2}), Slice(1, 3)}, tensor({7., 8.}));
  y.index_put_({1}, arange(4.));
  EXPECT_EQ(str(y),
            "tensor([[1.5000, 7.0000, 8.0000, 0.0000],\n        [0.0000, 1.0000, 2.0000, 3.0000],\n"
            "        [1.5000, 7.0000, 8.0000, 0.0000]])");
  Tensor i = zeros({4}, kInt64);
  i.index_put_({Slice(1, None, 2)}, 3);
  EXPECT_EQ(str(i), "tensor([0, 3, 0, 3])");
}

TEST_F(TensorApi, IndexingRecordsTheGraph) {
  const Tensor z = arange(12.).reshape({3, 4}).requires_grad_();
  ASSERT_TRUE(z.index({Slice(None, None, 2), Slice(1, None)}).requires_grad());
  (z.index({Slice(None, None, 2), Slice(1, None)}) * tensor({1., 2., 3.})).sum().backward();
  EXPECT_EQ(str(z.grad()), "tensor([[0., 1., 2., 3.],\n        [0., 0., 0., 0.],\n        [0., 1., 2., 3.]])");
  const Tensor w = arange(6.).reshape({2, 3}).requires_grad_();
  w.index({tensor({{true, false, true}, {false, true, false}})}).pow(2).sum().backward();
  EXPECT_EQ(str(w.grad()), "tensor([[0., 0., 4.],\n        [0., 8., 0.]])");
  // Values written through an index get gradients too, and the overwritten
  // elements pass none back to the tensor written into.
  const Tensor v = tensor({2., 3.}).requires_grad_();
  const Tensor b0 = ones({2, 2}).requires_grad_();
  Tensor base = b0 * 1;
  base.index_put_({Slice(), 1}, v * 2);
  ASSERT_TRUE(base.requires_grad());
  (base * tensor({1., 5.})).sum().backward();
  EXPECT_EQ(str(v.grad()), "tensor([10., 10.])");
  EXPECT_EQ(str(b0.grad()), "tensor([[1., 0.],\n        [1., 0.]])");
  Tensor masked = b0 * 1;
  masked.index_put_({tensor({{true, false}, {false, true}})}, v);
  masked.sum().backward();
  EXPECT_EQ(str(v.grad()), "tensor([11., 11.])");
}

TEST_F(TensorApi, InferenceModeRecordsNothing) {
  const Tensor w = ones({2}).requires_grad_();
  EXPECT_FALSE(InferenceMode::is_enabled());
  {
    InferenceMode guard;
    EXPECT_TRUE(InferenceMode::is_enabled());
    const Tensor y = w * 2;
    EXPECT_FALSE(y.requires_grad());
    {
      InferenceMode off(false);
      EXPECT_FALSE(InferenceMode::is_enabled());
      EXPECT_TRUE((w * 2).requires_grad());
    }
    EXPECT_TRUE(InferenceMode::is_enabled());
  }
  EXPECT_FALSE(InferenceMode::is_enabled());
  EXPECT_TRUE((w * 2).requires_grad());
}

TEST_F(TensorApi, NumThreadsIsSetAndRead) {
  const int before = get_num_threads();
  EXPECT_GE(before, 1);
  const Tensor x = arange(1 << 20, kFloat64);
  const double parallel_sum = x.sum().item<double>();
  set_num_threads(1);
  EXPECT_EQ(get_num_threads(), 1);
  EXPECT_EQ(x.sum().item<double>(), parallel_sum);  // exact: integers in float64
  EXPECT_EQ(str((x * 2).index({Slice(-2)})), "tensor([2097148., 2097150.], dtype=torch.float64)");
  EXPECT_THROW(set_num_threads(0), ValueError);
  set_num_threads(before);
  EXPECT_EQ(get_num_threads(), before);
}

}  // namespace
}  // namespace wick
