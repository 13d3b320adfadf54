// backends/cuda/cuda_ops.h - private: what the CUDA backend's host files share.
/// \file
/// Each host file defines the CUDA kernels that wick/gen/torch_kernels.h
/// declares for its operators (the `dispatch: CUDA` definitions); the kernel
/// library's entry point (cuda_kernels.cpp) registers them all once a device
/// was found. The checks and error messages are the meta functions'.
#pragma once

#include <wick/gen/torch_kernels.h>
#include <wick/tensor.h>

namespace wick::cuda_backend {

/// Copies `src` into `dst` elementwise, converting the dtype: both on one
/// CUDA device, `src` broadcastable to `dst`'s shape, any strides (no
/// overlap between them; copy_ handles that). Runs on the current stream.
/// (elementwise_ops.cpp; copy_ and the other host files build on it.)
void copy_within_device(const Tensor& dst, const Tensor& src);

}  // namespace wick::cuda_backend
