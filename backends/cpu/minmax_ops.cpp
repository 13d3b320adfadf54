// backends/cpu/minmax_ops.cpp - max, min, amax, amin, argmax, argmin, all and any.
/// \file
/// Selection reductions over the rows of a reduction plan (reduce_plan.h);
/// their meta functions (dispatch/ops/meta_reduction.cpp) checked the
/// arguments: reducing an empty tensor without a dim (or over a dim of size
/// zero) is an error there, since there is no identity. As PyTorch: NaN
/// wins a max or min (the first NaN's index is reported), ties report the
/// first occurrence.
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include <wick/gen/torch_kernels.h>
#include "loops.h"
#include "reduce_plan.h"

namespace wick::cpu {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (is_floating_v<T>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Index of the extreme of x[0, n) (n > 0): the first NaN, else the first
// occurrence of the largest (kMax) or smallest value.
template <bool kMax, typename T>
std::int64_t extreme_index(const T* x, std::int64_t n) {
  std::int64_t best = 0;
  if (is_nan(x[0])) return 0;
  for (std::int64_t j = 1; j < n; ++j) {
    const T v = x[j];
    if (is_nan(v)) return j;
    if (kMax ? v > x[best] : v < x[best]) best = j;
  }
  return best;
}

// The extreme value of x[0, n) (n > 0), NaN if any (for max(), amax: no
// index is needed). Sixteen independent lanes of selects, which the
// compiler vectorises; a NaN lane stays NaN (no comparison replaces it).
template <bool kMax, typename T>
[[gnu::always_inline]] inline T extreme_value(const T* x, std::int64_t n) {
  constexpr std::int64_t kLanes = 16;
  auto pick = [](T m, T v) { return (is_nan(v) || (kMax ? v > m : v < m)) ? v : m; };
  T m = x[0];
  std::int64_t j = 1;
  if (n >= 2 * kLanes) {
    T acc[kLanes];
    for (std::int64_t l = 0; l < kLanes; ++l) acc[l] = x[l];
    for (j = kLanes; j + kLanes <= n; j += kLanes) {
#pragma omp simd
      for (std::int64_t l = 0; l < kLanes; ++l) {
        const T v = x[j + l];
        // v != v: NaN (never true for integers), which then stays.
        acc[l] = ((kMax ? v > acc[l] : v < acc[l]) || v != v) ? v : acc[l];  // NOLINT(misc-redundant-expression)
      }
    }
    m = acc[0];
    for (std::int64_t l = 0; l < kLanes; ++l) m = pick(m, acc[l]);
  }
  for (; j < n; ++j) m = pick(m, x[j]);
  return m;
}

// The same scan compiled for the baseline and for AVX2 (Note [Vector code paths]).
template <bool kMax, typename T>
T extreme_value_run(const T* x, std::int64_t n) {
  return extreme_value<kMax>(x, n);
}
template <bool kMax, typename T>
[[gnu::target("avx2,fma")]] T extreme_value_avx2(const T* x, std::int64_t n) {
  return extreme_value<kMax>(x, n);
}

// Values only (max(), amax, amin): the rows split over the threads, and
// one long row (a full reduction) cut into one chunk per thread, whose
// extremes are combined as extreme_value combines its lanes (NaN wins).
template <bool kMax, typename T>
void extreme_values(const T* in, T* v, std::int64_t outer, std::int64_t inner) {
  const bool avx2 = cpu_has_avx2();
  const auto scan = [avx2](const T* x, std::int64_t n) {
    return avx2 ? extreme_value_avx2<kMax>(x, n) : extreme_value_run<kMax>(x, n);
  };
  if (outer == 1 && inner >= 2 * kGrainSize) {
    const std::int64_t chunks = std::min<std::int64_t>(team_size(), inner / kGrainSize);
    const std::int64_t step = ceil_div(inner, chunks, "max");
    const auto part = std::make_unique<T[]>(static_cast<std::size_t>(chunks));  // not vector<bool>
    parallel_for(chunks, 1, [&](std::int64_t c0, std::int64_t c1) {
      for (std::int64_t c = c0; c < c1; ++c) {
        const std::int64_t lo = c * step;
        part[c] = scan(in + lo, std::min(step, inner - lo));
      }
    });
    *v = extreme_value<kMax>(part.get(), chunks);
    return;
  }
  parallel_for(outer, std::max<std::int64_t>(1, kGrainSize / std::max<std::int64_t>(inner, 1)),
               [&](std::int64_t r0, std::int64_t r1) {
                 for (std::int64_t i = r0; i < r1; ++i) v[i] = scan(in + i * inner, inner);
               });
}

// values[i] = rows[i, extreme], indices[i] = extreme (either may be undefined).
template <bool kMax>
void select_rows(const char* op, const Plan& p, const Tensor& values, const Tensor& indices) {
  visit_dtype(p.rows.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = p.rows.data_ptr<T>();
    T* v = values.defined() ? values.data_ptr<T>() : nullptr;
    std::int64_t* ix = indices.defined() ? indices.data_ptr<std::int64_t>() : nullptr;
    if (ix == nullptr) {
      extreme_values<kMax>(in, v, p.outer, p.inner);
      return;
    }
    for (std::int64_t i = 0; i < p.outer; ++i) {
      const T* row = in + i * p.inner;
      const std::int64_t k = extreme_index<kMax>(row, p.inner);
      if (v != nullptr) v[i] = row[k];
      ix[i] = k;
    }
  });
}

// all (kAll) or any over rows; the result is bool (uint8 for uint8 input,
// as PyTorch 1.13), 0 or 1 in one byte either way.
template <bool kAll>
void all_any_rows(const char* op, const Plan& p, const Tensor& out) {
  bool* o = static_cast<bool*>(out.data_ptr());
  visit_dtype<dtypes::kAllAndComplex>(p.rows.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = p.rows.data_ptr<T>();
    for (std::int64_t i = 0; i < p.outer; ++i) {
      const T* row = in + i * p.inner;
      bool r = kAll;
      for (std::int64_t j = 0; j < p.inner; ++j) {
        if ((row[j] != T(0)) != kAll) {  // complex: either part nonzero
          r = !kAll;
          break;
        }
      }
      o[i] = r;
    }
  });
}

}  // namespace

