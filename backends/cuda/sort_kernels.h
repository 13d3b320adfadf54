// backends/cuda/sort_kernels.h - private: argsort and searchsorted launchers over plain structs.
/// \file
/// Plain C++: included by sort_ops.cpp and by nvcc (Note [CUDA backend
/// layout] in cuda_common.h). Each launcher queues on `stream`, launches
/// nothing for no work, and returns the first CUDA error it met.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "elementwise_kernels.h"

namespace wick::cuda_backend {

/// argsort of `lines` contiguous rows of `n` elements each (`src`, of
/// `dtype`, any real dtype): `out[line * n + j]` gets the position, within its row, of the
/// row's j-th element in stable order, ascending with NaN last or, with
/// `descending`, descending with NaN first (Note [Sorting by radix] in
/// sort_kernels.cu).
struct ArgsortArgs {
  const void* src = nullptr;
  std::int64_t* out = nullptr;
  DType dtype = DType::kFloat32;
  std::int64_t lines = 0;
  std::int64_t n = 0;
  bool descending = false;
};
/// The bytes of device memory `launch_argsort` needs beside its input and output.
[[nodiscard]] std::size_t argsort_workspace_bytes(const ArgsortArgs& args);
/// `workspace`: argsort_workspace_bytes(args) bytes of device memory, 256-byte aligned.
[[nodiscard]] cudaError_t launch_argsort(const ArgsortArgs& args, void* workspace, cudaStream_t stream);

/// searchsorted: for each of the `count` values (contiguous, `dtype`), the
/// first position in its row of `width` boundaries (contiguous, `dtype`;
/// the one row when `one_row`, else row `i / per_row` for value i) where
/// the value can go: past every boundary below it, or with `right` not above
/// it. `order` (optional, as the boundaries' shape): the k-th boundary of a
/// row is the one at the row's k-th order index. The result is int32 when
/// `out_int32`, else int64.
struct SearchArgs {
  const void* boundaries = nullptr;
  const void* values = nullptr;
  const std::int64_t* order = nullptr;
  void* out = nullptr;
  DType dtype = DType::kFloat32;
  std::int64_t count = 0;
  std::int64_t width = 0;
  std::int64_t per_row = 1;
  bool one_row = true;
  bool right = false;
  bool out_int32 = false;
};
[[nodiscard]] cudaError_t launch_searchsorted(const SearchArgs& args, cudaStream_t stream);

}  // namespace wick::cuda_backend
