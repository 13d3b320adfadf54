// tests/backends/cpu_lapack_test.cpp - torch.linalg on LAPACK: the LU family (lu_factor, lu_solve, solve, inv, det, slogdet, solve_triangular), cholesky, eigh, qr and svd, and their composites (pinv, matrix_rank, cond, the old forms).
/// \file
/// Values are PyTorch 1.13's for the same inputs (float64); errors are its
/// messages and types (LinAlgError for singular matrices). Gradients are
/// checked by the catalog-walking gradcheck (formula_coverage_test.cpp);
/// here the determinant's gradient is compared with its closed form.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "wick/autograd.h"
#include "wick/loader.h"
#include "wick/ops.h"

namespace wick {
namespace {

using I64 = std::int64_t;

Tensor mat(std::vector<double> v, std::vector<I64> shape, ScalarType t = ScalarType::kFloat64) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), t).reshape(shape);
}

std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

void expect_near(const Tensor& t, const std::vector<double>& expected, double tol = 1e-12) {
  const std::vector<double> got = values(t);
  ASSERT_EQ(got.size(), expected.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], expected[i], tol) << "element " << i;
}

// A diagonal matrix of the vector d.
Tensor diagonal_matrix_of(const Tensor& d) { return mul(eye(d.size(0), std::nullopt, d.dtype()), d.unsqueeze(0)); }

template <class E, class Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return "no error";
}

class CpuLapack : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
  Tensor a_ = mat({4, 1, 2, 1, 5, 3, 2, -1, 6}, {3, 3});
  Tensor b_ = mat({1, 2, 3, 4, 5, 6}, {3, 2});
};

TEST_F(CpuLapack, LuFactorPacksFactorsColumnMajor) {
  auto [lu, pivots] = linalg::lu_factor(a_);
  expect_near(lu, {4.0, 1.0, 2.0, 0.25, 4.75, 2.5, 0.5, -0.3157894736842105, 5.7894736842105265});
  EXPECT_EQ(pivots.dtype(), ScalarType::kInt32);
  EXPECT_EQ(values(pivots), (std::vector<double>{1, 2, 3}));
  // LAPACK's layout, as PyTorch's: each matrix contiguous in its transpose.
  EXPECT_EQ(lu.strides().vec(), (std::vector<I64>{1, 3}));
  auto [blu, bpiv, binfo] = linalg::lu_factor_ex(stack({a_, a_.t()}));
  EXPECT_EQ(blu.strides().vec(), (std::vector<I64>{9, 1, 3}));
  EXPECT_EQ(binfo.sizes().vec(), (std::vector<I64>{2}));
  EXPECT_EQ(values(binfo), (std::vector<double>{0, 0}));
}

TEST_F(CpuLapack, LuFactorOfRectangularMatricesReconstructs) {
  for (const std::vector<I64>& shape : {std::vector<I64>{3, 4}, std::vector<I64>{4, 3}}) {
    const Tensor a = randn(shape, ScalarType::kFloat64);
    auto [lu, pivots, info] = linalg::lu_factor_ex(a);
    const I64 m = shape[0];
    const I64 n = shape[1];
    const I64 k = std::min(m, n);
    const Tensor l = add(tril(lu.narrow(1, 0, k), -1), eye(m, k, ScalarType::kFloat64));
    const Tensor u = triu(lu.narrow(0, 0, k));
    // P^T A: LAPACK's row swaps applied in order.
    Tensor pa = a.clone();
    const std::vector<double> piv = values(pivots);
    for (I64 i = 0; i < k; ++i) {
      const auto j = static_cast<I64>(piv[static_cast<std::size_t>(i)]) - 1;
      if (j == i) continue;
      const Tensor row_i = pa.select(0, i).clone();
      pa.select(0, i).copy_(pa.select(0, j));
      pa.select(0, j).copy_(row_i);
    }
    expect_near(matmul(l, u), values(pa), 1e-12);
  }
}

