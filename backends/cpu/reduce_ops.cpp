// backends/cpu/reduce_ops.cpp - sum and mean over all or some dims.
/// \file
/// The computation of sum and mean, whose meta functions
/// (dispatch/ops/meta_reduction.cpp) checked the arguments and settled the
/// reduced dims and dtypes. Each output element is the reduction of one
/// contiguous row (see reduce_plan.h). Rows are summed pairwise in double
/// (floats) or int64 (integers), which keeps float32 sums of millions of
/// elements accurate.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include <wick/gen/torch_kernels.h>
#include "loops.h"
#include "reduce_plan.h"

namespace wick::cpu {

Plan plan_rows(const Tensor& self, ScalarType compute, const ReducedDims& r) {
  const Tensor x = as_dtype(self, compute);
  const std::int64_t nd = x.dim();
  Plan p;
  p.inner = r.inner;
  const DimVector perm = r.permutation(nd);
  for (std::size_t i = 0; i + r.dims.size() < perm.size(); ++i) p.outer *= x.sizes()[perm[i]];
  p.rows = nd == 0 ? x.contiguous() : x.permute(perm).contiguous();
  return p;
}

namespace {

// A sum reads one operand and writes nothing per element, several times
// less work per element than an elementwise loop: it takes 4x kGrainSize
// elements (Note [Grain size]) before a second thread pays for waking it.
constexpr std::int64_t kSumGrain = 4 * kGrainSize;

// out[i] = scale * sum(rows[i, :]) in the output dtype.
void reduce_rows(const Plan& p, const Tensor& out_in, double scale, const char* op) {
  visit_dtype<dtypes::kAllAndComplex>(p.rows.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using Acc = AccOf<T>;
    const T* in = static_cast<const T*>(p.rows.data_ptr());
    // Integer sums are written as int64 (their widened dtype), the others in
    // the rows' dtype; any other output dtype gets a converted copy.
    using O = std::conditional_t<std::is_integral_v<Acc>, std::int64_t, T>;
    write_as(out_in, cpp_to_dtype<O>, [&](const Tensor& out) {
      O* o = static_cast<O*>(out.data_ptr());
      auto store = [&](std::int64_t i, Acc s) {
        if constexpr (std::is_integral_v<Acc>) {
          o[i] = scale == 1.0 ? s : convert<O>(static_cast<double>(s) * scale);
        } else {
          o[i] = convert<O>(scale == 1.0 ? s : s * scale);
        }
      };
      if (p.outer == 1 && p.inner >= 2 * kSumGrain) {
        // One long row: fixed blocks summed in parallel, then their sums
        // pairwise. The block size, not the thread count, fixes the order of
        // additions, so the result is the same on any number of threads.
        const std::int64_t blocks = (p.inner + kSumGrain - 1) / kSumGrain;
        std::vector<Acc> partial(static_cast<std::size_t>(blocks));
        parallel_for(blocks, 2, [&](std::int64_t b0, std::int64_t b1) {
          for (std::int64_t b = b0; b < b1; ++b) {
            const std::int64_t start = b * kSumGrain;
            partial[b] = pairwise_sum<Acc>(in + start, std::min(kSumGrain, p.inner - start));
          }
        });
        store(0, pairwise_sum<Acc>(partial.data(), blocks));
        return;
      }
      const std::int64_t grain = std::max<std::int64_t>(1, kSumGrain / std::max<std::int64_t>(p.inner, 1));
      parallel_for(p.outer, grain, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t i = r0; i < r1; ++i) store(i, pairwise_sum<Acc>(in + i * p.inner, p.inner));
      });
    });
  });
}

// Note [Column sums]
// A sum over the leading dims of a contiguous input (every bias gradient:
// [N, C] -> [C]) reads each output element's inputs `cols` apart. Made into
// rows (plan_rows), the whole input would first be copied through a
// transposition; it was 40% of an LSTM's training step. Instead each thread
// takes blocks of columns and adds the rows into double accumulators, in
// one pass over memory. Row sums accumulate in double too, so both round to
// the same float but for the rarest ties.
constexpr std::int64_t kColumnBlock = 256;

bool sum_columns(const ReductionMeta& m, const Tensor& self, const Tensor& out, double scale) {
  const ReducedDims& r = m.reduced;
  const auto k = static_cast<std::int64_t>(r.dims.size());
  const ScalarType t = self.dtype();
  if (k == 0 || k >= self.dim() || !self.is_contiguous() || t != m.compute) return false;
  if (t != ScalarType::kFloat32 && t != ScalarType::kFloat64) return false;
  for (std::int64_t i = 0; i < k; ++i) {
    if (r.dims[static_cast<std::size_t>(i)] != i) return false;
  }
  const std::int64_t rows = r.inner;
  if (rows < 2 || self.numel() == 0) return false;
  const std::int64_t cols = self.numel() / rows;
  if (cols < 16) return false;
  visit_dtype<dtypes::kFloating>(t, "sum_cpu", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      const T* in = static_cast<const T*>(self.data_ptr());
      write_as(out, t, [&](const Tensor& target) {
        T* dst = static_cast<T*>(target.data_ptr());
        const std::int64_t blocks = ceil_div(cols, kColumnBlock, "sum_cpu");
        // Each block reads rows * kColumnBlock elements.
        const std::int64_t grain = std::max<std::int64_t>(1, kSumGrain / std::max<std::int64_t>(rows * kColumnBlock, 1));
        parallel_for(blocks, grain, [&](std::int64_t b0, std::int64_t b1) {
          double acc[kColumnBlock];
          for (std::int64_t b = b0; b < b1; ++b) {
            const std::int64_t c0 = b * kColumnBlock;
            const std::int64_t n = std::min(kColumnBlock, cols - c0);
            std::fill(acc, acc + n, 0.0);
            for (std::int64_t i = 0; i < rows; ++i) {
              const T* row = in + i * cols + c0;
              for (std::int64_t j = 0; j < n; ++j) acc[j] += static_cast<double>(row[j]);
            }
            for (std::int64_t j = 0; j < n; ++j) dst[c0 + j] = static_cast<T>(scale == 1.0 ? acc[j] : acc[j] * scale);
          }
        });
      });
    }
  });
  return true;
}

}  // namespace

void sum(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> /*dim*/,
         bool /*keepdim*/, std::optional<ScalarType> /*dtype*/) {
  if (sum_columns(m, self, out, 1.0)) return;
  reduce_rows(plan_rows(self, m.compute, m.reduced), out, 1.0, "sum_cpu");
}

void mean(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> /*dim*/,
          bool /*keepdim*/, std::optional<ScalarType> /*dtype*/) {
  if (m.reduced.inner > 0 && sum_columns(m, self, out, 1.0 / static_cast<double>(m.reduced.inner))) return;
  const Plan p = plan_rows(self, m.compute, m.reduced);
  const double scale = p.inner == 0 ? std::nan("") : 1.0 / static_cast<double>(p.inner);
  reduce_rows(p, out, scale, "mean_cpu");
}

}  // namespace wick::cpu
