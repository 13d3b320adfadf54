// wick/dtype.h - scalar types (dtypes), their C++ types and PyTorch's type promotion.
/// \file
/// The dtypes a tensor can hold, their sizes and names, the promotion
/// lattice PyTorch uses (`promote_types`), the C++ type of each dtype, the
/// conversion between any two of them (`convert`), and `visit_dtype`, which
/// calls a generic kernel body with the C++ type of a dtype out of a set.
/// Result-type computation across tensors and wrapped Python numbers lives in
/// `wick/tensor_util.h`.
///
///   visit_dtype<dtypes::kAllAndComplex>(t.dtype(), "neg_cpu", [&](auto tag) {
///     using T = decltype(tag);   // float, wick::Half, std::complex<double>, ...
///   });
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include "wick/export.h"
#include "wick/half.h"

namespace wick {

/// Values are stable across the plugin boundary; room is reserved up to 31.
enum class ScalarType : std::int8_t {
  kBool = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat32 = 3,
  kFloat64 = 4,
  kFloat16 = 5,
  kBFloat16 = 6,
  kUInt8 = 7,
  kInt8 = 8,
  kInt16 = 9,
  kComplex64 = 10,
  kComplex128 = 11,
  kUndefined = 31,
};
/// How many dtypes there are: the values 0 .. kNumScalarTypes - 1 are valid (kUndefined is not one of them).
inline constexpr int kNumScalarTypes = 12;

/// Bytes per element (1 for bool, 16 for complex128); 0 for kUndefined or any value that is not a dtype.
[[nodiscard]] constexpr std::size_t itemsize(ScalarType t) noexcept {
  constexpr std::size_t kSizes[kNumScalarTypes] = {1, 4, 8, 4, 8, 2, 2, 1, 1, 2, 8, 16};
  const int i = static_cast<int>(t);
  return i >= 0 && i < kNumScalarTypes ? kSizes[i] : 0;
}
/// float16, bfloat16, float32, float64 (PyTorch's is_floating_point).
[[nodiscard]] constexpr bool is_floating(ScalarType t) noexcept {
  return t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || t == ScalarType::kFloat16 ||
         t == ScalarType::kBFloat16;
}
/// complex64 and complex128 (PyTorch's is_complex).
[[nodiscard]] constexpr bool is_complex(ScalarType t) noexcept {
  return t == ScalarType::kComplex64 || t == ScalarType::kComplex128;
}
/// float16 and bfloat16: stored in 16 bits, computed in float32.
[[nodiscard]] constexpr bool is_reduced_floating(ScalarType t) noexcept {
  return t == ScalarType::kFloat16 || t == ScalarType::kBFloat16;
}
/// The integer dtypes (uint8, int8, int16, int32, int64), and bool too when `include_bool`.
[[nodiscard]] constexpr bool is_integral(ScalarType t, bool include_bool) noexcept {
  return t == ScalarType::kInt32 || t == ScalarType::kInt64 || t == ScalarType::kUInt8 || t == ScalarType::kInt8 ||
         t == ScalarType::kInt16 || (include_bool && t == ScalarType::kBool);
}
/// complex64 -> float32, complex128 -> float64 (the dtype of real() and abs()); others unchanged.
[[nodiscard]] constexpr ScalarType to_real_dtype(ScalarType t) noexcept {
  return t == ScalarType::kComplex64 ? ScalarType::kFloat32
         : t == ScalarType::kComplex128 ? ScalarType::kFloat64 : t;
}
/// float64 -> complex128, other floating dtypes -> complex64 (view_as_complex,
/// a complex Python number meeting a float tensor); complex unchanged.
[[nodiscard]] constexpr ScalarType to_complex_dtype(ScalarType t) noexcept {
  return t == ScalarType::kFloat64 || t == ScalarType::kComplex128 ? ScalarType::kComplex128 : ScalarType::kComplex64;
}

/// Whether a value of `from` may be written into a tensor of `to`, as
/// PyTorch's canCast: no complex -> real, no floating -> integral, no
/// number -> bool. What out= and in-place operators check ("result type
/// Float can't be cast to the desired output type Long").
[[nodiscard]] constexpr bool can_cast(ScalarType from, ScalarType to) noexcept {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating(from) && is_integral(to, true)) return false;
  return from == ScalarType::kBool || to != ScalarType::kBool;
}