TEST_F(CpuLapack, SolveInvDetMatchPyTorch) {
  expect_near(linalg::solve(a_, b_), {-0.2363636363636364, -0.07272727272727278, 0.090909090909091, 0.18181818181818177,
                                      0.9272727272727272, 1.0545454545454547});
  expect_near(linalg::solve(a_, b_.t(), false), {-0.2, 0.7454545454545455, 0.5272727272727273, 0.0,
                                                 0.9090909090909091, 0.5454545454545454});
  expect_near(linalg::inv(a_), {0.3, -0.07272727272727272, -0.06363636363636363, 0.0, 0.18181818181818182,
                                -0.09090909090909091, -0.1, 0.05454545454545454, 0.17272727272727273});
  expect_near(inverse(a_), values(linalg::inv(a_)));
  expect_near(linalg::det(a_), {110.0});
  expect_near(a_.det(), {110.0});
  auto [sign, logabsdet] = linalg::slogdet(a_);
  expect_near(sign, {1.0});
  expect_near(logabsdet, {std::log(110.0)});
  expect_near(logdet(a_), {std::log(110.0)});
  expect_near(linalg::matrix_power(a_, -2),
              {0.09636363636363636, -0.03851239669421487, -0.023471074380165286, 0.009090909090909092,
               0.02809917355371901, -0.032231404958677684, -0.04727272727272727, 0.026611570247933886,
               0.031239669421487603});
  // A vector right-hand side: 1-D, or A's shape without its last dim.
  const Tensor x = linalg::solve(a_, mat({1, 3, 5}, {3}));
  EXPECT_EQ(x.sizes().vec(), (std::vector<I64>{3}));
  expect_near(x, {-0.2363636363636364, 0.090909090909091, 0.9272727272727272});
  const Tensor batch = stack({a_, a_.t()});
  EXPECT_EQ(linalg::solve(batch, mat({1, 3, 5, 1, 3, 5}, {2, 3})).sizes().vec(), (std::vector<I64>{2, 3}));
}

TEST_F(CpuLapack, SolversBroadcastBatchesAndAgreeWithTheInverse) {
  const Tensor a = add(randn({2, 1, 3, 3}, ScalarType::kFloat64), mul(eye(3, std::nullopt, ScalarType::kFloat64), 4));
  const Tensor b = randn({4, 3, 2}, ScalarType::kFloat64);
  const Tensor x = linalg::solve(a, b);
  EXPECT_EQ(x.sizes().vec(), (std::vector<I64>{2, 4, 3, 2}));
  expect_near(matmul(a, x), values(b.expand({2, 4, 3, 2})), 1e-10);
  auto [lu, pivots] = linalg::lu_factor(a);
  const Tensor ainv = linalg::inv(a);
  const Tensor bt = randn({4, 2, 3}, ScalarType::kFloat64);
  // X A = B, X A^T = B, A^T X = B.
  expect_near(linalg::lu_solve(lu, pivots, bt, false), values(matmul(bt, ainv)), 1e-10);
  expect_near(linalg::lu_solve(lu, pivots, bt, false, true), values(matmul(bt, ainv.transpose(-2, -1))), 1e-10);
  expect_near(linalg::lu_solve(lu, pivots, b, true, true), values(matmul(ainv.transpose(-2, -1), b)), 1e-10);
}

TEST_F(CpuLapack, ComplexSystemsSolve) {
  const Tensor re = add(randn({3, 3}, ScalarType::kFloat64), mul(eye(3, std::nullopt, ScalarType::kFloat64), 4));
  const Tensor a = complex(re, randn({3, 3}, ScalarType::kFloat64));
  const Tensor b = complex(randn({3, 2}, ScalarType::kFloat64), randn({3, 2}, ScalarType::kFloat64));
  const Tensor x = linalg::solve(a, b);
  EXPECT_EQ(x.dtype(), ScalarType::kComplex128);
  const Tensor residual = abs(sub(matmul(a, x), b));
  EXPECT_LT(values(amax(residual))[0], 1e-12);
  auto [lu, pivots] = linalg::lu_factor(a);
  // X A^H = B (the conjugating path of a right-side adjoint solve).
  const Tensor bt = b.t().contiguous();
  const Tensor y = linalg::lu_solve(lu, pivots, bt, false, true);
  EXPECT_LT(values(amax(abs(sub(matmul(y, conj_physical(a.t())), bt))))[0], 1e-12);
}

