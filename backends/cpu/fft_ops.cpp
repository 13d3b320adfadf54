// backends/cpu/fft_ops.cpp - the DFT kernels _fft_c2c, _fft_r2c and _fft_c2r on kissfft, with Bluestein for rough lengths.
/// \file
/// Note [DFTs on kissfft]
/// kissfft (BSD-3, Debian's libkissfft-dev; its header-only C++ class
/// kissfft.hh, in float and double) computes the mixed-radix DFT of a length
/// whose prime factors are 2, 3 and 5. Any other length goes through
/// Bluestein's chirp-z: with w_j = exp(-i pi j^2 / n),
///   X_k = w_k * sum_j (x_j w_j) conj(w_{k-j}),
/// a convolution computed with kissfft DFTs of a 2-3-5-smooth length
/// M >= 2n - 1. A prime length thus costs about what a smooth one twice as
/// long does, where kissfft's own generic butterfly is O(n^2): a length of
/// 10^6 + 3 would take minutes. The chirp's phase j^2 mod 2n is exact in
/// integers, and the chirps and twiddles are computed in double.
///
/// Real transforms of an even length n pack the signal's pairs as n/2
/// complex numbers, run one DFT of n/2 and separate the even and odd halves'
/// spectra (E_k = (Z_k + conj Z_{n/2-k}) / 2, O_k = (Z_k - conj Z_{n/2-k}) / 2i,
/// X_k = E_k + exp(-2 pi i k / n) O_k); the inverse runs those steps
/// backwards. Odd lengths transform the signal as complex numbers. The
/// inverse reads only the real part of the zero frequency (and of the
/// Nyquist one, n even), as PyTorch's pocketfft does.
///
/// A transform over several dims runs the one-dimensional transform along
/// each in turn, the lines of a dim in parallel (Note [Grain size] in
/// loops.h). Plans (kissfft's twiddles, Bluestein's chirps) are cached by
/// length, direction and precision.
#include <kissfft.hh>

#include <cmath>
#include <complex>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <tuple>
#include <vector>

#include <wick/checked.h>
#include <wick/meta.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

using I64 = std::int64_t;
template <typename R>
using Cx = std::complex<R>;

bool smooth(I64 n) {
  for (const I64 p : {2, 3, 5})
    while (n % p == 0) n /= p;
  return n == 1;
}

// exp(sign * 2 pi i * num / den), exact at the multiples of pi / 2: the
// phase is reduced in integers to the nearest quarter turn q and a rest of
// at most an eighth of a turn, whose cosine and sine are rotated by q
// quarter turns exactly (PyTorch's pocketfft is exact there too, so a
// frequency that is zero comes out as 0, not as 1e-17).
Cx<double> unit(I64 num, I64 den, double sign) {
  using U = unsigned __int128;
  const U four_r = static_cast<U>(num % den) * 4;
  const auto q = static_cast<I64>((four_r + static_cast<U>(den) / 2) / static_cast<U>(den));  // 0 .. 4
  const double rest = static_cast<double>(static_cast<__int128>(four_r) - static_cast<__int128>(q) * den) /
                      static_cast<double>(den);  // in quarter turns, |rest| <= 1/2
  const double a = sign * (std::numbers::pi / 2) * rest;
  const double c = rest == 0 ? 1.0 : std::cos(a);
  const double s = rest == 0 ? 0.0 : std::sin(a);
  switch ((q % 4) * (sign > 0 ? 1 : 3) % 4) {  // multiply by (sign i)^q
    case 0: return {c, s};
    case 1: return {-s, c};
    case 2: return {-c, -s};
    default: return {s, -c};
  }
}

/// The unnormalised DFT of one length and direction (forward: exp(-...)).
/// Bluestein's convolution runs in double whatever R is: its chirps turn
/// through n^2 / 2 periods, and in float its rounding would grow with n.
template <typename R>
class Dft {
 public:
  Dft(I64 n, bool inverse) : n_(n) {
    if (n == 1) return;  // the identity
    if (smooth(n)) {
      direct_.emplace(static_cast<std::size_t>(n), inverse);
      return;
    }
    m_ = 2 * n - 1;
    while (!smooth(m_)) ++m_;
    fwd_.emplace(static_cast<std::size_t>(m_), false);
    inv_.emplace(static_cast<std::size_t>(m_), true);
    // w_j = exp(-+ i pi j^2 / n) = exp(-+ 2 pi i (j^2 mod 2n) / 2n).
    const double sign = inverse ? 1.0 : -1.0;
    chirp_.resize(static_cast<std::size_t>(n));
    for (I64 j = 0; j < n; ++j) {
      const auto sq = static_cast<I64>((static_cast<unsigned __int128>(j) * static_cast<unsigned __int128>(j)) %
                                       static_cast<unsigned __int128>(2 * n));
      chirp_[j] = unit(sq, 2 * n, sign);
    }
    // The convolution's kernel conj(w_m) at m and M - m, as a spectrum, over M.
    std::vector<Cx<double>> b(static_cast<std::size_t>(m_), Cx<double>(0));
    for (I64 j = 0; j < n; ++j) {
      b[j] = std::conj(chirp_[j]);
      if (j > 0) b[m_ - j] = b[j];
    }
    kernel_.resize(static_cast<std::size_t>(m_));
    fwd_->transform(b.data(), kernel_.data());
    for (Cx<double>& k : kernel_) k /= static_cast<double>(m_);
  }

