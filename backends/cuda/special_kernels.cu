// backends/cuda/special_kernels.cu - device code: the special functions' loops, on wick/special_math.h.
/// \file
/// The values are those of the CPU kernels (backends/cpu/special_ops.cpp):
/// the same functions, computed in double (the orthogonal polynomials in
/// the element type), except erfcx, J0, J1, Y0 and Y1, which are CUDA's
/// (Note [Special functions] in wick/special_math.h). The loops leave out
/// the rows path: these functions are bound by arithmetic, not by memory.
#include <cstdint>

#include <wick/special_bessel.h>
#include <wick/special_math.h>
#include <wick/special_polynomials.h>

#include "elementwise_loops.cuh"
#include "special_kernels.h"

namespace wick::cuda_backend {
namespace {

using loops::launch_map;
using loops::opmath_t;
using loops::OpMathFn;

template <SpecialOp kOp, typename C>
struct SpecialFn {
  static constexpr bool kRowsPath = false;
  std::int64_t n;

  __device__ __forceinline__ C operator()(C v) const {
    const double x = static_cast<double>(v);
    if constexpr (kOp == SpecialOp::kLgamma) {
      return static_cast<C>(special_math::lgamma(x));
    } else if constexpr (kOp == SpecialOp::kDigamma) {
      return static_cast<C>(special_math::digamma(x));
    } else if constexpr (kOp == SpecialOp::kPolygamma) {
      return static_cast<C>(special_math::polygamma(n, x));
    } else if constexpr (kOp == SpecialOp::kErfinv) {
      return static_cast<C>(special_math::erfinv(x));
    } else if constexpr (kOp == SpecialOp::kI0) {
      return static_cast<C>(special_math::i0(x));
    } else if constexpr (kOp == SpecialOp::kI0e) {
      return static_cast<C>(special_math::i0e(x));
    } else if constexpr (kOp == SpecialOp::kI1) {
      return static_cast<C>(special_math::i1(x));
    } else if constexpr (kOp == SpecialOp::kI1e) {
      return static_cast<C>(special_math::i1e(x));
    } else if constexpr (kOp == SpecialOp::kNdtri) {
      return static_cast<C>(special_math::ndtri(x));
    } else if constexpr (kOp == SpecialOp::kLogNdtr) {
      return static_cast<C>(special_math::log_ndtr(x));
    } else if constexpr (kOp == SpecialOp::kErfcx) {
      return static_cast<C>(special_math::erfcx(x));
    } else if constexpr (kOp == SpecialOp::kAiryAi) {
      return static_cast<C>(special_math::airy_ai(x));
    } else if constexpr (kOp == SpecialOp::kBesselJ0) {
      return static_cast<C>(special_math::bessel_j0(x));
    } else if constexpr (kOp == SpecialOp::kBesselJ1) {
      return static_cast<C>(special_math::bessel_j1(x));
    } else if constexpr (kOp == SpecialOp::kBesselY0) {
      return static_cast<C>(special_math::bessel_y0(x));
    } else if constexpr (kOp == SpecialOp::kBesselY1) {
      return static_cast<C>(special_math::bessel_y1(x));
    } else if constexpr (kOp == SpecialOp::kBesselK0) {
      return static_cast<C>(special_math::bessel_k0(x));
    } else if constexpr (kOp == SpecialOp::kBesselK1) {
      return static_cast<C>(special_math::bessel_k1(x));
    } else if constexpr (kOp == SpecialOp::kScaledBesselK0) {
      return static_cast<C>(special_math::scaled_bessel_k0(x));
    } else if constexpr (kOp == SpecialOp::kScaledBesselK1) {
      return static_cast<C>(special_math::scaled_bessel_k1(x));
    } else {
      static_assert(kOp == SpecialOp::kSphericalBesselJ0);
      return static_cast<C>(special_math::spherical_bessel_j0(x));
    }
  }
  __device__ __forceinline__ C operator()(C a, C b) const {
    const double x = static_cast<double>(a);
    const double y = static_cast<double>(b);
    if constexpr (kOp == SpecialOp::kZeta) {
      return static_cast<C>(special_math::zeta(x, y));
    } else if constexpr (kOp == SpecialOp::kIgamma) {
      return static_cast<C>(special_math::igamma(x, y));
    } else if constexpr (kOp == SpecialOp::kIgammac) {
      return static_cast<C>(special_math::igammac(x, y));
    } else {
      static_assert(kOp == SpecialOp::kPolynomial);
      return special_math::polynomial(static_cast<special_math::Polynomial>(n), a, b);
    }
  }
};

template <SpecialOp kOp>
void run(DType dtype, const ElementwiseArgs& args, std::int64_t n, cudaStream_t stream) {
  constexpr bool kBinary = kOp >= SpecialOp::kZeta;
  loops::visit_among<float, double, __half, __nv_bfloat16>(dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = opmath_t<T>;
    const SpecialFn<kOp, C> fn{n};
    if constexpr (kBinary) {
      if constexpr (loops::is_reduced_v<T>) {
        launch_map<T, T, T>(OpMathFn<T, SpecialFn<kOp, C>>{fn}, args, stream);
      } else {
        launch_map<T, T, T>(fn, args, stream);
      }
    } else if constexpr (loops::is_reduced_v<T>) {
      launch_map<T, T>(OpMathFn<T, SpecialFn<kOp, C>>{fn}, args, stream);
    } else {
      launch_map<T, T>(fn, args, stream);
    }
  });
}

}  // namespace