TEST_F(CpuLapack, SingularMatricesRaiseLinAlgError) {
  const Tensor s = zeros({3, 3}, ScalarType::kFloat32);
  EXPECT_EQ(error_of<LinAlgError>([&] { (void)linalg::solve(s, randn({3})); }),
            "torch.linalg.solve: The solver failed because the input matrix is singular.");
  EXPECT_EQ(error_of<LinAlgError>([&] { (void)linalg::inv(stack({eye(3), s})); }),
            "linalg.inv: (Batch element 1): The diagonal element 1 is zero, the inversion could not be completed "
            "because the input matrix is singular.");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::lu_factor(s); }),
            "torch.linalg.lu_factor: U[1,1] is zero and using it on lu_solve would result in a division by zero. If "
            "you still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
            "linalg.lu_factor_ex(A, pivot)");
  EXPECT_NE(error_of<RuntimeError>([&] { (void)linalg::lu_factor_ex(s, true, true); })
                .find("torch.linalg.lu_factor_ex: U[1,1] is zero"),
            std::string::npos);
  // The _ex forms report instead of raising; det and slogdet have no error.
  auto [inverse_, info] = linalg::inv_ex(s);
  EXPECT_EQ(values(info), (std::vector<double>{1}));
  EXPECT_EQ(values(linalg::det(s)), (std::vector<double>{0}));
  auto [sign, logabsdet] = linalg::slogdet(s);
  EXPECT_EQ(values(sign), (std::vector<double>{0}));
  EXPECT_EQ(values(logabsdet)[0], -std::numeric_limits<double>::infinity());
  const Tensor swap = mat({0, 1, 1, 0}, {2, 2});
  EXPECT_EQ(values(linalg::det(swap)), (std::vector<double>{-1}));
  EXPECT_TRUE(std::isnan(values(logdet(swap))[0]));
  EXPECT_EQ(error_of<LinAlgError>([&] { (void)linalg::matrix_power(s, -1); }),
            "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input "
            "matrix is singular.");
  // A zero on a triangular diagonal divides through, as PyTorch's solve_triangular.
  const Tensor x = linalg::solve_triangular(mat({0, 1, 0, 1}, {2, 2}), mat({1, 1}, {2, 1}), true);
  EXPECT_TRUE(std::isnan(values(x)[0]));
  EXPECT_EQ(values(x)[1], 1.0);
}

TEST_F(CpuLapack, BadArgumentsNameTheOperator) {
  const Tensor a = randn({3, 3});
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::inv(eye(3, std::nullopt, ScalarType::kInt64)); }),
            "linalg.inv: Expected a floating point or complex tensor as input. Got Long");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::det(randn({2, 3})); }),
            "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::solve(a, randn({4})); }),
            "linalg.solve: Incompatible shapes of A and B for the equation AX = B (3x3 and 4x1)");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::solve(a.to(ScalarType::kFloat64), randn({3})); }),
            "linalg.solve: Expected A and B to have the same dtype, but found A of type Double and B of type Float "
            "instead");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::lu_factor(a, false); }),
            "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::lu_factor(randn({3})); }),
            "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: [3] instead");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::lu_factor(a.to(ScalarType::kFloat16)); }),
            "\"lu_cpu\" not implemented for 'Half'");
  const auto factors = linalg::lu_factor(a);
  const Tensor lu = std::get<0>(factors);
  const Tensor pivots = std::get<1>(factors);
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::lu_solve(lu, pivots.to(ScalarType::kInt64), a); }),
            "linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32");
  const Tensor bad = tensor(Value(std::vector<std::int64_t>{1, 9, 3}), ScalarType::kInt32);
  EXPECT_EQ(error_of<IndexError>([&] { (void)linalg::lu_solve(lu, bad, a); }),
            "linalg.lu_solve: pivots must be row numbers in [1, 3], but found 9");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::lu_solve(lu, pivots, randn({3, 2}), false); }),
            "linalg.lu_solve: Incompatible shapes of A and B for the equation XA = B (3x3 and 3x2)");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::solve_triangular(a, randn({3}), true); }),
            "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::matrix_power(randn({2, 3}), 2); }),
            "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::multi_dot({a}); }),
            "multi_dot(): expected at least 2 tensors but got 1");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::multi_dot({a, randn({2, 2})}); }),
            "multi_dot(): tensors 0 and 1 with shapes [3, 3] and [2, 2] cannot be multiplied");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::multi_dot({a, a.to(ScalarType::kInt64)}); }),
            "multi_dot(): all tensors must have be the same dtype but tensor 0 is float and tensor 1 long int");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::cross(randn({2, 4}), randn({2, 4})); }),
            "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)cross(randn({2, 2}), randn({2, 2})); }),
            "no dimension of size 3 in input");
}

