// core/device.cpp - device parsing and the registry of plugin device types.
/// \file
#include "wick/device.h"

#include <array>
#include <charconv>
#include <mutex>
#include <string>

#include "wick/error.h"

namespace wick {
namespace {

// Plugin types take slots 2.. below Meta's (the last slot).
constexpr int kMetaSlot = static_cast<int>(DeviceType::kMeta);

struct DeviceTypeRegistry {
  std::mutex mu;
  std::array<std::string, kMaxDeviceTypes> names = [] {
    std::array<std::string, kMaxDeviceTypes> n{"cpu", "cuda"};
    n[kMetaSlot] = "meta";
    return n;
  }();
  int count = 2;  // slots in use below kMetaSlot
};
DeviceTypeRegistry& registry() {
  static DeviceTypeRegistry r;
  return r;
}

}  // namespace

std::string device_type_name(DeviceType t) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  const int i = static_cast<int>(t);
  if (i == kMetaSlot) return r.names[i];
  if (i < 0 || i >= r.count) return "unknown";
  return r.names[i];
}

DeviceType register_device_type(std::string_view name) {
  auto& r = registry();
  std::lock_guard lock(r.mu);
  for (int i = 0; i < r.count; ++i)
    if (r.names[i] == name) return static_cast<DeviceType>(i);
  WICK_CHECK(name != r.names[kMetaSlot], ValueError, "cannot register device type 'meta': it is built in");
  WICK_CHECK(r.count < kMetaSlot, RuntimeError, "cannot register device type '", name, "': all ", kMetaSlot - 2,
             " plugin device slots are taken");
  r.names[r.count] = std::string(name);
  return static_cast<DeviceType>(r.count++);
}

Device Device::parse(std::string_view text) {
  std::string_view type = text;
  std::int16_t index = -1;
  if (auto colon = text.find(':'); colon != std::string_view::npos) {
    type = text.substr(0, colon);
    std::string_view idx = text.substr(colon + 1);
    int v = -1;
    auto [ptr, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), v);
    WICK_CHECK(ec == std::errc() && ptr == idx.data() + idx.size() && v >= 0 && v < 32768, RuntimeError,
               "Invalid device string: '", text, "'");
    index = static_cast<std::int16_t>(v);
  }
  auto& r = registry();
  std::lock_guard lock(r.mu);
  for (int i = 0; i < r.count; ++i)
    if (r.names[i] == type) return Device(static_cast<DeviceType>(i), index);
  if (type == r.names[kMetaSlot]) return Device(DeviceType::kMeta, index);
  // PyTorch's wording, listing the device types wick knows.
  std::string known;
  for (int i = 0; i < r.count; ++i) known += r.names[i] + ", ";
  throw RuntimeError(detail::str_cat("Expected one of ", known, r.names[kMetaSlot],
                                     " device type at start of device string: ", text));
}

std::string Device::str() const {
  std::string s = device_type_name(type_);
  if (index_ >= 0) {
    s += ':';
    s += std::to_string(index_);
  }
  return s;
}

}  // namespace wick
