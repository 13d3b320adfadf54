// backends/cuda/unary_kernels_narrow.cu - device code: the unary loops of uint8, int8 and int16.
/// \file
/// Note [Kernel files by dtype group] (elementwise_loops.cuh).
#include <cstdint>

#include "unary_kernels.cuh"

namespace wick::cuda_backend::unary {

void launch_unary_narrow(UnaryOp op, DType dtype, const ElementwiseArgs& args, const UnaryParams& params,
                         cudaStream_t stream) {
  launch_unary_among<std::uint8_t, std::int8_t, std::int16_t>(op, dtype, args, params, stream);
}

}  // namespace wick::cuda_backend::unary