/// "float32", "int64", "complex64", ... (no "torch." prefix).
[[nodiscard]] WICK_API std::string_view dtype_name(ScalarType t) noexcept;
/// PyTorch's title for a dtype in kernel messages: "Float", "Long", "Half",
/// "BFloat16", "Byte", "Char", "Short", "ComplexFloat" ("\"mse_cpu\" not implemented for 'Long'").
[[nodiscard]] WICK_API const char* type_title(ScalarType t) noexcept;
/// Accepts PyTorch's names and aliases (with or without "torch."):
/// float32/float, float64/double, float16/half, bfloat16, int64/long,
/// int32/int, int16/short, int8, uint8, bool, complex64/cfloat,
/// complex128/cdouble. Throws TypeError.
[[nodiscard]] WICK_API ScalarType parse_dtype(std::string_view name);
/// PyTorch 1.13's promote_types, for every pair: Note [Promotion table] in core/dtype.cpp.
[[nodiscard]] WICK_API ScalarType promote_types(ScalarType a, ScalarType b) noexcept;
/// The dtype of floating results made from integers (torch.get_default_dtype()).
inline constexpr ScalarType kDefaultFloat = ScalarType::kFloat32;
/// The dtype of complex results made from real integers and Python complex numbers.
inline constexpr ScalarType kDefaultComplex = ScalarType::kComplex64;

/// Maps a C++ type to its ScalarType: `cpp_to_dtype<float>` == kFloat32.
template <typename T> struct CppToDtype;
/// bool is ScalarType::kBool.
template <> struct CppToDtype<bool> { static constexpr ScalarType value = ScalarType::kBool; /**< its dtype */ };
/// std::uint8_t is ScalarType::kUInt8.
template <> struct CppToDtype<std::uint8_t> { static constexpr ScalarType value = ScalarType::kUInt8; /**< its dtype */ };
/// std::int8_t is ScalarType::kInt8.
template <> struct CppToDtype<std::int8_t> { static constexpr ScalarType value = ScalarType::kInt8; /**< its dtype */ };
/// std::int16_t is ScalarType::kInt16.
template <> struct CppToDtype<std::int16_t> { static constexpr ScalarType value = ScalarType::kInt16; /**< its dtype */ };
/// std::int32_t is ScalarType::kInt32.
template <> struct CppToDtype<std::int32_t> { static constexpr ScalarType value = ScalarType::kInt32; /**< its dtype */ };
/// std::int64_t is ScalarType::kInt64.
template <> struct CppToDtype<std::int64_t> { static constexpr ScalarType value = ScalarType::kInt64; /**< its dtype */ };
/// Half is ScalarType::kFloat16.
template <> struct CppToDtype<Half> { static constexpr ScalarType value = ScalarType::kFloat16; /**< its dtype */ };
/// BFloat16 is ScalarType::kBFloat16.
template <> struct CppToDtype<BFloat16> { static constexpr ScalarType value = ScalarType::kBFloat16; /**< its dtype */ };
/// float is ScalarType::kFloat32.
template <> struct CppToDtype<float> { static constexpr ScalarType value = ScalarType::kFloat32; /**< its dtype */ };
/// double is ScalarType::kFloat64.
template <> struct CppToDtype<double> { static constexpr ScalarType value = ScalarType::kFloat64; /**< its dtype */ };
/// std::complex<float> is ScalarType::kComplex64.
template <> struct CppToDtype<std::complex<float>> { static constexpr ScalarType value = ScalarType::kComplex64; /**< its dtype */ };
/// std::complex<double> is ScalarType::kComplex128.
template <> struct CppToDtype<std::complex<double>> { static constexpr ScalarType value = ScalarType::kComplex128; /**< its dtype */ };
/// The ScalarType of C++ type T (`cpp_to_dtype<float>` is kFloat32); a compile error for a type that is not a dtype's.
template <typename T> inline constexpr ScalarType cpp_to_dtype = CppToDtype<T>::value;

/// C++ types of dtypes, for kernel bodies (is_floating_v and
/// is_reduced_floating_v are in wick/half.h).
template <typename T> inline constexpr bool is_complex_v = false;
template <typename T> inline constexpr bool is_complex_v<std::complex<T>> = true;
/// The type a kernel computes T in: float for Half and BFloat16 (PyTorch
/// accumulates them in float), T otherwise.
template <typename T>
using compute_type_t = std::conditional_t<is_reduced_floating_v<T>, float, T>;

