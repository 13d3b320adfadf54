// backends/cuda/elementwise_kernels.cu - device code: binary ops (one dtype group), where, lerp and fill.
/// \file
/// The launchers of elementwise_kernels.h that run through launch_map
/// (elementwise_loops.cuh): where, lerp, fill, and launch_binary with the
/// binary loops of bool, int32, int64, float32 and float64 (the functors are
/// in binary_kernels.cuh; the 16-bit float and narrow integer loops in
/// binary_kernels_16bit.cu and binary_kernels_narrow.cu: Note [Kernel
/// files by dtype group]). float16 and bfloat16 run float32 functors
/// through OpMathFn (Note [16-bit floats on the device]). Casts are in
/// cast_kernels.cu.
#include <atomic>
#include <cstdint>
#include <type_traits>

#include <wick/scalar_ops.h>

#include "binary_kernels.cuh"
#include "elementwise_kernels.h"
#include "elementwise_loops.cuh"

namespace wick::cuda_backend {
namespace loops {

int sm_count() {
  constexpr int kCachedDevices = 64;
  static std::atomic<int> cache[kCachedDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return 1;
  const bool cached = device >= 0 && device < kCachedDevices;
  if (cached) {
    const int n = cache[device].load(std::memory_order_relaxed);
    if (n > 0) return n;
  }
  int n = 0;
  if (cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || n <= 0) return 1;
  if (cached) cache[device].store(n, std::memory_order_relaxed);
  return n;
}

}  // namespace loops

namespace {

using loops::is_reduced_v;
using loops::launch_map;
using loops::opmath_t;
using loops::OpMathFn;
using loops::scalar_as;
using loops::visit_type;

template <typename T>
struct WhereFn {
  __device__ __forceinline__ T operator()(bool c, T a, T b) const { return c ? a : b; }
};

// From the nearer end, as the CPU kernel.
template <typename T>
struct LerpFn {
  __device__ __forceinline__ T operator()(T a, T b, T w) const {
    return fabs(w) < T(0.5) ? a + w * (b - a) : b - (b - a) * (T(1) - w);
  }
};

// The value is held in the compute type and rounded on the device (a 16-bit
// float: once, to nearest even, as wick::Half(float) on the host).
template <typename T>
struct FillFn {
  opmath_t<T> value;
  __device__ __forceinline__ T operator()() const { return loops::from_opmath<T>(value); }
};

}  // namespace

void launch_binary(BinaryOp op, DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha, int* error_flag,
                   cudaStream_t stream) {
  switch (dtype) {
    case DType::kFloat16:
    case DType::kBFloat16:
      binary::launch_binary_16bit(op, dtype, args, alpha, error_flag, stream);
      break;
    case DType::kUInt8:
    case DType::kInt8:
    case DType::kInt16:
      binary::launch_binary_narrow(op, dtype, args, alpha, error_flag, stream);
      break;
    default:
      binary::launch_binary_among<bool, std::int32_t, std::int64_t, float, double>(op, dtype, args, alpha, error_flag,
                                                                                   stream);
      break;
  }
}

void launch_where(DType dtype, const ElementwiseArgs& args, cudaStream_t stream) {
  visit_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    launch_map<T, bool, T, T>(WhereFn<T>{}, args, stream);
  });
}

void launch_lerp(DType dtype, const ElementwiseArgs& args, cudaStream_t stream) {
  visit_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_reduced_v<T>) {
      launch_map<T, T, T, T>(OpMathFn<T, LerpFn<float>>{}, args, stream);
    } else if constexpr (std::is_floating_point_v<T>) {
      launch_map<T, T, T, T>(LerpFn<T>{}, args, stream);
    }
  });
}

void launch_fill(DType dtype, const ElementwiseArgs& args, const ScalarValue& value, cudaStream_t stream) {
  visit_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    launch_map<T>(FillFn<T>{scalar_as<opmath_t<T>>(value)}, args, stream);
  });
}

}  // namespace wick::cuda_backend
