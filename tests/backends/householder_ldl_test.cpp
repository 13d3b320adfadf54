// tests/backends/householder_ldl_test.cpp - geqrf, linalg.householder_product (orgqr), ormqr, and the LDL factorization (ldl_factor_ex, ldl_factor, ldl_solve).
/// \file
/// Values and gradients are PyTorch 1.13's for the same float64 inputs;
/// errors are its messages. opcheck (tests/autograd/formula_coverage_test.cpp)
/// checks their meta functions and gradients against finite differences.
#include <gtest/gtest.h>

#include <complex>
#include <tuple>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/meta_linalg.h"

namespace wick {
namespace {

using testing::error_of;
using testing::expect_near;
using testing::values;
using testing::vec;

Tensor mat(std::vector<double> v, std::vector<std::int64_t> shape) { return vec(std::move(v)).reshape(shape); }

class HouseholderLdl : public testing::AutogradTest {
 protected:
  Tensor a_ = mat({4, 1, 2, 1, 5, 3, 2, -1, 6, 1, 2, -3}, {4, 3});
};

TEST_F(HouseholderLdl, GeqrfLeavesLapacksReflectorsColumnMajor) {
  const auto [a, tau] = geqrf(a_);
  EXPECT_EQ(a.sizes(), (std::vector<std::int64_t>{4, 3}));
  EXPECT_EQ(a.strides(), (std::vector<std::int64_t>{1, 4}));
  expect_near(a, {-4.69041575982343, -1.918806447200494, -4.26401432711221, 0.11506929330390492, -5.226679808270431,
                  0.6087647031263392, 0.23013858660780984, -0.16901842992008215, -6.280731434666611,
                  0.11506929330390492, 0.16825054722747854, -0.3598306914122559},
              1e-12);
  expect_near(tau, {1.852802865422442, 1.892370525060569, 1.7707292891355342}, 1e-12);
  // The method, a batch and a wide matrix.
  const auto [wide, wide_tau] = mat({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {2, 5}).geqrf();
  EXPECT_EQ(wide_tau.sizes(), (std::vector<std::int64_t>{2}));
  const auto [batched, batched_tau] = geqrf(stack({a_, mul(a_, 2.0)}));
  EXPECT_EQ(batched_tau.sizes(), (std::vector<std::int64_t>{2, 3}));
  expect_near(batched.select(0, 0), values(a), 1e-12);
}

TEST_F(HouseholderLdl, HouseholderProductFormsQ) {
  const auto [a, tau] = geqrf(a_);
  const std::vector<double> q = {-0.852802865422442,   0.12175294062526788, 0.2723381101247376, -0.21320071635561044,
                                 -0.878360500225147,   -0.41804429744828386, -0.4264014327112209, 0.34786554464362257,
                                 -0.632099932643603,   -0.21320071635561044, -0.30438235156316973, 0.5928917222365395};
  expect_near(linalg::householder_product(a, tau), q, 1e-12);
  expect_near(orgqr(a, tau), q, 1e-12);
  expect_near(a.orgqr(tau), q, 1e-12);
  // The same Q as linalg.qr's.
  expect_near(std::get<0>(linalg::qr(a_)), q, 1e-12);
  // Fewer reflectors than columns: the last column is that of the identity,
  // reflected by the first two.
  expect_near(linalg::householder_product(a, tau.narrow(0, 0, 2)),
              {-0.852802865422442, 0.12175294062526788, -0.48301477391011877, -0.21320071635561044,
               -0.878360500225147, 0.26426532628359606, -0.4264014327112209, 0.34786554464362257, 0.8347798792443238,
               -0.21320071635561044, -0.30438235156316973, -0.0017659891317690058},
              1e-12);
  // No reflectors: the identity's first columns.
  expect_near(linalg::householder_product(a, empty({0}, ScalarType::kFloat64)),
              {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0});
  // A batch, each with its own reflectors.
  const auto [ba, btau] = geqrf(stack({a_, flip(a_, {0})}));
  const Tensor bq = linalg::householder_product(ba, btau);
  expect_near(bq.select(0, 0), q, 1e-12);
  expect_near(bq.select(0, 1), values(std::get<0>(linalg::qr(flip(a_, {0})))), 1e-12);
}

TEST_F(HouseholderLdl, ComplexReflectorsGiveAUnitaryQ) {
  const Tensor re = mat({1, 2, 0, -1, 3, 1, 2, 0, 1}, {3, 3});
  const Tensor im = mat({0, 1, -2, 1, 0, 1, 3, -1, 0}, {3, 3});
  const Tensor z = complex(re, im);
  const auto [a, tau] = geqrf(z);
  const Tensor q = linalg::householder_product(a, tau);
  // Q^H Q = I, and Q R = A with R the upper triangle of geqrf's result.
  const Tensor qh = conj_physical(q.transpose(0, 1));
  expect_near(view_as_real(matmul(qh, q)).select(-1, 0), {1, 0, 0, 0, 1, 0, 0, 0, 1}, 1e-12);
  expect_near(view_as_real(matmul(qh, q)).select(-1, 1), std::vector<double>(9, 0.0), 1e-12);
  const Tensor qr = matmul(q, triu(a));
  expect_near(view_as_real(qr).select(-1, 0), values(re), 1e-12);
  expect_near(view_as_real(qr).select(-1, 1), values(im), 1e-12);
  // ormqr's adjoint undoes it.
  const Tensor c = complex(mat({1, 2, 3, 4, 5, 6}, {3, 2}), mat({0, 1, 0, -1, 2, 0}, {3, 2}));
  const Tensor back = ormqr(a, tau, ormqr(a, tau, c, true, false), true, true);
  expect_near(view_as_real(back).select(-1, 0), {1, 2, 3, 4, 5, 6}, 1e-12);
  expect_near(view_as_real(back).select(-1, 1), {0, 1, 0, -1, 2, 0}, 1e-12);
}

TEST_F(HouseholderLdl, OrmqrAppliesQFromEitherSide) {
  const auto [a, tau] = geqrf(a_);
  const Tensor c = mat({1, 2, 3, 4, 5, 6, 7, 8}, {4, 2});
  expect_near(ormqr(a, tau, c),
              {-2.126359608489605, -3.0137151539572793, -5.5749746984835795, -7.175504640257063, 1.275521503268283,
               1.1104322490237464, 6.838954366082002, 7.628669238391821},
              1e-12);
  expect_near(a.ormqr(tau, c, true, true),
              {-5.11681719253465, -6.822422923379534, -2.904677297774249, -3.6178016642936752, 0.007947610217647672,
               -0.1769667875129617, 7.027159344249178, 7.767543970168223},
              1e-12);
  const Tensor right = mat({1, 2, 3, 4, 5, 6, 7, 8}, {2, 4});
  expect_near(ormqr(a, tau, right, false, false),
              {-3.4112114616897675, -1.8089008321468374, -0.08848339375648046, 3.883771985084111,
               -10.233634385069303, -4.661398298224543, -0.8281409846789193, 6.845310488760289},
              1e-12);
  expect_near(ormqr(a, tau, right, false, true),
              {-1.506857576978639, -3.5877523201285317, 0.5552161245118731, 3.8143346191959107, -5.056279758849331,
               -9.989872087222475, -0.10514089246627405, 6.973194108435191},
              1e-12);
}

TEST_F(HouseholderLdl, HouseholderProductGradientIsPyTorchs) {
  const Tensor x =
      mat({0.5, -1., 2., 1.5, 0.25, -0.5, -1., 2., 1., 0.75, -0.25, 0.5}, {4, 3}).requires_grad_();
  const Tensor t = vec({1.2, 0.7, 1.9}).requires_grad_();
  const Tensor w = mat({1., -2, 0.5, 0., 1, 2, 3, -1, 1, 0.5, 0.5, -1}, {4, 3});
  sum(mul(linalg::householder_product(x, t), w)).backward();
  // Only the entries below the diagonal are reflectors: the others get zero.
  expect_near(x.grad(), {0.0, 0.0, 0.0, -3.6346875, 0.0, 0.0, -1.77890625, 6.942687499999999, 0.0,
                         -0.08062500000000172, 1.1711874999999994, 2.999328124999998},
              1e-12);
  expect_near(t.grad(), {0.8791992187500014, 9.299609375, 5.660546874999999}, 1e-12);
}

TEST_F(HouseholderLdl, GeqrfHasNoDerivative) {
  const Tensor x = a_.clone().requires_grad_();
  const Tensor r = std::get<0>(geqrf(x));
  EXPECT_NE(error_of([&] { sum(r).backward(); }).find("geqrf"), std::string::npos);
}

TEST_F(HouseholderLdl, BadReflectorArgumentsArePyTorchsErrors) {
  // Named tensors, not a structured binding: clang 14 cannot capture one in a lambda.
  const auto factors = geqrf(a_);
  const Tensor a = std::get<0>(factors);
  const Tensor tau = std::get<1>(factors);
  const std::string hp = "torch.linalg.householder_product: ";
  EXPECT_EQ(error_of([&] { (void)geqrf(vec({1, 2})); }), "torch.geqrf: input must have at least 2 dimensions.");
  EXPECT_EQ(error_of([&] { (void)geqrf(a_.to(ScalarType::kInt64)); }), "\"geqrf_cpu\" not implemented for 'Long'");
  EXPECT_EQ(error_of([&] { (void)linalg::householder_product(vec({1, 2}), tau); }),
            hp + "input must have at least 2 dimensions.");
  EXPECT_EQ(error_of([&] { (void)linalg::householder_product(a.transpose(0, 1), tau); }),
            hp + "input.shape[-2] must be greater than or equal to input.shape[-1]");
  EXPECT_EQ(error_of([&] { (void)linalg::householder_product(a.narrow(1, 0, 2), tau); }),
            hp + "input.shape[-1] must be greater than or equal to tau.shape[-1]");
  EXPECT_EQ(error_of([&] { (void)linalg::householder_product(a, tau.to(ScalarType::kFloat32)); }),
            hp + "tau dtype Float does not match input dtype Double");
  EXPECT_EQ(error_of([&] { (void)linalg::householder_product(stack({a, a}), tau); }),
            hp + "Expected tau to have one dimension less than input, but got tau.ndim equal to 1 and input.ndim is "
                 "equal to 3");
  EXPECT_EQ(error_of([&] { (void)linalg::householder_product(stack({a, a}), stack({tau, tau, tau})); }),
            hp + "Expected batch dimensions of tau to be equal to input.shape[:-2], but got [3]");
  EXPECT_EQ(error_of([&] { (void)orgqr(a.to(ScalarType::kInt64), tau.to(ScalarType::kInt64)); }),
            "\"orgqr_cpu\" not implemented for 'Long'");
  const Tensor c = ones({4, 2}, ScalarType::kFloat64);
  EXPECT_EQ(error_of([&] { (void)ormqr(a, tau, ones({3, 2}, ScalarType::kFloat64)); }),
            "torch.ormqr: other.shape[-2] must be equal to input.shape[-2]");
  EXPECT_EQ(error_of([&] { (void)ormqr(a, tau, ones({2, 3}, ScalarType::kFloat64), false); }),
            "torch.ormqr: other.shape[-1] must be equal to input.shape[-2]");
  EXPECT_EQ(error_of([&] { (void)ormqr(a, ones({4}, ScalarType::kFloat64), c); }),
            "torch.ormqr: tau.shape[-1] must be less than or equal to input.shape[-1]");
  EXPECT_EQ(error_of([&] { (void)ormqr(a, tau, vec({1, 2, 3, 4})); }),
            "torch.ormqr: other must have at least 2 dimensions.");
  EXPECT_EQ(error_of([&] { (void)ormqr(a, tau, c.to(ScalarType::kFloat32)); }),
            "torch.ormqr: Expected input and other to have the same dtype, but input has dtypeDouble and other has "
            "dtype Float");
  EXPECT_EQ(error_of([&] { (void)ormqr(stack({a, a}), stack({tau, tau}), c); }),
            "torch.ormqr: Expected other to have the same number of dimensions as input, but got other.ndim equal to "
            "2 and input.ndim is equal to 3");
  EXPECT_EQ(error_of([&] { (void)ormqr(stack({a, a}), stack({tau, tau}), stack({c, c, c})); }),
            "torch.ormqr: Expected batch dimensions of other to be equal to input.shape[:-2], but got [3]");
}

TEST_F(HouseholderLdl, LdlFactorIsLapacksBunchKaufman) {
  const Tensor s = mat({4, 1, 2, 1, -5, 3, 2, 3, 6}, {3, 3});
  const auto [ld, pivots] = linalg::ldl_factor(s);
  EXPECT_EQ(ld.strides(), (std::vector<std::int64_t>{1, 3}));
  expect_near(ld, {4.0, 0.0, 0.0, 0.25, -5.25, 0.0, 0.5, -0.47619047619047616, 6.190476190476191}, 1e-12);
  EXPECT_EQ(pivots.dtype(), ScalarType::kInt32);
  expect_near(pivots, {1, 2, 3});
  // A zero diagonal takes a 2 x 2 block, marked by a repeated negative pivot.
  const Tensor s2 = mat({0, 1, 2, 1, 0, 3, 2, 3, 0}, {3, 3});
  const auto [ld2, pivots2, info2] = linalg::ldl_factor_ex(s2);
  expect_near(ld2, {0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 1.5, 0.5, -3.0}, 1e-12);
  expect_near(pivots2, {-3, -3, 3});
  EXPECT_EQ(info2.dim(), 0);
  expect_near(info2, {0});
  const Tensor b = mat({1, 2, 3, 4, 5, 6}, {3, 2});
  const Tensor x = linalg::ldl_solve(ld2, pivots2, b);
  expect_near(x, {2.0, 2.0, 0.3333333333333333, 0.6666666666666666, 0.33333333333333337, 0.6666666666666667},
              1e-12);
  expect_near(matmul(s2, x), values(b), 1e-12);
  // int64 pivots are taken too, and the batch dims broadcast.
  const Tensor xs = linalg::ldl_solve(ld2, pivots2.to(ScalarType::kInt64), stack({b, mul(b, 2.0)}));
  expect_near(xs.select(0, 1), values(mul(x, 2.0)), 1e-12);
}

TEST_F(HouseholderLdl, HermitianLdlOfComplexMatrices) {
  const Tensor h = complex(mat({2, 1, 0, 1, 3, 0, 0, 0, 1}, {3, 3}), mat({0, 1, 0, -1, 0, 2, 0, -2, 0}, {3, 3}));
  const auto [ld, pivots] = linalg::ldl_factor(h, true);
  expect_near(view_as_real(ld).select(-1, 0), {2, 0, 0, 0.5, 2, 0, 0, 0, -1}, 1e-12);
  expect_near(view_as_real(ld).select(-1, 1), {0, 0, 0, -0.5, 0, 0, 0, -1, 0}, 1e-12);
  expect_near(pivots, {1, 2, 3});
  const Tensor b = complex(mat({1, 2, 3}, {3, 1}), mat({0, -1, 1}, {3, 1}));
  const Tensor x = linalg::ldl_solve(ld, pivots, b, true);
  const Tensor hx = matmul(h, x);
  expect_near(view_as_real(hx).select(-1, 0), {1, 2, 3}, 1e-12);
  expect_near(view_as_real(hx).select(-1, 1), {0, -1, 1}, 1e-12);
}

TEST_F(HouseholderLdl, SingularAndBadLdlInputsRaise) {
  const Tensor zero = zeros({2, 2}, ScalarType::kFloat64);
  const auto [ld, pivots, info] = linalg::ldl_factor_ex(zero);
  expect_near(info, {1});
  expect_near(pivots, {1, 2});
  WICK_EXPECT_THROW_MSG(linalg::ldl_factor_ex(zero, false, true), LinAlgError,
                        "torch.linalg.ldl_factor_ex: The factorization could not be completed because D[1,1] is zero");
  WICK_EXPECT_THROW_MSG(linalg::ldl_factor(stack({eye(2, ScalarType::kFloat64), zero})), LinAlgError,
                        "torch.linalg.ldl_factor: (Batch element 1): The factorization");
  EXPECT_EQ(error_of([&] { (void)linalg::ldl_factor_ex(vec({1, 2})); }),
            "torch.linalg.ldl_factor_ex: The input tensor A must have at least 2 dimensions.");
  EXPECT_EQ(error_of([&] { (void)linalg::ldl_factor_ex(ones({3, 2}, ScalarType::kFloat64)); }),
            "torch.linalg.ldl_factor_ex: A must be batches of square matrices, but they are 3 by 2 matrices");
  EXPECT_EQ(error_of([&] { (void)linalg::ldl_factor_ex(ones({2, 2}, ScalarType::kInt64)); }),
            "torch.linalg.ldl_factor_ex: Expected a floating point or complex tensor as input. Got Long");
  const Tensor s = mat({4, 1, 1, 3}, {2, 2});
  const auto factors = linalg::ldl_factor(s);
  const Tensor good = std::get<0>(factors);
  const Tensor piv = std::get<1>(factors);
  const Tensor b = ones({2, 1}, ScalarType::kFloat64);
  EXPECT_EQ(error_of([&] { (void)linalg::ldl_solve(good, piv, b.to(ScalarType::kFloat32)); }),
            "Expected b and A to have the same dtype, but found b of type Float and A of type Double instead.");
  EXPECT_EQ(error_of([&] { (void)linalg::ldl_solve(good, piv.to(ScalarType::kFloat64), b); }),
            "torch.linalg.ldl_solve: Expected pivots to be integers. Got Double");
  EXPECT_EQ(error_of([&] { (void)linalg::ldl_solve(good, piv, ones({3, 1}, ScalarType::kFloat64)); }),
            "Incompatible matrix sizes for torch.linalg.ldl_solve: each A matrix is 2 by 2 but each b matrix is 3 by "
            "1");
  EXPECT_EQ(error_of([&] { (void)linalg::ldl_solve(good, piv.narrow(0, 0, 1), b); }),
            "torch.linalg.ldl_solve: Expected LD.shape[:-1] and pivots.shape to be the same, but got pivots with "
            "shape [1] instead");
  // Pivots that no factorization gives would send LAPACK outside the
  // matrix: refused (PyTorch passes them on).
  for (const std::vector<double>& bad : std::vector<std::vector<double>>{{3, 1}, {-1, 2}, {0, 1}, {2, -2}}) {
    WICK_EXPECT_THROW_MSG(linalg::ldl_solve(good, vec(bad, ScalarType::kInt32), b), IndexError,
                          "torch.linalg.ldl_solve: pivots must be those of a factorization");
  }
}

}  // namespace
}  // namespace wick
