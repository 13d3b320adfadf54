// tests/backends/cpu_linalg_test.cpp - addmm, mv, dot and outer on the CPU backend.
/// \file
/// Values, dtypes, broadcasting, BLAS strides and the errors of PyTorch 1.13
/// (messages taken from it); gradients are checked by the catalog-walking
/// gradcheck in tests/autograd/formula_coverage_test.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "wick/autograd.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

Tensor vec(std::vector<double> v, ScalarType t = ScalarType::kFloat32) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), t);
}

std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const RuntimeError& e) {
    return e.what();
  }
  return "no error";
}

class CpuLinalg : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

TEST_F(CpuLinalg, AddmmScalesAndBroadcastsSelf) {
  Tensor m1 = vec({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  Tensor m2 = arange(12, std::nullopt, 1, ScalarType::kFloat32).reshape({3, 4});
  Tensor bias = vec({1, -1, 2, -2});
  Tensor r = addmm(bias, m1, m2, 0.5, 2);
  EXPECT_EQ(r.sizes().vec(), (std::vector<std::int64_t>{2, 4}));
  EXPECT_EQ(r.dtype(), ScalarType::kFloat32);
  // torch.addmm(bias, m1, m2, beta=0.5, alpha=2)
  EXPECT_EQ(values(r), (std::vector<double>{64.5, 75.5, 89, 99, 136.5, 165.5, 197, 225}));
  // A transposed operand goes to BLAS as a flag: same result as its copy.
  Tensor m2t = m2.t().contiguous().t();
  EXPECT_EQ(values(addmm(bias, m1, m2t, 0.5, 2)), values(r));
  // A column bias broadcasts along rows; 2-D self is used as is.
  EXPECT_EQ(values(addmm(vec({100, 200}).reshape({2, 1}), m1, m2)),
            (std::vector<double>{132, 138, 144, 150, 268, 283, 298, 313}));
}

TEST_F(CpuLinalg, AddmmBetaZeroIgnoresSelfAndIntegersTruncateScalars) {
  Tensor m1 = ones({2, 3});
  Tensor m2 = ones({3, 4});
  Tensor nan = full({}, std::numeric_limits<double>::quiet_NaN());
  EXPECT_EQ(values(addmm(nan, m1, m2, 0)), std::vector<double>(8, 3.0));  // NaN * 0 is not propagated
  Tensor i1 = ones({2, 3}, ScalarType::kInt64);
  Tensor i2 = ones({3, 4}, ScalarType::kInt64);
  Tensor ib = ones({4}, ScalarType::kInt64);
  Tensor r = addmm(ib, i1, i2, 2, 3);
  EXPECT_EQ(r.dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(r), std::vector<double>(8, 11.0));
  EXPECT_EQ(values(addmm(ib, i1, i2, 0.5)), std::vector<double>(8, 3.0));  // beta becomes int 0
  // k == 0: only beta * self remains.
  EXPECT_EQ(values(addmm(ones({2, 4}), ones({2, 0}), ones({0, 4}), 3)), std::vector<double>(8, 3.0));
}

TEST_F(CpuLinalg, AddmmErrorsNameTheArgument) {
  Tensor m = ones({2, 3});
  EXPECT_NE(error_of([&] { (void)addmm(ones({4}), m, ones({2, 4})); })
                .find("torch.addmm: mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)addmm(ones({4}), ones({3}), ones({2, 4})); })
                .find("torch.addmm: mat1 must be a matrix, got 1-D tensor"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)addmm(ones({4}), m, ones({3})); }).find("mat2 must be a matrix, got 1-D tensor"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)addmm(ones({4}, ScalarType::kFloat64), m, ones({3, 4})); })
                .find("self and mat2 must have the same dtype"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)addmm(ones({5}), m, ones({3, 4})); })
                .find("The expanded size of the tensor (4) must match the existing size (5) at non-singleton "
                      "dimension 1"),
            std::string::npos);
}

