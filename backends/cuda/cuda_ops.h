// backends/cuda/cuda_ops.h - private: what the CUDA backend's host files share.
/// \file
/// Each host file defines the CUDA kernels that wick/gen/torch_kernels.h
/// declares for its operators (the `dispatch: CUDA` definitions); the kernel
/// library's entry point (cuda_kernels.cpp) registers them all once a device
/// was found. The checks and error messages are the meta functions'.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include <wick/gen/torch_kernels.h>
#include <wick/tensor.h>

namespace wick::cuda_backend {

/// Copies `src` into `dst` elementwise, converting the dtype: both on one
/// CUDA device, `src` broadcastable to `dst`'s shape, any strides (no
/// overlap between them; copy_ handles that). Runs on the current stream.
/// (elementwise_ops.cpp; copy_ and the other host files build on it.)
void copy_within_device(const Tensor& dst, const Tensor& src);

/// `t` as a contiguous int64 tensor on its device (itself when it is one).
/// (index_ops.cpp)
[[nodiscard]] Tensor as_int64(const Tensor& t);

/// The first value of the contiguous int64 `idx` outside [low, high), as
/// (position, value), found on the device (Note [Index checks on the
/// device] in index_ops.cpp: one synchronisation). (index_ops.cpp)
[[nodiscard]] std::optional<std::pair<std::int64_t, std::int64_t>> find_bad(const char* op, const Tensor& idx,
                                                                            std::int64_t low, std::int64_t high);

}  // namespace wick::cuda_backend