TEST_F(CpuLapack, ChainsPowersAndCrossProducts) {
  EXPECT_EQ(values(linalg::multi_dot({arange(3, std::nullopt, 1, ScalarType::kFloat64),
                                      arange(6, std::nullopt, 1, ScalarType::kFloat64).reshape({3, 2}),
                                      arange(2, std::nullopt, 1, ScalarType::kFloat64)})),
            (std::vector<double>{13}));
  const std::vector<Tensor> chain = {randn({4, 2}, ScalarType::kFloat64), randn({2, 5}, ScalarType::kFloat64),
                                     randn({5, 3}, ScalarType::kFloat64), randn({3, 1}, ScalarType::kFloat64)};
  expect_near(linalg::multi_dot(chain), values(matmul(matmul(matmul(chain[0], chain[1]), chain[2]), chain[3])), 1e-12);
  expect_near(linalg::matrix_power(a_, 5), values(matmul(matmul(matmul(matmul(a_, a_), a_), a_), a_)), 1e-6);
  expect_near(linalg::matrix_power(a_, 0), values(eye(3, std::nullopt, ScalarType::kFloat64)));
  EXPECT_EQ(values(linalg::cross(mat({1, 2, 3}, {3}), mat({4, 5, 6}, {3}))), (std::vector<double>{-3, 6, -3}));
  EXPECT_EQ(values(cross(mat({1, 2, 3, 1, 2, 3}, {2, 3}), mat({4, 5, 6}, {1, 3}).expand({2, 3}))),
            (std::vector<double>{-3, 6, -3, -3, 6, -3}));
  EXPECT_EQ(values(linalg::vecdot(mat({1, 2, 3}, {3}), mat({4, 5, 6}, {3}))), (std::vector<double>{32}));
}

TEST_F(CpuLapack, DiagonalIsAView) {
  Tensor m = arange(12, std::nullopt, 1, ScalarType::kFloat64).reshape({3, 4});
  EXPECT_EQ(values(m.diagonal()), (std::vector<double>{0, 5, 10}));
  EXPECT_EQ(values(m.diagonal(1)), (std::vector<double>{1, 6, 11}));
  EXPECT_EQ(values(m.diagonal(-1)), (std::vector<double>{4, 9}));
  EXPECT_EQ(m.diagonal(5).numel(), 0);
  m.diagonal().fill_(Scalar(-1));
  EXPECT_EQ(values(m.select(0, 1)), (std::vector<double>{4, -1, 6, 7}));
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)m.diagonal(0, 0, 0); }), "diagonal dimensions cannot be identical 0, 0");
  EXPECT_EQ(diagonal(randn({2, 3, 4}), 1, 2, 0).sizes().vec(), (std::vector<I64>{3, 1}));
}

TEST_F(CpuLapack, DetGradientIsTheAdjugate) {
  // d det(A) / dA = det(A) A^-T: PyTorch's gradient for this A.
  const Tensor a = a_.clone().requires_grad_();
  linalg::det(a).backward();
  expect_near(a.grad(), {33.0, 0.0, -11.0, -8.0, 20.0, 6.0, -7.0, -10.0, 19.0}, 1e-10);
}

TEST_F(CpuLapack, CholeskyAndItsSolvers) {
  const Tensor a = mat({4, 2, 0.4, 2, 5, 1, 0.4, 1, 3}, {3, 3});
  const Tensor l = linalg::cholesky(a);
  expect_near(l, {2.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.2, 0.4, 1.6733200530681511});
  EXPECT_EQ(l.strides().vec(), (std::vector<I64>{1, 3}));
  expect_near(linalg::cholesky(a, true), {2.0, 1.0, 0.2, 0.0, 2.0, 0.4, 0.0, 0.0, 1.6733200530681511});
  expect_near(cholesky(a), values(l));
  // Only the lower triangle is read.
  expect_near(linalg::cholesky(tril(a)), values(l));
  expect_near(cholesky_solve(b_, l), {-0.0625, 0.125, 0.3107142857142857, 0.37857142857142856, 1.5714285714285714,
                                      1.8571428571428572});
  expect_near(cholesky_solve(b_, linalg::cholesky(a, true), true), values(cholesky_solve(b_, l)));
  expect_near(cholesky_inverse(l), {0.3125, -0.125, 0.0, -0.125, 0.2642857142857143, -0.07142857142857142, 0.0,
                                    -0.07142857142857142, 0.3571428571428571});
  const Tensor n = mat({1, 2, 2, 1}, {2, 2});
  EXPECT_EQ(error_of<LinAlgError>([&] { (void)linalg::cholesky(stack({eye(2, std::nullopt, ScalarType::kFloat64), n})); }),
            "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input is not "
            "positive-definite (the leading minor of order 2 is not positive-definite).");
  auto [partial, info] = linalg::cholesky_ex(n);
  EXPECT_EQ(values(info), (std::vector<double>{2}));
  EXPECT_EQ(values(partial), (std::vector<double>{1, 0, 2, -3}));
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)cholesky(eye(2, std::nullopt, ScalarType::kInt32)); }),
            "\"cholesky_cpu\" not implemented for 'Int'");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)cholesky_solve(randn({4, 2}), randn({3, 3})); }),
            "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 4 by 2");
}

