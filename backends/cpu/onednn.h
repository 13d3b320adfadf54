// backends/cpu/onednn.h - matrix products through oneDNN, where the build has it.
/// \file
/// Note [bfloat16 matrix products on oneDNN]
/// Debian 12's OpenBLAS has no bfloat16 GEMM (Note [16-bit matrix
/// products]); oneDNN, which PyTorch also uses for them on the CPU, has
/// AVX-512 BF16 and AMX kernels that accumulate in float32 and round the
/// result once. bfloat16 mm, bmm, addmm and mv take this path when the build
/// found oneDNN (WICK_HAVE_ONEDNN) and oneDNN has a kernel for the case;
/// otherwise (no oneDNN, a stride oneDNN refuses, no kernel for the CPU) the
/// float32 path of Note [16-bit matrix products] computes the same result.
/// float16 stays on that path: oneDNN 2.6 has float16 matmul only for
/// AVX-512 FP16 CPUs, and those accumulate in float16.
#pragma once

#include <wick/tensor.h>

namespace wick::cpu {

/// out[b] = alpha * a[b] @ m[b] + beta * out[b] for bfloat16 `a` [B, n, k],
/// `m` [B, k, p] (any strides) and contiguous `out` [B, n, p]; with beta 0
/// out's old contents are ignored. False, with `out` untouched, when oneDNN
/// cannot compute it (the caller falls back).
[[nodiscard]] bool onednn_matmul(const Tensor& a, const Tensor& m, const Tensor& out, double alpha, double beta);

}  // namespace wick::cpu
