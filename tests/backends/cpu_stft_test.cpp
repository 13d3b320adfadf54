// tests/backends/cpu_stft_test.cpp - torch.stft and torch.istft: the definition, PyTorch's values, round trips, errors and gradients.
/// \file
/// Note [stft and istft] in dispatch/composite/stft_ops.cpp. The frames'
/// DFTs are checked against sums computed here; the padded, windowed case
/// against PyTorch 1.13's printed values; istft against stft (it inverts
/// it for every window whose squares overlap-add to no zero).
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/gradcheck.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using C = std::complex<double>;

std::vector<C> complex_values(const Tensor& t) {
  const Tensor c = t.detach().to(ScalarType::kComplex128).contiguous();
  const auto* p = static_cast<const C*>(c.data_ptr());
  return std::vector<C>(p, p + c.numel());
}
std::vector<double> real_values(const Tensor& t) {
  const Tensor c = t.detach().to(ScalarType::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

class CpuStft : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    manual_seed(11);
  }
};

TEST_F(CpuStft, FramesAreTheDftsOfTheWindowedSignal) {
  const I64 n_fft = 8;
  const I64 hop = 3;
  const Tensor x = randn({2, 29}, ScalarType::kFloat64);
  const Tensor w = rand({n_fft}, ScalarType::kFloat64);
  for (const bool onesided : {true, false}) {
    const Tensor s = stft(x, n_fft, hop, std::nullopt, w, /*center=*/false, "reflect", /*normalized=*/false, onesided,
                          /*return_complex=*/true);
    const I64 frames = 1 + (29 - n_fft) / hop;
    const I64 bins = onesided ? n_fft / 2 + 1 : n_fft;
    ASSERT_EQ(s.sizes().vec(), (std::vector<I64>{2, bins, frames}));
    const std::vector<double> xs = real_values(x);
    const std::vector<double> ws = real_values(w);
    const std::vector<C> got = complex_values(s);
    for (I64 b = 0; b < 2; ++b) {
      for (I64 k = 0; k < bins; ++k) {
        for (I64 f = 0; f < frames; ++f) {
          C want = 0;
          for (I64 j = 0; j < n_fft; ++j) {
            const double a = -2.0 * std::numbers::pi * static_cast<double>(j * k) / static_cast<double>(n_fft);
            want += ws[j] * xs[b * 29 + f * hop + j] * C(std::cos(a), std::sin(a));
          }
          EXPECT_NEAR(std::abs(got[(b * bins + k) * frames + f] - want), 0.0, 1e-12) << b << " " << k << " " << f;
        }
      }
    }
  }
  // normalized scales by 1/sqrt(n_fft); return_complex=False is view_as_real's form.
  const Tensor plain = stft(x, n_fft, hop, std::nullopt, w, false, "reflect", false, std::nullopt, true);
  const Tensor scaled = stft(x, n_fft, hop, std::nullopt, w, false, "reflect", true, std::nullopt, true);
  EXPECT_TRUE(allclose(scaled, plain.div(std::sqrt(8.0))));
  const Tensor pairs = stft(x, n_fft, hop, std::nullopt, w, false, "reflect", false, std::nullopt, false);
  EXPECT_EQ(pairs.dtype(), ScalarType::kFloat64);
  EXPECT_TRUE(equal(pairs, view_as_real(plain)));
}

TEST_F(CpuStft, CentredShortWindowMatchesPyTorch) {
  // torch.stft(torch.arange(10.), 4, hop_length=2, win_length=3, window=torch.hann_window(3),
  //            return_complex=True) in PyTorch 1.13: the signal reflect-padded by 2, the window
  // [0, 1, 0] centred in 4 samples as [0, 0, 1, 0].
  const Tensor s = stft(arange(0, 10, 1, ScalarType::kFloat32), 4, 2, 3, hann_window(3), true, "reflect", false,
                        std::nullopt, true);
  ASSERT_EQ(s.sizes().vec(), (std::vector<I64>{3, 6}));
  EXPECT_EQ(s.dtype(), ScalarType::kComplex64);
  const std::vector<C> want = {{0.75, 0},   {2.25, 0},    {5.25, 0},     {8.25, 0},     {11.25, 0},    {12.75, 0},
                               {0, -0.75},  {-1.5, -0.75}, {-3.0, -2.25}, {-4.5, -3.75}, {-6.0, -5.25}, {-6.0, -6.75},
                               {-0.75, 0},  {0.75, 0},    {0.75, 0},     {0.75, 0},     {0.75, 0},     {-0.75, 0}};
  const std::vector<C> got = complex_values(s);
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(std::abs(got[i] - want[i]), 0.0, 1e-5) << i;
}

