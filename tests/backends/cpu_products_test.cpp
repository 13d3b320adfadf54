// tests/backends/cpu_products_test.cpp - baddbmm, addbmm, addmv, addr, tensordot, cdist, diag, diag_embed, the triangle indices, vander, matrix_exp, lu_unpack, linalg.lu, tensorinv and tensorsolve.
/// \file
/// Values are PyTorch 1.13's for the same float64 inputs; errors are its
/// messages. Gradients are checked by the catalog-walking gradcheck
/// (formula_coverage_test.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

using I64 = std::int64_t;
constexpr ScalarType kF64 = ScalarType::kFloat64;

Tensor mat(std::vector<double> v, std::vector<I64> shape) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), kF64).reshape(shape);
}

std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous().to(kF64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

void expect_near(const Tensor& t, const std::vector<double>& expected, double tol = 1e-12) {
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol * (1 + std::abs(expected[i]))) << "element " << i;
}

template <class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

class CpuProducts : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
  Tensor b1_ = arange(0, 12, 1, kF64).reshape({2, 2, 3});
  Tensor b2_ = sub(arange(0, 12, 1, kF64).reshape({2, 3, 2}), 5);
};

TEST_F(CpuProducts, ScaledProductsAreBetaSelfPlusAlphaProduct) {
  expect_near(baddbmm(ones({2, 2, 2}, kF64), b1_, b2_, 0.5, 2), {-9.5, -3.5, -63.5, -39.5, 134.5, 176.5, 188.5, 248.5});
  expect_near(addbmm(ones({2, 2}, kF64), b1_, b2_, 0.5, 2), {124.5, 172.5, 124.5, 208.5});
  expect_near(addmv(mat({1, 2}, {2}), b1_.select(0, 0), mat({1, -1, 2}, {3}), 2, 3), {11, 31});
  expect_near(addr(ones({2, 3}, kF64), mat({1, 2}, {2}), mat({1, -1, 2}, {3}), 2, 3), {5, -1, 8, 8, -4, 14});
  // beta 0 ignores self, NaNs included.
  const Tensor nan_self = full({2, 2, 2}, std::numeric_limits<double>::quiet_NaN(), kF64);
  expect_near(baddbmm(nan_self, b1_, b2_, 0), values(bmm(b1_, b2_)));
  // In place, through the methods.
  Tensor acc = ones({2, 2}, kF64);
  acc.addbmm_(b1_, b2_, 0.5, 2);
  expect_near(acc, {124.5, 172.5, 124.5, 208.5});
  EXPECT_EQ(error_of([&] { (void)baddbmm(ones({2, 2}, kF64), ones({2, 2}, kF64), b2_); }),
            "batch1 must be a 3D tensor");
  EXPECT_NE(error_of([&] { (void)baddbmm(ones({2, 2, 2}, kF64), b1_, ones({2, 4, 2}, kF64)); })
                .find("Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 4]."),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)addmv(ones({2}, kF64), ones({2, 2, 2}, kF64), ones({2}, kF64)); })
                .find("vector + matrix @ vector expected, got 1, 3, 1"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)addr(ones({2, 2}, ScalarType::kInt64), ones({2}, ScalarType::kInt64),
                                      ones({2}, ScalarType::kInt64), 1, 0.5); })
                .find("For integral input tensors, argument alpha must not be a floating point number."),
            std::string::npos);
}

TEST_F(CpuProducts, TensordotContractsTheListedDims) {
  const std::vector<I64> dims_a = {1, 2};
  const std::vector<I64> dims_b = {2, 1};
  const Value pairs = Value::list({Value(dims_a), Value(dims_b)});
  expect_near(call("torch.tensordot", {Value(b1_), Value(b2_), pairs}).to_tensor(), {-25, 65, -115, 191});
  EXPECT_EQ(tensordot(ones({2, 3, 4}, kF64), ones({3, 4, 5}, kF64)).sizes().vec(), (std::vector<I64>{2, 5}));
  EXPECT_EQ(tensordot(ones({2, 3}, kF64), ones({4}, kF64), 0).sizes().vec(), (std::vector<I64>{2, 3, 4}));
  EXPECT_NE(error_of([&] { (void)tensordot(ones({2, 3}, kF64), ones({4, 2}, kF64), 1); })
                .find("contracted dimensions need to match, but first has size 3 in dim -1 and second has size 4 in dim 0"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)tensordot(ones({2, 3}, kF64), ones({3, 2}, kF64), -1); })
                .find("tensordot expects dims >= 0, but got dims=-1"),
            std::string::npos);
}

TEST_F(CpuProducts, CdistInEveryNormAndBothEuclideanForms) {
  const Tensor x1 = mat({0, 1, 2, 3, 4, -1}, {3, 2});
  const Tensor x2 = mat({1, 1, 0, -2}, {2, 2});
  const std::vector<double> euclid = {1.0, 3.0, 2.23606797749979, 5.385164807134504, 3.605551275463989,
                                      4.123105625617661};
  expect_near(cdist(x1, x2), euclid);
  expect_near(cdist(x1, x2, 2.0, "use_mm_for_euclid_dist"), euclid, 1e-9);
  expect_near(cdist(x1, x2, 1.0), {1, 3, 3, 7, 5, 5});
  expect_near(cdist(x1, x2, 0.0), {1, 1, 2, 2, 2, 2});
  expect_near(cdist(x1, x2, std::numeric_limits<double>::infinity()), {1, 3, 2, 5, 3, 4});
  // Batch dims broadcast.
  EXPECT_EQ(cdist(ones({2, 1, 3, 2}, kF64), ones({4, 5, 2}, kF64)).sizes().vec(), (std::vector<I64>{2, 4, 3, 5}));
  EXPECT_NE(error_of([&] { (void)cdist(ones({2, 3}, kF64), ones({2, 4}, kF64)); })
                .find("X1 and X2 must have the same number of columns. X1: 3 X2: 4"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { (void)cdist(x1, x2, 2.0, "x"); }), "x is not a valid value for compute_mode");
}