/// `v` as a D, with PyTorch's results on x86 where C++ leaves a conversion
/// undefined: a float that is NaN, infinite or out of range becomes the
/// integer type's lowest value for int32 and int64, and goes through int32
/// for the narrower integers (300.7 -> uint8 44, 1e10 -> 0); complex ->
/// real keeps the real part (-> bool too: 0.5j is False, as in PyTorch 1.13);
/// real -> bool is `v != 0`; Half and BFloat16 convert
/// through float (Note [Rounding to 16 bits]).
template <typename D, typename S>
[[nodiscard]] constexpr D convert(S v) noexcept {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (is_complex_v<S>) {
    if constexpr (is_complex_v<D>) {
      using R = typename D::value_type;
      return D(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    } else if constexpr (std::is_same_v<D, bool>) {
      return v.real() != 0;  // PyTorch 1.13 looks at the real part only: bool(0.5j) is False
    } else {
      return convert<D>(v.real());
    }
  } else if constexpr (is_reduced_floating_v<S>) {
    return convert<D>(static_cast<float>(v));
  } else if constexpr (is_complex_v<D>) {
    using R = typename D::value_type;
    return D(convert<R>(v), R(0));
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != 0;
  } else if constexpr (is_reduced_floating_v<D>) {
    return D(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
    using Wide = std::conditional_t<sizeof(D) < 4, std::int32_t, D>;
    constexpr S kLow = static_cast<S>(std::numeric_limits<Wide>::min());  // -2**(bits-1): exact
    const Wide w = v >= kLow && v < -kLow ? static_cast<Wide>(v) : std::numeric_limits<Wide>::min();
    return static_cast<D>(w);
  } else {
    return static_cast<D>(v);
  }
}

/// Bit sets of dtypes for `visit_dtype`.
namespace dtypes {
/// The bit of dtype `t` in a dtype set (for kUndefined, a bit no set contains).
[[nodiscard]] constexpr std::uint32_t bit(ScalarType t) noexcept { return 1U << static_cast<int>(t); }
/// uint8, int8, int16, int32 and int64 (not bool).
inline constexpr std::uint32_t kIntegral = bit(ScalarType::kUInt8) | bit(ScalarType::kInt8) |
                                           bit(ScalarType::kInt16) | bit(ScalarType::kInt32) |
                                           bit(ScalarType::kInt64);
/// float16, bfloat16, float32 and float64.
inline constexpr std::uint32_t kFloating = bit(ScalarType::kFloat16) | bit(ScalarType::kBFloat16) |
                                           bit(ScalarType::kFloat32) | bit(ScalarType::kFloat64);
/// complex64 and complex128.
inline constexpr std::uint32_t kComplex = bit(ScalarType::kComplex64) | bit(ScalarType::kComplex128);
/// Every real dtype, bool included.
inline constexpr std::uint32_t kAll = bit(ScalarType::kBool) | kIntegral | kFloating;
/// Every dtype: kAll plus the complex ones.
inline constexpr std::uint32_t kAllAndComplex = kAll | kComplex;
/// The floating and complex dtypes.
inline constexpr std::uint32_t kFloatingAndComplex = kFloating | kComplex;
}  // namespace dtypes

/// Calls `fn(T{})` with the C++ type of `t` when `t` is in `kSet`;
/// otherwise a RuntimeError in PyTorch's words, `"kernel" not implemented
/// for 'Half'`, so pass PyTorch's kernel name ("add_cpu"). Each dtype in
/// the set instantiates `fn` once: keep these calls in .cpp files.
template <std::uint32_t kSet = dtypes::kAll, typename Fn>
decltype(auto) visit_dtype(ScalarType t, const char* kernel, Fn&& fn);

/// The message of a kernel without a loop for `t`: `"kernel" not implemented for 'Half'`.
[[noreturn]] WICK_API void throw_not_implemented_for(const char* kernel, ScalarType t);

}  // namespace wick

/// \def WICK_VISIT_CASE(TAG, TYPE)
/// One `case` of visit_dtype's switch: calls `fn(TYPE{})` when TAG is in kSet, else falls through to the error
/// (undefined again after the switch).
template <std::uint32_t kSet, typename Fn>
decltype(auto) wick::visit_dtype(ScalarType t, const char* kernel, Fn&& fn) {
#define WICK_VISIT_CASE(TAG, TYPE)                                         \
  case ScalarType::TAG:                                                    \
    if constexpr ((kSet & dtypes::bit(ScalarType::TAG)) != 0) return fn(TYPE{}); \
    break;
  switch (t) {
    WICK_VISIT_CASE(kBool, bool)
    WICK_VISIT_CASE(kUInt8, std::uint8_t)
    WICK_VISIT_CASE(kInt8, std::int8_t)
    WICK_VISIT_CASE(kInt16, std::int16_t)
    WICK_VISIT_CASE(kInt32, std::int32_t)
    WICK_VISIT_CASE(kInt64, std::int64_t)
    WICK_VISIT_CASE(kFloat16, Half)
    WICK_VISIT_CASE(kBFloat16, BFloat16)
    WICK_VISIT_CASE(kFloat32, float)
    WICK_VISIT_CASE(kFloat64, double)
    WICK_VISIT_CASE(kComplex64, std::complex<float>)
    WICK_VISIT_CASE(kComplex128, std::complex<double>)
    default: break;
  }
#undef WICK_VISIT_CASE
  throw_not_implemented_for(kernel, t);
}
