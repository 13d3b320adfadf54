// backends/cuda/reduce_kernels.h - private: the reduction and scan kernels' plain interface.
/// \file
/// Every reduction reduces the rows of a contiguous [rows, row_len] input
/// (the host permutes and copies so that the reduced dims are innermost);
/// each row gives one output element. Scans (cumsum, cumprod) run along
/// such rows too. No wick header is included (Note [CUDA backend layout]).
///
///   RowReduce r;  // op, dtypes, pointers, rows, row_len
///   Tensor ws = ... row_reduce_workspace_bytes(r) bytes ...;
///   r.workspace = ws.data_ptr();
///   launch_row_reduce(r, stream);
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "elementwise_kernels.h"

namespace wick::cuda_backend {

enum class ReduceOp : std::int8_t {
  kSum,        // out = scale * sum (scale 1: no multiply); floats in their dtype, integers in int64
  kProd,       // in double for floats, wrapping int64 for integers
  kVar,        // param: correction; take_sqrt: std (Welford in double)
  kNorm,       // param: p (inf, -inf, 0, 1, 2, other)
  kLogSumExp,  // row_max: each row's max (in in_dtype), from a kMax pass
  kMax,        // out (values) and/or out_index; NaN wins, ties give the first index
  kMin,
  kAll,  // bool output
  kAny,
};

struct RowReduce {
  ReduceOp op = ReduceOp::kSum;
  DType in_dtype = DType::kFloat32;
  DType out_dtype = DType::kFloat32;  // kSum: in_dtype or int64; kAll/kAny: bool; else in_dtype
  const void* in = nullptr;           // contiguous [rows, row_len]
  std::int64_t rows = 0;
  std::int64_t row_len = 0;
  void* out = nullptr;                // [rows]; may be null for kMax/kMin when out_index is set
  std::int64_t* out_index = nullptr;  // kMax/kMin: index of the extreme within its row, or null
  double scale = 1.0;
  double param = 0.0;
  bool take_sqrt = false;
  const void* row_max = nullptr;
  void* workspace = nullptr;  // row_reduce_workspace_bytes(...) bytes of device memory
};

/// Device memory `launch_row_reduce` needs for `r` on the current device
/// (0 when a row fits one pass).
std::size_t row_reduce_workspace_bytes(const RowReduce& r);

/// Enqueues the reduction on `stream`; nothing for rows == 0.
void launch_row_reduce(const RowReduce& r, cudaStream_t stream);

/// Inclusive scan (sum or product) of each contiguous row, accumulated in
/// double (floats) or wrapping int64 (integers), written in `dtype`.
struct RowScan {
  bool prod = false;
  DType dtype = DType::kFloat32;
  const void* in = nullptr;  // contiguous [rows, row_len]
  void* out = nullptr;       // contiguous [rows, row_len]
  std::int64_t rows = 0;
  std::int64_t row_len = 0;
};

void launch_row_scan(const RowScan& s, cudaStream_t stream);

}  // namespace wick::cuda_backend
