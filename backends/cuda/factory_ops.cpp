// backends/cuda/factory_ops.cpp - tensor, arange, eye, linspace, rand, randn and randint on CUDA.
/// \file
/// Note [CUDA factories build on the host]
/// Each factory calls the same operator for the CPU (the CPU backend's
/// kernel, through the dispatcher) and copies the result to the device.
/// So the values, dtype rules and messages are the CPU's by construction:
/// arange's integer sizing, linspace's two-ended fill, torch.tensor's
/// nesting checks. Random factories draw from wick's default generator in
/// the CPU kernel's order, so a seed gives the same numbers on either
/// device (PyTorch's CUDA generator would not). The cost is one host fill
/// and one host-to-device copy, which these operators (made once, not in
/// inner loops) can afford.
#include <optional>

#include <wick/device_runtime.h>
#include <wick/dispatcher.h>
#include <wick/ops.h>
#include <wick/value.h>

#include "cuda_common.h"
#include "cuda_ops.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;
using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;

// The CUDA device a factory builds on (the current one for a bare "cuda").
Device target(const OptDevice& device, const char* op) {
  const Device d = resolve_device(device.value_or(Device(DeviceType::kCUDA)));
  WICK_CHECK(d.type() == DeviceType::kCUDA, RuntimeError, op, ": the CUDA backend cannot create tensors on ", d.str());
  return d;
}

// `src` (any device, any dtype) copied into a new tensor of `dtype` on `device`.
Tensor copy_to(const Tensor& src, ScalarType dtype, Device device) {
  Tensor out = make_empty(src.sizes(), dtype, device);
  if (out.numel() > 0) out.copy_(src);
  return out;
}

Tensor to_device(const Tensor& host, const OptDevice& device, const char* op) {
  return copy_to(host, host.dtype(), target(device, op));
}

Tensor tensor(const Value& data, OptDtype dtype, OptDevice device) {
  const char* op = "torch.tensor";
  if (data.is_tensor()) {  // a copy in `dtype`, on `device` (any, the CPU too) or the data's own device
    const Tensor& t = data.to_tensor();
    return copy_to(t, dtype.value_or(t.dtype()), device ? resolve_device(*device) : t.device());
  }
  const Device d = target(device, op);
  const Tensor host = wick::tensor(data, dtype, Device());
  return copy_to(host, host.dtype(), d);
}

Tensor arange(const Scalar& start_or_end, const std::optional<Scalar>& end, const Scalar& step, OptDtype dtype,
              OptDevice device) {
  return to_device(wick::arange(start_or_end, end, step, dtype, Device()), device, "torch.arange");
}

Tensor eye(I64 n, std::optional<I64> m, OptDtype dtype, OptDevice device) {
  return to_device(wick::eye(n, m, dtype, Device()), device, "torch.eye");
}

Tensor rand(IntArrayRef size, OptDtype dtype, OptDevice device) {
  return to_device(wick::rand(size, dtype, Device()), device, "torch.rand");
}

Tensor randn(IntArrayRef size, OptDtype dtype, OptDevice device) {
  return to_device(wick::randn(size, dtype, Device()), device, "torch.randn");
}

Tensor linspace(const Scalar& start, const Scalar& end, I64 steps, OptDtype dtype, OptDevice device) {
  WICK_CHECK(steps >= 0, RuntimeError, "number of steps must be non-negative");
  WICK_CHECK(dtype.value_or(kDefaultFloat) != ScalarType::kBool, RuntimeError,
             "\"linspace_cuda\" not implemented for 'Bool'");
  return to_device(wick::linspace(start, end, steps, dtype, Device()), device, "torch.linspace");
}

Tensor randint_low(I64 low, I64 high, IntArrayRef size, OptDtype dtype, OptDevice device) {
  return to_device(wick::randint(low, high, size, dtype, Device()), device, "torch.randint");
}
Tensor randint(I64 high, IntArrayRef size, OptDtype dtype, OptDevice device) {
  return to_device(wick::randint(high, size, dtype, Device()), device, "torch.randint");
}

}  // namespace

void register_factory_ops(Library& torch) {
  torch.impl("tensor", &tensor).impl("arange", &arange).impl("eye", &eye).impl("rand", &rand).impl("randn", &randn);
  torch.impl("linspace", &linspace).impl("randint", &randint).impl("randint.low", &randint_low);
}

}  // namespace wick::cuda_backend
