// backends/cuda/binary_kernels.cuh - private, device code: the binary functors and their launcher, by dtype group.
/// \file
/// Each functor computes exactly what the CPU kernel's lambda does
/// (backends/cpu/binary_ops.cpp) for the same dtype; float16 and bfloat16
/// run the float32 functor through OpMathFn (Note [16-bit floats on the
/// device]). `launch_binary_among<Ts...>` instantiates them for one group
/// of dtypes: elementwise_kernels.cu (bool, int32, int64, float32,
/// float64), binary_kernels_16bit.cu and binary_kernels_narrow.cu each hold
/// one group (Note [Kernel files by dtype group]).
#pragma once

#include <cstdint>
#include <type_traits>

#include <wick/scalar_ops.h>

#include "elementwise_kernels.h"
#include "elementwise_loops.cuh"

namespace wick::cuda_backend::binary {

using loops::is_reduced_v;
using loops::launch_map;
using loops::opmath_t;
using loops::OpMathFn;
using loops::scalar_as;
using loops::visit_among;

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
  if constexpr (kOp == BinaryOp::kLeftShift || kOp == BinaryOp::kRightShift || kOp == BinaryOp::kGcd ||
                kOp == BinaryOp::kLcm) {
    return !kFloat && !kBool;
  }
  if constexpr (kOp == BinaryOp::kNextafter) return kFloat;
  if constexpr (kOp == BinaryOp::kDivTrunc || kOp == BinaryOp::kDivFloor || kOp == BinaryOp::kFmod ||
                kOp == BinaryOp::kRemainder) {
    return !kBool;
  }
  return true;
}

// uint8, int8, int16: no rows path (Note [Kernel files by dtype group]).
template <typename T>
inline constexpr bool kNarrowInt = std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 2;

template <BinaryOp kOp, typename T>
struct BinaryFn {
  static constexpr bool kRowsPath = !kNarrowInt<T>;
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
    } else if constexpr (kOp == BinaryOp::kLeftShift) {
      return scalar_ops::left_shift(x, y);
    } else if constexpr (kOp == BinaryOp::kRightShift) {
      return scalar_ops::right_shift(x, y);
    } else if constexpr (kOp == BinaryOp::kGcd) {
      return scalar_ops::gcd(x, y);
    } else if constexpr (kOp == BinaryOp::kLcm) {
      return scalar_ops::lcm(x, y);
    } else if constexpr (kOp == BinaryOp::kNextafter) {
      return nextafter(x, y);
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

template <BinaryOp kOp, typename... Ts>
void run_binary(DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha, int* flag, cudaStream_t stream) {
  visit_among<Ts...>(dtype, [&](auto tag) {
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

/// launch_binary for the dtypes Ts (Note [Kernel files by dtype group]).
template <typename... Ts>
void launch_binary_among(BinaryOp op, DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha,
                         int* error_flag, cudaStream_t stream) {
  switch (op) {
    case BinaryOp::kAdd:
      run_binary<BinaryOp::kAdd, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kMul:
      run_binary<BinaryOp::kMul, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kDiv:
      run_binary<BinaryOp::kDiv, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kDivTrunc:
      run_binary<BinaryOp::kDivTrunc, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kDivFloor:
      run_binary<BinaryOp::kDivFloor, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kPow:
      run_binary<BinaryOp::kPow, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kMaximum:
      run_binary<BinaryOp::kMaximum, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kMinimum:
      run_binary<BinaryOp::kMinimum, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kEq:
      run_binary<BinaryOp::kEq, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kNe:
      run_binary<BinaryOp::kNe, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLt:
      run_binary<BinaryOp::kLt, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLe:
      run_binary<BinaryOp::kLe, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kGt:
      run_binary<BinaryOp::kGt, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kGe:
      run_binary<BinaryOp::kGe, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kFmod:
      run_binary<BinaryOp::kFmod, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kRemainder:
      run_binary<BinaryOp::kRemainder, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kAtan2:
      run_binary<BinaryOp::kAtan2, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kBitwiseAnd:
      run_binary<BinaryOp::kBitwiseAnd, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kBitwiseOr:
      run_binary<BinaryOp::kBitwiseOr, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kBitwiseXor:
      run_binary<BinaryOp::kBitwiseXor, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLeftShift:
      run_binary<BinaryOp::kLeftShift, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kRightShift:
      run_binary<BinaryOp::kRightShift, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kGcd:
      run_binary<BinaryOp::kGcd, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLcm:
      run_binary<BinaryOp::kLcm, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kNextafter:
      run_binary<BinaryOp::kNextafter, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLogicalAnd:
      run_binary<BinaryOp::kLogicalAnd, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLogicalOr:
      run_binary<BinaryOp::kLogicalOr, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kLogicalXor:
      run_binary<BinaryOp::kLogicalXor, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
    case BinaryOp::kThresholdBackward:
      run_binary<BinaryOp::kThresholdBackward, Ts...>(dtype, args, alpha, error_flag, stream);
      break;
  }
}

/// The groups' launchers, each in its own file.
void launch_binary_16bit(BinaryOp op, DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha,
                         int* error_flag, cudaStream_t stream);
void launch_binary_narrow(BinaryOp op, DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha,
                          int* error_flag, cudaStream_t stream);

}  // namespace wick::cuda_backend::binary