TEST_F(CpuLinalg, MvAndDot) {
  Tensor m = vec({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  Tensor v = vec({1, -1, 2});
  EXPECT_EQ(values(mv(m, v)), (std::vector<double>{5, 11}));
  EXPECT_EQ(values(mv(m.t().contiguous().t(), v)), (std::vector<double>{5, 11}));
  EXPECT_EQ(values(mv(m.t(), vec({1, 1}))), (std::vector<double>{5, 7, 9}));
  Tensor iv = arange(3, std::nullopt, 1, ScalarType::kInt64);
  Tensor im = ones({2, 3}, ScalarType::kInt64);
  EXPECT_EQ(mv(im, iv).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(mv(im, iv)), (std::vector<double>{3, 3}));
  EXPECT_EQ(values(mv(ones({2, 0}), ones({0}))), (std::vector<double>{0, 0}));

  Tensor d = dot(v, vec({3, 2, 1}));
  EXPECT_EQ(d.dim(), 0);
  EXPECT_EQ(values(d), (std::vector<double>{3}));
  // A strided view goes to BLAS with its increment.
  EXPECT_EQ(values(dot(m.select(1, 0), vec({1, 1}))), (std::vector<double>{5}));
  EXPECT_EQ(values(dot(iv, iv)), (std::vector<double>{5}));
  EXPECT_EQ(dot(iv, iv).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(dot(ones({0}), ones({0}))), (std::vector<double>{0}));
}

TEST_F(CpuLinalg, MvAndDotErrors) {
  Tensor a = ones({3});
  Tensor m = ones({2, 3});
  EXPECT_NE(error_of([&] { (void)mv(a, a); }).find("torch.mv: vector + matrix @ vector expected, got 1, 1, 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)mv(m, ones({4})); }).find("torch.mv: size mismatch, got 2, 2x3,4"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)mv(m, ones({3}, ScalarType::kFloat64)); })
                .find("expected scalar type Float but found Double"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)dot(a, ones({4})); })
                .find("torch.dot: inconsistent tensor size, expected tensor [3] and src [4] to have the same number "
                      "of elements, but got 3 and 4 elements respectively"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)dot(m, a); }).find("torch.dot: 1D tensors expected, but got 2D and 1D tensors"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)dot(a, ones({3}, ScalarType::kFloat64)); })
                .find("torch.dot: expected both vectors to have same dtype, but found Float and Double"),
            std::string::npos);
  Tensor b = ones({2}, ScalarType::kBool);
  EXPECT_NE(error_of([&] { (void)dot(b, b); }).find("\"dot\" not implemented for 'Bool'"), std::string::npos);
}

