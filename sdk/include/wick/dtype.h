// wick/dtype.h - scalar types (dtypes) and PyTorch's type promotion.
/// \file
/// The dtypes a tensor can hold, their sizes and names, and the promotion
/// lattice PyTorch uses (`promote_types`). Result-type computation across
/// tensors and wrapped Python numbers lives in `wick/tensor_util.h`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "wick/export.h"

namespace wick {

/// Values are stable across the plugin boundary; room is reserved up to 31.
enum class ScalarType : std::int8_t {
  kBool = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat32 = 3,
  kFloat64 = 4,
  // planned: kFloat16 = 5, kBFloat16 = 6
  kUndefined = 31,
};
inline constexpr int kNumScalarTypes = 5;

[[nodiscard]] constexpr std::size_t itemsize(ScalarType t) noexcept {
  switch (t) {
    case ScalarType::kBool: return 1;
    case ScalarType::kInt32: return 4;
    case ScalarType::kInt64: return 8;
    case ScalarType::kFloat32: return 4;
    case ScalarType::kFloat64: return 8;
    default: return 0;
  }
}
[[nodiscard]] constexpr bool is_floating(ScalarType t) noexcept {
  return t == ScalarType::kFloat32 || t == ScalarType::kFloat64;
}
[[nodiscard]] constexpr bool is_integral(ScalarType t, bool include_bool) noexcept {
  return t == ScalarType::kInt32 || t == ScalarType::kInt64 || (include_bool && t == ScalarType::kBool);
}

/// Whether a value of `from` may be written into a tensor of `to`, as
/// PyTorch's canCast: no floating -> integral, no number -> bool. What out=
/// and in-place operators check ("result type Float can't be cast to the
/// desired output type Long").
[[nodiscard]] constexpr bool can_cast(ScalarType from, ScalarType to) noexcept {
  if (is_floating(from) && !is_floating(to)) return false;
  return from == ScalarType::kBool || to != ScalarType::kBool;
}

/// "float32", "int64", ... (no "torch." prefix).
[[nodiscard]] WICK_API std::string_view dtype_name(ScalarType t) noexcept;
/// PyTorch's title for a dtype in kernel messages: "Float", "Long", "Bool"
/// ("\"mse_cpu\" not implemented for 'Long'").
[[nodiscard]] WICK_API const char* type_title(ScalarType t) noexcept;
/// Accepts PyTorch's names and aliases: float32/float, float64/double,
/// int64/long, int32/int, bool (with or without "torch."). Throws TypeError.
[[nodiscard]] WICK_API ScalarType parse_dtype(std::string_view name);
/// PyTorch's promote_types: bool < int32 < int64 < float32 < float64.
[[nodiscard]] WICK_API ScalarType promote_types(ScalarType a, ScalarType b) noexcept;
/// The dtype of floating results made from integers (torch.get_default_dtype()).
inline constexpr ScalarType kDefaultFloat = ScalarType::kFloat32;

/// Maps a C++ type to its ScalarType: `cpp_to_dtype<float>` == kFloat32.
template <typename T> struct CppToDtype;
template <> struct CppToDtype<bool> { static constexpr ScalarType value = ScalarType::kBool; };
template <> struct CppToDtype<std::int32_t> { static constexpr ScalarType value = ScalarType::kInt32; };
template <> struct CppToDtype<std::int64_t> { static constexpr ScalarType value = ScalarType::kInt64; };
template <> struct CppToDtype<float> { static constexpr ScalarType value = ScalarType::kFloat32; };
template <> struct CppToDtype<double> { static constexpr ScalarType value = ScalarType::kFloat64; };
template <typename T> inline constexpr ScalarType cpp_to_dtype = CppToDtype<T>::value;

/// Calls `fn(T{})` with the C++ type of `t`; throws TypeError naming `op` for
/// an unsupported dtype. Use in kernels: `visit_dtype(t, "torch.neg", [&](auto tag) {...})`.
template <typename Fn>
decltype(auto) visit_dtype(ScalarType t, const char* op, Fn&& fn);

}  // namespace wick

#include "wick/error.h"

template <typename Fn>
decltype(auto) wick::visit_dtype(ScalarType t, const char* op, Fn&& fn) {
  switch (t) {
    case ScalarType::kBool: return fn(bool{});
    case ScalarType::kInt32: return fn(std::int32_t{});
    case ScalarType::kInt64: return fn(std::int64_t{});
    case ScalarType::kFloat32: return fn(float{});
    case ScalarType::kFloat64: return fn(double{});
    default: break;
  }
  throw TypeError(detail::str_cat(op, ": unsupported dtype"));
}
