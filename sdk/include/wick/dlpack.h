// wick/dlpack.h - tensors in and out through DLPack, without copying (libtorch, CuPy, JAX, NumPy).
/// \file
/// DLPack (https://github.com/dmlc/dlpack, Debian's libdlpack-dev) is the
/// exchange format of array libraries: a DLManagedTensor describes memory
/// (data pointer, device, dtype, shape, strides) and carries a deleter its
/// consumer calls when done. Include <dlpack/dlpack.h> to read one; this
/// header only names the struct.
///
///   DLManagedTensor* m = wick::to_dlpack(x);        // x's memory, kept alive by m
///   at::Tensor a = at::fromDLPack(m);                // libtorch now owns m
///   wick::Tensor y = wick::from_dlpack(at::toDLPack(a));  // back, still no copy
///
/// Dtypes map as PyTorch 1.13 maps them (DLPack 0.6): bool goes out as an
/// 8-bit unsigned integer (DLPack 0.6 has no bool code), and an 8-bit
/// unsigned integer comes in as uint8. CPU memory is kDLCPU (pinned
/// kDLCUDAHost comes in as CPU), CUDA memory kDLCUDA with its device index.
#pragma once

#include "wick/export.h"
#include "wick/tensor.h"

extern "C" {
struct DLManagedTensor;
}

namespace wick {

/// A DLManagedTensor over `t`'s memory (its sizes, strides and storage
/// offset; no copy). It keeps the memory alive until its deleter runs,
/// which its consumer must call exactly once. RuntimeError for an undefined
/// tensor or one on a device DLPack cannot name (meta, plugin devices).
[[nodiscard]] WICK_API DLManagedTensor* to_dlpack(const Tensor& t);

/// A tensor over `src`'s memory (no copy). wick takes ownership of `src`:
/// its deleter runs when the last tensor or view over the memory goes (also
/// when this function throws). RuntimeError for a null pointer, a dtype
/// wick does not have (vector lanes, unknown codes or widths), a device
/// other than CPU, CUDA-pinned host memory or CUDA, a negative size or
/// stride, and a null data pointer with elements.
[[nodiscard]] WICK_API Tensor from_dlpack(DLManagedTensor* src);

}  // namespace wick
