// tests/backends/cpu_fft_test.cpp - the CPU DFTs against sums computed here, for every path of the kernels.
/// \file
/// PyTorch 1.13's values for short signals are checked by the differential
/// test; here the kernels' paths for long and rough lengths (Note [DFTs on
/// kissfft], Note [Long DFTs in four steps]) are checked against the DFT's
/// definition, summed in long double for a sample of frequencies, and
/// against each other (rfft against fft, inverses, strided lines).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include <wick/loader.h>
#include <wick/ops.h>
#include <wick/random.h>

namespace wick {
namespace {

using I64 = std::int64_t;
using C = std::complex<double>;

std::vector<C> complex_values(const Tensor& t) {
  const Tensor c = t.detach().to(ScalarType::kComplex128).contiguous();
  const auto* p = static_cast<const C*>(c.data_ptr());
  return std::vector<C>(p, p + c.numel());
}

// X[k] by its definition, in long double.
C direct(const std::vector<C>& x, I64 k, bool inverse) {
  const auto n = static_cast<I64>(x.size());
  std::complex<long double> sum = 0;
  const long double sign = inverse ? 1.0L : -1.0L;
  for (I64 j = 0; j < n; ++j) {
    const auto r = static_cast<long double>((j * k) % n);
    const long double a = sign * 2.0L * std::numbers::pi_v<long double> * r / static_cast<long double>(n);
    sum += std::complex<long double>(x[j].real(), x[j].imag()) * std::complex<long double>(std::cos(a), std::sin(a));
  }
  return {static_cast<double>(sum.real()), static_cast<double>(sum.imag())};
}

double norm_of(const std::vector<C>& x) {
  double s = 0;
  for (const C& v : x) s += std::norm(v);
  return std::sqrt(s);
}

Tensor crandn(I64 n, ScalarType real = ScalarType::kFloat64) {
  return complex(randn({n}, real), randn({n}, real));
}

class CpuFft : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    manual_seed(7);
  }
};

// Lengths for each path: kissfft alone (smooth, short), four steps (smooth,
// above 2^13), Bluestein (a prime; a rough length whose convolution runs in
// four steps), and the trivial ones.
TEST_F(CpuFft, EveryPathMatchesTheDefinition) {
  for (const I64 n : {I64{1}, I64{2}, I64{3}, I64{12}, I64{1000}, I64{24576}, I64{32768}, I64{10007}, I64{16385}}) {
    for (const bool inverse : {false, true}) {
      const Tensor x = crandn(n);
      const std::vector<C> in = complex_values(x);
      const std::vector<C> got = complex_values(inverse ? fft::ifft(x, std::nullopt, -1, "forward") : fft::fft(x));
      ASSERT_EQ(static_cast<I64>(got.size()), n);
      // A sample of frequencies: the ends, the middle and a stride through.
      std::vector<I64> ks = {0, n - 1, n / 2, n / 3};
      for (I64 k = 1; k < n; k += std::max<I64>(1, n / 13)) ks.push_back(k);
      const double tol = 1e-12 * norm_of(in) * std::sqrt(static_cast<double>(n));
      for (const I64 k : ks) {
        const C want = direct(in, k, inverse);
        EXPECT_LE(std::abs(got[static_cast<std::size_t>(k)] - want), tol)
            << "n " << n << (inverse ? " inverse" : " forward") << " k " << k;
      }
    }
  }
}

TEST_F(CpuFft, Float32KeepsFloat32Accuracy) {
  for (const I64 n : {I64{24576}, I64{10007}}) {
    const Tensor x = crandn(n, ScalarType::kFloat32);
    const std::vector<C> in = complex_values(x);
    const std::vector<C> got = complex_values(fft::fft(x));
    const double tol = 2e-6 * norm_of(in) * std::log2(static_cast<double>(n));
    for (const I64 k : {I64{0}, I64{1}, n / 2, n - 1, I64{777}}) {
      EXPECT_LE(std::abs(got[static_cast<std::size_t>(k)] - direct(in, k, false)), tol) << "n " << n << " k " << k;
    }
  }
}

TEST_F(CpuFft, RealTransformsAgreeWithTheComplexOnesAndInvert) {
  for (const I64 n : {I64{2}, I64{7}, I64{10}, I64{20000}, I64{32768}, I64{10007}}) {
    const Tensor x = randn({n}, ScalarType::kFloat64);
    const std::vector<C> half = complex_values(fft::rfft(x));
    const std::vector<C> full = complex_values(fft::fft(x.to(ScalarType::kComplex128)));
    ASSERT_EQ(static_cast<I64>(half.size()), n / 2 + 1);
    const double tol = 1e-12 * norm_of(full);
    for (std::size_t k = 0; k < half.size(); ++k) EXPECT_LE(std::abs(half[k] - full[k]), tol) << "n " << n << " k " << k;
    // The zero frequency (and the Nyquist one) of a real signal are real, exactly.
    EXPECT_EQ(half.front().imag(), 0.0);
    if (n % 2 == 0) {
      EXPECT_EQ(half.back().imag(), 0.0);
    }
    // irfft inverts it, and fft of a real signal is the full spectrum.
    const std::vector<C> back = complex_values(fft::irfft(fft::rfft(x), n));
    const std::vector<C> orig = complex_values(x);
    for (std::size_t j = 0; j < orig.size(); ++j) EXPECT_NEAR(back[j].real(), orig[j].real(), 1e-12) << "n " << n;
    const std::vector<C> from_real = complex_values(fft::fft(x));
    for (std::size_t k = 0; k < full.size(); ++k) EXPECT_LE(std::abs(from_real[k] - full[k]), tol) << "n " << n;
  }
}

TEST_F(CpuFft, StridedLinesAndSeveralDimsMatchContiguousOnes) {
  // Along dim 0 of [n, 3]: lines three apart; against the contiguous transpose.
  const Tensor x = complex(randn({9000, 3}, ScalarType::kFloat64), randn({9000, 3}, ScalarType::kFloat64));
  const std::vector<C> a = complex_values(fft::fft(x, std::nullopt, 0));
  const std::vector<C> b = complex_values(fft::fft(x.t().contiguous()).t());
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_LE(std::abs(a[i] - b[i]), 1e-9) << i;
  // fftn is one-dimensional transforms dim by dim, in any order.
  const Tensor y = randn({6, 10, 14}, ScalarType::kFloat64);
  const std::vector<C> nd = complex_values(fft::fftn(y));
  const std::vector<C> steps =
      complex_values(fft::fft(fft::fft(fft::fft(y, std::nullopt, 2), std::nullopt, 0), std::nullopt, 1));
  for (std::size_t i = 0; i < nd.size(); ++i) EXPECT_LE(std::abs(nd[i] - steps[i]), 1e-10) << i;
  // irfftn inverts rfftn over three dims with an odd last size.
  const std::vector<C> back = complex_values(fft::irfftn(fft::rfftn(y.narrow(2, 0, 13)), IntArrayRef({6, 10, 13})));
  const std::vector<C> orig = complex_values(y.narrow(2, 0, 13));
  for (std::size_t i = 0; i < orig.size(); ++i) EXPECT_NEAR(back[i].real(), orig[i].real(), 1e-12) << i;
}

}  // namespace
}  // namespace wick
