// backends/cuda/cuda_ops.h - private: how the CUDA backend's files register.
/// \file
/// One function per host file; `cuda_backend.cpp` calls them all once a
/// device was found. The operator set mirrors the CPU backend's
/// (backends/cpu/cpu_kernels.h), with the same checks and error messages.
#pragma once

#include <wick/library.h>
#include <wick/tensor.h>

namespace wick::cuda_backend {

// elementwise_ops.cpp: add/sub/mul/div (+ .out), pow, maximum, minimum,
// comparisons, where, fmod, remainder, atan2, logical ops, lerp, fill_, and
// the unary math of backends/cpu/unary_ops.cpp (clamp included).
void register_elementwise_ops(Library& torch, Library& tensor);
// reduce_ops.cpp: sum, mean, prod, var, std, norm, logsumexp, cumsum, cumprod,
// max/min (all and .dim), amax, amin, argmax, argmin, all, any.
void register_reduce_ops(Library& torch);
// blas_ops.cpp (cuBLAS): mm, bmm, addmm, mv, dot.
void register_blas_ops(Library& torch);
// dnn_ops.cpp (cuDNN and own kernels): convolution2d and its backwards,
// pooling and its backwards, softmax, log_softmax.
void register_dnn_ops(Library& torch, Library& aten);
// nn_ops.cpp: leaky_relu, elu, gelu, silu, logsigmoid, nll_loss, layer_norm.
void register_nn_ops(Library& functional);
// index_ops.cpp: cat, index_select, gather, scatter, scatter_add,
// masked_fill, flip, tril, triu.
void register_index_ops(Library& torch);
// factory_ops.cpp: tensor, arange, eye, linspace, rand, randn, randint.
void register_factory_ops(Library& torch);
// copy_ops.cpp: Tensor.copy_ within a device and between host and device.
void register_copy_ops(Library& tensor);

/// Copies `src` into `dst` elementwise, converting the dtype: both on one
/// CUDA device, `src` broadcastable to `dst`'s shape, any strides (no
/// overlap between them; copy_ handles that). Runs on the current stream.
/// (elementwise_ops.cpp; copy_ and the other host files build on it.)
void copy_within_device(const Tensor& dst, const Tensor& src);

}  // namespace wick::cuda_backend
