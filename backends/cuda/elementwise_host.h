// backends/cuda/elementwise_host.h - private: host helpers of elementwise_ops.cpp and reduce_ops.cpp.
/// \file
/// Turning tensors into the plain ElementwiseArgs of the device launchers
/// (`make_args`, which merges adjacent dims: Note [Merging dims]), dtype
/// codes, Scalars in every dtype, and the conversions both host files need
/// without going through the dispatcher (`as_dtype`, `contiguous_on_device`).
#pragma once

#include <cstdint>
#include <initializer_list>

#include <wick/checked.h>
#include <wick/dim_vector.h>
#include <wick/dtype.h>
#include <wick/scalar.h>
#include <wick/tensor.h>
#include <wick/tensor_util.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "elementwise_kernels.h"

namespace wick::cuda_backend {

static_assert(static_cast<int>(DType::kBool) == static_cast<int>(ScalarType::kBool) &&
              static_cast<int>(DType::kInt32) == static_cast<int>(ScalarType::kInt32) &&
              static_cast<int>(DType::kInt64) == static_cast<int>(ScalarType::kInt64) &&
              static_cast<int>(DType::kFloat32) == static_cast<int>(ScalarType::kFloat32) &&
              static_cast<int>(DType::kFloat64) == static_cast<int>(ScalarType::kFloat64) &&
              static_cast<int>(DType::kFloat16) == static_cast<int>(ScalarType::kFloat16) &&
              static_cast<int>(DType::kBFloat16) == static_cast<int>(ScalarType::kBFloat16) &&
              static_cast<int>(DType::kUInt8) == static_cast<int>(ScalarType::kUInt8) &&
              static_cast<int>(DType::kInt8) == static_cast<int>(ScalarType::kInt8) &&
              static_cast<int>(DType::kInt16) == static_cast<int>(ScalarType::kInt16));

/// Whether the elementwise, reduction and conversion kernels have a loop
/// for `t`: every real dtype (complex ones are refused for now).
[[nodiscard]] constexpr bool has_device_loops(ScalarType t) noexcept { return itemsize(t) != 0 && !is_complex(t); }

/// The device code's name of a dtype. A dtype without device loops is
/// PyTorch's RuntimeError `"kernel" not implemented for 'ComplexFloat'`:
/// pass PyTorch's CUDA kernel name ("add_cuda").
inline DType to_dtype(ScalarType t, const char* kernel) {
  if (!has_device_loops(t)) throw_not_implemented_for(kernel, t);
  return static_cast<DType>(static_cast<int>(t));
}

/// PyTorch's names for dtypes in error messages ("Float", "Long").
/// `s` as `Scalar::to<T>()` converts it for the dtype `t` (only that field
/// is set: converting an out-of-range float to another integer type would
/// be undefined); `negate` stores -value (bool: unchanged), converted first
/// as the CPU kernels do.
inline ScalarValue scalar_value(const Scalar& s, ScalarType t, bool negate = false) {
  ScalarValue v;
  switch (t) {
    case ScalarType::kBool:
      v.b = s.to<bool>();
      break;
    case ScalarType::kInt32:
      v.i32 = s.to<std::int32_t>();
      if (negate) v.i32 = static_cast<std::int32_t>(0U - static_cast<std::uint32_t>(v.i32));
      break;
    case ScalarType::kInt64:
      v.i64 = s.to<std::int64_t>();
      if (negate) v.i64 = static_cast<std::int64_t>(0ULL - static_cast<std::uint64_t>(v.i64));
      break;
    case ScalarType::kFloat32:
      v.f32 = negate ? -s.to<float>() : s.to<float>();
      break;
    case ScalarType::kFloat64:
      v.f64 = negate ? -s.to<double>() : s.to<double>();
      break;
    case ScalarType::kFloat16:  // computed in float (a fill rounds once, on the device)
    case ScalarType::kBFloat16:
      v.f32 = negate ? -s.to<float>() : s.to<float>();
      break;
    case ScalarType::kUInt8:
      v.u8 = s.to<std::uint8_t>();
      if (negate) v.u8 = static_cast<std::uint8_t>(0U - v.u8);
      break;
    case ScalarType::kInt8:
      v.i8 = s.to<std::int8_t>();
      if (negate) v.i8 = static_cast<std::int8_t>(0U - static_cast<std::uint8_t>(v.i8));
      break;
    case ScalarType::kInt16:
      v.i16 = s.to<std::int16_t>();
      if (negate) v.i16 = static_cast<std::int16_t>(0U - static_cast<std::uint16_t>(v.i16));
      break;
    default:
      break;
  }
  return v;
}

// Note [Merging dims]
// Operands are described to the device innermost dim first, with size-1
// dims dropped and each dim merged into the next inner one when every
// operand steps over both as one (stride[d] == stride[d + 1] * size[d + 1]):
// contiguous tensors become one flat run (the vector path of
// elementwise_loops.cuh), a transposed or sliced one keeps only the dims it
// needs. The device loops take at most kMaxDims merged dims; more is a
// RuntimeError naming the operator (such a tensor would need 13 dims that
// no two of which can be merged).

/// The operands (output first) viewed with `shape`, each input broadcast to
/// it, merged (Note [Merging dims]). numel 0: nothing else is filled in.
inline ElementwiseArgs make_args(IntArrayRef shape, std::initializer_list<const Tensor*> operands, const char* op) {
  ElementwiseArgs args;
  args.noperands = static_cast<int>(operands.size());
  WICK_INTERNAL_ASSERT(args.noperands >= 1 && args.noperands <= kMaxOperands);
  const std::int64_t numel = checked_numel(shape);  // an empty shape's other sizes may be anything
  args.numel = numel;
  if (numel == 0) return args;
  DimVector strides[kMaxOperands];
  int k = 0;
  for (const Tensor* t : operands) {
    args.data[k] = t->data_ptr();
    strides[k] = broadcast_strides(*t, shape);
    ++k;
  }
  DimVector sizes;                 // merged, innermost first
  DimVector merged[kMaxOperands];  // their strides
  for (std::size_t d = shape.size(); d-- > 0;) {
    if (shape[d] == 1) continue;
    bool merge = !sizes.empty();
    for (int j = 0; j < args.noperands && merge; ++j) merge = strides[j][d] == merged[j].back() * sizes.back();
    if (merge) {
      sizes.back() *= shape[d];
      continue;
    }
    sizes.push_back(shape[d]);
    for (int j = 0; j < args.noperands; ++j) merged[j].push_back(strides[j][d]);
  }
  WICK_CHECK(sizes.size() <= static_cast<std::size_t>(kMaxDims), RuntimeError, op, ": the CUDA kernels take at most ",
             kMaxDims, " dims after merging contiguous ones, but the operands of shape ", format_shape(shape), " need ",
             sizes.size());
  args.ndim = static_cast<int>(sizes.size());
  for (int d = 0; d < args.ndim; ++d) {
    args.sizes[d] = sizes[d];
    for (int j = 0; j < args.noperands; ++j) args.strides[j][d] = merged[j][d];
  }
  return args;
}

/// A fresh contiguous copy of `t` in `dtype` on t's device.
inline Tensor copy_as(const Tensor& t, ScalarType dtype) {
  Tensor r = make_empty(t.sizes(), dtype, t.device());
  copy_within_device(r, t);
  return r;
}

/// `t` converted to `dtype` (no copy when it already is); a CUDA tensor.
inline Tensor as_dtype(const Tensor& t, ScalarType dtype) { return t.dtype() == dtype ? t : copy_as(t, dtype); }

/// `t` itself when contiguous, else a contiguous copy; a CUDA tensor.
inline Tensor contiguous_on_device(const Tensor& t) { return t.is_contiguous() ? t : copy_as(t, t.dtype()); }

}  // namespace wick::cuda_backend
