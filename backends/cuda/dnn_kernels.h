// backends/cuda/dnn_kernels.h - private: softmax and pooling launchers over plain structs.
/// \file
/// Plain C++: included by dnn_ops.cpp and by nvcc (Note [CUDA backend
/// layout] in cuda_common.h). Tensors arrive contiguous; sizes and offsets
/// are 64-bit. Each launcher queues its kernel on `stream` and launches
/// nothing for an empty result; the caller checks the launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace wick::cuda_backend {

/// Element types of these kernels (int64 only for avg_pool2d's forward).
/// kInt64: average pooling's forward only.
enum class DnnType : std::int32_t { kFloat32 = 0, kFloat64 = 1, kInt64 = 2, kFloat16 = 3, kBFloat16 = 4 };

/// y = softmax (or log_softmax) of x along the middle dim of [outer, n, inner].
struct SoftmaxArgs {
  const void* x = nullptr;
  void* y = nullptr;
  DnnType type = DnnType::kFloat32;
  std::int64_t outer = 0, n = 0, inner = 0;
  bool log = false;
};
void launch_softmax(const SoftmaxArgs& args, cudaStream_t stream);

/// Average pooling over planes of [h, w] into [oh, ow] outputs, by window
/// tables the host computed: `windows` holds (start, end, count) for the oh
/// output rows, then for the ow output columns; `ranges` (backward only)
/// holds (first, end) output indices whose windows contain each of the h
/// input rows, then each of the w input columns. The divisor of output
/// (y, x) is `divisor` when `has_divisor`, else count(y) * count(x).
struct AvgPoolArgs {
  const void* src = nullptr;  // forward: input [planes, h, w]; backward: grad [planes, oh, ow]
  void* dst = nullptr;        // forward: output [planes, oh, ow]; backward: grad_input [planes, h, w]
  DnnType type = DnnType::kFloat32;
  std::int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  const std::int64_t* windows = nullptr;
  const std::int64_t* ranges = nullptr;
  bool has_divisor = false;
  std::int64_t divisor = 1;
};
void launch_avg_pool_forward(const AvgPoolArgs& args, cudaStream_t stream);
/// Writes every element of dst (no zeroing needed).
void launch_avg_pool_backward(const AvgPoolArgs& args, cudaStream_t stream);

/// Max pooling with PyTorch's flat (h * w + w) indices; a NaN wins.
struct MaxPoolArgs {
  const void* x = nullptr;
  void* y = nullptr;
  std::int64_t* indices = nullptr;
  DnnType type = DnnType::kFloat32;
  std::int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
};
void launch_max_pool(const MaxPoolArgs& args, cudaStream_t stream);

}  // namespace wick::cuda_backend
