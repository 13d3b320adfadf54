// wick/random.h - the seeded random generator behind rand, randn and dropout.
/// \file
/// One process-wide default generator; `manual_seed` makes runs repeatable.
///
///   wick::manual_seed(0);
///   auto a = wick::rand({3});
///   wick::manual_seed(0);
///   auto b = wick::rand({3});   // same values as a
#pragma once

#include <cstdint>
#include <mutex>
#include <random>

#include "wick/export.h"

namespace wick {

class WICK_API Generator final {
 public:
  explicit Generator(std::uint64_t seed = 67280421310721ULL) : engine_(seed) {}
  void manual_seed(std::uint64_t seed);
  /// Fills `n` uniform [0, 1) doubles (one lock per call, not per value).
  void uniform(double* out, std::int64_t n);
  /// Fills `n` standard normal doubles.
  void normal(double* out, std::int64_t n);
  /// Fills `n` uniform integers in [low, high).
  void integers(std::int64_t* out, std::int64_t n, std::int64_t low, std::int64_t high);

 private:
  std::mutex mutex_;
  std::mt19937_64 engine_;
};

[[nodiscard]] WICK_API Generator& default_generator();
/// Seeds the default generator (torch.manual_seed).
WICK_API void manual_seed(std::uint64_t seed);

}  // namespace wick
