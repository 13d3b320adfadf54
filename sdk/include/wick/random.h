// wick/random.h - the random generator behind rand, randn, randint and dropout: PyTorch's numbers.
/// \file
/// Note [PyTorch's random numbers]
/// One process-wide default generator. It is PyTorch's CPU generator: the
/// 32-bit Mersenne Twister seeded with the seed's low 32 bits, and
/// PyTorch 1.13's transforms, so that after `manual_seed(s)` the values are
/// PyTorch's bit for bit:
/// - a float in [0, 1) is the low 24 bits of one 32-bit draw times 2^-24; a
///   double, the low 53 bits of a 64-bit draw (two 32-bit draws, the first
///   the high half) times 2^-53; then `x * (to - from) + from`;
/// - an integer in [low, high) is `low + draw % (high - low)`, from a 64-bit
///   draw when the range needs 32 bits or more, else a 32-bit one;
/// - normal values: fewer than 16 by Box-Muller on two doubles, the second
///   value kept for the next call (PyTorch's cached sample); 16 or more by
///   its vectorised fill: uniforms first, then Box-Muller on blocks of 16
///   (the last block recomputed from new uniforms when the count is not a
///   multiple of 16), in float32 with the Cephes log/sin/cos that PyTorch's
///   AVX2 kernel uses (its machines without AVX2 get other last bits);
/// - a Bernoulli(p) draw is `uniform double < p` (dropout's mask);
/// - the in-place fills compute each value in double from one uniform double
///   u, then round it to the tensor's dtype: exponential_(lambda) is
///   `-1/lambda * log(1 - u)`, cauchy_(median, sigma) `median + sigma *
///   tan(pi * (u - 1/2))`, geometric_(p) `ceil(log(u) / log1p(-p))`, and
///   log_normal_(mean, std) the exp of normal values drawn one at a time
///   (Box-Muller with the cached second value, however many there are);
///   uniform_(from, to) is the uniform above, `x * (to - from) + from`
///   rounded once (a fused multiply-add), and random_ the integers above.
/// Without `manual_seed` the seed is nondeterministic, as in PyTorch.
///
///   wick::manual_seed(0);
///   auto a = wick::randn({3});   // tensor([ 1.5410, -0.2934, -2.1788]), as torch.randn(3)
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <random>

#include "wick/export.h"

namespace wick {

/// A random number generator with PyTorch 1.13's CPU streams (an mt19937; see the file note), thread-safe. torch.Generator.
class WICK_API Generator final {
 public:
  /// Seeded from the operating system's entropy (std::random_device).
  Generator();
  /// Seeded with `seed`, as after manual_seed(seed).
  explicit Generator(std::uint64_t seed);
  /// Reseeds, and forgets the cached normal sample (torch.manual_seed).
  void manual_seed(std::uint64_t seed);
  /// The seed of the last manual_seed, or the nondeterministic one.
  [[nodiscard]] std::uint64_t initial_seed() const;
  /// Fills `n` uniform values in [from, to), in the precision of `out`.
  void uniform(float* out, std::int64_t n, double from = 0.0, double to = 1.0);
  /// Fills `n` uniform values in [from, to) as doubles.
  void uniform(double* out, std::int64_t n, double from = 0.0, double to = 1.0);
  /// Fills `n` normal values with mean `mean` and standard deviation `std`.
  void normal(float* out, std::int64_t n, double mean = 0.0, double std = 1.0);
  /// Fills `n` normal values as doubles.
  void normal(double* out, std::int64_t n, double mean = 0.0, double std = 1.0);
  /// Fills `n` uniform integers in [low, high) (high > low).
  void integers(std::int64_t* out, std::int64_t n, std::int64_t low, std::int64_t high);
  /// Fills `n` integers `low + draw % range` (range >= 1, up to 2^64 - 1,
  /// which [low, 2^63) of random_ needs: wider than an int64 `high`).
  void integers_in_range(std::int64_t* out, std::int64_t n, std::int64_t low, std::uint64_t range);
  /// PyTorch 1.13's exponential_, cauchy_, geometric_ and log_normal_ values,
  /// in double (the Note above).
  void exponential(double* out, std::int64_t n, double lambda);
  /// Fills `n` Cauchy(median, sigma) values, as PyTorch's cauchy_.
  void cauchy(double* out, std::int64_t n, double median, double sigma);
  /// Fills `n` geometric(p) values (the number of trials to the first success), as geometric_.
  void geometric(double* out, std::int64_t n, double p);
  /// Fills `n` log-normal values (exp of normal(mean, std)), as log_normal_.
  void log_normal(double* out, std::int64_t n, double mean, double std);
  /// A random permutation of 0..n-1 into `out`: PyTorch 1.13's CPU
  /// randperm, a Fisher-Yates shuffle whose i-th swap partner is i + (a
  /// 32-bit draw modulo n - i).
  void permutation(std::int64_t* out, std::int64_t n);

 private:
  std::uint32_t draw32() { return static_cast<std::uint32_t>(engine_()); }
  std::uint64_t draw64();
  double uniform01();
  double normal_sample(double mean, double std);
  template <typename T>
  void normal_fill(T* out, std::int64_t n, T mean, T std);

  mutable std::mutex mutex_;
  std::mt19937 engine_;
  std::uint64_t seed_ = 0;
  std::optional<double> next_normal_;
};

/// The process-wide generator the random operators use when no generator is given.
[[nodiscard]] WICK_API Generator& default_generator();
/// Seeds the default generator (torch.manual_seed).
WICK_API void manual_seed(std::uint64_t seed);

}  // namespace wick
