// core/random.cpp - the default generator.
/// \file
#include "wick/random.h"

namespace wick {

void Generator::manual_seed(std::uint64_t seed) {
  std::lock_guard lock(mutex_);
  engine_.seed(seed);
}

void Generator::uniform(double* out, std::int64_t n) {
  std::lock_guard lock(mutex_);
  std::uniform_real_distribution<double> dist(0.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i) out[i] = dist(engine_);
}

void Generator::normal(double* out, std::int64_t n) {
  std::lock_guard lock(mutex_);
  std::normal_distribution<double> dist(0.0, 1.0);
  for (std::int64_t i = 0; i < n; ++i) out[i] = dist(engine_);
}

void Generator::integers(std::int64_t* out, std::int64_t n, std::int64_t low, std::int64_t high) {
  std::lock_guard lock(mutex_);
  std::uniform_int_distribution<std::int64_t> dist(low, high - 1);
  for (std::int64_t i = 0; i < n; ++i) out[i] = dist(engine_);
}

Generator& default_generator() {
  static Generator g;
  return g;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace wick
