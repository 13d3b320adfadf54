// backends/cuda/binary_kernels_16bit.cu - device code: the binary loops of float16 and bfloat16.
/// \file
/// Note [Kernel files by dtype group] (elementwise_loops.cuh).
#include <cstdint>

#include "binary_kernels.cuh"

namespace wick::cuda_backend::binary {

void launch_binary_16bit(BinaryOp op, DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha,
                         int* error_flag, cudaStream_t stream) {
  launch_binary_among<__half, __nv_bfloat16>(op, dtype, args, alpha, error_flag, stream);
}

}  // namespace wick::cuda_backend::binary
