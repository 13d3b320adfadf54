// backends/cuda/unary_kernels_16bit.cu - device code: the unary loops of float16 and bfloat16.
/// \file
/// Note [Kernel files by dtype group] (elementwise_loops.cuh).
#include <cstdint>

#include "unary_kernels.cuh"

namespace wick::cuda_backend::unary {

void launch_unary_16bit(UnaryOp op, DType dtype, const ElementwiseArgs& args, const UnaryParams& params,
                        cudaStream_t stream) {
  launch_unary_among<__half, __nv_bfloat16>(op, dtype, args, params, stream);
}

}  // namespace wick::cuda_backend::unary