void launch_special(SpecialOp op, DType dtype, const ElementwiseArgs& args, std::int64_t n, cudaStream_t stream) {
  switch (op) {
    case SpecialOp::kLgamma:
      return run<SpecialOp::kLgamma>(dtype, args, n, stream);
    case SpecialOp::kDigamma:
      return run<SpecialOp::kDigamma>(dtype, args, n, stream);
    case SpecialOp::kPolygamma:
      return run<SpecialOp::kPolygamma>(dtype, args, n, stream);
    case SpecialOp::kErfinv:
      return run<SpecialOp::kErfinv>(dtype, args, n, stream);
    case SpecialOp::kI0:
      return run<SpecialOp::kI0>(dtype, args, n, stream);
    case SpecialOp::kI0e:
      return run<SpecialOp::kI0e>(dtype, args, n, stream);
    case SpecialOp::kI1:
      return run<SpecialOp::kI1>(dtype, args, n, stream);
    case SpecialOp::kI1e:
      return run<SpecialOp::kI1e>(dtype, args, n, stream);
    case SpecialOp::kNdtri:
      return run<SpecialOp::kNdtri>(dtype, args, n, stream);
    case SpecialOp::kLogNdtr:
      return run<SpecialOp::kLogNdtr>(dtype, args, n, stream);
    case SpecialOp::kErfcx:
      return run<SpecialOp::kErfcx>(dtype, args, n, stream);
    case SpecialOp::kAiryAi:
      return run<SpecialOp::kAiryAi>(dtype, args, n, stream);
    case SpecialOp::kBesselJ0:
      return run<SpecialOp::kBesselJ0>(dtype, args, n, stream);
    case SpecialOp::kBesselJ1:
      return run<SpecialOp::kBesselJ1>(dtype, args, n, stream);
    case SpecialOp::kBesselY0:
      return run<SpecialOp::kBesselY0>(dtype, args, n, stream);
    case SpecialOp::kBesselY1:
      return run<SpecialOp::kBesselY1>(dtype, args, n, stream);
    case SpecialOp::kBesselK0:
      return run<SpecialOp::kBesselK0>(dtype, args, n, stream);
    case SpecialOp::kBesselK1:
      return run<SpecialOp::kBesselK1>(dtype, args, n, stream);
    case SpecialOp::kScaledBesselK0:
      return run<SpecialOp::kScaledBesselK0>(dtype, args, n, stream);
    case SpecialOp::kScaledBesselK1:
      return run<SpecialOp::kScaledBesselK1>(dtype, args, n, stream);
    case SpecialOp::kSphericalBesselJ0:
      return run<SpecialOp::kSphericalBesselJ0>(dtype, args, n, stream);
    case SpecialOp::kZeta:
      return run<SpecialOp::kZeta>(dtype, args, n, stream);
    case SpecialOp::kIgamma:
      return run<SpecialOp::kIgamma>(dtype, args, n, stream);
    case SpecialOp::kIgammac:
      return run<SpecialOp::kIgammac>(dtype, args, n, stream);
    case SpecialOp::kPolynomial:
      return run<SpecialOp::kPolynomial>(dtype, args, n, stream);
  }
}

}  // namespace wick::cuda_backend
