// wick/half.h - the 16-bit floating types: Half (IEEE binary16) and BFloat16.
/// \file
/// Storage types for torch.float16 and torch.bfloat16. Each holds its 16
/// bits and converts to and from float; arithmetic on them happens in float
/// (a `Half` converts implicitly), and assigning the float result back rounds
/// once, to nearest even, as PyTorch's CPU kernels do:
///
///   wick::Half a = 1.5f, b = 0.1f;
///   wick::Half c = a + b;           // computed in float, rounded to half
///   float f = c;                    // exact
///
/// Note [Rounding to 16 bits]
/// float -> half and float -> bfloat16 round to nearest, ties to even.
/// Values past the largest finite half (65504; 65520 and up round away)
/// become infinity; NaN stays NaN (quiet, sign kept). Doubles and integers
/// go through float first, as PyTorch's conversions do (so a double can be
/// rounded twice, as in PyTorch).
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#if __has_include(<bit>)
#include <bit>
#endif

// The conversions are constexpr where std::bit_cast exists (C++20); CUDA
// device code, compiled as C++17, gets them as plain inline functions.
#if defined(__cpp_lib_bit_cast)
/// `constexpr` where std::bit_cast exists (C++20), else `inline`: what the Half/BFloat16 conversions are declared with.
#define WICK_BIT_CAST_CONSTEXPR constexpr
#else
/// `constexpr` where std::bit_cast exists (C++20), else `inline`: what the Half/BFloat16 conversions are declared with.
#define WICK_BIT_CAST_CONSTEXPR inline
#endif

namespace wick {

namespace detail {

template <typename To, typename From>
[[nodiscard]] WICK_BIT_CAST_CONSTEXPR To bit_cast(From v) noexcept {
#if defined(__cpp_lib_bit_cast)
  return std::bit_cast<To>(v);
#else
  To out;
  std::memcpy(&out, &v, sizeof out);
  return out;
#endif
}

[[nodiscard]] WICK_BIT_CAST_CONSTEXPR std::uint16_t float_to_half_bits(float f) noexcept {
  std::uint32_t x = detail::bit_cast<std::uint32_t>(f);
  const auto sign = static_cast<std::uint16_t>((x >> 16) & 0x8000U);
  x &= 0x7fffffffU;
  if (x >= 0x7f800000U) {  // inf, or NaN (kept quiet, top payload bits kept)
    return static_cast<std::uint16_t>(sign | 0x7c00U | (x > 0x7f800000U ? 0x200U | ((x >> 13) & 0x3ffU) : 0U));
  }
  if (x >= 0x477ff000U) return static_cast<std::uint16_t>(sign | 0x7c00U);  // rounds past 65504
  if (x < 0x38800000U) {
    // Below half's smallest normal (2**-14): adding 0.5 lines the value up
    // with half's subnormal step (2**-24), and the FPU rounds to even.
    const float shifted = detail::bit_cast<float>(x) + 0.5f;
    return static_cast<std::uint16_t>(sign | (detail::bit_cast<std::uint32_t>(shifted) - 0x3f000000U));
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits to even.
  x += 0xc8000fffU + ((x >> 13) & 1U);
  return static_cast<std::uint16_t>(sign | (x >> 13));
}

[[nodiscard]] WICK_BIT_CAST_CONSTEXPR float half_bits_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000U) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1fU;
  const std::uint32_t mant = h & 0x3ffU;
  if (exp == 0x1fU) return detail::bit_cast<float>(sign | 0x7f800000U | (mant << 13));
  if (exp == 0) {  // zero or subnormal: mant * 2**-24, exact in float
    const float v = static_cast<float>(mant) * 0x1p-24f;
    return sign != 0 ? -v : v;
  }
  return detail::bit_cast<float>(sign | ((exp + 112U) << 23) | (mant << 13));
}

[[nodiscard]] WICK_BIT_CAST_CONSTEXPR std::uint16_t float_to_bfloat16_bits(float f) noexcept {
  const std::uint32_t x = detail::bit_cast<std::uint32_t>(f);
  if ((x & 0x7fffffffU) > 0x7f800000U) return static_cast<std::uint16_t>(((x >> 16) & 0x8000U) | 0x7fc0U);
  return static_cast<std::uint16_t>((x + 0x7fffU + ((x >> 16) & 1U)) >> 16);
}

[[nodiscard]] WICK_BIT_CAST_CONSTEXPR float bfloat16_bits_to_float(std::uint16_t b) noexcept {
  return detail::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

}  // namespace detail

/// torch.float16: 1 sign, 5 exponent and 10 mantissa bits.
struct Half final {
  std::uint16_t bits = 0; ///< The IEEE binary16 bit pattern.

