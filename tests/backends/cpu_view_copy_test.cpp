// tests/backends/cpu_view_copy_test.cpp - the *_copy functions, unsafe_* splits, adjoint, index_reduce, the old lu and is_nonzero.
/// \file
/// Values and messages against PyTorch 1.13 (the differential test prints
/// every sample next to PyTorch's); here what the printed values cannot
/// show: a copy shares nothing with its source, gradients, and errors.
#include <gtest/gtest.h>

#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/autograd.h"
#include "wick/gradcheck.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using Doubles = std::vector<double>;

Doubles values(const Tensor& t) {
  const Tensor c = t.detach().contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return Doubles(p, p + c.numel());
}
Tensor seq(IntArrayRef sizes) {
  I64 n = 1;
  for (const I64 s : sizes) n *= s;
  return arange(0, n, 1, ScalarType::kFloat64).mul(0.7).add(0.3).reshape(sizes);
}

class CpuViewCopy : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(CpuViewCopy, CopiesAreContiguousAndShareNothing) {
  const Tensor x = seq({3, 4});
  const std::vector<Tensor> copies = {
      transpose_copy(x, 0, 1), t_copy(x), permute_copy(x, {1, 0}), diagonal_copy(x, 1),
      select_copy(x, 1, 2), slice_copy(x, 1, 1, std::nullopt, 2), narrow_copy(x, 0, 1, 2),
      expand_copy(x.unsqueeze(0), {2, 3, 4}), unsqueeze_copy(x, 0), squeeze_copy(x.unsqueeze(1)),
      squeeze_copy(x.unsqueeze(1), 1), view_copy(x, {4, 3}), unfold_copy(x, 1, 2, 1), alias_copy(x),
      as_strided_copy(x, {2, 2}, {1, 4}, 1), detach_copy(x), view_as_real_copy(x.to(ScalarType::kComplex128)),
      view_as_complex_copy(x.reshape({6, 2}))};
  for (const Tensor& c : copies) {
    EXPECT_TRUE(c.is_contiguous());
    EXPECT_NE(c.data_ptr(), x.data_ptr());
  }
  EXPECT_EQ(values(transpose_copy(x, 0, 1)), values(x.t()));
  EXPECT_EQ(values(diagonal_copy(x, 1)), values(x.diagonal(1)));
  EXPECT_EQ(values(as_strided_copy(x, {2, 2}, {1, 4}, 1)), values(x.as_strided({2, 2}, {1, 4}, 1)));
  for (const Tensor& part : split_copy(x, 2, 1)) EXPECT_NE(part.data_ptr(), x.data_ptr());
  EXPECT_EQ(split_with_sizes_copy(x, {1, 2}, 0).size(), 2u);
  EXPECT_EQ(values(unbind_copy(x, 1)[3]), values(x.select(1, 3)));
  // Writing into a copy leaves the source alone.
  Tensor c = select_copy(x, 0, 0);
  c.fill_(-1.0);
  EXPECT_EQ(values(x)[0], 0.3);
  // The view's checks are the copy's.
  WICK_EXPECT_THROW_MSG(select_copy(x, 2, 0), IndexError, "Dimension out of range");
  WICK_EXPECT_THROW_MSG(view_copy(x, {5, 3}), RuntimeError, "shape '[5, 3]' is invalid for input of size 12");
}

TEST_F(CpuViewCopy, CopiesDifferentiateAsTheirViewsAndDetachCopyHasNoDerivative) {
  const auto fn = [](const autograd::tensor_list& in) { return diagonal_copy(unfold_copy(in[0], 1, 3, 1), 0, 1, 2); };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), {seq({2, 5}).requires_grad_()}));
  const auto parts = [](const autograd::tensor_list& in) { return split_copy(in[0], 2, 0)[1].mul(3.0); };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(parts), {seq({5, 2}).requires_grad_()}));
  const Tensor x = seq({2, 3}).requires_grad_();
  const Tensor d = detach_copy(x);
  EXPECT_TRUE(d.requires_grad());  // as PyTorch 1.13's: its backward is not implemented
  WICK_EXPECT_THROW_MSG(d.sum().backward(), Error, "detach_copy");
}

