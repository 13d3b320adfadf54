// backends/cuda/unary_kernels.cu - device code: launch_unary, and its loops for bool, int32, int64, float32, float64.
/// \file
/// The functors are in unary_kernels.cuh; the float16/bfloat16 loops in
/// unary_kernels_16bit.cu, the uint8/int8/int16 ones in
/// unary_kernels_narrow.cu (Note [Kernel files by dtype group]).
#include <cstdint>

#include "elementwise_kernels.h"
#include "unary_kernels.cuh"

namespace wick::cuda_backend {

void launch_unary(UnaryOp op, DType dtype, const ElementwiseArgs& args, const UnaryParams& params,
                  cudaStream_t stream) {
  switch (dtype) {
    case DType::kFloat16:
    case DType::kBFloat16:
      unary::launch_unary_16bit(op, dtype, args, params, stream);
      break;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kInt16:
      unary::launch_unary_narrow(op, dtype, args, params, stream);
      break;
    default:
      unary::launch_unary_among<bool, std::int32_t, std::int64_t, float, double>(op, dtype, args, params, stream);
      break;
  }
}

}  // namespace wick::cuda_backend
