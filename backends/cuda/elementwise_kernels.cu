// backends/cuda/elementwise_kernels.cu - device code: binary ops, where, lerp, casts and fill.
/// \file
/// The functors of the binary operations and the launchers of
/// elementwise_kernels.h that run them through launch_map
/// (elementwise_loops.cuh). Each functor computes exactly what the CPU
/// kernel's lambda does (backends/cpu/binary_ops.cpp) for the same dtype;
/// float16 and bfloat16 run the float32 functor through OpMathFn (Note
/// [16-bit floats on the device]). Casts are in cast_kernels.cu.
#include <atomic>
#include <cstdint>
#include <type_traits>

#include <wick/scalar_ops.h>

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

// Note [Device error flags]
// A kernel cannot throw. Where the CPU kernel raises in the middle of its
// loop (integer division by zero, an integer to a negative power), the
// device functor ORs a bit into an int in device memory and writes 0 for
// the element; the host copies the int back after the kernel and raises the
// CPU kernel's error (elementwise_ops.cpp).
__device__ __forceinline__ void raise_flag(int* flag, int bit) {
  if (flag != nullptr) atomicOr(flag, bit);
}

// Which (operation, dtype) pairs exist; the host never asks for others.
template <BinaryOp kOp, typename T>
constexpr bool binary_supported() {
  constexpr bool kFloat = std::is_floating_point_v<T>;
  constexpr bool kBool = std::is_same_v<T, bool>;
  if constexpr (kOp == BinaryOp::kDiv || kOp == BinaryOp::kAtan2) return kFloat;
  if constexpr (kOp == BinaryOp::kThresholdBackward) return !kBool;
  if constexpr (kOp == BinaryOp::kBitwiseAnd || kOp == BinaryOp::kBitwiseOr || kOp == BinaryOp::kBitwiseXor) {
    return !kFloat;
  }
  if constexpr (kOp == BinaryOp::kDivTrunc || kOp == BinaryOp::kDivFloor || kOp == BinaryOp::kFmod ||
                kOp == BinaryOp::kRemainder) {
    return !kBool;
  }
  return true;
}

template <BinaryOp kOp, typename T>
struct BinaryFn {
  using Out = std::conditional_t<writes_bool(kOp), bool, T>;
  T alpha;
  int* flag;

  __device__ __forceinline__ Out operator()(T x, T y) const {
    constexpr bool kFloat = std::is_floating_point_v<T>;
    constexpr bool kBool = std::is_same_v<T, bool>;
    if constexpr (kOp == BinaryOp::kAdd) {
      if constexpr (kBool) {
        return x || (alpha && y);
      } else {
        return static_cast<T>(x + alpha * y);
      }
    } else if constexpr (kOp == BinaryOp::kMul) {
      if constexpr (kBool) {
        return x && y;
      } else {
        return static_cast<T>(x * y);
      }
    } else if constexpr (kOp == BinaryOp::kDiv) {
      return x / y;
    } else if constexpr (kOp == BinaryOp::kDivTrunc || kOp == BinaryOp::kDivFloor) {
      constexpr bool kFloor = kOp == BinaryOp::kDivFloor;
      if constexpr (kFloat) {
        return kFloor ? scalar_ops::floor_divide(x, y) : trunc(x / y);
      } else {
        if (y == 0) {
          raise_flag(flag, kErrorZeroDivision);
          return T(0);
        }
        if constexpr (std::is_unsigned_v<T>) {
          return static_cast<T>(x / y);  // uint8: floor is trunc (scalar_ops's -1 case would be 255)
        } else {
          return kFloor ? scalar_ops::floor_divide(x, y) : scalar_ops::trunc_divide(x, y);
        }
      }
    } else if constexpr (kOp == BinaryOp::kPow) {
      if constexpr (kFloat) {
        return pow(x, y);
      } else if constexpr (kBool) {
        return x || !y;
      } else {
        return scalar_ops::int_power(x, y);
      }
    } else if constexpr (kOp == BinaryOp::kMaximum || kOp == BinaryOp::kMinimum) {
      if constexpr (kOp == BinaryOp::kMaximum) {
        return scalar_ops::maximum(x, y);
      } else {
        return scalar_ops::minimum(x, y);
      }
    } else if constexpr (kOp == BinaryOp::kEq) {
      return x == y;
    } else if constexpr (kOp == BinaryOp::kNe) {
      return x != y;
    } else if constexpr (kOp == BinaryOp::kLt) {
      return x < y;
    } else if constexpr (kOp == BinaryOp::kLe) {
      return x <= y;
    } else if constexpr (kOp == BinaryOp::kGt) {
      return x > y;
    } else if constexpr (kOp == BinaryOp::kGe) {
      return x >= y;
    } else if constexpr (kOp == BinaryOp::kFmod || kOp == BinaryOp::kRemainder) {
      constexpr bool kPython = kOp == BinaryOp::kRemainder;
      if constexpr (!kFloat) {
        if (y == 0) {
          raise_flag(flag, kErrorZeroDivision);
          return T(0);
        }
      }
      if constexpr (std::is_unsigned_v<T>) {
        return static_cast<T>(x % y);  // both signs agree (scalar_ops's -1 case would be 255)
      } else {
        return scalar_ops::modulo<kPython>(x, y);
      }
    } else if constexpr (kOp == BinaryOp::kAtan2) {
      return atan2(x, y);
    } else if constexpr (kOp == BinaryOp::kBitwiseAnd) {
      return scalar_ops::bitwise_and(x, y);
    } else if constexpr (kOp == BinaryOp::kBitwiseOr) {
      return scalar_ops::bitwise_or(x, y);
    } else if constexpr (kOp == BinaryOp::kBitwiseXor) {
      return scalar_ops::bitwise_xor(x, y);
    } else if constexpr (kOp == BinaryOp::kLogicalAnd) {
      return x != T(0) && y != T(0);
    } else if constexpr (kOp == BinaryOp::kLogicalOr) {
      return x != T(0) || y != T(0);
    } else if constexpr (kOp == BinaryOp::kThresholdBackward) {
      return y <= alpha ? T(0) : x;  // an exact 0 where masked, a NaN gradient too; a NaN y passes
    } else {
      static_assert(kOp == BinaryOp::kLogicalXor);
      return (x != T(0)) != (y != T(0));
    }
  }
};