  [[nodiscard]] I64 size() const noexcept { return n_; }

  /// out = DFT(in); `in` and `out` are distinct arrays of size().
  void run(const Cx<R>* in, Cx<R>* out) const {
    if (n_ == 1) {
      out[0] = in[0];
      return;
    }
    if (direct_) {
      direct_->transform(in, out);
      return;
    }
    thread_local std::vector<Cx<double>> work;
    work.resize(static_cast<std::size_t>(2 * m_));
    Cx<double>* a = work.data();
    Cx<double>* spectrum = a + m_;
    for (I64 j = 0; j < n_; ++j) a[j] = Cx<double>(in[j]) * chirp_[j];
    for (I64 j = n_; j < m_; ++j) a[j] = Cx<double>(0);
    fwd_->transform(a, spectrum);
    for (I64 k = 0; k < m_; ++k) spectrum[k] *= kernel_[k];
    inv_->transform(spectrum, a);
    for (I64 k = 0; k < n_; ++k) out[k] = Cx<R>(a[k] * chirp_[k]);
  }

 private:
  I64 n_;
  std::optional<kissfft<R>> direct_;
  I64 m_ = 0;
  std::optional<kissfft<double>> fwd_, inv_;
  std::vector<Cx<double>> chirp_, kernel_;
};

/// A one-dimensional real transform of length n: the complex DFT it runs
/// (of n / 2 for even n, else of n) and, for even n, the twiddles
/// exp(-2 pi i k / n), k <= n / 2.
template <typename R>
struct RealPlan {
  std::shared_ptr<const Dft<R>> dft;
  std::vector<Cx<R>> twiddles;
};

template <typename R>
std::shared_ptr<const Dft<R>> dft_plan(I64 n, bool inverse) {
  static std::mutex mutex;
  static std::map<std::pair<I64, bool>, std::shared_ptr<const Dft<R>>> cache;
  const std::lock_guard lock(mutex);
  auto& slot = cache[{n, inverse}];
  if (!slot) {
    if (cache.size() > 64) {  // bounded: a new length past 64 starts over
      cache.clear();
      return cache[{n, inverse}] = std::make_shared<const Dft<R>>(n, inverse);
    }
    slot = std::make_shared<const Dft<R>>(n, inverse);
  }
  return slot;
}

template <typename R>
RealPlan<R> real_plan(I64 n, bool inverse) {
  RealPlan<R> p;
  if (n % 2 != 0) {
    p.dft = dft_plan<R>(n, inverse);
    return p;
  }
  p.dft = dft_plan<R>(n / 2, inverse);
  p.twiddles.resize(static_cast<std::size_t>(n / 2 + 1));
  for (I64 k = 0; k <= n / 2; ++k) p.twiddles[k] = Cx<R>(unit(k, n, -1.0));
  return p;
}

