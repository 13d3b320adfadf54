// backends/cpu/reduce_plan.h - private: how a CPU reduction lays out its input.
/// \file
/// A reduction permutes the kept dims to the front and the reduced ones to
/// the back (`plan_reduction`), so each output element is the reduction of
/// one contiguous row of `inner` elements: `rows[i * inner, (i + 1) * inner)`.
/// Every reduction kernel (reduce_ops.cpp, reduce_extra_ops.cpp) works on rows.
#pragma once

#include <cstdint>
#include <optional>

#include <wick/dim_vector.h>
#include <wick/tensor.h>

namespace wick::cpu {

struct Plan {
  DimVector out_shape;
  Tensor rows;  // contiguous [outer, inner]
  std::int64_t outer = 1;
  std::int64_t inner = 1;
};

/// Plans reducing `dim` (none or empty: every dim) of `self`. RuntimeError
/// for a repeated dim, IndexError for one out of range, naming `op`.
Plan plan_reduction(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim);

/// Sum of `f(x[i])` over `[0, n)` in `Acc`, pairwise (accurate for long
/// float rows). Blocks of up to 256 values are summed in 8 independent lanes,
/// which the compiler turns into vector adds.
template <typename Acc, typename T, typename F>
Acc pairwise_sum(const T* x, std::int64_t n, F f) {
  if (n <= 256) {
    Acc lane[8] = {};
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int j = 0; j < 8; ++j) lane[j] += f(x[i + j]);
    Acc tail = 0;
    for (; i < n; ++i) tail += f(x[i]);
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7])) + tail;
  }
  const std::int64_t h = n / 2;
  return pairwise_sum<Acc>(x, h, f) + pairwise_sum<Acc>(x + h, n - h, f);
}

template <typename Acc, typename T>
Acc pairwise_sum(const T* x, std::int64_t n) {
  return pairwise_sum<Acc>(x, n, [](T v) { return static_cast<Acc>(v); });
}

}  // namespace wick::cpu
