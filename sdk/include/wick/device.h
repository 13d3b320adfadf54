// wick/device.h - devices: cpu, cuda:N and backend types plugins register.
/// \file
/// A `Device` is a device type plus an index (-1: "the current one").
/// Device types beyond CPU and CUDA are registered by name at run time by
/// backend plugins (`register_device_type`), each with its own dispatch key.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "wick/export.h"

namespace wick {

/// CPU, CUDA and Meta are fixed; 2..14 are handed out to plugin backends.
/// A `meta` tensor has sizes, strides and a dtype but no storage: every
/// operator runs on it through its meta function (shape inference without
/// data, as PyTorch's meta tensors).
enum class DeviceType : std::int8_t { kCPU = 0, kCUDA = 1, kMeta = 15 };
/// Device types are below this (the width of the backend part of a DispatchKeySet).
inline constexpr int kMaxDeviceTypes = 16;

/// A device: a type and an optional index (torch.device); -1 means "no index" (the current device of that type).
class WICK_API Device final {
 public:
  /// Device `type` (default the CPU) with `index` (default -1, none). Not checked: Device::parse validates text.
  constexpr Device(DeviceType type = DeviceType::kCPU, std::int16_t index = -1) noexcept
      : type_(type), index_(index) {}
  /// Parses "cpu", "cuda", "cuda:1", or a registered type name; throws ValueError.
  static Device parse(std::string_view text);

  /// The device type.
  [[nodiscard]] constexpr DeviceType type() const noexcept { return type_; }
  /// The index, or -1 when none was given.
  [[nodiscard]] constexpr std::int16_t index() const noexcept { return index_; }
  /// True for the CPU.
  [[nodiscard]] constexpr bool is_cpu() const noexcept { return type_ == DeviceType::kCPU; }
  /// True for the meta device (no storage).
  [[nodiscard]] constexpr bool is_meta() const noexcept { return type_ == DeviceType::kMeta; }
  /// PyTorch's spelling: "cpu", "cuda", "cuda:1", or a plugin type's name.
  [[nodiscard]] std::string str() const;
  /// Equal when type and index are (so "cuda" differs from "cuda:0").
  constexpr bool operator==(const Device&) const noexcept = default;

 private:
  DeviceType type_;
  std::int16_t index_;
};

/// The name of a device type ("cpu", "cuda", or the registered name).
[[nodiscard]] WICK_API std::string device_type_name(DeviceType t);
/// Registers a new device type for a backend plugin, or returns the existing
/// one of that name. Throws RuntimeError when all 13 slots are taken.
WICK_API DeviceType register_device_type(std::string_view name);

}  // namespace wick
