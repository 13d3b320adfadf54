// wick/backends.h - switches of the backends' float32 math and oneDNN, as torch.backends has them; the thread count.
/// \file
/// Note [TF32]
/// On Ampere and later GPUs, float32 products and convolutions can run on
/// tensor cores in TF32: inputs rounded to 10 mantissa bits, several times
/// faster, results that differ from full float32 in the fourth digit. As in
/// PyTorch, convolutions (cuDNN) use it by default and matrix products
/// (cuBLAS: mm, bmm, addmm, linear, matmul) do not; the CPU never does.
///
///   wick::backends::set_cudnn_allow_tf32(false);       // torch.backends.cudnn.allow_tf32 = False
///   wick::set_float32_matmul_precision("high");         // torch.backends.cuda.matmul.allow_tf32 = True
///
/// The switches are process-wide and read by each call.
///
/// Note [cuDNN benchmark mode]
/// With `set_cudnn_benchmark(true)` (torch.backends.cudnn.benchmark = True)
/// the first convolution of each configuration times cuDNN's algorithms on
/// the call's own tensors and keeps the fastest; off (the default), cuDNN's
/// heuristics choose without trial runs. The first call of a new shape then
/// costs the trials (tens of milliseconds); later calls run the measured
/// best. Each mode keeps its own choices, so switching does not discard
/// them.
#pragma once

#include <string>
#include <string_view>

#include "wick/export.h"

namespace wick::backends {

/// torch.backends.cuda.matmul.allow_tf32 (default false).
[[nodiscard]] WICK_API bool cuda_matmul_allow_tf32() noexcept;
/// Sets the switch above.
WICK_API void set_cuda_matmul_allow_tf32(bool allow) noexcept;
/// torch.backends.cudnn.allow_tf32 (default true).
[[nodiscard]] WICK_API bool cudnn_allow_tf32() noexcept;
/// Sets the switch above.
WICK_API void set_cudnn_allow_tf32(bool allow) noexcept;
/// torch.backends.cudnn.benchmark (default false): Note [cuDNN benchmark mode].
[[nodiscard]] WICK_API bool cudnn_benchmark() noexcept;
/// Sets the switch above.
WICK_API void set_cudnn_benchmark(bool benchmark) noexcept;
/// torch.backends.mkldnn.enabled (default true): whether the CPU backend may
/// run convolutions on oneDNN where the build has it (Note [Convolution on
/// oneDNN] in backends/cpu/onednn.h); off, they take the im2col + GEMM path.
/// Results agree to rounding either way.
[[nodiscard]] WICK_API bool mkldnn_enabled() noexcept;
/// Sets the switch above.
WICK_API void set_mkldnn_enabled(bool enabled) noexcept;
/// Whether float32 3x3 stride-1 convolutions with channels in multiples of
/// 16 a group may use oneDNN's Winograd F(4x4, 3x3) kernels (default true;
/// wick's own switch, PyTorch has none): about twice as fast as the direct
/// kernels, with rounding errors some ten times larger (Note [Winograd
/// convolution on oneDNN] in backends/cpu/onednn.h). Off, they run direct.
[[nodiscard]] WICK_API bool mkldnn_winograd() noexcept;
/// Sets the switch above.
WICK_API void set_mkldnn_winograd(bool allowed) noexcept;
/// Whether convolutions with too little work to repay oneDNN's fixed cost
/// per call (under 8 Mi multiply-adds in float32, 1 Mi in bfloat16: DCGAN's
/// layers at batch 1) take the im2col + GEMM path instead (default true;
/// wick's own switch, PyTorch has none; Note [Small convolutions on im2col]
/// in backends/cpu/onednn.h). Off, oneDNN takes every size it has a kernel
/// for.
[[nodiscard]] WICK_API bool mkldnn_small_on_im2col() noexcept;
/// Sets the switch above.
WICK_API void set_mkldnn_small_on_im2col(bool allowed) noexcept;

}  // namespace wick::backends

namespace wick {

/// torch.set_float32_matmul_precision: "highest" turns the matmul TF32
/// switch off, "high" and "medium" turn it on (wick has no bfloat16 path for
/// "medium" yet: it means "high"). ValueError for any other string.
WICK_API void set_float32_matmul_precision(std::string_view precision);
/// The last precision set ("highest" by default).
[[nodiscard]] WICK_API std::string get_float32_matmul_precision();

/// torch.set_num_threads: the number of threads the CPU backend's parallel
/// loops and its BLAS use from now on, process-wide (at least 1; ValueError
/// "set_num_threads: expected a positive number of threads, got 0"
/// otherwise). Loops shorter than the grain size stay on the calling thread.
WICK_API void set_num_threads(int threads);
/// torch.get_num_threads: the last set_num_threads, else OMP_NUM_THREADS
/// (its first entry) when set, else the CPUs this process may run on.
[[nodiscard]] WICK_API int get_num_threads() noexcept;

}  // namespace wick
