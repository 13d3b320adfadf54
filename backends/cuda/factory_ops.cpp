// backends/cuda/factory_ops.cpp - tensor, arange, eye, linspace, rand, randn and randint on CUDA.
/// \file
/// Note [CUDA factories build on the host]
/// The meta function (dispatch/ops/meta_creation.cpp) checked the
/// arguments, with the CPU's messages, and the glue allocated the result on
/// the CUDA device (Note [Structured kernels] in wick/structured.h). Each
/// impl then calls the same operator for the CPU (the CPU backend's kernel,
/// through the dispatcher) and copies the result into it. So the values
/// are the CPU's by construction: arange's integer sizing, linspace's
/// two-ended fill, torch.tensor's conversions. Random factories draw from
/// wick's default generator in the CPU kernel's order, so a seed gives the
/// same numbers on either device (PyTorch's CUDA generator would not). The
/// cost is one host fill and one host-to-device copy, which these
/// operators (made once, not in inner loops) can afford.
#include <optional>

#include <wick/dispatcher.h>
#include <wick/meta.h>
#include <wick/meta_creation.h>
#include <wick/ops.h>
#include <wick/value.h>

#include "cuda_common.h"
#include "cuda_ops.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;
using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;

// `src` (any device, any dtype) copied into `out` on the device.
void fill_from(const Tensor& out, const Tensor& src) {
  if (out.numel() == 0) return;
  Tensor target = out;
  target.copy_(src);
}

}  // namespace

void tensor(const FromDataMeta& /*m*/, const Tensor& out, const Value& data, OptDtype dtype, OptDevice /*device*/) {
  if (data.is_tensor()) {  // a copy, converted to out's dtype
    fill_from(out, data.to_tensor());
    return;
  }
  fill_from(out, wick::tensor(data, dtype, Device()));
}

void arange(const ArangeMeta& /*m*/, const Tensor& out, const Scalar& start_or_end, const std::optional<Scalar>& end,
            const Scalar& step, OptDtype dtype, OptDevice /*device*/) {
  fill_from(out, wick::arange(start_or_end, end, step, dtype, Device()));
}

void eye(const OutputMeta& /*m*/, const Tensor& out, I64 n, std::optional<I64> m, OptDtype dtype,
         OptDevice /*device*/) {
  fill_from(out, wick::eye(n, m, dtype, Device()));
}

void rand(const OutputMeta& /*m*/, const Tensor& out, IntArrayRef size, OptDtype dtype, OptDevice /*device*/) {
  fill_from(out, wick::rand(size, dtype, Device()));
}

void randn(const OutputMeta& /*m*/, const Tensor& out, IntArrayRef size, OptDtype dtype, OptDevice /*device*/) {
  fill_from(out, wick::randn(size, dtype, Device()));
}

void linspace(const OutputMeta& /*m*/, const Tensor& out, const Scalar& start, const Scalar& end, I64 steps,
              OptDtype dtype, OptDevice /*device*/) {
  fill_from(out, wick::linspace(start, end, steps, dtype, Device()));
}

void randint_low(const OutputMeta& /*m*/, const Tensor& out, I64 low, I64 high, IntArrayRef size, OptDtype dtype,
                 OptDevice /*device*/) {
  fill_from(out, wick::randint(low, high, size, dtype, Device()));
}
void randint(const OutputMeta& /*m*/, const Tensor& out, I64 high, IntArrayRef size, OptDtype dtype,
             OptDevice /*device*/) {
  fill_from(out, wick::randint(high, size, dtype, Device()));
}

}  // namespace wick::cuda_backend
