// wick/meta_index.h - meta results of the indexing, joining and searching operators (cat, index_select, gather, scatter, flip, searchsorted).
/// \file
/// What the impls of these operators need besides the output's geometry
/// (Note [Meta functions] in wick/meta.h): the dimension they work along,
/// wrapped into range by the meta function. Their meta functions are in
/// dispatch/ops/meta_index.cpp; masked_fill, tril and triu need no more
/// than `OutputMeta`.
///
///   void gather_cpu(const wick::DimMeta& m, const Tensor& out, const Tensor& self, std::int64_t dim,
///                   const Tensor& index, bool sparse_grad);   // reads m.dim, never `dim`
#pragma once

#include <cstdint>

#include "wick/dim_vector.h"
#include "wick/dtype.h"
#include "wick/error.h"
#include "wick/meta.h"

namespace wick {

/// An operator along one dimension (cat, index_select, gather, scatter,
/// scatter_add): `dim` is the argument wrapped into [0, rank), with a
/// 0-dim tensor counted as 1-D (0 for a cat of legacy empty tensors only).
struct DimMeta {
  TensorMeta out; ///< the result's geometry
  std::int64_t dim = 0; ///< the dim, wrapped into [0, rank)
};

/// searchsorted: the dtype both the boundaries and the values are compared
/// in (PyTorch promotes the two), and the side, `side=` and `right=` folded
/// into one flag: true finds the last position a value can go, false the
/// first. The result is int64, or int32 with out_int32=True.
struct SearchsortedMeta {
  TensorMeta out; ///< the result: int64, or int32 with out_int32=True, on the values' device
  ScalarType compute = ScalarType::kUndefined; ///< the dtype boundaries and values are compared in (their promoted type)
  bool right = false; ///< true: the last position a value can go (side='right'); false: the first

  /// out= must have the result's index dtype: PyTorch refuses the other.
  void check_out(const Tensor& o) const {
    WICK_CHECK(o.dtype() == out.dtype, RuntimeError,
               "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
               "depending on whether out_int32 flag is True, but we got output tensor's dtype ",
               type_title(o.dtype()), " and out_int32 flag is ", out.dtype == ScalarType::kInt32 ? "True" : "False");
  }
};

/// flip: the dimensions to reverse, wrapped into range and distinct, and how
/// to read self in the result's order: from `read_offset` elements past its
/// first element, with its strides negated along `dims` (`read_strides`, in
/// elements). Every backend's kernel is that strided read.
struct FlipMeta {
  TensorMeta out; ///< the result's geometry: self's shape, contiguous
  DimVector dims; ///< the dims to reverse, wrapped and distinct
  std::int64_t read_offset = 0; ///< where the strided read of self starts, in elements past self's first element
  DimVector read_strides; ///< self's strides, negated along `dims`
};

}  // namespace wick
