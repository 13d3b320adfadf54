// core/random.cpp - the default generator: PyTorch's CPU generator and transforms (Note [PyTorch's random numbers]).
/// \file
#include "wick/random.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>

namespace wick {

namespace {

// Box-Muller in float32 as PyTorch's AVX2 kernel computes it: Cephes' logf
// and sincosf, with the multiply-adds its compiler fuses (checked against
// PyTorch 1.13 on an AVX2 machine, tests/core/random_test.cpp).
float cephes_log(float x) {
  x = std::max(x, std::bit_cast<float>(0x00800000));  // the smallest normal float
  const auto bits = std::bit_cast<std::int32_t>(x);
  float e = static_cast<float>((bits >> 23) - 0x7f) + 1.0F;
  x = std::bit_cast<float>((bits & ~0x7f800000) | std::bit_cast<std::int32_t>(0.5F));  // mantissa in [0.5, 1)
  float tmp = 0.0F;
  if (x < 0.707106781186547524F) {
    tmp = x;
    e -= 1.0F;
  }
  x = x - 1.0F + tmp;
  const float z = x * x;
  float y = 7.0376836292E-2F;
  for (const float p : {-1.1514610310E-1F, 1.1676998740E-1F, -1.2420140846E-1F, 1.4249322787E-1F, -1.6668057665E-1F,
                        2.0000714765E-1F, -2.4999993993E-1F, 3.3333331174E-1F})
    y = std::fma(y, x, p);
  y = y * x * z;
  y = std::fma(e, -2.12194440E-4F, y);
  y = std::fma(-z, 0.5F, y);
  x = x + y;
  return std::fma(e, 0.693359375F, x);
}

void cephes_sincos(float x, float* sin_out, float* cos_out) {
  bool sin_negative = x < 0.0F;
  x = std::abs(x);
  auto j = static_cast<std::int32_t>(x * 1.27323954473516F);  // x * 4 / pi, truncated
  j = (j + 1) & ~1;
  const auto y = static_cast<float>(j);
  sin_negative = sin_negative != ((j & 4) != 0);
  const bool cos_negative = ((~(j - 2)) & 4) != 0;
  const bool swap = (j & 2) != 0;
  // x - j * pi / 4 in three parts (extended precision).
  x = std::fma(y, -0.78515625F, x);
  x = std::fma(y, -2.4187564849853515625E-4F, x);
  x = std::fma(y, -3.77489497744594108E-8F, x);
  const float z = x * x;
  float c = 2.443315711809948E-5F;
  c = std::fma(c, z, -1.388731625493765E-3F);
  c = std::fma(c, z, 4.166664568298827E-2F);
  c = c * z * z;
  c = std::fma(-z, 0.5F, c) + 1.0F;
  float s = -1.9515295891E-4F;
  s = std::fma(s, z, 8.3321608736E-3F);
  s = std::fma(s, z, -1.6666654611E-1F);
  s = std::fma(s * z, x, x);
  const float sin_v = swap ? c : s;
  const float cos_v = swap ? s : c;
  *sin_out = sin_negative ? -sin_v : sin_v;
  *cos_out = cos_negative ? -cos_v : cos_v;
}

// Box-Muller on 16 uniforms: the first 8 give the radii, the last 8 the angles.
void normal_fill_16(float* data, float mean, float std) {
  constexpr auto kTwoPi = static_cast<float>(2.0 * std::numbers::pi);
  for (int j = 0; j < 8; ++j) {
    const float radius = std::sqrt(-2.0F * cephes_log(1.0F - data[j]));
    float s = 0.0F;
    float c = 0.0F;
    cephes_sincos(kTwoPi * data[j + 8], &s, &c);
    data[j] = std::fma(radius * c, std, mean);
    data[j + 8] = std::fma(radius * s, std, mean);
  }
}

void normal_fill_16(double* data, double mean, double std) {
  for (int j = 0; j < 8; ++j) {
    const double radius = std::sqrt(-2.0 * std::log(1.0 - data[j]));
    const double theta = 2.0 * std::numbers::pi * data[j + 8];
    data[j] = std::fma(radius * std::cos(theta), std, mean);
    data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

// From the operating system's entropy, below 2**63 so that it is a Python
// int wick's int64 holds (PyTorch's may reach 2**64 - 1).
// PyTorch's float32 uniform in [0, 1): the low 24 bits of one 32-bit draw.
float uniform_float(std::uint32_t draw) { return static_cast<float>(draw & ((std::uint32_t{1} << 24) - 1)) * 0x1p-24F; }

std::uint64_t nondeterministic_seed() {
  std::random_device device;
  const std::uint64_t high = device();
  return ((high << 32) | device()) & ~(std::uint64_t{1} << 63);
}

}  // namespace

Generator::Generator() : Generator(nondeterministic_seed()) {}

Generator::Generator(std::uint64_t seed)
    : engine_(static_cast<std::uint32_t>(seed)), seed_(seed) {}  // PyTorch seeds with the low 32 bits

void Generator::manual_seed(std::uint64_t seed) {
  std::lock_guard lock(mutex_);
  engine_.seed(static_cast<std::uint32_t>(seed));
  seed_ = seed;
  next_normal_.reset();
}

std::uint64_t Generator::initial_seed() const {
  std::lock_guard lock(mutex_);
  return seed_;
}

std::uint64_t Generator::draw64() {
  const std::uint64_t high = draw32();
  return (high << 32) | draw32();
}

double Generator::uniform01() { return static_cast<double>(draw64() & ((std::uint64_t{1} << 53) - 1)) * 0x1p-53; }

void Generator::uniform(float* out, std::int64_t n, double from, double to) {
  std::lock_guard lock(mutex_);
  const auto f = static_cast<float>(from);
  const float range = static_cast<float>(to) - f;
  for (std::int64_t i = 0; i < n; ++i) out[i] = std::fma(uniform_float(draw32()), range, f);
}

void Generator::uniform(double* out, std::int64_t n, double from, double to) {
  std::lock_guard lock(mutex_);
  const double range = to - from;
  for (std::int64_t i = 0; i < n; ++i) out[i] = std::fma(uniform01(), range, from);
}

double Generator::normal_sample(double mean, double std) {
  if (next_normal_) {
    const double cached = *next_normal_;
    next_normal_.reset();
    return cached * std + mean;
  }
  const double u1 = uniform01();
  const double u2 = uniform01();
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  next_normal_ = radius * std::sin(theta);
  return radius * std::cos(theta) * std + mean;
}

template <typename T>
void Generator::normal_fill(T* out, std::int64_t n, T mean, T std) {
  const auto uniforms = [&](T* p, std::int64_t count) {
    for (std::int64_t i = 0; i < count; ++i) {
      if constexpr (std::is_same_v<T, float>) {
        p[i] = uniform_float(draw32());
      } else {
        p[i] = uniform01();
      }
    }
  };
  uniforms(out, n);
  for (std::int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16(out + i, mean, std);
  if (n % 16 != 0) {  // the last 16, again from new uniforms
    uniforms(out + n - 16, 16);
    normal_fill_16(out + n - 16, mean, std);
  }
}

void Generator::normal(float* out, std::int64_t n, double mean, double std) {
  std::lock_guard lock(mutex_);
  if (n >= 16) {
    normal_fill(out, n, static_cast<float>(mean), static_cast<float>(std));
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(normal_sample(mean, std));
}

void Generator::normal(double* out, std::int64_t n, double mean, double std) {
  std::lock_guard lock(mutex_);
  if (n >= 16) {
    normal_fill(out, n, mean, std);
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) out[i] = normal_sample(mean, std);
}

void Generator::integers(std::int64_t* out, std::int64_t n, std::int64_t low, std::int64_t high) {
  integers_in_range(out, n, low, static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low));
}

void Generator::integers_in_range(std::int64_t* out, std::int64_t n, std::int64_t low, std::uint64_t range) {
  std::lock_guard lock(mutex_);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t draw = range >= (std::uint64_t{1} << 32) ? draw64() : draw32();
    out[i] = static_cast<std::int64_t>(draw % range + static_cast<std::uint64_t>(low));
  }
}

void Generator::exponential(double* out, std::int64_t n, double lambda) {
  std::lock_guard lock(mutex_);
  for (std::int64_t i = 0; i < n; ++i) out[i] = -1.0 / lambda * std::log(1.0 - uniform01());
}

void Generator::cauchy(double* out, std::int64_t n, double median, double sigma) {
  std::lock_guard lock(mutex_);
  for (std::int64_t i = 0; i < n; ++i) out[i] = median + sigma * std::tan(std::numbers::pi * (uniform01() - 0.5));
}

void Generator::geometric(double* out, std::int64_t n, double p) {
  std::lock_guard lock(mutex_);
  const double scale = std::log1p(-p);
  for (std::int64_t i = 0; i < n; ++i) out[i] = std::ceil(std::log(uniform01()) / scale);
}

void Generator::log_normal(double* out, std::int64_t n, double mean, double std) {
  std::lock_guard lock(mutex_);
  for (std::int64_t i = 0; i < n; ++i) out[i] = std::exp(normal_sample(mean, std));
}

void Generator::permutation(std::int64_t* out, std::int64_t n) {
  std::lock_guard lock(mutex_);
  for (std::int64_t i = 0; i < n; ++i) out[i] = i;
  for (std::int64_t i = 0; i + 1 < n; ++i) {
    const auto z = static_cast<std::int64_t>(draw32() % static_cast<std::uint64_t>(n - i));
    std::swap(out[i], out[i + z]);
  }
}

Generator& default_generator() {
  static Generator g;
  return g;
}

void manual_seed(std::uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace wick