// Lines along one dim of a contiguous tensor of `sizes`: line l starts at
// (l / inner) * n * inner + l % inner and steps by inner.
struct Lines {
  I64 count, n, inner;
  [[nodiscard]] I64 start(I64 l) const { return (l / inner) * n * inner + l % inner; }
};
Lines lines_of(IntArrayRef sizes, I64 dim) {
  I64 inner = 1;
  for (std::size_t d = static_cast<std::size_t>(dim) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  I64 total = 1;
  for (const I64 s : sizes) total *= s;
  const I64 n = sizes[static_cast<std::size_t>(dim)];
  return {n == 0 ? 0 : total / n, n, inner};
}

// Runs `body(first, last, buffers)` over the lines in parallel, with buffers
// of `width` elements per thread.
template <typename R, typename Body>
void for_lines(I64 count, I64 n, I64 width, Body body) {
  parallel_for(count, std::max<I64>(1, kGrainSize / std::max<I64>(n, 1)), [&](I64 first, I64 last) {
    std::vector<Cx<R>> buffer(static_cast<std::size_t>(width));
    body(first, last, buffer.data());
  });
}

// The complex DFT along `dim` of the contiguous complex `data`, in place.
template <typename R>
void c2c_dim(Cx<R>* data, IntArrayRef sizes, I64 dim, bool inverse) {
  const Lines lines = lines_of(sizes, dim);
  if (lines.count == 0 || lines.n <= 1) return;
  const auto dft = dft_plan<R>(lines.n, inverse);
  const I64 n = lines.n;
  for_lines<R>(lines.count, n, 2 * n, [&](I64 first, I64 last, Cx<R>* buf) {
    Cx<R>* in = buf;
    Cx<R>* out = buf + n;
    for (I64 l = first; l < last; ++l) {
      Cx<R>* line = data + lines.start(l);
      for (I64 k = 0; k < n; ++k) in[k] = line[k * lines.inner];
      dft->run(in, out);
      for (I64 k = 0; k < n; ++k) line[k * lines.inner] = out[k];
    }
  });
}

// The forward real DFT along `dim` of the contiguous real `src` (sizes
// `sizes`) into the contiguous complex `dst` (its sizes with n // 2 + 1 or,
// not onesided, n there).
template <typename R>
void r2c_dim(const R* src, Cx<R>* dst, IntArrayRef sizes, I64 dim, bool onesided) {
  const Lines lines = lines_of(sizes, dim);
  if (lines.count == 0) return;
  const I64 n = lines.n;
  const I64 half = n / 2 + 1;
  const I64 out_n = onesided ? half : n;
  const RealPlan<R> plan = real_plan<R>(n, false);
  const bool even = n % 2 == 0;
  const I64 m = even ? n / 2 : n;  // the complex DFT's length
  for_lines<R>(lines.count, n, 2 * m + half, [&](I64 first, I64 last, Cx<R>* buf) {
    Cx<R>* in = buf;
    Cx<R>* z = buf + m;
    Cx<R>* x = buf + 2 * m;
    for (I64 l = first; l < last; ++l) {
      const R* line = src + lines.start(l);
      if (even) {
        for (I64 j = 0; j < m; ++j) in[j] = Cx<R>(line[2 * j * lines.inner], line[(2 * j + 1) * lines.inner]);
        plan.dft->run(in, z);
        for (I64 k = 0; k < half; ++k) {
          const Cx<R> a = z[k % m];
          const Cx<R> b = std::conj(z[(m - k % m) % m]);
          const Cx<R> e = (a + b) * R(0.5);
          const Cx<R> o = (a - b) * Cx<R>(0, R(-0.5));
          x[k] = e + plan.twiddles[k] * o;
        }
        // The zero and Nyquist frequencies of a real signal are real: E_0 +- O_0.
        x[0] = Cx<R>(z[0].real() + z[0].imag(), R(0));
        x[m] = Cx<R>(z[0].real() - z[0].imag(), R(0));
      } else {
        for (I64 j = 0; j < n; ++j) in[j] = Cx<R>(line[j * lines.inner], R(0));
        plan.dft->run(in, z);
        for (I64 k = 0; k < half; ++k) x[k] = z[k];
        x[0] = Cx<R>(x[0].real(), R(0));  // the zero frequency of a real signal is real
      }
      const I64 out_start = (l / lines.inner) * out_n * lines.inner + l % lines.inner;
      Cx<R>* out = dst + out_start;
      for (I64 k = 0; k < half; ++k) out[k * lines.inner] = x[k];
      for (I64 k = half; k < out_n; ++k) out[k * lines.inner] = std::conj(x[n - k]);
    }
  });
}

// The inverse real DFT along `dim` of the contiguous one-sided complex
// `src` (sizes `sizes`, n // 2 + 1 there) into the contiguous real `dst`
// (n there).
template <typename R>
void c2r_dim(const Cx<R>* src, R* dst, IntArrayRef sizes, I64 dim, I64 n) {
  const Lines lines = lines_of(sizes, dim);
  if (lines.count == 0) return;
  const I64 half = n / 2 + 1;
  const RealPlan<R> plan = real_plan<R>(n, true);
  const bool even = n % 2 == 0;
  const I64 m = even ? n / 2 : n;
  for_lines<R>(lines.count, n, 2 * m + half, [&](I64 first, I64 last, Cx<R>* buf) {
    Cx<R>* in = buf;
    Cx<R>* z = buf + m;
    Cx<R>* x = buf + 2 * m;
    for (I64 l = first; l < last; ++l) {
      const Cx<R>* line = src + lines.start(l);
      for (I64 k = 0; k < half; ++k) x[k] = line[k * lines.inner];
      x[0] = Cx<R>(x[0].real(), R(0));
      if (even) x[half - 1] = Cx<R>(x[half - 1].real(), R(0));
      R* out = dst + (l / lines.inner) * n * lines.inner + l % lines.inner;
      if (even) {
        for (I64 k = 0; k < m; ++k) {
          const Cx<R> a = x[k];
          const Cx<R> b = std::conj(x[m - k]);
          in[k] = (a + b) + Cx<R>(0, 1) * std::conj(plan.twiddles[k]) * (a - b);
        }
        plan.dft->run(in, z);
        for (I64 j = 0; j < m; ++j) {
          out[2 * j * lines.inner] = z[j].real();
          out[(2 * j + 1) * lines.inner] = z[j].imag();
        }
      } else {
        for (I64 k = 0; k < half; ++k) in[k] = x[k];
        for (I64 k = half; k < n; ++k) in[k] = std::conj(x[n - k]);
        plan.dft->run(in, z);
        for (I64 j = 0; j < n; ++j) out[j * lines.inner] = z[j].real();
      }
    }
  });
}

// Multiplies the `count` values at `data` (R or complex R) by the transform's scale.
template <typename R, typename S>
void apply_scaling(S* data, I64 count, I64 normalization, double signal) {
  if (normalization == 0 || count == 0) return;
  const double scale = normalization == 1 ? 1.0 / std::sqrt(signal) : 1.0 / signal;
  const auto s = static_cast<R>(scale);
  parallel_for(count, kGrainSize, [&](I64 begin, I64 end) {
    for (I64 i = begin; i < end; ++i) data[i] *= s;
  });
}

double signal_size(IntArrayRef sizes, IntArrayRef dims) {
  double n = 1;
  for (const I64 d : dims) n *= static_cast<double>(sizes[wrap_dim(d, static_cast<I64>(sizes.size()))]);
  return n;
}

DimVector wrapped(IntArrayRef dims, I64 rank) {
  DimVector out;
  for (const I64 d : dims) out.push_back(wrap_dim(d, rank));
  return out;
}

}  // namespace

