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

#include <algorithm>
#include <cmath>
#include <cstdint>
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

// a * b by the schoolbook formula, as pocketfft multiplies. std::complex's
// operator* also recovers infinities from NaN products (C's Annex G), a
// check per product that keeps the transform's loops from vectorising.
template <typename R>
[[gnu::always_inline]] inline Cx<R> cmul(Cx<R> a, Cx<R> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

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
// `den` is a signal's length or twice it, below 2^62 (a tensor of more
// elements cannot be allocated), so 4 (num mod den) fits in 64 unsigned bits.
Cx<double> unit(I64 num, I64 den, double sign) {
  const auto d = static_cast<std::uint64_t>(den);
  const std::uint64_t four_r = static_cast<std::uint64_t>(num % den) * 4;
  const std::uint64_t q = (four_r + d / 2) / d;  // 0 .. 4
  const double rest = (static_cast<double>(four_r) - static_cast<double>(q * d)) / static_cast<double>(den);
  const double a = sign * (std::numbers::pi / 2) * rest;
  const double c = std::cos(a);
  const double s = std::sin(a);
  // The rest is exactly 0 at a multiple of a quarter turn: four_r == q d.
  if (four_r == q * d) {
    const double ones[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
    const std::uint64_t turn = (q % 4) * (sign > 0 ? 1 : 3) % 4;
    return {ones[turn][0], ones[turn][1]};
  }
  switch ((q % 4) * (sign > 0 ? 1 : 3) % 4) {  // multiply by (sign i)^q
    case 0: return {c, s};
    case 1: return {-s, c};
    case 2: return {-c, -s};
    default: return {s, -c};
  }
}

/// Uninitialised scratch of complex numbers (each use writes before it
/// reads): a zero-filled vector would write a long transform's buffers once
/// more for nothing.
template <typename R>
class Scratch final {
 public:
  explicit Scratch(I64 count)
      : data_(static_cast<Cx<R>*>(::operator new(sizeof(Cx<R>) * static_cast<std::size_t>(std::max<I64>(count, 1))))) {}
  ~Scratch() { ::operator delete(data_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  [[nodiscard]] Cx<R>* get() const noexcept { return data_; }

 private:
  Cx<R>* data_;
};

// Note [Long DFTs in four steps]
// kissfft recurses depth first over the whole array: a DFT of 2^19 points
// runs each butterfly pass over 4 MB, out of cache (12 ms, where PyTorch's
// pocketfft takes 8 for the whole rfft of 2^20). A long smooth length
// N = N1 N2 (N1 near sqrt(N)) runs as two passes of short DFTs instead,
// each in cache and the lines of a pass spread over the threads:
//   1. for each n2 < N2, the DFT over n1 of x[N2 n1 + n2] (a column of the
//      N1 x N2 matrix x), times exp(-+2 pi i n2 k1 / N): row n2 of T;
//   2. for each k1 < N1, the DFT over n2 of T[n2][k1]: X[k1 + N1 k2].
// Columns are read and written kBlock at a time, a cache line or two of
// each row, so that both passes stream through memory.
inline constexpr I64 kSplitAbove = I64{1} << 13;
inline constexpr I64 kBlock = 16;

/// The unnormalised DFT of one length and direction (forward: exp(-...)).
/// Bluestein's convolution runs in double whatever R is: its chirps turn
/// through n^2 / 2 periods, and in float its rounding would grow with n.
template <typename R>
class Dft {
 public:
  Dft(I64 n, bool inverse) : n_(n) {
    if (n == 1) return;  // the identity
    const double sign = inverse ? 1.0 : -1.0;
    if (smooth(n)) {
      if (n <= kSplitAbove) {
        direct_.emplace(static_cast<std::size_t>(n), inverse);
        return;
      }
      // Note [Long DFTs in four steps]: N1 the largest divisor up to sqrt(n).
      n1_ = 1;
      for (I64 d = 2; d * d <= n; ++d)
        if (n % d == 0) n1_ = d;
      n2_ = n / n1_;
      first_ = std::make_shared<const Dft<R>>(n1_, inverse);
      second_ = std::make_shared<const Dft<R>>(n2_, inverse);
      twiddles_.resize(static_cast<std::size_t>(n));
      for (I64 j2 = 0; j2 < n2_; ++j2)
        for (I64 k1 = 0; k1 < n1_; ++k1) twiddles_[j2 * n1_ + k1] = Cx<R>(unit(j2 * k1, n, sign));
      return;
    }
    m_ = 2 * n - 1;
    while (!smooth(m_)) ++m_;
    fwd_ = std::make_shared<const Dft<double>>(m_, false);
    inv_ = std::make_shared<const Dft<double>>(m_, true);
    // w_j = exp(-+ i pi j^2 / n) = exp(-+ 2 pi i (j^2 mod 2n) / 2n), with
    // j^2 mod 2n kept as j grows: (j + 1)^2 = j^2 + 2j + 1, each term below 2n.
    chirp_.resize(static_cast<std::size_t>(n));
    const I64 period = 2 * n;
    I64 sq = 0;
    for (I64 j = 0; j < n; ++j) {
      chirp_[j] = unit(sq, period, sign);
      sq = (sq + 2 * j + 1) % period;
    }
    // The convolution's kernel conj(w_m) at m and M - m, as a spectrum, over M.
    std::vector<Cx<double>> b(static_cast<std::size_t>(m_), Cx<double>(0));
    for (I64 j = 0; j < n; ++j) {
      b[j] = std::conj(chirp_[j]);
      if (j > 0) b[m_ - j] = b[j];
    }
    kernel_.resize(static_cast<std::size_t>(m_));
    fwd_->run(b.data(), kernel_.data());
    for (Cx<double>& k : kernel_) k /= static_cast<double>(m_);
  }

  /// out = DFT(in); `in` and `out` are distinct arrays of size().
  void run(const Cx<R>* in, Cx<R>* out) const {
    if (n_ == 1) {
      out[0] = in[0];
    } else if (direct_) {
      direct_->transform(in, out);
    } else if (first_) {
      run_split(in, out);
    } else {
      run_bluestein(in, out);
    }
  }

 private:
  void run_split(const Cx<R>* in, Cx<R>* out) const {
    const Scratch<R> t(n_);
    // Pass 1: columns of the N1 x N2 input, blocks of kBlock columns.
    const I64 blocks2 = (n2_ + kBlock - 1) / kBlock;
    parallel_for(blocks2, 1, [&](I64 first, I64 last) {
      const Scratch<R> buf(2 * kBlock * n1_);
      Cx<R>* col = buf.get();
      Cx<R>* res = buf.get() + kBlock * n1_;
      for (I64 blk = first; blk < last; ++blk) {
        const I64 j2 = blk * kBlock;
        const I64 width = std::min(kBlock, n2_ - j2);
        for (I64 j1 = 0; j1 < n1_; ++j1)
          for (I64 b = 0; b < width; ++b) col[b * n1_ + j1] = in[n2_ * j1 + j2 + b];
        for (I64 b = 0; b < width; ++b) {
          first_->run(col + b * n1_, res + b * n1_);
          Cx<R>* row = t.get() + (j2 + b) * n1_;
          const Cx<R>* tw = twiddles_.data() + (j2 + b) * n1_;
          for (I64 k1 = 0; k1 < n1_; ++k1) row[k1] = cmul(res[b * n1_ + k1], tw[k1]);
        }
      }
    });
    // Pass 2: columns of the N2 x N1 matrix T, blocks of kBlock columns.
    const I64 blocks1 = (n1_ + kBlock - 1) / kBlock;
    parallel_for(blocks1, 1, [&](I64 first, I64 last) {
      const Scratch<R> buf(2 * kBlock * n2_);
      Cx<R>* col = buf.get();
      Cx<R>* res = buf.get() + kBlock * n2_;
      for (I64 blk = first; blk < last; ++blk) {
        const I64 k1 = blk * kBlock;
        const I64 width = std::min(kBlock, n1_ - k1);
        for (I64 j2 = 0; j2 < n2_; ++j2)
          for (I64 b = 0; b < width; ++b) col[b * n2_ + j2] = t.get()[j2 * n1_ + k1 + b];
        for (I64 b = 0; b < width; ++b) second_->run(col + b * n2_, res + b * n2_);
        for (I64 k2 = 0; k2 < n2_; ++k2)
          for (I64 b = 0; b < width; ++b) out[k1 + b + n1_ * k2] = res[b * n2_ + k2];
      }
    });
  }

  void run_bluestein(const Cx<R>* in, Cx<R>* out) const {
    std::vector<Cx<double>> work(static_cast<std::size_t>(2 * m_));
    Cx<double>* a = work.data();
    Cx<double>* spectrum = a + m_;
    // The pointwise steps split over the threads (one thread inside a
    // parallel loop over lines).
    parallel_for(m_, kGrainSize, [&](I64 begin, I64 end) {
      for (I64 j = begin; j < end; ++j) a[j] = j < n_ ? cmul(Cx<double>(in[j]), chirp_[j]) : Cx<double>(0);
    });
    fwd_->run(a, spectrum);
    parallel_for(m_, kGrainSize, [&](I64 begin, I64 end) {
      for (I64 k = begin; k < end; ++k) spectrum[k] = cmul(spectrum[k], kernel_[k]);
    });
    inv_->run(spectrum, a);
    parallel_for(n_, kGrainSize, [&](I64 begin, I64 end) {
      for (I64 k = begin; k < end; ++k) out[k] = Cx<R>(cmul(a[k], chirp_[k]));
    });
  }

  I64 n_;
  std::optional<kissfft<R>> direct_;
  // four steps
  I64 n1_ = 0, n2_ = 0;
  std::shared_ptr<const Dft<R>> first_, second_;
  std::vector<Cx<R>> twiddles_;
  // Bluestein
  I64 m_ = 0;
  std::shared_ptr<const Dft<double>> fwd_, inv_;
  std::vector<Cx<double>> chirp_, kernel_;
};

// A plan P(n, inverse) from a cache of at most 64 per type (a new one past
// that starts the cache over); plans are immutable and shared by threads.
template <typename P>
std::shared_ptr<const P> cached_plan(I64 n, bool inverse) {
  static std::mutex mutex;
  static std::map<std::pair<I64, bool>, std::shared_ptr<const P>> cache;
  const std::lock_guard lock(mutex);
  if (auto it = cache.find({n, inverse}); it != cache.end()) return it->second;
  if (cache.size() >= 64) cache.clear();
  return cache[{n, inverse}] = std::make_shared<const P>(n, inverse);
}

template <typename R>
std::shared_ptr<const Dft<R>> dft_plan(I64 n, bool inverse) {
  return cached_plan<Dft<R>>(n, inverse);
}

/// A one-dimensional real transform of length n: the complex DFT it runs
/// (of n / 2 for even n, else of n) and, for even n, the twiddles
/// exp(-2 pi i k / n), k <= n / 2.
template <typename R>
struct RealPlan {
  RealPlan(I64 n, bool inverse) : dft(dft_plan<R>(n % 2 == 0 ? n / 2 : n, inverse)) {
    if (n % 2 != 0) return;
    twiddles.resize(static_cast<std::size_t>(n / 2 + 1));
    for (I64 k = 0; k <= n / 2; ++k) twiddles[k] = Cx<R>(unit(k, n, -1.0));
  }
  std::shared_ptr<const Dft<R>> dft;
  std::vector<Cx<R>> twiddles;
};

// Lines along one dim of a contiguous tensor of `sizes`: line l starts at
// (l / inner) * n * inner + l % inner and steps by inner.
struct Lines {
  I64 count, n, inner;
  [[nodiscard]] I64 start(I64 l) const { return (l / inner) * n * inner + l % inner; }
};
Lines lines_of(IntArrayRef sizes, I64 dim) {
  const I64 n = sizes[static_cast<std::size_t>(dim)];
  // An empty tensor has no lines (and its other sizes bound nothing).
  if (std::find(sizes.begin(), sizes.end(), I64{0}) != sizes.end()) return {0, n, 1};
  I64 inner = 1;
  for (std::size_t d = static_cast<std::size_t>(dim) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  I64 total = 1;
  for (const I64 s : sizes) total *= s;
  return {total / n, n, inner};
}

// Runs `body(first, last, buffers)` over the lines in parallel, with buffers
// of `width` elements per thread.
template <typename R, typename Body>
void for_lines(I64 count, I64 n, I64 width, Body body) {
  parallel_for(count, std::max<I64>(1, kGrainSize / std::max<I64>(n, 1)), [&](I64 first, I64 last) {
    const Scratch<R> buffer(width);
    body(first, last, buffer.get());
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
      if (lines.inner == 1) {  // a contiguous line: no gather
        dft->run(line, out);
        std::copy(out, out + n, line);
        continue;
      }
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
  const auto plan_ptr = cached_plan<RealPlan<R>>(n, false);
  const RealPlan<R>& plan = *plan_ptr;
  const bool even = n % 2 == 0;
  const I64 m = even ? n / 2 : n;  // the complex DFT's length
  for_lines<R>(lines.count, n, 2 * m + half, [&](I64 first, I64 last, Cx<R>* buf) {
    Cx<R>* in = buf;
    Cx<R>* z = buf + m;
    Cx<R>* spectrum = buf + 2 * m;
    for (I64 l = first; l < last; ++l) {
      const R* line = src + lines.start(l);
      const I64 out_start = (l / lines.inner) * out_n * lines.inner + l % lines.inner;
      Cx<R>* out = dst + out_start;
      // A contiguous line's result goes straight to the output.
      Cx<R>* x = lines.inner == 1 ? out : spectrum;
      if (even) {
        if (lines.inner == 1) {  // the pairs of a contiguous line, read in place
          plan.dft->run(reinterpret_cast<const Cx<R>*>(line), z);
        } else {
          for (I64 j = 0; j < m; ++j) in[j] = Cx<R>(line[2 * j * lines.inner], line[(2 * j + 1) * lines.inner]);
          plan.dft->run(in, z);
        }
        // E_k + w_k O_k, with O_k = (a - b) / 2i; split over the threads
        // for one long line.
        parallel_for(m - 1, kGrainSize, [&](I64 begin, I64 end) {
          for (I64 k = begin + 1; k < end + 1; ++k) {
            const Cx<R> a = z[k];
            const Cx<R> b = std::conj(z[m - k]);
            const Cx<R> e = (a + b) * R(0.5);
            const Cx<R> d = a - b;
            const Cx<R> o(d.imag() * R(0.5), d.real() * R(-0.5));
            x[k] = e + cmul(plan.twiddles[k], o);
          }
        });
        // The zero and Nyquist frequencies of a real signal are real: E_0 +- O_0.
        x[0] = Cx<R>(z[0].real() + z[0].imag(), R(0));
        x[m] = Cx<R>(z[0].real() - z[0].imag(), R(0));
      } else {
        for (I64 j = 0; j < n; ++j) in[j] = Cx<R>(line[j * lines.inner], R(0));
        plan.dft->run(in, z);
        for (I64 k = 0; k < half; ++k) x[k] = z[k];
        x[0] = Cx<R>(x[0].real(), R(0));  // the zero frequency of a real signal is real
      }
      if (x != out)
        for (I64 k = 0; k < half; ++k) out[k * lines.inner] = x[k];
      for (I64 k = half; k < out_n; ++k) out[k * lines.inner] = std::conj(out[(n - k) * lines.inner]);
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
  const auto plan_ptr = cached_plan<RealPlan<R>>(n, true);
  const RealPlan<R>& plan = *plan_ptr;
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
          const Cx<R> t = cmul(std::conj(plan.twiddles[k]), a - b);
          in[k] = (a + b) + Cx<R>(-t.imag(), t.real());  // + i t
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

// Runs fn(float{}) for float32 and complex64 data, fn(double{}) for the others.
template <typename Fn>
void with_precision(ScalarType t, Fn fn) {
  if (t == ScalarType::kFloat32 || t == ScalarType::kComplex64) {
    fn(float{});
  } else {
    fn(double{});
  }
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
  with_precision(self.dtype(), run);
}

void _fft_r2c(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, IntArrayRef dim,
              std::int64_t normalization, bool onesided) {
  if (out.numel() == 0) return;
  const DimVector dims = wrapped(dim, self.dim());
  if (dims.empty()) {
    Tensor(out).copy_(self);
    return;
  }
  if (self.size(dims.back()) == 0) {  // an empty signal: its spectrum is 0
    Tensor(out).zero_();
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
  with_precision(self.dtype(), run);
}

void _fft_c2r(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, IntArrayRef dim,
              std::int64_t normalization, std::int64_t last_dim_size) {
  if (out.numel() == 0) return;
  const DimVector dims = wrapped(dim, self.dim());
  // The other dims first (complex to complex, inverse), on a copy.
  const Tensor contiguous = self.contiguous();
  const Tensor tmp = contiguous.is_same(self) ? contiguous.clone() : contiguous;
  const auto run = [&](auto tag) {
    using R = decltype(tag);
    auto* data = static_cast<Cx<R>*>(tmp.data_ptr());
    for (std::size_t i = 0; i + 1 < dims.size(); ++i) c2c_dim<R>(data, tmp.sizes(), dims[i], true);
    auto* result = static_cast<R*>(out.data_ptr());
    c2r_dim<R>(data, result, tmp.sizes(), dims.back(), last_dim_size);
    apply_scaling<R>(result, out.numel(), normalization, signal_size(out.sizes(), dims));
  };
  with_precision(self.dtype(), run);
}

}  // namespace wick::cpu