TEST_F(CpuLapack, EighOfSymmetricMatrices) {
  const Tensor a = mat({4, 2, 0.4, 2, 5, 1, 0.4, 1, 3}, {3, 3});
  auto [w, v] = linalg::eigh(a);
  expect_near(w, {2.2564722211479875, 2.901971219300918, 6.841556559551098});
  expect_near(v, {-0.5927506866250067, -0.5588924006660365, -0.579901636472374, 0.6196361886517746, 0.143493859970644,
                  -0.771660874908031, -0.5144877230981174, 0.8167305532600574, -0.2612538729910718},
              1e-12);
  EXPECT_EQ(v.strides().vec(), (std::vector<I64>{1, 3}));
  expect_near(linalg::eigvalsh(triu(a), "U"), values(w));
  const Tensor c = complex(a, sub(triu(a, 1), tril(a, -1)));  // Hermitian: an antisymmetric imaginary part
  auto [cw, cv] = linalg::eigh(c);
  EXPECT_EQ(cw.dtype(), ScalarType::kFloat64);
  const Tensor reconstructed = matmul(matmul(cv, complex(diagonal_matrix_of(cw), zeros({3, 3}, ScalarType::kFloat64))),
                                      conj_physical(cv.transpose(0, 1)));
  EXPECT_LT(values(amax(abs(sub(reconstructed, c))))[0], 1e-12);
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::eigh(a, "X"); }),
            "Expected UPLO argument to be 'L' or 'U', but got X");
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::eigh(a.to(ScalarType::kInt32)); }),
            "\"linalg_eigh_cpu\" not implemented for 'Int'");
}

TEST_F(CpuLapack, CholeskyAndEighGradientsArePyTorchs) {
  const Tensor a = mat({4, 2, 0.4, 2, 5, 1, 0.4, 1, 3}, {3, 3});
  Tensor x = a.clone().requires_grad_();
  linalg::cholesky(x).select(0, 2).select(0, 1).backward();
  expect_near(x.grad(), {0.0125, 0.0, -0.125, 0.0, -0.05, 0.25, -0.125, 0.25, 0.0}, 1e-12);
  Tensor y = a.clone().requires_grad_();
  auto [w, v] = linalg::eigh(y);
  add(w.select(0, 0), v.select(0, 1).select(0, 2)).backward();
  expect_near(y.grad(), {0.4096115812685257, -0.35432394551077434, 0.3296204096169793, -0.3543239455107743,
                         0.3152979934757955, -0.31506794636130725, 0.32962040961697925, -0.3150679463613073,
                         0.27509042525567845},
              1e-10);
}

// A 4 x 3 matrix of rank 3 (PyTorch 1.13's figures below are for it).
Tensor tall() { return mat({4, 1, 2, 1, 5, 3, 2, -1, 6, 1, 0, 2}, {4, 3}); }

double max_abs(const Tensor& t) { return values(amax(abs(t)))[0]; }

