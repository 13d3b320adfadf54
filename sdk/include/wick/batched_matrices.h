// wick/batched_matrices.h - batches of matrices as LAPACK-style kernels read them (column-major, broadcast).
/// \file
/// Helpers for backends that hand batches of matrices to a column-major
/// library (LAPACK on the CPU, cuSOLVER and cuBLAS on CUDA): the matrices of
/// a [..., rows, cols] tensor, one after another, each contiguous in its
/// transpose (strides [..., 1, rows]), as the meta functions of
/// wick/meta_linalg.h lay out their results.
#pragma once

#include <cstdint>

#include "wick/checked.h"
#include "wick/dim_vector.h"
#include "wick/tensor.h"

namespace wick::linalg_batches {

/// t's matrices column-major (batches in order): t itself when it is so
/// already, for reading.
[[nodiscard]] inline Tensor column_major(const Tensor& t) { return t.transpose(-2, -1).contiguous().transpose(-2, -1); }

/// A new column-major copy of t's matrices, for a library to overwrite.
[[nodiscard]] inline Tensor column_major_copy(const Tensor& t) { return t.transpose(-2, -1).clone().transpose(-2, -1); }

/// `t` broadcast to the batch dims `batch`, with its own last `keep` dims.
[[nodiscard]] inline Tensor expand_batch(const Tensor& t, IntArrayRef batch, std::int64_t keep) {
  DimVector shape(batch);
  for (std::int64_t d = t.dim() - keep; d < t.dim(); ++d) shape.push_back(t.size(d));
  return t.expand(shape);
}

/// The number of matrices of a [..., rows, cols] tensor.
[[nodiscard]] inline std::int64_t batch_count(const Tensor& t) {
  std::int64_t n = 1;
  for (std::int64_t d = 0; d + 2 < t.dim(); ++d) n = checked_mul(n, t.size(d), "linalg");
  return n;
}

}  // namespace wick::linalg_batches
