// backends/cuda/cuda_runtime.h - private: the CUDA device runtime (devices, streams, caching allocator).
/// \file
#pragma once

#include <wick/device_runtime.h>

#include <memory>

namespace wick::cuda_backend {

/// The CUDA backend's DeviceRuntime over `device_count` devices (at least 1).
[[nodiscard]] std::unique_ptr<DeviceRuntime> make_cuda_runtime(int device_count);

}  // namespace wick::cuda_backend
