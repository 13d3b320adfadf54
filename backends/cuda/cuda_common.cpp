// backends/cuda/cuda_common.cpp - errors, streams, device guards and device checks for the kernels.
/// \file
#include "cuda_common.h"

#include <wick/cuda.h>
#include <wick/error.h>
#include <wick/tensor_util.h>

namespace wick::cuda_backend {

void check_cuda(cudaError_t err, const char* op) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();  // a non-sticky error must not be blamed on the next call
  throw RuntimeError(detail::str_cat(op, ": CUDA error: ", cudaGetErrorString(err)));
}

void check_launch(const char* op) { check_cuda(cudaGetLastError(), op); }

cudaStream_t current_stream() { return static_cast<cudaStream_t>(cuda::current_stream().handle); }

DeviceGuard::DeviceGuard(Device device) {
  previous_ = cuda::current_device();
  if (device.index() >= 0 && device.index() != previous_) cuda::set_device(device.index());
}

DeviceGuard::~DeviceGuard() {
  if (previous_ >= 0 && previous_ != cuda::current_device()) {
    try {
      cuda::set_device(previous_);
    } catch (const Error&) {  // NOLINT(bugprone-empty-catch): it was valid a moment ago
    }
  }
}

Device cuda_device_of(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Device d = common_device(ArrayRef<const Tensor*>(tensors.begin(), tensors.size()), op);
  if (d.type() == DeviceType::kCUDA) return d;
  // Only 0-dim CPU tensors, or none at all: the call came here through a
  // CUDA tensor among them or a device argument.
  for (const Tensor* t : tensors)
    if (t->defined() && t->device().type() == DeviceType::kCUDA) return t->device();
  return Device(DeviceType::kCUDA, static_cast<std::int16_t>(cuda::current_device()));
}

// Note [Wrapped numbers on the device]
// A 0-dim CPU tensor (a Python number: x * 2) joins a device operation. A
// copy from host memory would be a synchronous transfer on every such call,
// and a CUDA graph would replay it from a host buffer that may hold another
// value by then. So the number is written by a fill kernel, its value a
// kernel argument: asynchronous, and captured with the value it had.
Tensor on_device(const Tensor& t, Device device, std::optional<ScalarType> dtype) {
  if (!t.defined() || t.device() == device) return t;
  if (t.dim() == 0 && t.device().is_cpu()) {
    Tensor d = make_empty({}, dtype.value_or(t.dtype()), device);
    d.fill_(t.item());
    return d;
  }
  return t.to(device);
}

}  // namespace wick::cuda_backend
