// core/frontend/pinned_memory.cpp - wick::cuda::pin_memory: a CPU tensor copied into pinned host memory.
/// \file
/// In the frontend layer because the copy is an operator call (copy_).
#include "wick/cuda.h"
#include "wick/device_runtime.h"
#include "wick/error.h"
#include "wick/tensor.h"

namespace wick::cuda {

Tensor pin_memory(const Tensor& t) {
  WICK_CHECK(t.device().is_cpu(), RuntimeError, "pin_memory: cannot pin a ", t.device().str(),
             " tensor: only CPU memory can be pinned");
  DeviceRuntime* rt = device_runtime(DeviceType::kCUDA);
  WICK_CHECK(rt != nullptr, RuntimeError, "CUDA is not available: no CUDA backend is loaded");
  WICK_CHECK(rt->device_count() > 0, RuntimeError, "CUDA is not available: the CUDA backend found no device");
  Allocator* pinned = rt->pinned_host_allocator();
  WICK_CHECK(pinned != nullptr, RuntimeError, "pin_memory: the CUDA backend has no pinned host allocator");
  const std::size_t nbytes = static_cast<std::size_t>(t.numel()) * itemsize(t.dtype());
  void* data = pinned->allocate(nbytes);
  auto release = [](void* ctx, void* p) { static_cast<Allocator*>(ctx)->deallocate(p, 0); };
  Storage storage = Storage::make(data, nbytes, Device(), +release, pinned);
  Tensor out(
      IntrusivePtr<TensorImpl>::make(std::move(storage), t.dtype(), t.sizes(), contiguous_strides(t.sizes()), 0));
  out.copy_(t);
  return out;
}

}  // namespace wick::cuda
