// wick/tensor_options.h - TensorOptions (dtype, device, requires_grad) and the kFloat32-style shorthands.
/// \file
/// What a creation function makes, in one value, as libtorch spells it:
///
///   auto opts = wick::TensorOptions().dtype(wick::kFloat64).requires_grad(true);
///   wick::Tensor w = wick::randn({3, 4}, opts);
///   wick::Tensor z = wick::zeros({2}, wick::dtype(wick::kInt64).device(wick::kCPU));
///   wick::Tensor y = wick::zeros_like(w, w.options());      // float64, requires_grad
///
/// Every creation function with `dtype` and `device` arguments (zeros, ones,
/// empty, full, arange, linspace, eye, rand, randn, randint, randperm,
/// tensor, the *_like functions, ...) has an overload that takes a
/// TensorOptions in their place, after any prefix of its optional
/// positional arguments (`arange(10, opts)`, `arange(0, 10, 2, opts)`). A
/// field left unset takes the function's default. `requires_grad(true)`
/// makes the result a leaf that requires grad (RuntimeError for a
/// non-floating dtype, as `requires_grad_`). TensorOptions has no implicit
/// constructor: a bare dtype or device goes to the plain overload
/// (`zeros({2}, wick::kFloat64)`).
#pragma once

#include <optional>

#include "wick/device.h"
#include "wick/dtype.h"

namespace wick {

/// The dtype, device and requires_grad of a tensor to make. Each setter
/// returns a modified copy, so they chain.
class TensorOptions final {
 public:
  constexpr TensorOptions() noexcept = default;
  /// Options with only the dtype set.
  constexpr explicit TensorOptions(ScalarType dtype) noexcept : dtype_(dtype) {}
  /// Options with only the device set.
  constexpr explicit TensorOptions(Device device) noexcept : device_(device) {}
  /// Options with only the device set: device type `device`, no index.
  constexpr explicit TensorOptions(DeviceType device) noexcept : device_(Device(device)) {}

  /// A copy with the dtype set (std::nullopt unsets it).
  [[nodiscard]] constexpr TensorOptions dtype(std::optional<ScalarType> dtype) const noexcept {
    TensorOptions o = *this;
    o.dtype_ = dtype;
    return o;
  }
  /// A copy with the device set (std::nullopt unsets it).
  [[nodiscard]] constexpr TensorOptions device(std::optional<Device> device) const noexcept {
    TensorOptions o = *this;
    o.device_ = device;
    return o;
  }
  /// A copy with the device set to `type` and `index` (-1, the default: no index).
  [[nodiscard]] constexpr TensorOptions device(DeviceType type, std::int16_t index = -1) const noexcept {
    return device(Device(type, index));
  }
  /// A copy with requires_grad set; the creation function throws RuntimeError when it is true and the dtype is not floating or complex.
  [[nodiscard]] constexpr TensorOptions requires_grad(bool requires_grad) const noexcept {
    TensorOptions o = *this;
    o.requires_grad_ = requires_grad;
    return o;
  }

  /// The dtype: the one set, else the default float dtype (float32).
  [[nodiscard]] constexpr ScalarType dtype() const noexcept { return dtype_.value_or(kDefaultFloat); }
  /// The device: the one set, else the CPU.
  [[nodiscard]] constexpr Device device() const noexcept { return device_.value_or(Device()); }
  /// Whether the result should require grad (default false).
  [[nodiscard]] constexpr bool requires_grad() const noexcept { return requires_grad_; }
  /// True when a dtype was set.
  [[nodiscard]] constexpr bool has_dtype() const noexcept { return dtype_.has_value(); }
  /// True when a device was set.
  [[nodiscard]] constexpr bool has_device() const noexcept { return device_.has_value(); }
  /// What the creation functions pass on: unset fields stay unset.
  [[nodiscard]] constexpr std::optional<ScalarType> dtype_opt() const noexcept { return dtype_; }
  /// The device set, or std::nullopt.
  [[nodiscard]] constexpr std::optional<Device> device_opt() const noexcept { return device_; }

  /// Equal when dtype, device (set or unset) and requires_grad are.
  constexpr bool operator==(const TensorOptions&) const noexcept = default;

 private:
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;
  bool requires_grad_ = false;
};

/// `TensorOptions().dtype(d)` and friends, the starting points libtorch has.
[[nodiscard]] constexpr TensorOptions dtype(ScalarType dtype) noexcept { return TensorOptions(dtype); }
/// `TensorOptions().device(d)`.
[[nodiscard]] constexpr TensorOptions device(Device device) noexcept { return TensorOptions(device); }
/// `TensorOptions().requires_grad(r)` (default true).
[[nodiscard]] constexpr TensorOptions requires_grad(bool requires_grad = true) noexcept {
  return TensorOptions().requires_grad(requires_grad);
}

// --- shorthands: libtorch's names for the dtypes and device types ------------
inline constexpr ScalarType kBool = ScalarType::kBool; ///< torch.bool
inline constexpr ScalarType kUInt8 = ScalarType::kUInt8; ///< torch.uint8
inline constexpr ScalarType kByte = ScalarType::kUInt8; ///< torch.uint8 (libtorch's kByte)
inline constexpr ScalarType kInt8 = ScalarType::kInt8; ///< torch.int8
inline constexpr ScalarType kChar = ScalarType::kInt8; ///< torch.int8 (libtorch's kChar)
inline constexpr ScalarType kInt16 = ScalarType::kInt16; ///< torch.int16
inline constexpr ScalarType kShort = ScalarType::kInt16; ///< torch.int16 (libtorch's kShort)
inline constexpr ScalarType kInt32 = ScalarType::kInt32; ///< torch.int32
inline constexpr ScalarType kInt = ScalarType::kInt32; ///< torch.int32 (libtorch's kInt)
inline constexpr ScalarType kInt64 = ScalarType::kInt64; ///< torch.int64
inline constexpr ScalarType kLong = ScalarType::kInt64; ///< torch.int64 (libtorch's kLong)
inline constexpr ScalarType kFloat16 = ScalarType::kFloat16; ///< torch.float16
inline constexpr ScalarType kHalf = ScalarType::kFloat16; ///< torch.float16 (libtorch's kHalf)
inline constexpr ScalarType kBFloat16 = ScalarType::kBFloat16; ///< torch.bfloat16
inline constexpr ScalarType kFloat32 = ScalarType::kFloat32; ///< torch.float32
inline constexpr ScalarType kFloat = ScalarType::kFloat32; ///< torch.float32 (libtorch's kFloat)
inline constexpr ScalarType kFloat64 = ScalarType::kFloat64; ///< torch.float64
inline constexpr ScalarType kDouble = ScalarType::kFloat64; ///< torch.float64 (libtorch's kDouble)
inline constexpr ScalarType kComplex64 = ScalarType::kComplex64; ///< torch.complex64
inline constexpr ScalarType kComplexFloat = ScalarType::kComplex64; ///< torch.complex64 (libtorch's kComplexFloat)
inline constexpr ScalarType kComplex128 = ScalarType::kComplex128; ///< torch.complex128
inline constexpr ScalarType kComplexDouble = ScalarType::kComplex128; ///< torch.complex128 (libtorch's kComplexDouble)
inline constexpr DeviceType kCPU = DeviceType::kCPU; ///< the CPU device type
inline constexpr DeviceType kCUDA = DeviceType::kCUDA; ///< the CUDA device type
inline constexpr DeviceType kMeta = DeviceType::kMeta; ///< the meta (shape-only) device type

}  // namespace wick