void _fft_c2c(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, IntArrayRef dim,
              std::int64_t normalization, bool forward) {
  if (out.numel() == 0) return;
  Tensor(out).copy_(self);
  const DimVector dims = wrapped(dim, self.dim());
  const auto run = [&](auto tag) {
    using R = decltype(tag);
    auto* data = static_cast<Cx<R>*>(out.data_ptr());
    for (const I64 d : dims) c2c_dim<R>(data, out.sizes(), d, !forward);
    apply_scaling<R>(data, out.numel(), normalization, signal_size(out.sizes(), dims));
  };
  if (self.dtype() == ScalarType::kComplex64) {
    run(float{});
  } else {
    run(double{});
  }
}

void _fft_r2c(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, IntArrayRef dim,
              std::int64_t normalization, bool onesided) {
  if (out.numel() == 0) return;
  const DimVector dims = wrapped(dim, self.dim());
  if (dims.empty()) {
    Tensor(out).copy_(self);
    return;
  }
  const Tensor src = self.contiguous();
  const auto run = [&](auto tag) {
    using R = decltype(tag);
    auto* data = static_cast<Cx<R>*>(out.data_ptr());
    r2c_dim<R>(static_cast<const R*>(src.data_ptr()), data, src.sizes(), dims.back(), onesided);
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) c2c_dim<R>(data, out.sizes(), dims[i], false);
    apply_scaling<R>(data, out.numel(), normalization, signal_size(self.sizes(), dims));
  };
  if (self.dtype() == ScalarType::kFloat32) {
    run(float{});
  } else {
    run(double{});
  }
}

void _fft_c2r(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, IntArrayRef dim,
              std::int64_t normalization, std::int64_t last_dim_size) {
  if (out.numel() == 0) return;
  const DimVector dims = wrapped(dim, self.dim());
  // The other dims first (complex to complex, inverse), on a copy.
  const Tensor tmp = self.contiguous().clone();
  const auto run = [&](auto tag) {
    using R = decltype(tag);
    auto* data = static_cast<Cx<R>*>(tmp.data_ptr());
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) c2c_dim<R>(data, tmp.sizes(), dims[i], true);
    auto* result = static_cast<R*>(out.data_ptr());
    c2r_dim<R>(data, result, tmp.sizes(), dims.back(), last_dim_size);
    apply_scaling<R>(result, out.numel(), normalization, signal_size(out.sizes(), dims));
  };
  if (self.dtype() == ScalarType::kComplex64) {
    run(float{});
  } else {
    run(double{});
  }
}

}  // namespace wick::cpu