void max(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  select_rows<true>("max_all", plan_rows(self, m.compute, m.reduced), out, Tensor());
}
void min(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  select_rows<false>("min_all", plan_rows(self, m.compute, m.reduced), out, Tensor());
}
void max_dim(const ReductionWithIndicesMeta& m, const std::array<Tensor, 2>& outs, const Tensor& self,
             std::int64_t /*dim*/, bool /*keepdim*/) {
  select_rows<true>("max_cpu", plan_rows(self, m.compute, m.reduced), outs[0], outs[1]);
}
void min_dim(const ReductionWithIndicesMeta& m, const std::array<Tensor, 2>& outs, const Tensor& self,
             std::int64_t /*dim*/, bool /*keepdim*/) {
  select_rows<false>("min_cpu", plan_rows(self, m.compute, m.reduced), outs[0], outs[1]);
}
void amax(const ReductionMeta& m, const Tensor& out, const Tensor& self, IntArrayRef /*dim*/, bool /*keepdim*/) {
  select_rows<true>("max_values_cpu", plan_rows(self, m.compute, m.reduced), out, Tensor());
}
void amin(const ReductionMeta& m, const Tensor& out, const Tensor& self, IntArrayRef /*dim*/, bool /*keepdim*/) {
  select_rows<false>("min_values_cpu", plan_rows(self, m.compute, m.reduced), out, Tensor());
}
void argmax(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<std::int64_t> /*dim*/,
            bool /*keepdim*/) {
  select_rows<true>("argmax_cpu", plan_rows(self, m.compute, m.reduced), Tensor(), out);
}
void argmin(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<std::int64_t> /*dim*/,
            bool /*keepdim*/) {
  select_rows<false>("argmin_cpu", plan_rows(self, m.compute, m.reduced), Tensor(), out);
}
void all(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  all_any_rows<true>("all_cpu", plan_rows(self, m.compute, m.reduced), out);
}
void any(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  all_any_rows<false>("any_cpu", plan_rows(self, m.compute, m.reduced), out);
}
void all_dim(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::int64_t /*dim*/, bool /*keepdim*/) {
  all(m, out, self);
}
void any_dim(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::int64_t /*dim*/, bool /*keepdim*/) {
  any(m, out, self);
}

}  // namespace wick::cpu