TEST_F(CpuViewCopy, UnsafeSplitsAdjointAndIsNonzero) {
  const Tensor x = seq({5, 2});
  const std::vector<Tensor> chunks = unsafe_chunk(x, 3);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(values(chunks[2]), values(x.narrow(0, 4, 1)));
  EXPECT_EQ(unsafe_split(x, 2).size(), 3u);
  EXPECT_EQ(unsafe_split_with_sizes(x, {4, 1}).back().size(0), 1);
  const Tensor z = complex(seq({2, 3}), seq({2, 3}).neg());
  EXPECT_TRUE(equal(adjoint(z), z.transpose(0, 1).conj()));
  EXPECT_TRUE(equal(adjoint(seq({})), seq({})));
  WICK_EXPECT_THROW_MSG(adjoint(seq({3})), RuntimeError,
                        "tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor.");
  EXPECT_TRUE(is_nonzero(full({1, 1}, std::nan(""))));
  EXPECT_FALSE(zeros({}, ScalarType::kInt64).is_nonzero());
  WICK_EXPECT_THROW_MSG(is_nonzero(zeros({2})), RuntimeError, "Boolean value of Tensor with more than one value is "
                                                              "ambiguous");
  WICK_EXPECT_THROW_MSG(is_nonzero(zeros({0})), RuntimeError, "Boolean value of Tensor with no values is ambiguous");
}

TEST_F(CpuViewCopy, IndexReduceMatchesPyTorch) {
  const Tensor x = arange(0, 12, 1, ScalarType::kFloat32).reshape({3, 4});
  const Tensor s = full({2, 4}, 2.0);
  const Tensor i = tensor(Value(std::vector<I64>{0, 2}));
  // PyTorch 1.13: x.index_reduce(0, [0, 2], 2 * ones(2, 4), 'prod').
  EXPECT_EQ(values(x.index_reduce(0, i, s, "prod")), (Doubles{0, 2, 4, 6, 4, 5, 6, 7, 16, 18, 20, 22}));
  // x.index_reduce(1, [1, 1, 3], ones(3, 3), 'mean', include_self=False).
  EXPECT_EQ(values(x.index_reduce(1, tensor(Value(std::vector<I64>{0, 0, 2})), ones({3, 3}), "amax", false)),
            (Doubles{1, 1, 1, 3, 1, 5, 1, 7, 1, 9, 1, 11}));
  // Integers divide with floor: (0 + 1 + 1) / 3 = 0.
  const Tensor n = arange(0, 6, 1, ScalarType::kInt64).reshape({2, 3});
  EXPECT_EQ(values(n.index_reduce(0, tensor(Value(std::vector<I64>{0, 0})), ones({2, 3}, ScalarType::kInt64), "mean")),
            (Doubles{0, 1, 1, 3, 4, 5}));
  Tensor y = x.clone();
  y.index_reduce_(0, i, s, "amin");
  EXPECT_EQ(values(y)[0], 0.0);
  EXPECT_EQ(values(y)[8], 2.0);
  WICK_EXPECT_THROW_MSG(x.index_reduce(0, i, s, "sum"), RuntimeError,
                        "Expected reduce to be one of prod, mean, amax or amin but got sum.");
  WICK_EXPECT_THROW_MSG(x.index_reduce(0, i.to(ScalarType::kFloat32), s, "prod"), RuntimeError,
                        "Expected dtype int32/int64 for index but got: Float");
  WICK_EXPECT_THROW_MSG(x.index_reduce(0, tensor(Value(std::vector<I64>{0, -1})), s, "prod"), IndexError,
                        "index out of range in self");
  WICK_EXPECT_THROW_MSG(x.index_reduce(0, i, s.to(ScalarType::kFloat64), "prod"), RuntimeError,
                        "self (Float) and source (Double) must have the same scalar type");
  WICK_EXPECT_THROW_MSG(x.index_reduce(0, tensor(Value(std::vector<I64>{0, 1, 2})), s, "prod"), RuntimeError,
                        "Number of indices (3) should be equal to source.size(dim): (2), for dim: 0");
  for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
    const auto fn = [reduce](const autograd::tensor_list& in) {
      return index_reduce(in[0], 0, tensor(Value(std::vector<I64>{2, 0, 2})), in[1], reduce, false);
    };
    EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fn), {seq({3, 2}).requires_grad_(),
                                                                 seq({3, 2}).mul(-0.5).requires_grad_()}))
        << reduce;
  }
}

TEST_F(CpuViewCopy, OldLuGivesFactorsAndInfo) {
  const Tensor a = tensor(Value(std::vector<double>{1, 2, 2, 4})).reshape({2, 2});
  const Value two = lu(a);
  ASSERT_EQ(two.items().size(), 2u);
  EXPECT_EQ(values(two.items()[0].to_tensor()), (Doubles{2, 4, 0.5, 0}));
  EXPECT_EQ(values(two.items()[1].to_tensor()), (Doubles{2, 2}));
  const Value three = lu(a, true, true);
  ASSERT_EQ(three.items().size(), 3u);
  EXPECT_EQ(values(three.items()[2].to_tensor()), (Doubles{2}));  // singular: U[1, 1] is zero, no error
}

}  // namespace
}  // namespace wick