TEST_F(CpuLinalg, OuterPromotesLikeMul) {
  Tensor r = outer(vec({1, 2, 3}), arange(2, std::nullopt, 1, ScalarType::kInt64));
  EXPECT_EQ(r.sizes().vec(), (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(r.dtype(), ScalarType::kFloat32);
  EXPECT_EQ(values(r), (std::vector<double>{0, 1, 0, 2, 0, 3}));
  Tensor ib = outer(arange(2, std::nullopt, 1, ScalarType::kInt64), vec({1, 0}, ScalarType::kBool));
  EXPECT_EQ(ib.dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(ib), (std::vector<double>{0, 0, 1, 0}));
  EXPECT_NE(error_of([&] { (void)outer(ones({2, 3}), ones({3})); })
                .find("torch.outer: Expected 1-D argument self, but got 2-D"),
            std::string::npos);
}

TEST_F(CpuLinalg, FormulasHaveTheirNames) {
  Tensor x = randn({2, 3}, ScalarType::kFloat64).requires_grad_();
  Tensor y = randn({3, 4}, ScalarType::kFloat64).requires_grad_();
  Tensor s = randn({4}, ScalarType::kFloat64).requires_grad_();
  EXPECT_EQ(addmm(s, x, y).grad_fn()->name(), "AddmmBackward0");
  EXPECT_EQ(dot(s, s).grad_fn()->name(), "DotBackward0");
  EXPECT_EQ(mv(y.t(), randn({3}, ScalarType::kFloat64)).grad_fn()->name(), "MvBackward0");
  EXPECT_EQ(outer(s, s).grad_fn()->name(), "MulBackward0");  // a composite, as in PyTorch
  // F.linear on a matrix with a bias is one addmm, as in PyTorch.
  Tensor w = randn({4, 3}, ScalarType::kFloat64).requires_grad_();
  Tensor lin = nn::functional::linear(x, w, s);
  EXPECT_EQ(lin.grad_fn()->name(), "AddmmBackward0");
  Tensor expected = add(matmul(x, w.t()), s);
  EXPECT_LT(values(sum(abs(sub(lin, expected))))[0], 1e-12);
}

// bfloat16 products (oneDNN where the build has it, else float32 sgemm:
// Note [bfloat16 matrix products on oneDNN]) accumulate in float32 and round
// once: within one bfloat16 step (2^-7 relative) of the float64 product of
// the same bfloat16 inputs, for every layout the kernels are handed (plus
// 1e-3 for float32's rounding of sums that cancel).
TEST_F(CpuLinalg, BFloat16ProductsAccumulateInFloat32AndRoundOnce) {
  const ScalarType bf16 = ScalarType::kBFloat16;
  const auto check = [](const Tensor& got, const Tensor& exact, const char* what) {
    ASSERT_EQ(got.dtype(), ScalarType::kBFloat16) << what;
    ASSERT_EQ(got.sizes().vec(), exact.sizes().vec()) << what;
    const std::vector<double> g = values(got);
    const std::vector<double> e = values(exact);
    for (std::size_t i = 0; i < g.size(); ++i)
      ASSERT_LE(std::abs(g[i] - e[i]), std::ldexp(std::abs(e[i]), -7) + 1e-3) << what << " at " << i;
  };
  const auto f64 = [](const Tensor& t) { return t.to(ScalarType::kFloat64); };
  manual_seed(7);
  const Tensor a = randn({37, 53}).to(bf16);
  const Tensor b = randn({53, 29}).to(bf16);
  check(mm(a, b), mm(f64(a), f64(b)), "mm");
  const Tensor at = randn({53, 37}).to(bf16).t();  // a transposed operand
  check(mm(at, b), mm(f64(at), f64(b)), "mm, transposed");
  const Tensor wide = randn({37, 106}).to(bf16);
  const Tensor strided = wide.narrow(1, 0, 106).view({37, 53, 2}).select(2, 1);  // column stride 2
  check(mm(strided, b), mm(f64(strided), f64(b)), "mm, strided");
  const Tensor x = randn({3, 16, 8}).to(bf16);
  const Tensor y = randn({3, 8, 5}).to(bf16);
  check(bmm(x, y), bmm(f64(x), f64(y)), "bmm");
  const Tensor w = randn({8, 5}).to(bf16);
  check(matmul(x, w), matmul(f64(x), f64(w)), "matmul, broadcast batch");
  const Tensor bias = randn({29}).to(bf16);
  check(addmm(bias, a, b, 0.5, -2), addmm(f64(bias), f64(a), f64(b), 0.5, -2), "addmm");
  const Tensor v = randn({53}).to(bf16);
  check(mv(a, v), mv(f64(a), f64(v)), "mv");
  // beta 0 ignores self, NaN included; an empty inner dim gives beta * self.
  const Tensor nan = full({37, 29}, std::numeric_limits<double>::quiet_NaN(), bf16);
  check(addmm(nan, a, b, 0, 1), mm(f64(a), f64(b)), "addmm, beta 0");
  const Tensor none = mm(zeros({2, 0}, bf16), zeros({0, 3}, bf16));
  EXPECT_EQ(values(none), std::vector<double>(6, 0.0));
}

}  // namespace
}  // namespace wick
