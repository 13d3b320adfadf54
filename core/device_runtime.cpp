// core/device_runtime.cpp - the device runtime table and the wick::cuda functions over it.
/// \file
#include "wick/device_runtime.h"

#include <array>
#include <atomic>

#include "core/device_runtime.h"
#include "wick/cuda.h"
#include "wick/error.h"

namespace wick {
namespace {

std::array<std::atomic<DeviceRuntime*>, kMaxDeviceTypes> g_runtimes{};

DeviceRuntime& cuda_runtime() {
  DeviceRuntime* rt = device_runtime(DeviceType::kCUDA);
  WICK_CHECK(rt != nullptr, RuntimeError, "CUDA is not available: no CUDA backend is loaded");
  WICK_CHECK(rt->device_count() > 0, RuntimeError, "CUDA is not available: the CUDA backend found no device");
  return *rt;
}

}  // namespace

DeviceRuntime::~DeviceRuntime() = default;

DeviceRuntime* device_runtime(DeviceType type) noexcept {
  const int i = static_cast<int>(type);
  return i >= 0 && i < kMaxDeviceTypes ? g_runtimes[i].load(std::memory_order_acquire) : nullptr;
}

Device resolve_device(Device device) {
  if (device.is_cpu() || device.is_meta() || device.index() >= 0) return device;
  DeviceRuntime* rt = device_runtime(device.type());
  return {device.type(), static_cast<std::int16_t>(rt != nullptr ? rt->current_device() : 0)};
}

void detail::set_device_runtime(DeviceType type, DeviceRuntime* runtime) {
  const int i = static_cast<int>(type);
  WICK_CHECK(i > 0 && i < kMaxDeviceTypes, ValueError, "register_device_runtime: bad device type ", i);
  if (runtime == nullptr) {
    set_allocator(type, nullptr);
    g_runtimes[i].store(nullptr, std::memory_order_release);
    return;
  }
  DeviceRuntime* expected = nullptr;
  WICK_CHECK(g_runtimes[i].compare_exchange_strong(expected, runtime, std::memory_order_acq_rel), PluginError,
             "a device runtime for '", device_type_name(type), "' is already registered");
  set_allocator(type, &runtime->allocator());
}

namespace cuda {

bool is_available() noexcept { return device_count() > 0; }

int device_count() noexcept {
  DeviceRuntime* rt = device_runtime(DeviceType::kCUDA);
  return rt != nullptr ? rt->device_count() : 0;
}

int current_device() { return cuda_runtime().current_device(); }
void set_device(int index) { cuda_runtime().set_current_device(index); }
void synchronize(int device) { cuda_runtime().synchronize(device); }
Stream current_stream(int device) { return cuda_runtime().current_stream(device); }
Stream new_stream(int device) { return cuda_runtime().stream_from_pool(device); }
void set_stream(Stream stream) {
  WICK_CHECK(stream.device.type() == DeviceType::kCUDA, ValueError, "set_stream: a stream of ",
             stream.device.str(), " is not a CUDA stream");
  cuda_runtime().set_current_stream(stream);
}

StreamGuard::StreamGuard(Stream stream)
    : previous_(current_stream(stream.device.index())), previous_device_(current_device()) {
  set_device(stream.device.index());
  set_stream(stream);
}

StreamGuard::~StreamGuard() {
  // Restoring what was current before cannot fail: both were valid then.
  DeviceRuntime& rt = *device_runtime(DeviceType::kCUDA);
  rt.set_current_stream(previous_);
  rt.set_current_device(previous_device_);
}

void empty_cache() { cuda_runtime().empty_cache(); }
DeviceMemoryStats memory_stats(int device) { return cuda_runtime().memory_stats(device); }
void reset_peak_memory_stats(int device) { cuda_runtime().reset_peak_memory_stats(device); }

}  // namespace cuda
}  // namespace wick
