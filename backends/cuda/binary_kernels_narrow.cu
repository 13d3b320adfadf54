// backends/cuda/binary_kernels_narrow.cu - device code: the binary loops of uint8, int8 and int16.
/// \file
/// Note [Kernel files by dtype group] (elementwise_loops.cuh).
#include <cstdint>

#include "binary_kernels.cuh"

namespace wick::cuda_backend::binary {

void launch_binary_narrow(BinaryOp op, DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha,
                          int* error_flag, cudaStream_t stream) {
  launch_binary_among<std::uint8_t, std::int8_t, std::int16_t>(op, dtype, args, alpha, error_flag, stream);
}

}  // namespace wick::cuda_backend::binary
