// backends/cpu/onednn.h - matrix products and convolutions through oneDNN, where the build has it.
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
///
/// Note [Convolution on oneDNN]
/// The three convolution operators (aten.convolution2d and its input and
/// weight adjoints; every conv1d, conv2d, conv_transpose1d/2d and conv3d
/// reaches them) run on oneDNN's convolution primitives for float32 and
/// bfloat16 when the build has oneDNN, `wick::backends::mkldnn_enabled()` is
/// on (torch.backends.mkldnn.enabled), and oneDNN has a kernel for the case
/// better than its reference loops. Otherwise they take the im2col + GEMM
/// path of conv_ops.cpp, which float64 and float16 always take (oneDNN 2.6
/// has no float64 convolution, and float16 only on AVX-512 FP16 CPUs).
/// bfloat16 accumulates in float32 inside oneDNN and is rounded once, as
/// the im2col path's widening does. On a CPU with AMX, a blocked weight
/// gradient over fewer than 4096 output positions (batch x height x width)
/// runs oneDNN's float32 kernel on operands the reorders convert: there
/// 2.6's bfloat16 backward-weights kernel took 5-65 ms (DCGAN's layers,
/// ResNet's 14x14 and 7x7 ones; libtorch, on the same kernel, takes as
/// long) where the float32 one takes 0.2-21 ms, and over more positions it
/// is up to 2x faster than float32. Without AMX (AVX-512 BF16 only) its
/// bfloat16 kernel, jit_bf16:avx512_core_bf16, is the faster one at every
/// size measured (1.1-2.1x on those layers), so it runs everywhere.
///
/// Layouts: oneDNN's direct kernels want channels in blocks of 16
/// (nChw16c) and weights blocked to match; wick's tensors are NCHW. A
/// blocked plan reorders its operands into the primitive's layouts and the
/// result back, a pass over each tensor; an NCHW plan gets oneDNN's
/// GEMM-based kernels and no reorder. Which wins was measured per direction
/// (tools/bench/README.md, "Convolution"): a 1x1 kernel has too little work
/// per byte to repay the reorders (NCHW 1.3-1.5x faster in all three
/// directions); with 16 or more input channels a group the blocked kernels
/// win everywhere (1.3-2x); with fewer (the RGB first layer, DCGAN's
/// single-channel images) the forward and the weight gradient win blocked
/// from 3 channels on but lose with one (up to 50x for the weight
/// gradient), and the input gradient loses 4x blocked. Where the preferred
/// layout has no fast kernel the other is tried.
///
/// Note [Small convolutions on im2col]
/// oneDNN pays a fixed cost per call whatever the size: the reorders into
/// and out of its layouts and the start of its OpenMP team, some 20-100 us
/// on two cores. A convolution under 8 Mi multiply-adds in float32 (DCGAN's
/// layers at batch 1, its 1-channel layers at batch 8) is done sooner by
/// im2col + GEMM: measured with wick_bench on two threads, im2col against
/// oneDNN took 6 against 50 us for a 1-channel 4x4 layer on one 28x28
/// image, and 130-290 against 240-480 us in at least two of the three
/// directions for the other DCGAN layers at batch 1 (tools/bench/README.md,
/// "Convolution"); above the bound oneDNN wins from about 37 Mi on. bfloat16
/// convolutions on im2col are converted to float32 and back, two more
/// passes, so their bound is 1 Mi: the 1-channel layers at batch 1 (9
/// against 50-190 us), not at batch 8. `backends::set_mkldnn_small_on_im2col
/// (false)` lets oneDNN take every size (its tests do).
///
/// Note [Winograd convolution on oneDNN]
/// float32 3x3 convolutions at stride 1 and dilation 1 with input and
/// output channels in multiples of 16 a group (most of ResNet's and VGG's
/// layers) run on oneDNN's Winograd F(4x4, 3x3) kernels (jit_wino_4x3),
/// in all three directions: they do 4x fewer multiplications than the
/// direct kernels and measured 1.5-2.5x faster on ResNet-50's 3x3 layers
/// here (tools/bench/README.md). Each call transforms the weights, 36
/// floats per pair of input and output channels: ResNet's 512 x 512 layer
/// on one 7x7 image (four tiles) took 1.5-3x libtorch's direct time for
/// it. So Winograd needs 32 output tiles of 4x4 over the batch, or
/// weights small enough (64 x 64 channels a group) to transform in L2.
/// The price is rounding: the transforms add
/// and subtract multiples of the inputs before the products, so the errors
/// are about ten times a direct sum's (measured against im2col: 4e-7 of
/// the output's largest magnitude, against 5e-8 for the direct kernels).
/// `backends::set_mkldnn_winograd(false)` turns it off;
/// PyTorch 1.13's CPU uses the direct kernels, bfloat16 has no Winograd in
/// oneDNN 2.6.
///
/// Building a primitive (choosing and JIT-compiling its kernel) costs far
/// more than a small convolution, so the primitives and their reorders are
/// kept in a cache keyed on the geometry, dtype and direction, shared by all
/// threads (a training loop's shapes repeat). Each call passes its own
/// scratchpad (oneDNN's user scratchpad mode), so one primitive may run on
/// several threads at once.
#pragma once

#include <optional>

#include <wick/meta_nn.h>
#include <wick/tensor.h>

namespace wick::cpu {

/// out[b] = alpha * a[b] @ m[b] + beta * out[b] for bfloat16 `a` [B, n, k],
/// `m` [B, k, p] (any strides) and contiguous `out` [B, n, p]; with beta 0
/// out's old contents are ignored. False, with `out` untouched, when oneDNN
/// cannot compute it (the caller falls back).
[[nodiscard]] bool onednn_matmul(const Tensor& a, const Tensor& m, const Tensor& out, double alpha, double beta);

/// out = conv(input, weight) + bias with the geometry `m` (the meta
/// function's), through oneDNN (Note [Convolution on oneDNN]). False, with
/// `out` untouched, when oneDNN is off, missing, or has no fast kernel for
/// the dtype and geometry: the caller computes it another way.
[[nodiscard]] bool onednn_convolution(const Conv2dMeta& m, const Tensor& out, const Tensor& input,
                                      const Tensor& weight, const std::optional<Tensor>& bias);

/// The adjoints: input (true) writes the input's gradient from the output's
/// gradient `grad` and the weight `other`; false writes the weight's
/// gradient from `grad` and the input `other`. False as above.
[[nodiscard]] bool onednn_convolution_backward(const Conv2dMeta& m, const Tensor& out, const Tensor& grad,
                                               const Tensor& other, bool input);

}  // namespace wick::cpu