  constexpr Half() noexcept = default;
  /// Rounds `v` to the nearest half, ties to even (Note [Rounding to 16 bits]); overflow gives infinity.
  WICK_BIT_CAST_CONSTEXPR Half(float v) noexcept : bits(detail::float_to_half_bits(v)) {}  // NOLINT(implicit): rounds
  /// The raw bits (Half::from_bits(0x3c00) == 1).
  [[nodiscard]] static constexpr Half from_bits(std::uint16_t b) noexcept {
    Half h;
    h.bits = b;
    return h;
  }
  /// The exact float value of the half.
  WICK_BIT_CAST_CONSTEXPR operator float() const noexcept { return detail::half_bits_to_float(bits); }  // NOLINT(implicit)
};

/// torch.bfloat16: float32's upper 16 bits (8 exponent, 7 mantissa bits).
struct BFloat16 final {
  std::uint16_t bits = 0; ///< float32's upper 16 bits.

  constexpr BFloat16() noexcept = default;
  /// Rounds `v` to the nearest bfloat16, ties to even; NaN becomes a quiet NaN.
  WICK_BIT_CAST_CONSTEXPR BFloat16(float v) noexcept : bits(detail::float_to_bfloat16_bits(v)) {}  // NOLINT(implicit): rounds
  /// The raw bits (BFloat16::from_bits(0x3f80) == 1).
  [[nodiscard]] static constexpr BFloat16 from_bits(std::uint16_t b) noexcept {
    BFloat16 h;
    h.bits = b;
    return h;
  }
  /// The exact float value (the bits shifted into float32's upper half).
  WICK_BIT_CAST_CONSTEXPR operator float() const noexcept { return detail::bfloat16_bits_to_float(bits); }  // NOLINT(implicit)
};

static_assert(sizeof(Half) == 2 && sizeof(BFloat16) == 2);

/// Half and BFloat16.
template <typename T>
inline constexpr bool is_reduced_floating_v = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
/// float, double, Half, BFloat16: the C++ types of the floating dtypes.
template <typename T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_reduced_floating_v<T>;

}  // namespace wick

/// Limits of torch.float16 (what torch.finfo(torch.float16) reports).
template <>
class std::numeric_limits<wick::Half> {
 public:
  static constexpr bool is_specialized = true; ///< true
  static constexpr bool is_signed = true; ///< true
  static constexpr bool is_integer = false; ///< false
  static constexpr bool has_infinity = true; ///< true
  static constexpr bool has_quiet_NaN = true; ///< true
  static constexpr int digits = 11; ///< 11 significand bits, the implicit one included
  /// Smallest positive normal value, 2**-14 (about 6.1e-05).
  static constexpr wick::Half min() noexcept { return wick::Half::from_bits(0x0400); }
  /// Most negative finite value, -65504.
  static constexpr wick::Half lowest() noexcept { return wick::Half::from_bits(0xfbff); }
  /// Largest finite value, 65504.
  static constexpr wick::Half max() noexcept { return wick::Half::from_bits(0x7bff); }
  /// Distance from 1 to the next half, 2**-10.
  static constexpr wick::Half epsilon() noexcept { return wick::Half::from_bits(0x1400); }
  /// Positive infinity.
  static constexpr wick::Half infinity() noexcept { return wick::Half::from_bits(0x7c00); }
  /// A quiet NaN (0x7e00).
  static constexpr wick::Half quiet_NaN() noexcept { return wick::Half::from_bits(0x7e00); }
  /// Smallest positive subnormal, 2**-24.
  static constexpr wick::Half denorm_min() noexcept { return wick::Half::from_bits(0x0001); }
};

/// Limits of torch.bfloat16 (what torch.finfo(torch.bfloat16) reports).
template <>
class std::numeric_limits<wick::BFloat16> {
 public:
  static constexpr bool is_specialized = true; ///< true
  static constexpr bool is_signed = true; ///< true
  static constexpr bool is_integer = false; ///< false
  static constexpr bool has_infinity = true; ///< true
  static constexpr bool has_quiet_NaN = true; ///< true
  static constexpr int digits = 8; ///< 8 significand bits, the implicit one included
  /// Smallest positive normal value, 2**-126 (float32's).
  static constexpr wick::BFloat16 min() noexcept { return wick::BFloat16::from_bits(0x0080); }
  /// Most negative finite value, about -3.39e38.
  static constexpr wick::BFloat16 lowest() noexcept { return wick::BFloat16::from_bits(0xff7f); }
  /// Largest finite value, about 3.39e38.
  static constexpr wick::BFloat16 max() noexcept { return wick::BFloat16::from_bits(0x7f7f); }
  /// Distance from 1 to the next bfloat16, 2**-7.
  static constexpr wick::BFloat16 epsilon() noexcept { return wick::BFloat16::from_bits(0x3c00); }
  /// Positive infinity.
  static constexpr wick::BFloat16 infinity() noexcept { return wick::BFloat16::from_bits(0x7f80); }
  /// A quiet NaN (0x7fc0).
  static constexpr wick::BFloat16 quiet_NaN() noexcept { return wick::BFloat16::from_bits(0x7fc0); }
  /// Smallest positive subnormal, 2**-133.
  static constexpr wick::BFloat16 denorm_min() noexcept { return wick::BFloat16::from_bits(0x0001); }
};
