// backends/cuda/unary_kernels.cuh - private, device code: the unary functors and their launcher, by dtype group.
/// \file
/// One functor per operation, computing what the CPU kernel's lambda does
/// (backends/cpu/unary_ops.cpp): the float functions run in the input's
/// floating dtype (the host converted integers already), the others keep
/// the dtype, and logical_not writes bool. float16 and bfloat16 run the
/// float32 functors through OpMathFn (Note [16-bit floats on the device]).
/// `launch_unary_among<Ts...>` instantiates them for one group of dtypes;
/// unary_kernels.cu (bool, int32, int64, float32, float64),
/// unary_kernels_16bit.cu and unary_kernels_narrow.cu each hold one group
/// (Note [Kernel files by dtype group]).
#pragma once

#include <cstdint>
#include <type_traits>

#include <wick/scalar_ops.h>

#include "elementwise_kernels.h"
#include "elementwise_loops.cuh"

namespace wick::cuda_backend::unary {

using loops::is_reduced_v;
using loops::launch_map;
using loops::opmath_t;
using loops::OpMathFn;
using loops::scalar_as;
using loops::visit_among;

constexpr bool is_float_op(UnaryOp op) { return op >= UnaryOp::kExp && op <= UnaryOp::kFrac; }

template <UnaryOp kOp, typename T>
constexpr bool unary_supported() {
  constexpr bool kBool = std::is_same_v<T, bool>;
  if constexpr (is_float_op(kOp)) return std::is_floating_point_v<T>;
  if constexpr (kOp == UnaryOp::kNeg || kOp == UnaryOp::kRelu || kOp == UnaryOp::kSquare || kOp == UnaryOp::kClamp) {
    return !kBool;
  }
  if constexpr (kOp == UnaryOp::kBitwiseNot) return !std::is_floating_point_v<T>;
  return true;
}

template <UnaryOp kOp, typename T>
struct FloatFn {
  __device__ __forceinline__ T operator()(T v) const {
    if constexpr (kOp == UnaryOp::kExp) {
      return exp(v);
    } else if constexpr (kOp == UnaryOp::kExp2) {
      return exp2(v);
    } else if constexpr (kOp == UnaryOp::kExpm1) {
      return expm1(v);
    } else if constexpr (kOp == UnaryOp::kLog) {
      return log(v);
    } else if constexpr (kOp == UnaryOp::kLog2) {
      return log2(v);
    } else if constexpr (kOp == UnaryOp::kLog10) {
      return log10(v);
    } else if constexpr (kOp == UnaryOp::kLog1p) {
      return log1p(v);
    } else if constexpr (kOp == UnaryOp::kSqrt) {
      return sqrt(v);
    } else if constexpr (kOp == UnaryOp::kRsqrt) {
      return T(1) / sqrt(v);  // as the CPU kernel (rsqrt() is less accurate)
    } else if constexpr (kOp == UnaryOp::kReciprocal) {
      return T(1) / v;
    } else if constexpr (kOp == UnaryOp::kSin) {
      return sin(v);
    } else if constexpr (kOp == UnaryOp::kCos) {
      return cos(v);
    } else if constexpr (kOp == UnaryOp::kTan) {
      return tan(v);
    } else if constexpr (kOp == UnaryOp::kAsin) {
      return asin(v);
    } else if constexpr (kOp == UnaryOp::kAcos) {
      return acos(v);
    } else if constexpr (kOp == UnaryOp::kAtan) {
      return atan(v);
    } else if constexpr (kOp == UnaryOp::kSinh) {
      return sinh(v);
    } else if constexpr (kOp == UnaryOp::kCosh) {
      return cosh(v);
    } else if constexpr (kOp == UnaryOp::kTanh) {
      return tanh(v);
    } else if constexpr (kOp == UnaryOp::kErf) {
      return erf(v);
    } else if constexpr (kOp == UnaryOp::kErfc) {
      return erfc(v);
    } else if constexpr (kOp == UnaryOp::kAcosh) {
      return acosh(v);
    } else if constexpr (kOp == UnaryOp::kAsinh) {
      return asinh(v);
    } else if constexpr (kOp == UnaryOp::kAtanh) {
      return atanh(v);
    } else if constexpr (kOp == UnaryOp::kSigmoid) {
      return T(1) / (T(1) + exp(-v));
    } else if constexpr (kOp == UnaryOp::kFloor) {
      return floor(v);
    } else if constexpr (kOp == UnaryOp::kCeil) {
      return ceil(v);
    } else if constexpr (kOp == UnaryOp::kRound) {
      return rint(v);  // half to even (the default rounding mode), as nearbyint
    } else if constexpr (kOp == UnaryOp::kTrunc) {
      return trunc(v);
    } else {
      static_assert(kOp == UnaryOp::kFrac);
      return v - trunc(v);  // nan for infinities, as the CPU
    }
  }
};

// uint8, int8, int16: no rows path (Note [Kernel files by dtype group]).
template <typename T>
inline constexpr bool kNarrowInt = std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 2;

template <UnaryOp kOp, typename T>
struct SameFn {
  static constexpr bool kRowsPath = !kNarrowInt<T>;
  T lo;
  T hi;
  bool has_lo;
  bool has_hi;