template <BinaryOp kOp>
void run_binary(DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha, int* flag, cudaStream_t stream) {
  visit_type(dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = opmath_t<T>;
    if constexpr (binary_supported<kOp, C>()) {
      using Fn = BinaryFn<kOp, C>;
      const Fn fn{scalar_as<C>(alpha), flag};
      if constexpr (is_reduced_v<T>) {
        using Out = std::conditional_t<writes_bool(kOp), bool, T>;
        launch_map<Out, T, T>(OpMathFn<Out, Fn>{fn}, args, stream);
      } else {
        launch_map<typename Fn::Out, T, T>(fn, args, stream);
      }
    }
  });
}

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
  switch (op) {
    case BinaryOp::kAdd:
      run_binary<BinaryOp::kAdd>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kMul:
      run_binary<BinaryOp::kMul>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kDiv:
      run_binary<BinaryOp::kDiv>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kDivTrunc:
      run_binary<BinaryOp::kDivTrunc>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kDivFloor:
      run_binary<BinaryOp::kDivFloor>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kPow:
      run_binary<BinaryOp::kPow>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kMaximum:
      run_binary<BinaryOp::kMaximum>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kMinimum:
      run_binary<BinaryOp::kMinimum>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kEq:
      run_binary<BinaryOp::kEq>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kNe:
      run_binary<BinaryOp::kNe>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLt:
      run_binary<BinaryOp::kLt>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLe:
      run_binary<BinaryOp::kLe>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kGt:
      run_binary<BinaryOp::kGt>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kGe:
      run_binary<BinaryOp::kGe>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kFmod:
      run_binary<BinaryOp::kFmod>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kRemainder:
      run_binary<BinaryOp::kRemainder>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kAtan2:
      run_binary<BinaryOp::kAtan2>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kBitwiseAnd:
      run_binary<BinaryOp::kBitwiseAnd>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kBitwiseOr:
      run_binary<BinaryOp::kBitwiseOr>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kBitwiseXor:
      run_binary<BinaryOp::kBitwiseXor>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLogicalAnd:
      run_binary<BinaryOp::kLogicalAnd>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLogicalOr:
      run_binary<BinaryOp::kLogicalOr>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLogicalXor:
      run_binary<BinaryOp::kLogicalXor>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kThresholdBackward:
      run_binary<BinaryOp::kThresholdBackward>(dtype, args, alpha, error_flag, stream);
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
