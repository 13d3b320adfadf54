// backends/cuda/nn_kernels.h - private: activation, nll_loss, layer_norm and interpolate_taps launchers over plain structs.
/// \file
/// Plain C++: included by nn_ops.cpp and by nvcc (Note [CUDA backend
/// layout] in cuda_common.h). Tensors arrive contiguous; each launcher
/// queues on `stream` and leaves checking the launch to the caller.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace wick::cuda_backend {

/// kFloat16 and kBFloat16 are computed in float32 (sums in double, as
/// float32's) and rounded once.
enum class NnType : std::int32_t { kFloat32 = 0, kFloat64 = 1, kFloat16 = 2, kBFloat16 = 3 };

/// The elementwise activations of torch.nn.functional, with the CPU's formulas.
enum class Activation : std::int32_t {
  kLeakyRelu = 0,
  kElu = 1,
  kGeluErf = 2,
  kGeluTanh = 3,
  kSilu = 4,
  kLogSigmoid = 5,
};

/// y[i] = f(x[i]) for n elements; `param` is leaky_relu's slope or elu's alpha.
void launch_activation(Activation kind, NnType type, const void* x, void* y, std::int64_t n, double param,
                       cudaStream_t stream);

/// nll_loss over input [n, c, s] and target [n, s] (targets already checked
/// to be in [0, c) or ignore_index). reduction 0: out [n, s] per element;
/// 1 (mean) or 2 (sum): out a scalar, sums kept in double in `scratch` (2
/// doubles on the device); the mean is total / weight sum (0/0 is NaN).
struct NllArgs {
  const void* input = nullptr;
  const std::int64_t* target = nullptr;
  const void* weight = nullptr;  // [c] or null
  void* out = nullptr;
  double* scratch = nullptr;
  NnType type = NnType::kFloat32;
  std::int64_t n = 0, c = 0, s = 0;
  std::int64_t ignore_index = -100;
  int reduction = 0;
};
void launch_nll_loss(const NllArgs& args, cudaStream_t stream);

/// layer_norm of m rows of n: mean and variance from double sums around the
/// row's first element, y = T((x - mean) * rstd) * w + b (w, b optional).
struct LayerNormArgs {
  const void* x = nullptr;
  const void* weight = nullptr;
  const void* bias = nullptr;
  void* y = nullptr;
  NnType type = NnType::kFloat32;
  std::int64_t m = 0, n = 0;
  double eps = 1e-5;
};
void launch_layer_norm(const LayerNormArgs& args, cudaStream_t stream);

/// One pass of F.interpolate (aten.interpolate_taps): out, seen as [outer,
/// n, inner], row i of each outer slice is the sum over k < taps of the
/// input's row index[k * n + i] (input [outer, rows_in, inner]) times
/// weight[k * n + i]; each product and partial sum rounded to the dtype,
/// as the CPU's. Indices already checked to be in [0, rows_in).
struct InterpolateTapsArgs {
  NnType type = NnType::kFloat32;
  const void* in = nullptr;
  void* out = nullptr;
  const std::int64_t* index = nullptr;
  const void* weight = nullptr;
  std::int64_t outer = 0, n = 0, rows_in = 0, inner = 0, taps = 0;
};
void launch_interpolate_taps(const InterpolateTapsArgs& args, cudaStream_t stream);

/// Its backward: `out` (the input's gradient, [outer, rows_in, inner],
/// zeroed by the caller) gets each row i of `in` (the output's gradient,
/// [outer, n, inner]) times weight[k * n + i] (1 when `weight` is null)
/// added to its row index[k * n + i], with atomic adds.
void launch_interpolate_taps_backward(const InterpolateTapsArgs& args, cudaStream_t stream);

}  // namespace wick::cuda_backend
