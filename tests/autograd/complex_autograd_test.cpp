// tests/autograd/complex_autograd_test.cpp - gradients of complex tensors (Note [Complex gradients] in wick/autograd.h).
/// \file
/// PyTorch's convention: a complex tensor's gradient is dL/dre + i dL/dim.
/// gradcheck compares the Jacobians of the real views, perturbing the real
/// and imaginary parts of each element on its own.
#include "tests/autograd/test_util.h"
#include "wick/forward_ad.h"
#include "wick/gradcheck.h"

namespace wick::testing {
namespace {

using autograd::tensor_list;

class ComplexAutograd : public AutogradTest {};

Tensor crandn(std::vector<std::int64_t> shape) {
  const IntArrayRef s(shape);
  return complex(randn(s, ScalarType::kFloat64), randn(s, ScalarType::kFloat64)).requires_grad_();
}

autograd::GradcheckOptions backward_only() { return {.check_forward_ad = false}; }

// gradcheck and gradgradcheck of fn at inputs, in backward mode; a failure names the line.
void check_both(int line, const autograd::GradcheckFn1& fn, const tensor_list& inputs) {
  try {
    EXPECT_TRUE(autograd::gradcheck(fn, inputs, backward_only())) << "line " << line;
    EXPECT_TRUE(autograd::gradgradcheck(fn, inputs, {}, backward_only())) << "line " << line;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "line " << line << ": " << e.what();
  }
}
#define EXPECT_GRADCHECK(...) check_both(__LINE__, __VA_ARGS__)

TEST_F(ComplexAutograd, TheGradientOfTheSquaredModulusIsTwiceTheNumber) {
  const Tensor z = complex(vec({1, -3}), vec({2, 0.5})).requires_grad_();
  view_as_real(mul(z, conj(z))).select(-1, 0).sum().backward();
  ASSERT_TRUE(z.grad().defined());
  expect_near(view_as_real(z.grad()).reshape({-1}), {2, 4, -6, 1});
  // |z| has the gradient z / |z|.
  const Tensor w = complex(vec({3}), vec({4})).requires_grad_();
  abs(w).sum().backward();
  expect_near(view_as_real(w.grad()).reshape({-1}), {0.6, 0.8});
}

TEST_F(ComplexAutograd, ArithmeticHolomorphicFunctionsAndProductsPassGradcheck) {
  const Tensor a = crandn({2, 3});
  const Tensor b = crandn({2, 3});
  EXPECT_GRADCHECK([](const tensor_list& x) { return mul(x[0], x[1]); }, {a, b});
  EXPECT_GRADCHECK([](const tensor_list& x) { return div(x[0], add(x[1], 3.0)); }, {a, b});
  EXPECT_GRADCHECK([](const tensor_list& x) { return sub(x[0], x[1], Scalar(std::complex<double>(1, 2))); }, {a, b});
  EXPECT_GRADCHECK([](const tensor_list& x) { return exp(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return sin(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return tanh(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return reciprocal(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return mm(x[0], x[1].t()); }, {a, b});
  const Tensor v = crandn({3});
  EXPECT_GRADCHECK([](const tensor_list& x) { return mv(x[0], x[1]); }, {a, v});
  EXPECT_GRADCHECK([](const tensor_list& x) { return matmul(x[0], x[1]); }, {a, v});
  // A real factor meets a complex one: its gradient is the real part.
  const Tensor r = drandn({2, 3});
  EXPECT_GRADCHECK([](const tensor_list& x) { return mul(x[0], x[1]); }, {a, r});
}

TEST_F(ComplexAutograd, PartsViewsAndReductionsPassGradcheck) {
  const Tensor a = crandn({2, 3});
  EXPECT_GRADCHECK([](const tensor_list& x) { return conj(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return view_as_real(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return real(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return imag(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return abs(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return angle(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return sgn(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return sum(x[0]); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return mean(x[0], IntArrayRef({1})); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return x[0].t().reshape({3, 2}).narrow(0, 1, 2); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return cat({x[0], x[0]}, 1); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return flip(x[0], IntArrayRef({1})); }, {a});
  EXPECT_GRADCHECK([](const tensor_list& x) { return tril(x[0]); }, {a});
  const Tensor re = drandn({2, 3});
  const Tensor im = drandn({3});
  EXPECT_GRADCHECK([](const tensor_list& x) { return complex(x[0], x[1]); }, {re, im});
  EXPECT_GRADCHECK([](const tensor_list& x) { return view_as_complex(x[0]); }, {drandn({3, 2})});
  EXPECT_GRADCHECK([](const tensor_list& x) { return polar(add(abs(x[0]), 0.5), x[1]); }, {re, drandn({2, 3})});
}

TEST_F(ComplexAutograd, FormulasNotWrittenForComplexTensorsRefuseThemNamingThemselves) {
  const Tensor a = crandn({2, 3});
  // cumsum's formula is real only: recording it on a complex input fails
  // at once, instead of giving a wrong gradient later.
  WICK_EXPECT_THROW_MSG((void)cumsum(a, 1), NotImplementedError, "CumsumBackward0");
  // Without grad mode nothing is recorded.
  {
    const NoGradGuard no_grad;
    EXPECT_EQ(cumsum(a, 1).size(1), 3);
  }
  // A complex loss needs an explicit gradient, as in PyTorch.
  WICK_EXPECT_THROW_MSG(sum(a).backward(), RuntimeError, "only for real scalar outputs");
  // Forward mode is real only.
  autograd::forward_ad::dual_level level;
  WICK_EXPECT_THROW_MSG((void)autograd::forward_ad::make_dual(a.detach(), a.detach()), NotImplementedError,
                        "forward-mode AD of complex tensors");
}

TEST_F(ComplexAutograd, InPlaceWritesThroughAViewOfAnotherDtypeAreRefused) {
  const Tensor a = crandn({3});
  const Tensor z = mul(a, 2.0);
  WICK_EXPECT_THROW_MSG(view_as_real(z).mul_(wrap_scalar(Scalar(2.0))), NotImplementedError, "view of a complex128 tensor");
}

TEST_F(ComplexAutograd, TheDftKernelsPassGradcheck) {
  const Tensor z = crandn({3, 4});
  const Tensor x = drandn({3, 5});
  const Tensor even = drandn({2, 6});
  for (const std::int64_t norm : {0, 1, 2}) {
    for (const bool forward : {true, false}) {
      EXPECT_GRADCHECK([&](const tensor_list& t) { return aten::_fft_c2c(t[0], {1}, norm, forward); }, {z});
      EXPECT_GRADCHECK([&](const tensor_list& t) { return aten::_fft_c2c(t[0], {0, 1}, norm, forward); }, {z});
    }
    for (const bool onesided : {true, false}) {
      EXPECT_GRADCHECK([&](const tensor_list& t) { return aten::_fft_r2c(t[0], {1}, norm, onesided); }, {x});
      EXPECT_GRADCHECK([&](const tensor_list& t) { return aten::_fft_r2c(t[0], {0, 1}, norm, onesided); }, {even});
    }
    // c2r reads n // 2 + 1 frequencies along the last dim: 3 for 4 and 5.
    const Tensor h = crandn({2, 3});
    EXPECT_GRADCHECK([&](const tensor_list& t) { return aten::_fft_c2r(t[0], {1}, norm, 4); }, {h});
    EXPECT_GRADCHECK([&](const tensor_list& t) { return aten::_fft_c2r(t[0], {0, 1}, norm, 5); }, {h});
  }
}

TEST_F(ComplexAutograd, TorchFftFunctionsPassGradcheckOnComplexInputs) {
  const Tensor z = crandn({3, 4});
  EXPECT_GRADCHECK([](const tensor_list& t) { return fft::fft(t[0]); }, {z});
  EXPECT_GRADCHECK([](const tensor_list& t) { return fft::ifft(t[0], 6, 0, "ortho"); }, {z});
  EXPECT_GRADCHECK([](const tensor_list& t) { return fft::fftn(t[0], IntArrayRef({2, 5})); }, {z});
  EXPECT_GRADCHECK([](const tensor_list& t) { return fft::irfft(t[0], 5); }, {z});
  EXPECT_GRADCHECK([](const tensor_list& t) { return fft::hfft(t[0]); }, {z});
  EXPECT_GRADCHECK([](const tensor_list& t) { return fft::irfftn(t[0], IntArrayRef({3, 6})); }, {z});
  EXPECT_GRADCHECK([](const tensor_list& t) { return fft::hfftn(t[0], std::nullopt, IntArrayRef({0, 1}), "forward"); },
                   {z});
  EXPECT_GRADCHECK([](const tensor_list& t) { return fft::fftshift(t[0]); }, {z});
}

}  // namespace
}  // namespace wick::testing
