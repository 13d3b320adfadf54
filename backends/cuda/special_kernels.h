// backends/cuda/special_kernels.h - private: the device loops of the special functions (lgamma, digamma, zeta, ...).
/// \file
/// One launcher for the unary and binary special functions of
/// wick/special_math.h, which the device computes in double as the CPU does
/// (float16 and bfloat16 are widened to float first and rounded once).
#pragma once

#include <cstdint>

#include "elementwise_kernels.h"

namespace wick::cuda_backend {

enum class SpecialOp : std::int8_t {
  // out = f(self): 2 operands.
  kLgamma,
  kDigamma,
  kPolygamma,  // n: the order
  kErfinv,
  kI0,
  kI0e,
  kI1,
  kI1e,
  kNdtri,
  kLogNdtr,
  kErfcx,
  kAiryAi,
  kBesselJ0,
  kBesselJ1,
  kBesselY0,
  kBesselY1,
  kBesselK0,
  kBesselK1,
  kScaledBesselK0,
  kScaledBesselK1,
  kSphericalBesselJ0,
  // out = f(self, other): 3 operands.
  kZeta,
  kIgamma,
  kIgammac,
  kPolynomial,  // n: the special_math::Polynomial family; computed in the element type
};

/// Runs `op` over `args`, every operand of the floating `dtype` (float16,
/// bfloat16, float32 or float64); `n` is polygamma's order (>= 0) or the
/// polynomial family.
void launch_special(SpecialOp op, DType dtype, const ElementwiseArgs& args, std::int64_t n, cudaStream_t stream);

}  // namespace wick::cuda_backend