  __device__ __forceinline__ T operator()(T v) const {
    if constexpr (kOp == UnaryOp::kNeg) {
      return static_cast<T>(-v);
    } else if constexpr (kOp == UnaryOp::kAbs) {
      if constexpr (std::is_unsigned_v<T>) {
        return v;
      } else {
        return scalar_ops::abs(v);
      }
    } else if constexpr (kOp == UnaryOp::kRelu) {
      if constexpr (std::is_unsigned_v<T>) {
        return v;
      } else {
        return scalar_ops::relu(v);
      }
    } else if constexpr (kOp == UnaryOp::kSign) {
      if constexpr (std::is_same_v<T, bool>) {
        return v;
      } else if constexpr (std::is_unsigned_v<T>) {
        return static_cast<T>(v != T(0));
      } else {
        return static_cast<T>((T(0) < v) - (v < T(0)));  // 0 for NaN
      }
    } else if constexpr (kOp == UnaryOp::kSquare) {
      return static_cast<T>(v * v);
    } else if constexpr (kOp == UnaryOp::kBitwiseNot) {
      return scalar_ops::bitwise_not(v);
    } else {
      static_assert(kOp == UnaryOp::kClamp);
      if constexpr (std::is_floating_point_v<T>) {
        if (isnan(v)) return v;
      }
      if (has_lo && v < lo) v = lo;
      if (has_hi && v > hi) v = hi;
      return v;
    }
  }
};

template <typename T>
struct LogicalNotFn {
  static constexpr bool kRowsPath = !kNarrowInt<T>;
  __device__ __forceinline__ bool operator()(T v) const { return !(v != T(0)); }  // NaN is true: its not is false
};

// Runs `fn` (written for C = opmath_t<T>) over T inputs into Out.
template <typename Out, typename T, typename Fn>
void run_fn(const Fn& fn, const ElementwiseArgs& args, cudaStream_t stream) {
  if constexpr (is_reduced_v<T>) {
    launch_map<Out, T>(OpMathFn<Out, Fn>{fn}, args, stream);
  } else {
    launch_map<Out, T>(fn, args, stream);
  }
}

template <UnaryOp kOp, typename... Ts>
void run_unary(DType dtype, const ElementwiseArgs& args, const UnaryParams& p, cudaStream_t stream) {
  visit_among<Ts...>(dtype, [&](auto tag) {
    using T = decltype(tag);
    using C = opmath_t<T>;
    if constexpr (kOp == UnaryOp::kLogicalNot) {
      run_fn<bool, T>(LogicalNotFn<C>{}, args, stream);
    } else if constexpr (!unary_supported<kOp, C>()) {
      return;
    } else if constexpr (is_float_op(kOp)) {
      run_fn<T, T>(FloatFn<kOp, C>{}, args, stream);
    } else {
      const SameFn<kOp, C> fn{scalar_as<C>(p.lo), scalar_as<C>(p.hi), p.has_lo, p.has_hi};
      run_fn<T, T>(fn, args, stream);
    }
  });
}

/// launch_unary for the dtypes Ts (Note [Kernel files by dtype group]).
template <typename... Ts>
void launch_unary_among(UnaryOp op, DType dtype, const ElementwiseArgs& args, const UnaryParams& params,
                        cudaStream_t stream) {
  switch (op) {
    case UnaryOp::kNeg:
      run_unary<UnaryOp::kNeg, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kAbs:
      run_unary<UnaryOp::kAbs, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kRelu:
      run_unary<UnaryOp::kRelu, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kSign:
      run_unary<UnaryOp::kSign, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kBitwiseNot:
      run_unary<UnaryOp::kBitwiseNot, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kSquare:
      run_unary<UnaryOp::kSquare, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kClamp:
      run_unary<UnaryOp::kClamp, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kExp:
      run_unary<UnaryOp::kExp, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kExp2:
      run_unary<UnaryOp::kExp2, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kExpm1:
      run_unary<UnaryOp::kExpm1, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kLog:
      run_unary<UnaryOp::kLog, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kLog2:
      run_unary<UnaryOp::kLog2, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kLog10:
      run_unary<UnaryOp::kLog10, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kLog1p:
      run_unary<UnaryOp::kLog1p, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kSqrt:
      run_unary<UnaryOp::kSqrt, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kRsqrt:
      run_unary<UnaryOp::kRsqrt, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kReciprocal:
      run_unary<UnaryOp::kReciprocal, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kSin:
      run_unary<UnaryOp::kSin, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kCos:
      run_unary<UnaryOp::kCos, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kTan:
      run_unary<UnaryOp::kTan, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kAsin:
      run_unary<UnaryOp::kAsin, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kAcos:
      run_unary<UnaryOp::kAcos, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kAtan:
      run_unary<UnaryOp::kAtan, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kSinh:
      run_unary<UnaryOp::kSinh, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kCosh:
      run_unary<UnaryOp::kCosh, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kTanh:
      run_unary<UnaryOp::kTanh, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kErf:
      run_unary<UnaryOp::kErf, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kErfc:
      run_unary<UnaryOp::kErfc, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kAcosh:
      run_unary<UnaryOp::kAcosh, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kAsinh:
      run_unary<UnaryOp::kAsinh, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kAtanh:
      run_unary<UnaryOp::kAtanh, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kSigmoid:
      run_unary<UnaryOp::kSigmoid, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kFloor:
      run_unary<UnaryOp::kFloor, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kCeil:
      run_unary<UnaryOp::kCeil, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kRound:
      run_unary<UnaryOp::kRound, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kTrunc:
      run_unary<UnaryOp::kTrunc, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kFrac:
      run_unary<UnaryOp::kFrac, Ts...>(dtype, args, params, stream);
      break;
    case UnaryOp::kLogicalNot:
      run_unary<UnaryOp::kLogicalNot, Ts...>(dtype, args, params, stream);
      break;
  }
}

/// The groups' launchers, each in its own file.
void launch_unary_16bit(UnaryOp op, DType dtype, const ElementwiseArgs& args, const UnaryParams& params,
                        cudaStream_t stream);
void launch_unary_narrow(UnaryOp op, DType dtype, const ElementwiseArgs& args, const UnaryParams& params,
                         cudaStream_t stream);

}  // namespace wick::cuda_backend::unary