TEST_F(CpuLapack, QrGivesOrthonormalColumnsAndAnUpperFactor) {
  auto [q, r] = linalg::qr(tall());
  expect_near(q, {-0.852802865422442, 0.05479509179726676, 0.5104475632973249, -0.21320071635561044,
                  -0.9406490758530796, -0.2617488600691907, -0.4264014327112209, 0.3287705507836007,
                  -0.7982967370486285, -0.21320071635561044, 0.06392760709681125, -0.18344791902285162});
  expect_near(r, {-4.69041575982343, -1.4924050144892735, -5.3300179088902615, 0.0, -4.977220838251731,
                  -0.6118785250694789, 0.0, 0.0, -4.9210277139504});
  EXPECT_EQ(q.strides().vec(), (std::vector<I64>{1, 4}));
  auto [qc, rc] = linalg::qr(tall(), "complete");
  EXPECT_EQ(qc.sizes().vec(), (std::vector<I64>{4, 4}));
  EXPECT_EQ(rc.sizes().vec(), (std::vector<I64>{4, 3}));
  EXPECT_LT(max_abs(sub(matmul(qc.transpose(0, 1), qc), eye(4, std::nullopt, ScalarType::kFloat64))), 1e-14);
  EXPECT_LT(max_abs(sub(matmul(qc, rc), tall())), 1e-14);
  auto [qr_q, qr_r] = linalg::qr(tall(), "r");
  EXPECT_EQ(qr_q.numel(), 0);
  expect_near(qr_r, values(r));
  auto [old_q, old_r] = qr(tall(), false);
  expect_near(old_q, values(qc));
  EXPECT_EQ(error_of<RuntimeError>([&] { (void)linalg::qr(tall(), "x"); }),
            "qr received unrecognized mode 'x' but expected one of 'reduced' (default), 'r', or 'complete'");
}

