// backends/cpu/reduce_ops.cpp - sum and mean over all or some dims.
/// \file
/// Each output element is the reduction of one contiguous row (see
/// reduce_plan.h). Rows are summed pairwise in double (floats) or int64 (integers), which
/// keeps float32 sums of millions of elements accurate.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "cpu_kernels.h"
#include "loops.h"
#include "reduce_plan.h"

namespace wick::cpu {

Plan plan_reduction(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  const std::int64_t nd = self.dim();
  std::vector<bool> reduce(static_cast<std::size_t>(nd), !dim || dim->empty());
  if (dim && !dim->empty()) {
    for (std::int64_t d : *dim) {
      const std::int64_t w = wrap_dim(d, nd);
      if (nd == 0) continue;
      WICK_CHECK(!reduce[w], RuntimeError, op, ": dim ", w, " appears multiple times in the list of dims");
      reduce[w] = true;
    }
  }
  Plan p;
  DimVector perm;
  for (std::int64_t d = 0; d < nd; ++d) {
    if (reduce[d]) continue;
    perm.push_back(d);
    p.outer *= self.sizes()[d];
    if (!keepdim) p.out_shape.push_back(self.sizes()[d]);
  }
  if (keepdim) {
    p.out_shape.assign(self.sizes());
    for (std::int64_t d = 0; d < nd; ++d)
      if (reduce[d]) p.out_shape[d] = 1;
  }
  for (std::int64_t d = 0; d < nd; ++d) {
    if (reduce[d]) {
      perm.push_back(d);
      p.inner *= self.sizes()[d];
    }
  }
  p.rows = nd == 0 ? self.contiguous() : self.permute(perm).contiguous();
  return p;
}

namespace {

// A sum reads one operand and writes nothing per element, several times
// less work per element than an elementwise loop: it takes 4x kGrainSize
// elements (Note [Grain size]) before a second thread pays for waking it.
constexpr std::int64_t kSumGrain = 4 * kGrainSize;

// out[i] = scale * sum(rows[i, :]) in the output dtype.
void reduce_rows(const Plan& p, const Tensor& out, double scale, const char* op) {
  visit_dtype(p.rows.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    using Acc = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;
    const T* in = static_cast<const T*>(p.rows.data_ptr());
    visit_dtype(out.dtype(), op, [&](auto out_tag) {
      using O = decltype(out_tag);
      O* o = static_cast<O*>(out.data_ptr());
      auto store = [&](std::int64_t i, Acc s) {
        o[i] = scale == 1.0 ? static_cast<O>(s) : static_cast<O>(static_cast<double>(s) * scale);
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

Tensor sum(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "torch.sum";
  const ScalarType out_t = dtype ? *dtype : is_floating(self.dtype()) ? self.dtype() : ScalarType::kInt64;
  Plan p = plan_reduction(op, as_dtype(self, dtype.value_or(self.dtype())), dim, keepdim);
  Tensor out = make_empty(p.out_shape, out_t, self.device());
  reduce_rows(p, out, 1.0, op);
  return out;
}

Tensor mean(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "torch.mean";
  const ScalarType out_t = dtype.value_or(self.dtype());
  WICK_CHECK(is_floating(out_t), RuntimeError, op,
             ": mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
             "dtype. Got: ", type_title(out_t));
  Plan p = plan_reduction(op, as_dtype(self, out_t), dim, keepdim);
  Tensor out = make_empty(p.out_shape, out_t, self.device());
  const double scale = p.inner == 0 ? std::nan("") : 1.0 / static_cast<double>(p.inner);
  reduce_rows(p, out, scale, op);
  return out;
}

}  // namespace

void register_reduce_ops(Library& torch) { torch.impl("sum", &sum).impl("mean", &mean); }

}  // namespace wick::cpu
