// backends/cpu/cpu_kernels.h - private: how the CPU backend's files register.
/// \file
#pragma once

#include <wick/library.h>

namespace wick::cpu {

void register_binary_ops(Library& torch, Library& tensor);
void register_unary_ops(Library& torch);
void register_reduce_ops(Library& torch);
void register_minmax_ops(Library& torch);
void register_stat_ops(Library& torch);
void register_blas_ops(Library& torch);
void register_factory_ops(Library& torch);
void register_nn_ops(Library& torch, Library& functional);
void register_index_ops(Library& torch);
void register_norm_ops(Library& functional);
// The internal `aten` operators of convolution and pooling.
void register_conv_ops(Library& aten);
void register_pool_ops(Library& aten);

}  // namespace wick::cpu
