// backends/cuda/blas_call.h - private: the per-device cuBLAS handle, for blas_ops.cpp and linalg_ops.cpp.
/// \file
/// Note [cuBLAS handles] in blas_ops.cpp: one handle per device, locked for
/// the queueing of one call and pointed at the calling thread's stream.
#pragma once

#include <cublas_v2.h>

#include <mutex>

#include <wick/device.h>

namespace wick::cuda_backend {

/// Throws RuntimeError "<op>: cuBLAS error: <status>" unless `status` is success.
void check_cublas(cublasStatus_t status, const char* op);

/// One device's cuBLAS handle and its math mode (a new handle's default
/// math is full float32).
struct BlasHandleSlot {
  std::mutex mutex;
  cublasHandle_t handle = nullptr;
  bool tf32 = false;
};

/// The device's handle, locked and set to the current stream for one call,
/// its math mode following the TF32 switch (Note [TF32]). The device must
/// be current (a DeviceGuard in the caller).
class BlasCall final {
 public:
  BlasCall(Device device, const char* op);
  BlasCall(const BlasCall&) = delete;
  BlasCall& operator=(const BlasCall&) = delete;
  [[nodiscard]] cublasHandle_t handle() const { return slot_.handle; }

 private:
  BlasHandleSlot& slot_;
  std::lock_guard<std::mutex> lock_;
};

}  // namespace wick::cuda_backend