TEST_F(CpuStft, IstftInvertsStft) {
  const Tensor x = randn({3, 40}, ScalarType::kFloat64);
  const Tensor w = hann_window(16, true, ScalarType::kFloat64);
  const Tensor s = stft(x, 16, 4, std::nullopt, w, true, "reflect", false, std::nullopt, true);
  EXPECT_TRUE(allclose(istft(s, 16, 4, std::nullopt, w, true, false, std::nullopt, 40), x, 1e-10, 1e-10));
  // No window, no centring, normalized both ways, a 1-D signal.
  const Tensor y = randn({25}, ScalarType::kFloat64);
  const Tensor t = stft(y, 5, 2, std::nullopt, std::nullopt, false, "reflect", true, std::nullopt, true);
  const Tensor back = istft(t, 5, 2, std::nullopt, std::nullopt, false, true);
  ASSERT_EQ(back.sizes().vec(), (std::vector<I64>{25}));
  EXPECT_TRUE(allclose(back, y, 1e-10, 1e-10));
  // A complex signal (two-sided), back as complex; `length` past the frames pads with zeros.
  const Tensor z = complex(randn({18}, ScalarType::kFloat64), randn({18}, ScalarType::kFloat64));
  const Tensor zs = stft(z, 6, 3, std::nullopt, std::nullopt, true, "constant", false, std::nullopt, true);
  EXPECT_EQ(zs.size(0), 6);
  const Tensor zb = istft(zs, 6, 3, std::nullopt, std::nullopt, true, false, std::nullopt, 20, true);
  ASSERT_EQ(zb.sizes().vec(), (std::vector<I64>{20}));
  EXPECT_TRUE(allclose(aten::slice(zb, 0, 0, 18, 1), z, 1e-10, 1e-10));
  EXPECT_NEAR(real_values(zb.abs()).back(), 0.0, 1e-12);  // the zeros "constant" padded on
}

TEST_F(CpuStft, BadArgumentsGetPyTorchsMessages) {
  const Tensor x = arange(0, 10, 1, ScalarType::kFloat32);
  WICK_EXPECT_THROW_MSG(stft(x, 0, std::nullopt, std::nullopt, std::nullopt, true, "reflect", false, std::nullopt, true),
                        RuntimeError,
                        "stft(torch.FloatTensor[10], n_fft=0, hop_length=0, win_length=0, window=None, normalized=0, "
                        "onesided=None, return_complex=1) : expected 0 < n_fft < 10, but got n_fft=0");
  WICK_EXPECT_THROW_MSG(stft(x, 4, 0, std::nullopt, std::nullopt, true, "reflect", false, std::nullopt, true),
                        RuntimeError, "expected hop_length > 0, but got hop_length=0");
  WICK_EXPECT_THROW_MSG(stft(x, 4, std::nullopt, 3, ones({4}), true, "reflect", false, std::nullopt, true),
                        RuntimeError, "expected a 1D window tensor of size equal to win_length=3, but got window with "
                                      "size [4]");
  WICK_EXPECT_THROW_MSG(stft(x.to(ScalarType::kComplex64), 4, std::nullopt, std::nullopt, std::nullopt, true,
                             "reflect", false, true, true),
                        RuntimeError, "Cannot have onesided output if window or input is complex");
  WICK_EXPECT_THROW_MSG(stft(x.reshape({1, 1, 10}), 4, std::nullopt, std::nullopt, std::nullopt, false, "reflect",
                             false, std::nullopt, true),
                        RuntimeError, "expected a 1D or 2D tensor");
  const Tensor s = stft(x, 4, std::nullopt, std::nullopt, std::nullopt, true, "reflect", false, std::nullopt, true);
  // A window that is zero at the frames' first sample leaves the first output sample uncovered.
  WICK_EXPECT_THROW_MSG(istft(s, 4, std::nullopt, std::nullopt, hann_window(4), false), RuntimeError,
                        "window overlap add min: 1");
  WICK_EXPECT_THROW_MSG(istft(s, 4, 3, 2), RuntimeError, "expected 0 < hop_length <= win_length");
  WICK_EXPECT_THROW_MSG(istft(s, 4, std::nullopt, std::nullopt, std::nullopt, true, false, false), RuntimeError,
                        "expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
                        "onsided=False, but got 3");
  WICK_EXPECT_THROW_MSG(istft(aten::slice(s, 1, 0, 0, 1), 4), RuntimeError, "input tensor cannot be empty.");
}

TEST_F(CpuStft, GradientsFlowToSignalAndWindow) {
  const auto fwd = [](const autograd::tensor_list& in) {
    return view_as_real(stft(in[0], 6, 2, 5, in[1], true, "reflect", false, std::nullopt, true));
  };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(fwd), {randn({2, 13}, ScalarType::kFloat64).requires_grad_(),
                                                                rand({5}, ScalarType::kFloat64).add(0.5).requires_grad_()}));
  const auto inv = [](const autograd::tensor_list& in) {
    return istft(view_as_complex(in[0]), 6, 2, std::nullopt, in[1], true, false, std::nullopt, 9);
  };
  EXPECT_TRUE(autograd::gradcheck(autograd::GradcheckFn1(inv), {randn({4, 5, 2}, ScalarType::kFloat64).requires_grad_(),
                                                                rand({6}, ScalarType::kFloat64).add(0.5).requires_grad_()}));
}

}  // namespace
}  // namespace wick
