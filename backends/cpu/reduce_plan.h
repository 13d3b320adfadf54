// backends/cpu/reduce_plan.h - private: how a CPU reduction lays out its input.
/// \file
/// A reduction's meta function (Note [Reduction meta] in
/// wick/meta_reduction.h) settled the reduced dims and the dtype the input
/// is read in; `plan_rows` converts the input, permutes the kept dims to
/// the front and the reduced ones to the back and makes that contiguous,
/// so each output element is the reduction of one contiguous row of
/// `inner` elements: `rows[i * inner, (i + 1) * inner)`. Every reduction
/// kernel (reduce_ops.cpp, minmax_ops.cpp, stat_ops.cpp) works on rows.
#pragma once

#include <complex>

#include <cstdint>
#include <type_traits>

#include <wick/meta_reduction.h>
#include <wick/tensor.h>

namespace wick::cpu {

struct Plan {
  Tensor rows;  // contiguous [outer, inner]
  std::int64_t outer = 1;
  std::int64_t inner = 1;
};

/// The rows of `self` converted to `compute`, reduced over `r`.
Plan plan_rows(const Tensor& self, ScalarType compute, const ReducedDims& r);

/// The accumulator of T's sums and products: double for the floating types
/// (float16 and bfloat16 included), complex<double> for the complex ones,
/// int64 for the rest (integer sums and products wrap, as PyTorch's).
template <typename T>
using AccOf = std::conditional_t<is_complex_v<T>, std::complex<double>,
                                 std::conditional_t<is_floating_v<T>, double, std::int64_t>>;

/// Runs fn(target) with `out`, or with a tensor of `dtype` that is then
/// converted into `out`: the reductions write their rows' own dtype only.
template <typename Fn>
void write_as(const Tensor& out, ScalarType dtype, Fn&& fn) {
  if (out.dtype() == dtype) {
    fn(out);
    return;
  }
  const Tensor tmp = make_empty(out.sizes(), dtype, out.device());
  fn(tmp);
  Tensor o = out;
  o.copy_(tmp);
}

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

// Sum of at most kFloatBlock floats in 32 float lanes (four AVX vectors, or
// eight SSE ones), two levels deep: each run of 256 values is summed into
// fresh lanes (8 additions per lane), which are added into the block's lanes
// (16 additions per lane at most); the lanes are then folded pairwise.
inline constexpr std::int64_t kFloatBlock = 4096;
[[gnu::always_inline]] inline float float_block_body(const float* x, std::int64_t n) {
  float acc[32] = {};
  std::int64_t i = 0;
  for (; i + 256 <= n; i += 256) {
    float lane[32] = {};
    for (int k = 0; k < 256; k += 32)
      for (int j = 0; j < 32; ++j) lane[j] += x[i + k + j];
    for (int j = 0; j < 32; ++j) acc[j] += lane[j];
  }
  float lane[32] = {};
  for (; i + 32 <= n; i += 32)
    for (int j = 0; j < 32; ++j) lane[j] += x[i + j];
  for (int j = 0; j < 32; ++j) acc[j] += lane[j];
  float tail = 0;
  for (; i < n; ++i) tail += x[i];
  for (int w = 16; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  return acc[0] + tail;
}
inline float float_block_sum(const float* x, std::int64_t n) { return float_block_body(x, n); }
[[gnu::target("avx2,fma")]] inline float float_block_sum_avx2(const float* x, std::int64_t n) {
  return float_block_body(x, n);
}

/// Sum of `x[0, n)` in `Acc`, pairwise. A float row is summed in float
/// within blocks of kFloatBlock values (32 lanes, two levels of at most 8
/// and 16 additions, so the block's error stays near float's rounding
/// unit), and the block sums meet pairwise in `Acc`: the vector adds of a
/// float sum, nearly the accuracy of a double one.
template <typename Acc, typename T>
Acc pairwise_sum(const T* x, std::int64_t n) {
  if constexpr (std::is_same_v<T, float>) {
    if (n <= kFloatBlock) {
      static const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
      return static_cast<Acc>(avx2 ? float_block_sum_avx2(x, n) : float_block_sum(x, n));
    }
    const std::int64_t h = (n / 2 + 31) / 32 * 32;  // halves on lane boundaries
    return pairwise_sum<Acc>(x, h) + pairwise_sum<Acc>(x + h, n - h);
  } else {
    return pairwise_sum<Acc>(x, n, [](T v) { return static_cast<Acc>(v); });
  }
}

}  // namespace wick::cpu
