// backends/cuda/elementwise_kernels.h - private: the elementwise kernels' plain interface.
/// \file
/// What the host files (elementwise_ops.cpp, reduce_ops.cpp, ...) and the
/// device files (elementwise_kernels.cu, unary_kernels.cu) share: plain
/// structs describing strided operands and the launchers that run one
/// operation over them. No wick header is included (Note [CUDA backend
/// layout] in cuda_common.h), so nvcc sees only this file.
///
///   ElementwiseArgs args = ...;  // out first, then the inputs
///   launch_binary(BinaryOp::kMul, DType::kFloat32, args, {}, nullptr, stream);
///
/// Launchers only enqueue work on `stream`; the caller checks the launch
/// (check_launch) and reads `error_flag`, when it passed one, after the work.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace wick::cuda_backend {

/// The real dtypes, numbered as wick::ScalarType (the host files assert
/// this). Complex dtypes have no device code yet: the host refuses them
/// (`to_dtype` in elementwise_host.h). float16 and bfloat16 are stored as
/// `__half` and `__nv_bfloat16` and computed in float32, rounded once per
/// result (Note [16-bit floats on the device] in elementwise_loops.cuh).
enum class DType : std::int8_t {
  kBool = 0,
  kInt32 = 1,
  kInt64 = 2,
  kFloat32 = 3,
  kFloat64 = 4,
  kFloat16 = 5,
  kBFloat16 = 6,
  kUInt8 = 7,
  kInt8 = 8,
  kInt16 = 9,
};

/// Dims a loop may have after adjacent dims were merged on the host.
inline constexpr int kMaxDims = 12;
/// Operands of one loop, the output included (where, lerp: 4).
inline constexpr int kMaxOperands = 4;

/// N operands viewed with one shape: operand 0 is the output, the others
/// the inputs (a broadcast input has stride 0). Dims are innermost first.
struct ElementwiseArgs {
  std::int64_t numel = 0;
  int ndim = 0;
  int noperands = 0;
  std::int64_t sizes[kMaxDims] = {};
  void* data[kMaxOperands] = {};
  std::int64_t strides[kMaxOperands][kMaxDims] = {};  // in elements
};

/// A number in every dtype (the host converts it once per dtype, as the CPU
/// kernels' `Scalar::to<T>()`); a kernel reads the field of its dtype.
/// float16 and bfloat16 kernels compute in float32 and read `f32` (the
/// CPU's alpha, clamp bounds and fill values are not rounded to 16 bits
/// before use either; a fill rounds once, on the device).
struct ScalarValue {
  bool b = false;
  std::int32_t i32 = 0;
  std::int64_t i64 = 0;
  float f32 = 0.0F;
  double f64 = 0.0;
  std::uint8_t u8 = 0;
  std::int8_t i8 = 0;
  std::int16_t i16 = 0;
};

/// Bits a kernel sets in its `error_flag` (an int in device memory).
inline constexpr int kErrorZeroDivision = 1;

enum class BinaryOp : std::int8_t {
  kAdd,       // x + alpha * y (bool: x || (alpha && y))
  kMul,       // bool: x && y
  kDiv,       // true division (floating dtypes only)
  kDivTrunc,  // rounding_mode="trunc" (integers: kErrorZeroDivision)
  kDivFloor,  // rounding_mode="floor"
  kPow,       // integers: wick::scalar_ops::int_power
  kMaximum,   // NaN propagates
  kMinimum,
  kEq,  // comparisons and logical ops write bool
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kFmod,        // sign of the dividend; integers: kErrorZeroDivision
  kRemainder,   // sign of the divisor
  kAtan2,       // floating dtypes only
  kBitwiseAnd,  // integers and bool only
  kBitwiseOr,
  kBitwiseXor,
  kLeftShift,   // integers only (Note [Shift counts] in wick/scalar_ops.h)
  kRightShift,
  kGcd,         // integers only
  kLcm,
  kNextafter,   // float32 and float64 only
  kLogicalAnd,
  kLogicalOr,
  kLogicalXor,
  kThresholdBackward,  // y <= alpha ? 0 : x (relu's backward; not bool)
};

/// True for the operations whose output is bool whatever `dtype`.
constexpr bool writes_bool(BinaryOp op) noexcept {
  return (op >= BinaryOp::kEq && op <= BinaryOp::kGe) || (op >= BinaryOp::kLogicalAnd && op <= BinaryOp::kLogicalXor);
}

/// out = op(a, b): args has 3 operands, inputs of `dtype`, the output of
/// `dtype` or bool (writes_bool). `alpha` is read by kAdd (the factor) and
/// kThresholdBackward (the threshold) only.
/// `error_flag` (device memory, may be null) collects kError* bits.
void launch_binary(BinaryOp op, DType dtype, const ElementwiseArgs& args, const ScalarValue& alpha, int* error_flag,
                   cudaStream_t stream);

/// out = cond ? a : b: 4 operands (out, cond as bool, a, b), a and b of `dtype`.
void launch_where(DType dtype, const ElementwiseArgs& args, cudaStream_t stream);

/// out = lerp(self, end, weight): 4 operands of one floating `dtype`.
void launch_lerp(DType dtype, const ElementwiseArgs& args, cudaStream_t stream);

/// out = static_cast<dst>(in): 2 operands (what copy_within_device runs).
void launch_cast(DType dst, DType src, const ElementwiseArgs& args, cudaStream_t stream);

/// out = value: 1 operand.
void launch_fill(DType dtype, const ElementwiseArgs& args, const ScalarValue& value, cudaStream_t stream);

enum class UnaryOp : std::int8_t {
  // Same dtype in and out (any dtype the host allows).
  kNeg,
  kAbs,
  kRelu,
  kSign,
  kSquare,
  kClamp,       // UnaryParams: lo / hi
  kBitwiseNot,  // integers and bool only
  // Floating dtypes only.
  kExp,
  kExp2,
  kExpm1,
  kLog,
  kLog2,
  kLog10,
  kLog1p,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kTanh,
  kErf,
  kErfc,
  kAcosh,
  kAsinh,
  kAtanh,
  kSigmoid,
  kFloor,
  kCeil,
  kRound,  // half to even
  kTrunc,
  kFrac,
  // Any input dtype, bool output.
  kLogicalNot,
};

struct UnaryParams {
  ScalarValue lo;
  ScalarValue hi;
  bool has_lo = false;
  bool has_hi = false;
};

/// out = op(in): 2 operands, the input of `dtype`, the output of `dtype`
/// (bool for kLogicalNot).
void launch_unary(UnaryOp op, DType dtype, const ElementwiseArgs& args, const UnaryParams& params, cudaStream_t stream);

}  // namespace wick::cuda_backend
