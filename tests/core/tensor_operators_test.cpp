// tests/core/tensor_operators_test.cpp - the C++ operators on tensors, as Python's operators on torch tensors.
/// \file
/// Every arithmetic, comparison, bitwise and compound-assignment operator,
/// with a number on either side (`2 * x`, `1 - x`, `x > 0`, `x &= m`), and
/// `os << x`. Values and dtypes are what PyTorch 1.13 gives for the same
/// Python expressions (its promotion of Python numbers included).
#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include <wick/autograd.h>
#include <wick/loader.h>
#include <wick/ops.h>
#include <wick/override.h>

namespace wick {
namespace {

Tensor floats(std::vector<double> v) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), ScalarType::kFloat32);
}
Tensor ints(std::vector<std::int64_t> v) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), ScalarType::kInt64);
}
std::string str(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

class TensorOperators : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(TensorOperators, ArithmeticWithNumbersOnEitherSide) {
  const Tensor x = floats({1, 2, 4});
  EXPECT_EQ(str(x + x), "tensor([2., 4., 8.])");
  EXPECT_EQ(str(2 * x), "tensor([2., 4., 8.])");
  EXPECT_EQ(str(x * 2), "tensor([2., 4., 8.])");
  EXPECT_EQ(str(1 - x), "tensor([ 0., -1., -3.])");
  EXPECT_EQ(str(x - 1), "tensor([0., 1., 3.])");
  EXPECT_EQ(str(1 + x), "tensor([2., 3., 5.])");
  EXPECT_EQ(str(4 / x), "tensor([4., 2., 1.])");
  EXPECT_EQ(str(x / 2), "tensor([0.5000, 1.0000, 2.0000])");
  EXPECT_EQ(str(x % 3), "tensor([1., 2., 1.])");
  EXPECT_EQ(str(7 % x), "tensor([0., 1., 3.])");
  EXPECT_EQ(str(-x), "tensor([-1., -2., -4.])");
  EXPECT_EQ(str(+x), "tensor([1., 2., 4.])");
  // A Python float meeting an integer tensor promotes to the default float dtype.
  const Tensor i = ints({1, 2, 3});
  EXPECT_EQ(str(i * 2.5), "tensor([2.5000, 5.0000, 7.5000])");
  EXPECT_EQ(str(1 - i), "tensor([ 0, -1, -2])");
  EXPECT_EQ(str(7 / i), "tensor([7.0000, 3.5000, 2.3333])");
  EXPECT_EQ(str(-7 % i), "tensor([0, 1, 2])");
}

TEST_F(TensorOperators, ComparisonsReflectAsPythonDoes) {
  const Tensor x = floats({-1, 0, 2});
  EXPECT_EQ(str(x > 0), "tensor([False, False,  True])");
  EXPECT_EQ(str(0 < x), "tensor([False, False,  True])");
  EXPECT_EQ(str(0 >= x), "tensor([ True,  True, False])");
  EXPECT_EQ(str(x <= 0), "tensor([ True,  True, False])");
  EXPECT_EQ(str(x == 0), "tensor([False,  True, False])");
  EXPECT_EQ(str(2 == x), "tensor([False, False,  True])");
  EXPECT_EQ(str(x != x), "tensor([False, False, False])");
  EXPECT_EQ(str(x < floats({0, 0, 0})), "tensor([ True, False, False])");
}

TEST_F(TensorOperators, BitwiseAndLogicalOperators) {
  const Tensor a = ints({12, 10, 7});
  EXPECT_EQ(str(a & 6), "tensor([4, 2, 6])");
  EXPECT_EQ(str(6 & a), "tensor([4, 2, 6])");
  EXPECT_EQ(str(a | 1), "tensor([13, 11,  7])");
  EXPECT_EQ(str(a ^ a), "tensor([0, 0, 0])");
  EXPECT_EQ(str(3 ^ a), "tensor([15,  9,  4])");
  EXPECT_EQ(str(a << 2), "tensor([48, 40, 28])");
  EXPECT_EQ(str(1 << ints({0, 3})), "tensor([1, 8])");
  EXPECT_EQ(str(a >> 1), "tensor([6, 5, 3])");
  EXPECT_EQ(str(64 >> ints({1, 3})), "tensor([32,  8])");
  EXPECT_EQ(str(~a), "tensor([-13, -11,  -8])");
  const Tensor x = floats({-1, 0, 2});
  const Tensor m = (x > 0) | (x < 0);
  EXPECT_EQ(str(m), "tensor([ True, False,  True])");
  EXPECT_EQ(str(~m), "tensor([False,  True, False])");
  EXPECT_EQ(str(m & (x > 0)), "tensor([False, False,  True])");
  // Bitwise operators refuse floats, with PyTorch's message.
  EXPECT_THROW((void)(x & 1), RuntimeError);
}

TEST_F(TensorOperators, CompoundAssignmentsWriteIntoTheTensor) {
  Tensor x = floats({1, 2, 4});
  const Tensor alias = x;
  x += 1;
  x *= 2;
  x -= floats({1, 1, 1});
  x /= 2;
  EXPECT_EQ(str(alias), "tensor([1.5000, 2.5000, 4.5000])");  // the same tensor, written in place
  x %= 2;
  EXPECT_EQ(str(x), "tensor([1.5000, 0.5000, 0.5000])");
  Tensor m = ints({12, 10, 7});
  m &= 6;
  m |= ints({1, 0, 0});
  m ^= 1;
  m <<= 1;
  m >>= 1;
  EXPECT_EQ(str(m), "tensor([4, 3, 7])");
  // In place keeps the dtype: a float result cannot go into an integer tensor.
  Tensor i = ints({1, 2});
  EXPECT_THROW(i *= 1.5, RuntimeError);
  EXPECT_EQ(str(i), "tensor([1, 2])");  // nothing written
}

TEST_F(TensorOperators, OperatorsRecordGradients) {
  const Tensor x = floats({1, 2, 3}).requires_grad_();
  const Tensor y = (2 * x * x - 1 / x).sum();
  y.backward();
  EXPECT_EQ(str(x.grad()), "tensor([ 5.0000,  8.2500, 12.1111])");
}

TEST_F(TensorOperators, PrintingGivesPyTorchsRepr) {
  std::ostringstream os;
  os << floats({1.5, -2}) << " and " << ints({3});
  EXPECT_EQ(os.str(), "tensor([ 1.5000, -2.0000]) and tensor([3])");
}

}  // namespace
}  // namespace wick
