// wick/cuda.h - CUDA devices, streams and memory, as torch.cuda offers them.
/// \file
/// These functions talk to the CUDA backend plugin through its device
/// runtime (wick/device_runtime.h); an application links only libwick. When
/// no CUDA backend is loaded, or it found no device, `is_available()` is
/// false and everything else but `device_count()` throws RuntimeError.
///
///   if (wick::cuda::is_available()) {
///     wick::Tensor x = wick::randn({1024, 1024}).cuda();
///     wick::Tensor y = wick::mm(x, x);          // queued on the current stream
///     float v = y.sum().item<float>();          // waits for it, then reads
///     wick::DeviceMemoryStats s = wick::cuda::memory_stats();
///   }
///
/// Note [Streams and host reads]
/// Kernels are queued on the calling thread's current stream of their
/// device and return at once. Every read by the host (`item()`, printing,
/// `cpu()` / `to("cpu")`) is a device-to-host copy on that stream that waits
/// for it, so the values read are always the finished ones. Work queued on a
/// stream set with `StreamGuard` is ordered only within that stream: use
/// `synchronize()` before handing results to another stream.
#pragma once

#include "wick/device.h"
#include "wick/device_runtime.h"
#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::cuda {

/// True when the CUDA backend is loaded and found at least one device.
[[nodiscard]] WICK_API bool is_available() noexcept;
/// Devices the CUDA backend found (0 without a backend or a device).
[[nodiscard]] WICK_API int device_count() noexcept;
/// The calling thread's current device.
[[nodiscard]] WICK_API int current_device();
/// Makes `index` the calling thread's current device (tensors created on
/// "cuda" without an index go there). RuntimeError for a bad index.
WICK_API void set_device(int index);
/// Waits for all work on `device` (-1: the current one).
WICK_API void synchronize(int device = -1);

/// The calling thread's current stream on `device` (-1: the current one).
[[nodiscard]] WICK_API Stream current_stream(int device = -1);
/// A stream from the backend's pool for `device` (-1: the current one).
[[nodiscard]] WICK_API Stream new_stream(int device = -1);
/// Makes `stream` current on its device for the calling thread.
WICK_API void set_stream(Stream stream);

/// Makes a stream current for a scope (and its device), restoring both.
class WICK_API StreamGuard final {
 public:
  explicit StreamGuard(Stream stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
  int previous_device_;
};

/// Gives the caching allocator's unused blocks back to the driver
/// (torch.cuda.empty_cache).
WICK_API void empty_cache();
/// The caching allocator's figures for `device` (-1: the current one).
[[nodiscard]] WICK_API DeviceMemoryStats memory_stats(int device = -1);
/// Restarts the peak figures of `device` (-1: the current one).
WICK_API void reset_peak_memory_stats(int device = -1);

/// A copy of the CPU tensor `t` in page-locked host memory, from which
/// copies to a device can run asynchronously (`to(device, non_blocking=true)`).
/// RuntimeError for a tensor not on the CPU.
[[nodiscard]] WICK_API Tensor pin_memory(const Tensor& t);

}  // namespace wick::cuda
