// backends/cuda/cuda_common.h - private: what the CUDA backend's host files share.
/// \file
/// Note [CUDA backend layout]
/// Host files (`*.cpp`, compiled by the C++ compiler) hold everything that
/// touches wick's types: argument checks, broadcasting, type promotion,
/// allocation of outputs, cuBLAS and cuDNN calls. Device files (`*.cu`,
/// compiled by nvcc) hold only kernels and their launchers, and see plain
/// structs (`backends/cuda/kernels.h`): nvcc never parses wick's headers, so
/// it stays quick, and the kernels' interface is small enough to read.
///
/// Every kernel runs on the current stream of the tensors' device
/// (wick/cuda.h); results become visible to the host when it reads them,
/// which is always through a device-to-host copy on that stream.
#pragma once

#include <cuda_runtime_api.h>

#include <initializer_list>
#include <optional>

#include <wick/device.h>
#include <wick/library.h>
#include <wick/tensor.h>

namespace wick::cuda_backend {

/// Throws RuntimeError "<op>: CUDA error: <description>" unless `err` is
/// cudaSuccess (and clears the sticky last-error state where it can).
void check_cuda(cudaError_t err, const char* op);
/// Checks the last kernel launch (cudaGetLastError) for `op`.
void check_launch(const char* op);

/// The calling thread's current stream on the current device.
[[nodiscard]] cudaStream_t current_stream();

/// Makes a device current for a scope and restores the previous one.
class DeviceGuard final {
 public:
  explicit DeviceGuard(Device device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

/// The CUDA device shared by a kernel's tensors. Undefined tensors are
/// skipped and 0-dim CPU tensors (wrapped Python numbers) may join any
/// device, as in PyTorch; anything else on another device is PyTorch's
/// "Expected all tensors to be on the same device" RuntimeError naming `op`.
Device cuda_device_of(const char* op, std::initializer_list<const Tensor*> tensors);

/// `t` on `device`: a 0-dim CPU tensor (a wrapped number) is written there
/// by a fill kernel, in `dtype` when given (Note [Wrapped numbers on the
/// device]); others are returned as they are (callers have checked devices
/// with cuda_device_of).
[[nodiscard]] Tensor on_device(const Tensor& t, Device device, std::optional<ScalarType> dtype = std::nullopt);

}  // namespace wick::cuda_backend
