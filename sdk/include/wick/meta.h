// wick/meta.h - meta functions: an operator's checks and result geometry, written once for every backend.
/// \file
/// Note [Meta functions]
/// Each operator that backends implement has one *meta function*
/// (`meta: ResultType` in its .ops definition; sdk/opgen/wick_opgen.py). It
/// does everything except touch data: it checks every argument, with
/// PyTorch's messages, and computes the result's sizes, strides, dtype and
/// device, plus whatever else the computation needs to know (the dtype the
/// operands are converted to, say). A backend registers only the
/// computation, an *impl* that receives the meta function's result and the
/// output to fill:
///
///   // myops.ops:   scale(Tensor self, float factor) -> Tensor
///   //                  meta: ElementwiseMeta
///   wick::ElementwiseMeta myops::meta::scale(const Tensor& self, double factor) {
///     return wick::meta::unary_op("myops.scale", self, wick::meta::UnaryKind::kFloat);
///   }
///   void scale_cpu(const wick::ElementwiseMeta& m, const Tensor& out, const Tensor& self, double factor) {...}
///   registrar.library("myops", wick::DispatchKey::kCPU).impl_structured("scale", &scale_cpu);
///
/// The dispatcher's kernel for the operator (and its `out=` variant) is then
/// derived (wick/structured.h): run the meta function, allocate the output
/// on the result's device, or check and resize `out=` (PyTorch's cast,
/// shape and overlap rules), and call the impl. No check is written twice.
///
/// Note [Meta tensors]
/// A tensor on the `meta` device has sizes, strides and a dtype, and a
/// storage of the right size with no memory. Every operator with a meta
/// function runs on meta tensors through it (the Meta kernel is derived with
/// the others: an impl that does nothing); composite operators run through
/// their parts; autograd records and runs backward graphs of meta tensors.
/// Reading values (`item()`, printing the elements, copying to another
/// device) raises a NotImplementedError, as in PyTorch.
///
///   Tensor a = wick::ones({2, 3}, std::nullopt, wick::Device::parse("meta"));
///   Tensor c = wick::matmul(a, wick::ones({3, 4}, std::nullopt, a.device()));   // sizes [2, 4], no data
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>

#include "wick/device.h"
#include "wick/dim_vector.h"
#include "wick/dtype.h"
#include "wick/export.h"
#include "wick/scalar.h"
#include "wick/tensor.h"

namespace wick {

/// The geometry of one result: what `empty_from` allocates.
struct TensorMeta {
  DimVector sizes; ///< size of each dim
  DimVector strides; ///< stride of each dim, in elements
  ScalarType dtype = ScalarType::kUndefined; ///< element type (kUndefined until set)
  Device device; ///< where the result lives

  /// A contiguous result.
  [[nodiscard]] WICK_API static TensorMeta contiguous(IntArrayRef sizes, ScalarType dtype, Device device);
  /// The geometry of an existing tensor.
  [[nodiscard]] WICK_API static TensorMeta of(const Tensor& t);
};

/// The meta result of an operator with one output and nothing more to tell
/// its kernels. A meta result type has `TensorMeta out` (one output) or
/// `std::array<TensorMeta, N> outs` (N outputs, returned as a tuple).
struct OutputMeta {
  TensorMeta out; ///< the result's geometry
};

/// Elementwise operators: the output is the broadcast of the inputs; they
/// are converted to `compute` before the loop.
struct ElementwiseMeta {
  TensorMeta out; ///< the result: broadcast shape, result dtype, common device
  ScalarType compute = ScalarType::kUndefined; ///< the dtype the inputs are converted to for the loop
};

/// In-place operators defined as such (copy_, fill_): the output is self.
struct InplaceMeta {
  TensorMeta out; ///< self's geometry
};

/// A new tensor with `m`'s geometry on `m.device` (allocated with the
/// device's allocator; no memory on the meta device).
[[nodiscard]] WICK_API Tensor empty_from(const TensorMeta& m);

/// Helpers for meta functions (plugins' included); the per-operator meta
/// functions are declared by the generated headers in the same namespace
/// (wick/gen/torch_meta.h: `wick::meta::add`, ...).
namespace meta {

/// How a binary elementwise operator treats dtypes.
enum class BinaryKind {
  kArith,    ///< result type of the operands (add, mul, ...)
  kOrdered,  ///< as kArith, but complex numbers have no order: refused ("maximum not implemented for complex tensors.")
  kCompare,  ///< computed in the result type, result bool (eq, lt, ...)
  kTrueDiv,  ///< integers compute in the default float dtype (div, atan2)
  kLogical,  ///< computed in the result type, result bool; bools allowed (logical_and)
  kBitwise,  ///< integers and bools, in the result type; floating types refused as
             ///< PyTorch's CPU kernel refuses them ("bitwise_and_cpu" not implemented for 'Float')
};
/// The meta of a binary elementwise operator: the inputs' common device (a
/// 0-dim CPU tensor joins any device), the broadcast shape, the compute and
/// result dtypes. RuntimeError naming `op` for unbroadcastable shapes or
/// mixed devices.
[[nodiscard]] WICK_API ElementwiseMeta binary_op(const char* op, const Tensor& a, const Tensor& b, BinaryKind kind);

/// How a unary elementwise operator treats dtypes.
enum class UnaryKind {
  kSame,      ///< the input's dtype (neg, abs, relu, sign, the rounding functions)
  kFloat,     ///< integers and bool compute in the default float dtype (exp, sin, ...)
  kFloating,  ///< floating dtypes only, kept; others are refused as PyTorch's
              ///< CPU kernel refuses them ("frac_cpu" not implemented for 'Long')
  kBitwise,   ///< integers and bools, kept; floating dtypes refused ("bitwise_not_cpu")
};
/// The meta of a unary elementwise operator: self's shape and device, the compute and result dtypes by `kind`; RuntimeError naming `op` for a dtype `kind` refuses.
[[nodiscard]] WICK_API ElementwiseMeta unary_op(const char* op, const Tensor& self, UnaryKind kind);

/// Several inputs broadcast together (where, lerp): device, shape; `compute`
/// and the result dtype are the caller's.
[[nodiscard]] WICK_API ElementwiseMeta broadcast_op(const char* op, std::initializer_list<const Tensor*> inputs,
                                                    ScalarType compute, ScalarType result);

}  // namespace meta
}  // namespace wick
