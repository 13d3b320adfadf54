// backends/cuda/special_ops.cpp - host side of the special functions' CUDA kernels (lgamma, digamma, zeta, ...).
/// \file
/// As the CPU kernels (backends/cpu/special_ops.cpp): the meta function gave
/// the compute dtype; the operands move to the device, convert to it, and
/// one loop of special_kernels.cu runs. Every floating dtype has loops on
/// the device (PyTorch's CUDA kernels take float16 and bfloat16 too);
/// complex dtypes are refused with PyTorch's CUDA kernel name.
#include <cstdint>

#include <wick/meta.h>
#include <wick/special_polynomials.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "elementwise_host.h"
#include "special_kernels.h"

namespace wick::cuda_backend {
namespace {

using M = ElementwiseMeta;

// The compute dtype's device code, or PyTorch's refusal naming its CUDA
// kernel: every floating dtype, or float32 and float64 only (`wide_only`:
// the Bessel, Airy and polynomial kernels).
DType special_dtype(const char* op, const char* kernel, const M& m, bool wide_only = false) {
  const DType dtype = to_dtype(m.compute, kernel);
  const bool wide = m.compute == ScalarType::kFloat32 || m.compute == ScalarType::kFloat64;
  WICK_CHECK(wide_only ? wide : is_floating(m.compute), RuntimeError, op, ": \"", kernel, "\" not implemented for '",
             type_title(m.compute), "'");
  return dtype;
}

void launch(const char* op, SpecialOp sop, DType dtype, const ElementwiseArgs& args, const Tensor& out,
            std::int64_t n) {
  if (args.numel == 0) return;
  DeviceGuard guard(out.device());
  launch_special(sop, dtype, args, n, current_stream());
  check_launch(op);
}

// out = op(self), self moved to out's device and converted to the compute dtype.
void unary_into(const char* op, const char* kernel, SpecialOp sop, const M& m, const Tensor& out, const Tensor& self,
                std::int64_t n = 0, bool wide_only = false) {
  const DType dtype = special_dtype(op, kernel, m, wide_only);
  const Tensor x = as_dtype(on_device(self, out.device(), m.compute), m.compute);
  launch(op, sop, dtype, make_args(out.sizes(), {&out, &x}, op), out, n);
}

// out = op(a, b), likewise.
void binary_into(const char* op, const char* kernel, SpecialOp sop, const M& m, const Tensor& out, const Tensor& a,
                 const Tensor& b, std::int64_t n = 0, bool wide_only = false) {
  const DType dtype = special_dtype(op, kernel, m, wide_only);
  const Tensor x = as_dtype(on_device(a, out.device(), m.compute), m.compute);
  const Tensor y = as_dtype(on_device(b, out.device(), m.compute), m.compute);
  launch(op, sop, dtype, make_args(out.sizes(), {&out, &x, &y}, op), out, n);
}

}  // namespace

#define WICK_CUDA_SPECIAL(NAME, OP, SOP)                         \
  void NAME(const M& m, const Tensor& out, const Tensor& self) { \
    unary_into(OP, #NAME "_cuda", SpecialOp::SOP, m, out, self); \
  }
WICK_CUDA_SPECIAL(lgamma, "torch.lgamma", kLgamma)
WICK_CUDA_SPECIAL(digamma, "torch.digamma", kDigamma)
WICK_CUDA_SPECIAL(erfinv, "torch.erfinv", kErfinv)
WICK_CUDA_SPECIAL(i0, "torch.i0", kI0)
WICK_CUDA_SPECIAL(i0e, "torch.special.i0e", kI0e)
WICK_CUDA_SPECIAL(i1, "torch.special.i1", kI1)
WICK_CUDA_SPECIAL(i1e, "torch.special.i1e", kI1e)
WICK_CUDA_SPECIAL(ndtri, "torch.special.ndtri", kNdtri)
WICK_CUDA_SPECIAL(log_ndtr, "torch.special.log_ndtr", kLogNdtr)
WICK_CUDA_SPECIAL(erfcx, "torch.special.erfcx", kErfcx)
#undef WICK_CUDA_SPECIAL

#define WICK_CUDA_SPECIAL_WIDE(NAME, SOP)                                                              \
  void NAME(const M& m, const Tensor& out, const Tensor& self) {                                      \
    unary_into("torch.special." #NAME, #NAME "_cuda", SpecialOp::SOP, m, out, self, 0, /*wide_only=*/true); \
  }
WICK_CUDA_SPECIAL_WIDE(airy_ai, kAiryAi)
WICK_CUDA_SPECIAL_WIDE(bessel_j0, kBesselJ0)
WICK_CUDA_SPECIAL_WIDE(bessel_j1, kBesselJ1)
WICK_CUDA_SPECIAL_WIDE(bessel_y0, kBesselY0)
WICK_CUDA_SPECIAL_WIDE(bessel_y1, kBesselY1)
WICK_CUDA_SPECIAL_WIDE(modified_bessel_i0, kI0)
WICK_CUDA_SPECIAL_WIDE(modified_bessel_i1, kI1)
WICK_CUDA_SPECIAL_WIDE(modified_bessel_k0, kBesselK0)
WICK_CUDA_SPECIAL_WIDE(modified_bessel_k1, kBesselK1)
WICK_CUDA_SPECIAL_WIDE(scaled_modified_bessel_k0, kScaledBesselK0)
WICK_CUDA_SPECIAL_WIDE(scaled_modified_bessel_k1, kScaledBesselK1)
WICK_CUDA_SPECIAL_WIDE(spherical_bessel_j0, kSphericalBesselJ0)
#undef WICK_CUDA_SPECIAL_WIDE

#define WICK_CUDA_POLYNOMIAL(NAME, FAMILY)                                                         \
  void NAME(const M& m, const Tensor& out, const Tensor& x, const Tensor& n) {                     \
    binary_into("torch.special." #NAME, #NAME "_cuda", SpecialOp::kPolynomial, m, out, x, n,       \
                static_cast<std::int64_t>(special_math::Polynomial::FAMILY), /*wide_only=*/true); \
  }
WICK_CUDA_POLYNOMIAL(chebyshev_polynomial_t, kChebyshevT)
WICK_CUDA_POLYNOMIAL(chebyshev_polynomial_u, kChebyshevU)
WICK_CUDA_POLYNOMIAL(chebyshev_polynomial_v, kChebyshevV)
WICK_CUDA_POLYNOMIAL(chebyshev_polynomial_w, kChebyshevW)
WICK_CUDA_POLYNOMIAL(shifted_chebyshev_polynomial_t, kShiftedChebyshevT)
WICK_CUDA_POLYNOMIAL(shifted_chebyshev_polynomial_u, kShiftedChebyshevU)
WICK_CUDA_POLYNOMIAL(shifted_chebyshev_polynomial_v, kShiftedChebyshevV)
WICK_CUDA_POLYNOMIAL(shifted_chebyshev_polynomial_w, kShiftedChebyshevW)
WICK_CUDA_POLYNOMIAL(hermite_polynomial_h, kHermiteH)
WICK_CUDA_POLYNOMIAL(hermite_polynomial_he, kHermiteHe)
WICK_CUDA_POLYNOMIAL(laguerre_polynomial_l, kLaguerreL)
WICK_CUDA_POLYNOMIAL(legendre_polynomial_p, kLegendreP)
#undef WICK_CUDA_POLYNOMIAL

void polygamma(const M& m, const Tensor& out, std::int64_t n, const Tensor& self) {
  unary_into("torch.polygamma", "polygamma_cuda", SpecialOp::kPolygamma, m, out, self, n);
}
void zeta(const M& m, const Tensor& out, const Tensor& self, const Tensor& other) {
  binary_into("torch.special.zeta", "zeta_cuda", SpecialOp::kZeta, m, out, self, other);
}
void igamma(const M& m, const Tensor& out, const Tensor& self, const Tensor& other) {
  binary_into("torch.igamma", "igamma_cuda", SpecialOp::kIgamma, m, out, self, other);
}
void igammac(const M& m, const Tensor& out, const Tensor& self, const Tensor& other) {
  binary_into("torch.igammac", "igammac_cuda", SpecialOp::kIgammac, m, out, self, other);
}

}  // namespace wick::cuda_backend
