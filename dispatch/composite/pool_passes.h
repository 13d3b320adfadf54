// dispatch/composite/pool_passes.h - private: the separable pooling passes shared by the composite poolings.
/// \file
/// Note [Pooling one dim at a time] (pool_nd_ops.cpp) explains the passes;
/// these are what pool_nd_ops.cpp and fractional_pool_ops.cpp share. Pooled
/// inputs are (N, C, S...): `with_batch` gives an unbatched one its batch dim.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "wick/dim_vector.h"
#include "wick/dtype.h"
#include "wick/meta_nn.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick::pool {

inline constexpr std::uint32_t kFloatDouble = dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64);

/// Refuses a dtype outside `allowed` in PyTorch 1.13's words for its CPU
/// kernel `kernel` (`"max_pool3d_with_indices_cpu" not implemented for 'Half'`).
void check_dtype(const char* kernel, ScalarType t, std::uint32_t allowed);

/// One value per spatial dim: a single value stands for all `n`.
[[nodiscard]] DimVector per_dim(IntArrayRef v, std::size_t n);

/// The last `n` of `sizes` (n <= sizes.size()).
[[nodiscard]] IntArrayRef last_dims(IntArrayRef sizes, std::size_t n);

/// Max pooling of x (N, C, S...) over one (out, k) tap table per spatial dim
/// (int64 positions along that dim; (N, C, out, k) for per-plane taps), the
/// last dim first: the maxima, and the flat index of each in its plane or volume.
[[nodiscard]] std::pair<Tensor, Tensor> max_over(const Tensor& x, const std::vector<Tensor>& taps);

/// The average of x (N, C, S...) over the windows of `dims`, one per spatial
/// dim (kAverage or kAdaptive), divided once by each box's count or by
/// `divisor_override`; an integer quotient is truncated.
[[nodiscard]] Tensor average_over(const Tensor& x, const std::vector<PoolDim>& dims,
                                  std::optional<std::int64_t> divisor_override);

/// A (C, S...) input as (1, C, S...) for `spatial` spatial dims; `batched` says which it was.
[[nodiscard]] Tensor with_batch(const Tensor& input, std::size_t spatial, bool& batched);
/// Both results without the batch dim `with_batch` added.
[[nodiscard]] std::pair<Tensor, Tensor> unbatch(std::pair<Tensor, Tensor> r, bool batched);
/// The maxima, or with return_indices the (maxima, indices) tuple.
[[nodiscard]] Value maybe_pair(const std::pair<Tensor, Tensor>& r, bool return_indices);

/// F.adaptive_*'s output_size for `n` spatial dims as PyTorch's Python reads
/// it: an int is every size; in a list, None keeps the input's size there.
/// TypeError naming `name` ("adaptive_max_pool2d") for anything else.
[[nodiscard]] DimVector adaptive_sizes(const char* name, const Tensor& input, const Value& output_size, std::size_t n);

/// Whether x or the output has no elements (PyTorch allows empty batches and outputs).
[[nodiscard]] bool empty_pool(const Tensor& x, IntArrayRef out_spatial);
/// (N, C, out...) of a batched x.
[[nodiscard]] DimVector pooled_shape(const Tensor& x, IntArrayRef out_spatial);
/// Empty maxima and indices of the pooled shape.
[[nodiscard]] std::pair<Tensor, Tensor> empty_max(const Tensor& x, IntArrayRef out_spatial);

}  // namespace wick::pool