TEST_F(CpuProducts, DiagonalsTrianglesAndVandermonde) {
  expect_near(diag(arange(0, 3, 1, kF64), -1), {0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 2, 0});
  expect_near(diag(arange(0, 12, 1, kF64).reshape({3, 4}), 1), {1, 6, 11});
  const Tensor embedded = diag_embed(arange(1, 7, 1, kF64).reshape({2, 3}), 1, 0, 2);
  EXPECT_EQ(embedded.sizes().vec(), (std::vector<I64>{4, 2, 4}));
  expect_near(diagonal(embedded, 1, 0, 2), {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(values(sum(embedded))[0], 21.0);
  // NaN stays on the diagonal.
  const Tensor with_nan = diag_embed(mat({std::numeric_limits<double>::quiet_NaN(), 1}, {2}));
  EXPECT_EQ(values(isnan(with_nan)), (std::vector<double>{1, 0, 0, 0}));
  EXPECT_EQ(values(tril_indices(3, 4, 1)), (std::vector<double>{0, 0, 1, 1, 1, 2, 2, 2, 2, 0, 1, 0, 1, 2, 0, 1, 2, 3}));
  EXPECT_EQ(values(triu_indices(3, 4, -1)),
            (std::vector<double>{0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3}));
  EXPECT_EQ(tril_indices(3, 3, 0, ScalarType::kInt32).dtype(), ScalarType::kInt32);
  EXPECT_EQ(error_of([&] { (void)tril_indices(-1, 4); }), "row must be non-negative, got-1");
  expect_near(linalg::vander(mat({2, 3}, {2}), 4), {1, 2, 4, 8, 1, 3, 9, 27});
  EXPECT_EQ(linalg::vander(ones({2}, ScalarType::kInt32)).dtype(), ScalarType::kInt64);
  EXPECT_EQ(error_of([&] { (void)diag(ones({2, 2, 2}, kF64)); }), "matrix or a vector expected");
}

TEST_F(CpuProducts, MatrixExpLuUnpackAndTensorInverses) {
  const Tensor a = mat({1, 2, 0, 0, 1, 3, 2, 0, 1}, {3, 3});
  expect_near(matrix_exp(a), {8.71156424331051, 8.31278288397647, 9.844773416815213, 9.844773416815215,
                              8.711564243310509, 12.4691743259647, 8.312782883976467, 6.563182277876809,
                              8.711564243310505});
  expect_near(matrix_exp(mul(a, 3)).reshape({-1}).narrow(0, 0, 3), {6436.476459778263, 5622.138203890294, 7367.366740220751},
              1e-12);
  expect_near(matrix_exp(zeros({2, 2}, kF64)), {1, 0, 0, 1});
  auto [p, l, u] = linalg::lu(a);
  expect_near(p, {0, 1, 0, 0, 0, 1, 1, 0, 0});
  expect_near(l, {1, 0, 0, 0.5, 1, 0, 0, 0.5, 1});
  expect_near(u, {2, 0, 1, 0, 2, -0.5, 0, 0, 3.25});
  const auto factors = linalg::lu_factor(a);
  const Tensor& lu = std::get<0>(factors);
  const Tensor& pivots = std::get<1>(factors);
  auto [p2, l2, u2] = lu_unpack(lu, pivots);
  expect_near(matmul(p2, matmul(l2, u2)), values(a));
  auto [p3, l3, u3] = lu_unpack(lu, pivots, false, true);
  EXPECT_EQ(l3.numel(), 0);
  EXPECT_NE(error_of([&] { (void)lu_unpack(lu, pivots.to(ScalarType::kInt64)); })
                .find("LU_pivots is expected to be a contiguous tensor of torch.int32 dtype."),
            std::string::npos);
  // A rectangular LU: L is m x k, U is k x n.
  auto [pr, lr, ur] = linalg::lu(mat({1, 2, 3, 4, 5, 6}, {2, 3}));
  EXPECT_EQ(lr.sizes().vec(), (std::vector<I64>{2, 2}));
  EXPECT_EQ(ur.sizes().vec(), (std::vector<I64>{2, 3}));
  const Tensor t = add(eye(4, std::nullopt, kF64), mul(ones({4, 4}, kF64), 0.25)).reshape({4, 2, 2});
  const Tensor t_inv = linalg::tensorinv(t, 1);
  EXPECT_EQ(t_inv.sizes().vec(), (std::vector<I64>{2, 2, 4}));
  expect_near(tensordot(t, t_inv, 2).reshape({4, 4}), values(eye(4, std::nullopt, kF64)));
  const Tensor system = eye(6, std::nullopt, kF64).reshape({2, 3, 6});
  EXPECT_EQ(linalg::tensorsolve(system, ones({2, 3}, kF64)).sizes().vec(), (std::vector<I64>{6}));
  EXPECT_NE(error_of([&] { (void)linalg::tensorinv(ones({4, 3, 2}, kF64), 1); })
                .find("prod(self.shape[ind:]) == prod(self.shape[:ind]), but got 6 != 4"),
            std::string::npos);
}

}  // namespace
}  // namespace wick