TEST_F(CpuLapack, SvdReconstructsWithDescendingSingularValues) {
  auto [u, s, vh] = linalg::svd(tall(), false);
  expect_near(s, {8.41339023351017, 4.813165002654113, 2.836953900912273});
  expect_near(abs(u.select(1, 0)), {0.45564530762652533, 0.5231773223080958, 0.6737377735898105, 0.25446071504007534});
  EXPECT_LT(max_abs(sub(matmul(mul(u, s.unsqueeze(0)), vh), tall())), 1e-13);
  auto [uf, sf, vhf] = linalg::svd(tall());
  EXPECT_EQ(uf.sizes().vec(), (std::vector<I64>{4, 4}));
  EXPECT_EQ(vhf.sizes().vec(), (std::vector<I64>{3, 3}));
  expect_near(linalg::svdvals(tall()), values(s));
  // torch.svd: V rather than Vh; without compute_uv, zero U and V.
  auto [u_old, s_old, v_old] = svd(tall());
  EXPECT_LT(max_abs(sub(matmul(mul(u_old, s_old.unsqueeze(0)), v_old.transpose(0, 1)), tall())), 1e-13);
  auto [u0, s0, v0] = svd(tall(), true, false);
  EXPECT_EQ(u0.sizes().vec(), (std::vector<I64>{4, 4}));
  EXPECT_EQ(max_abs(u0), 0.0);
  expect_near(s0, values(s));
  // The complex SVD has real singular values.
  const Tensor c = complex(tall(), ones({4, 3}, ScalarType::kFloat64));
  EXPECT_EQ(linalg::svdvals(c).dtype(), ScalarType::kFloat64);
  auto [cu, cs, cvh] = linalg::svd(c, false);
  const Tensor cs_complex = complex(cs, zeros({3}, ScalarType::kFloat64));
  EXPECT_LT(max_abs(sub(matmul(mul(cu, cs_complex.unsqueeze(0)), cvh), c)), 1e-13);
  EXPECT_NE(error_of<RuntimeError>([&] { (void)linalg::svd(tall(), true, "gesvd"); }).find("only supported on CUDA"),
            std::string::npos);
  EXPECT_NE(error_of<LinAlgError>([&] {
              (void)linalg::svd(full({3, 3}, std::numeric_limits<double>::quiet_NaN(), ScalarType::kFloat64));
            }).find("failed to converge"),
            std::string::npos);
  // One infinity: refused before LAPACK, whose bidiagonal QR can loop on it
  // (a fuzz-found hang, tests/fuzz/corpus/boxed_call/regress_svd_non_finite_hang).
  Tensor with_inf = tall();
  with_inf.select(0, 1).select(0, 2).fill_(std::numeric_limits<double>::infinity());
  EXPECT_EQ(error_of<LinAlgError>([&] { (void)linalg::svdvals(with_inf); }),
            "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
}

TEST_F(CpuLapack, PinvMatrixRankAndCondAreThoseOfPyTorch) {
  expect_near(linalg::pinv(tall()),
              {0.29913623276253987, -0.07304136990453114, -0.0660706167601152, 0.008637672374602194,
               0.001742688286103957, 0.1824518866494924, -0.08599787846643431, -0.017426882861039553,
               -0.10372783755114409, 0.05318987725412944, 0.162221548719503, 0.037278375511441156});
  expect_near(pinverse(tall()), values(linalg::pinv(tall())));
  const Tensor sym = mat({4, 2, 0.4, 2, 5, 1, 0.4, 1, 3}, {3, 3});
  expect_near(linalg::pinv(sym, std::nullopt, std::nullopt, true), values(linalg::inv(sym)));
  EXPECT_EQ(linalg::pinv(zeros({2, 0, 3}, ScalarType::kFloat64)).sizes().vec(), (std::vector<I64>{2, 3, 0}));
  const Tensor rank_one = outer(mat({1, 2, 3}, {3}), mat({1, -1, 2}, {3}));
  EXPECT_EQ(values(linalg::matrix_rank(rank_one)), (std::vector<double>{1}));
  EXPECT_EQ(values(linalg::matrix_rank(add(rank_one, rank_one.transpose(0, 1)), std::nullopt, std::nullopt, true)),
            (std::vector<double>{2}));
  EXPECT_EQ(linalg::matrix_rank(tall()).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(linalg::matrix_rank(tall())), (std::vector<double>{3}));
  EXPECT_EQ(values(linalg::matrix_rank(tall(), 4.0)), (std::vector<double>{2}));
  EXPECT_EQ(values(linalg::matrix_rank(tall(), std::nullopt, 0.5)), (std::vector<double>{2}));
  EXPECT_EQ(values(linalg::matrix_rank(zeros({2, 0, 3}, ScalarType::kFloat64))), (std::vector<double>{0, 0}));
  expect_near(linalg::cond(tall()), {2.9656422089920786});
  expect_near(linalg::cond(tall(), -2.0), {0.3371950928429313});
  const Tensor sq = tall().narrow(0, 0, 3);
  expect_near(linalg::cond(sq, 1.0), {4.4});
  expect_near(linalg::cond(sq, "fro"), {4.218612830644219});
  expect_near(linalg::cond(sq, "nuc"), {10.787475380569445});
  expect_near(linalg::cond(sq, -std::numeric_limits<double>::infinity()), {1.909090909090909});
  // A singular matrix: infinite, never an error; 0 / 0 stays NaN for -2.
  EXPECT_TRUE(std::isinf(values(linalg::cond(ones({3, 3}, ScalarType::kFloat64), 1.0))[0]));
  EXPECT_TRUE(std::isnan(values(linalg::cond(zeros({3, 3}, ScalarType::kFloat64), -2.0))[0]));
  EXPECT_NE(error_of<RuntimeError>([&] { (void)linalg::cond(tall(), 1.0); })
                .find("linalg.cond(ord=1): A must be batches of square matrices, but they are 4 by 3 matrices"),
            std::string::npos);
  EXPECT_NE(error_of<RuntimeError>([&] { (void)linalg::cond(sq, 3.0); }).find("linalg.cond got an invalid norm type: 3"),
            std::string::npos);
  EXPECT_NE(error_of<RuntimeError>([&] { (void)linalg::pinv(ones({3}, ScalarType::kFloat64)); })
                .find("linalg.pinv(Double{[3]}): expected a tensor with 2 or more dimensions"),
            std::string::npos);
  EXPECT_NE(error_of<RuntimeError>([&] { (void)linalg::matrix_rank(ones({3, 3}, ScalarType::kInt64)); })
                .find("doesn't handle types other than float and double"),
            std::string::npos);
}

TEST_F(CpuLapack, TheOldSolversTakeTheRightHandSideFirst) {
  const Tensor sq = tall().narrow(0, 0, 3);
  auto [x, copy] = triangular_solve(b_, sq, false, true);
  expect_near(x, {-0.3583333333333333, -0.25, 0.7666666666666666, 1.0, 0.8333333333333333, 1.0});
  expect_near(copy, values(sq));
  auto [xb, copy_b] = triangular_solve(b_.unsqueeze(0).expand({2, 3, 2}), sq);
  EXPECT_EQ(copy_b.sizes().vec(), (std::vector<I64>{2, 3, 3}));
  auto [lu, pivots] = linalg::lu_factor(a_);
  expect_near(lu_solve(b_, lu, pivots), values(linalg::solve(a_, b_)), 1e-12);
  EXPECT_NE(error_of<RuntimeError>([&] { (void)triangular_solve(mat({1, 2}, {2, 1}), sq); })
                .find("each A matrix is 3 by 3 but each b matrix is 2 by 1"),
            std::string::npos);
}

}  // namespace
}  // namespace wick
