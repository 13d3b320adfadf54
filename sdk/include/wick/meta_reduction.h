// wick/meta_reduction.h - meta results of the reductions and scans (sum, amax, max.dim, cumsum, ...).
/// \file
/// Note [Reduction meta]
/// A reduction's meta function (dispatch/ops/meta_reduction.cpp) settles
/// everything but the arithmetic, so that no backend re-derives it:
///   - which dims of the input are reduced (`ReducedDims::dims`): wrapped,
///     ascending, each once; none given (or an empty list) means every dim.
///     A dim out of range is wrap_dim's IndexError, a repeated one a
///     RuntimeError naming the operator. A 0-dim input accepts 0 and -1 and
///     reduces nothing (its result is 0-dim too);
///   - the result's geometry: the kept dims in order, the reduced ones as
///     size 1 with keepdim; contiguous, on the input's device;
///   - the result's dtype, and `compute`, the dtype the input is converted
///     to before reducing (sum of int32 reads int32 and writes int64;
///     prod(dtype=int64) of floats converts them first).
/// An impl lays the converted input out as contiguous rows: the kept dims
/// first and the reduced ones last (`ReducedDims::permutation`), so that
/// each output element is the reduction of one row of `inner` elements.
///
///   // myops.ops:  total(Tensor self, int[1] dim) -> Tensor
///   //                 meta: ReductionMeta     (after `include wick/meta_reduction.h`)
///   wick::ReductionMeta myops::meta::total(const Tensor& self, IntArrayRef dim) {
///     return wick::meta::reduction("myops.total", self, dim, false, self.dtype(), self.dtype());
///   }
///   void total_cpu(const wick::ReductionMeta& m, const Tensor& out, const Tensor& self, IntArrayRef dim) {
///     const Tensor rows = self.to(m.compute).permute(m.reduced.permutation(self.dim())).contiguous();
///     ...  // out[i] = reduction of rows[i * m.reduced.inner, (i + 1) * m.reduced.inner)
///   }
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "wick/dim_vector.h"
#include "wick/dtype.h"
#include "wick/export.h"
#include "wick/meta.h"
#include "wick/tensor.h"

namespace wick {

/// What a reduction reduces (Note [Reduction meta]).
struct ReducedDims {
  /// The reduced dims of the input: wrapped, ascending, each once.
  DimVector dims;
  /// How many input elements each output element reduces (the product of
  /// the reduced dims' sizes; 1 when none is reduced).
  std::int64_t inner = 1;

  /// The input's dims with the kept ones first, in order, then the reduced
  /// ones: `permute` by it and each output element reduces one contiguous
  /// row. `rank` is the input's.
  [[nodiscard]] DimVector permutation(std::int64_t rank) const {
    DimVector perm;
    std::size_t next = 0;  // dims is ascending
    for (std::int64_t d = 0; d < rank; ++d) {
      if (next < dims.size() && dims[next] == d) {
        ++next;
      } else {
        perm.push_back(d);
      }
    }
    for (std::int64_t d : dims) perm.push_back(d);
    return perm;
  }
};

/// A reduction with one result (sum, mean, amax, argmax, var, all, ...).
struct ReductionMeta {
  TensorMeta out; ///< the result's geometry (reduced dims removed, or kept as size 1 with keepdim)
  /// The dtype the input is converted to before reducing.
  ScalarType compute = ScalarType::kUndefined;
  ReducedDims reduced; ///< which dims are reduced (see ReducedDims)
};

/// torch.norm.ScalarOpt_dim: the reduction and its p (2 where p is None).
struct NormMeta : ReductionMeta {
  double p = 2; ///< the norm's order (2 where p is None)
};

/// A reduction over one dim with values and their int64 indices (max.dim,
/// min.dim): `outs[0]` has the values' dtype, `outs[1]` is int64, both of
/// the same shape.
struct ReductionWithIndicesMeta {
  std::array<TensorMeta, 2> outs; ///< the values and their int64 indices
  ScalarType compute = ScalarType::kUndefined; ///< the dtype the input is converted to before reducing
  ReducedDims reduced; ///< the reduced dim (see ReducedDims)
};

/// A scan along one dim (cumsum, cumprod): the result has the input's
/// shape (contiguous); the input is converted to `compute` first.
struct ScanMeta {
  TensorMeta out; ///< the result's geometry: the input's shape, contiguous
  ScalarType compute = ScalarType::kUndefined; ///< the dtype the input is converted to first
  /// The scanned dim, wrapped (0 for a 0-dim input).
  std::int64_t dim = 0;
};

namespace meta {

/// The dims of `self` that reducing `dim` reduces (none or empty: every
/// dim). IndexError for a dim out of range (wrap_dim's message), RuntimeError
/// naming `op` for a repeated one: "torch.sum: dim 0 appears multiple times
/// in the list of dims".
[[nodiscard]] WICK_API ReducedDims reduced_dims(const char* op, const Tensor& self, std::optional<IntArrayRef> dim);

/// The meta of a reduction of `dim` of `self` (Note [Reduction meta]): the
/// input converted to `compute`, a contiguous result of dtype `result` on
/// self's device, the reduced dims dropped or, with `keepdim`, kept as size
/// 1. Errors as `reduced_dims`.
[[nodiscard]] WICK_API ReductionMeta reduction(const char* op, const Tensor& self, std::optional<IntArrayRef> dim,
                                               bool keepdim, ScalarType compute, ScalarType result);

}  // namespace meta
}  // namespace wick
