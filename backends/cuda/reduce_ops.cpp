// backends/cuda/reduce_ops.cpp - host side of the CUDA reductions and scans.
/// \file
/// The computation of sum, mean, prod, var, std, norm, logsumexp, max/min
/// (all and .dim), amax, amin, argmax, argmin, all, any, cumsum and
/// cumprod, whose meta functions (dispatch/ops/meta_reduction.cpp) checked
/// the arguments and settled the reduced dims and dtypes (Note [Reduction
/// meta]), as for the CPU backend. Each one lays its input out as contiguous
/// rows (`plan_rows`: the kept dims first, the reduced ones last, copied
/// only when that view is not contiguous already) and launches one row
/// reduction or scan (reduce_kernels.h). The Meta backend is derived
/// (Note [Structured kernels]).
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

#include <wick/meta_reduction.h>
#include <wick/tensor_util.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "elementwise_host.h"
#include "reduce_kernels.h"

namespace wick::cuda_backend {
namespace {

struct Plan {
  Tensor rows;  // contiguous [outer, inner], on the device
  std::int64_t outer = 1;
  std::int64_t inner = 1;
};

// The rows of `self` converted to `compute`, reduced over `r`. A dtype
// without device loops (complex) is refused first, naming PyTorch's CUDA
// `kernel` ("sum_cuda"): every real dtype reduces (float16 and bfloat16
// in float32, Note [16-bit floats on the device]).
Plan plan_rows(const char* kernel, const Tensor& self, ScalarType compute, const ReducedDims& r) {
  (void)to_dtype(self.dtype(), kernel);
  (void)to_dtype(compute, kernel);
  const Tensor x = as_dtype(self, compute);
  const std::int64_t nd = x.dim();
  Plan p;
  p.inner = r.inner;
  if (nd == 0) {
    p.rows = x;
    return p;
  }
  const DimVector perm = r.permutation(nd);
  DimVector sizes;
  DimVector strides;
  for (std::size_t i = 0; i < perm.size(); ++i) {
    sizes.push_back(x.sizes()[perm[i]]);
    strides.push_back(x.strides()[perm[i]]);
    if (i + r.dims.size() < perm.size()) p.outer *= x.sizes()[perm[i]];
  }
  p.rows = contiguous_on_device(make_view(x, sizes, strides, x.storage_offset()));
  return p;
}

// Runs `r` over the plan's rows into `out` (values; may be undefined) and
// `index` (kMax/kMin: indices; may be undefined).
void reduce_rows(const char* op, RowReduce r, const Plan& p, const Tensor& out, const Tensor& index = Tensor()) {
  if (p.outer == 0) return;
  r.in_dtype = to_dtype(p.rows.dtype(), op);
  r.in = p.rows.data_ptr();
  r.rows = p.outer;
  r.row_len = p.inner;
  if (out.defined()) {
    r.out = out.data_ptr();
    r.out_dtype = to_dtype(out.dtype(), op);
  }
  if (index.defined()) r.out_index = static_cast<std::int64_t*>(index.data_ptr());
  const Device device = p.rows.device();
  DeviceGuard guard(device);
  Tensor workspace;  // released when the work is enqueued: the allocator orders reuse on the stream
  const std::size_t bytes = row_reduce_workspace_bytes(r);
  if (bytes != 0) {
    const std::int64_t words = static_cast<std::int64_t>((bytes + 7) / 8);
    workspace = make_empty(IntArrayRef(&words, 1), ScalarType::kInt64, device);
    r.workspace = workspace.data_ptr();
  }
  launch_row_reduce(r, current_stream());
  check_launch(op);
}

RowReduce make_reduce(ReduceOp op) {
  RowReduce r;
  r.op = op;
  return r;
}

// --- sum, mean, prod ------------------------------------------------------------------------

}  // namespace

void sum(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> /*dim*/,
         bool /*keepdim*/, std::optional<ScalarType> /*dtype*/) {
  reduce_rows("torch.sum", make_reduce(ReduceOp::kSum), plan_rows("sum_cuda", self, m.compute, m.reduced), out);
}

void mean(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> /*dim*/,
          bool /*keepdim*/, std::optional<ScalarType> /*dtype*/) {
  const Plan p = plan_rows("mean_cuda", self, m.compute, m.reduced);
  RowReduce r = make_reduce(ReduceOp::kSum);
  r.scale = p.inner == 0 ? std::nan("") : 1.0 / static_cast<double>(p.inner);
  reduce_rows("torch.mean", r, p, out);
}

void prod(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<ScalarType> /*dtype*/) {
  reduce_rows("torch.prod", make_reduce(ReduceOp::kProd), plan_rows("prod_cuda", self, m.compute, m.reduced), out);
}

// The meta function folded the dim into m.reduced.
void prod_dim_int(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::int64_t /*dim*/, bool /*keepdim*/,
                  std::optional<ScalarType> dtype) {
  prod(m, out, self, dtype);
}

namespace {

// --- var, std, norm, logsumexp ----------------------------------------------------------------

// The sum of squared deviations over max(0, n - correction): NaN for an
// empty row, inf (or NaN) when n <= correction, as the CPU kernel.
void var_rows(const char* op, bool take_sqrt, const ReductionMeta& m, const Tensor& out, const Tensor& self,
              std::optional<std::int64_t> correction) {
  RowReduce r = make_reduce(ReduceOp::kVar);
  r.param = static_cast<double>(correction.value_or(1));
  r.take_sqrt = take_sqrt;
  reduce_rows(op, r, plan_rows(take_sqrt ? "std_cuda" : "var_cuda", self, m.compute, m.reduced), out);
}

}  // namespace

// A row reduction whose parameter is p, resolved by the meta function.
void norm_ScalarOpt_dim(const NormMeta& m, const Tensor& out, const Tensor& self, const std::optional<Scalar>& /*p*/,
                        IntArrayRef /*dim*/, bool /*keepdim*/) {
  RowReduce r = make_reduce(ReduceOp::kNorm);
  r.param = m.p;
  reduce_rows("torch.norm", r, plan_rows("norm_cuda", self, m.compute, m.reduced), out);
}

// Two passes: each row's max (NaN wins), then log(sum(exp(x - max))) + max.
void logsumexp(const ReductionMeta& m, const Tensor& out, const Tensor& self, IntArrayRef /*dim*/, bool /*keepdim*/) {
  const char* op = "torch.logsumexp";
  const ScalarType out_t = m.out.dtype;
  const Plan p = plan_rows("logsumexp_cuda", self, m.compute, m.reduced);
  if (p.outer == 0) return;
  if (p.inner == 0) {  // log(0): -inf for every row
    const ElementwiseArgs args = make_args(out.sizes(), {&out}, op);
    DeviceGuard guard(out.device());
    launch_fill(to_dtype(out_t, op), args, scalar_value(-std::numeric_limits<double>::infinity(), out_t),
                current_stream());
    check_launch(op);
    return;
  }
  const std::int64_t outer = p.outer;
  const Tensor row_max = make_empty(IntArrayRef(&outer, 1), out_t, self.device());
  reduce_rows(op, make_reduce(ReduceOp::kMax), p, row_max);
  RowReduce r = make_reduce(ReduceOp::kLogSumExp);
  r.row_max = row_max.data_ptr();
  reduce_rows(op, r, p, out);
}

namespace {

// --- cumsum, cumprod ---------------------------------------------------------------------------

// `t` with dims a and b swapped (a view).
Tensor swapped(const Tensor& t, std::int64_t a, std::int64_t b) {
  DimVector sizes(t.sizes());
  DimVector strides(t.strides());
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return make_view(t, sizes, strides, t.storage_offset());
}

}  // namespace

// Rows along the scanned dim: it is swapped with the last one, scanned into
// contiguous rows, and swapped back into `out` (written directly when the
// dim is the last one already).
void scan(const ScanMeta& m, const Tensor& out, const Tensor& self, std::int64_t /*dim*/,
          std::optional<ScalarType> /*dtype*/, bool prod) {
  const char* op = prod ? "torch.cumprod" : "torch.cumsum";
  const char* kernel = prod ? "cumprod_cuda" : "cumsum_cuda";
  (void)to_dtype(self.dtype(), kernel);
  const DType dtype = to_dtype(m.compute, kernel);
  const std::int64_t nd = self.dim();
  const std::int64_t d = m.dim;
  const std::int64_t last = nd == 0 ? 0 : nd - 1;
  Tensor rows = as_dtype(self, m.compute);
  if (d != last) rows = swapped(rows, d, last);
  rows = contiguous_on_device(rows);
  const Tensor scanned = d == last ? out : make_empty(rows.sizes(), m.compute, out.device());
  RowScan s;
  s.prod = prod;
  s.dtype = dtype;
  s.row_len = nd == 0 ? 1 : rows.sizes()[last];
  s.rows = s.row_len == 0 ? 0 : rows.numel() / s.row_len;
  if (s.rows == 0) return;
  s.in = rows.data_ptr();
  s.out = scanned.data_ptr();
  DeviceGuard guard(out.device());
  launch_row_scan(s, current_stream());
  check_launch(op);
  if (d != last) copy_within_device(out, swapped(scanned, d, last));
}

namespace {

// --- max, min, amax, amin, argmax, argmin --------------------------------------------------------

template <bool kMax>
constexpr ReduceOp select_op() {
  return kMax ? ReduceOp::kMax : ReduceOp::kMin;
}

// --- all, any ----------------------------------------------------------------------------------

}  // namespace

void var_correction(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> /*dim*/,
                    std::optional<std::int64_t> correction, bool /*keepdim*/) {
  var_rows("torch.var", /*take_sqrt=*/false, m, out, self, correction);
}
void std_correction(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> /*dim*/,
                    std::optional<std::int64_t> correction, bool /*keepdim*/) {
  var_rows("torch.std", /*take_sqrt=*/true, m, out, self, correction);
}
void max(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  reduce_rows("torch.max", make_reduce(select_op<true>()), plan_rows("max_cuda", self, m.compute, m.reduced), out);
}
void min(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  reduce_rows("torch.min", make_reduce(select_op<false>()), plan_rows("min_cuda", self, m.compute, m.reduced), out);
}
void max_dim(const ReductionWithIndicesMeta& m, const std::array<Tensor, 2>& outs, const Tensor& self,
             std::int64_t /*dim*/, bool /*keepdim*/) {
  reduce_rows("torch.max", make_reduce(select_op<true>()), plan_rows("max_cuda", self, m.compute, m.reduced), outs[0],
              outs[1]);
}
void min_dim(const ReductionWithIndicesMeta& m, const std::array<Tensor, 2>& outs, const Tensor& self,
             std::int64_t /*dim*/, bool /*keepdim*/) {
  reduce_rows("torch.min", make_reduce(select_op<false>()), plan_rows("min_cuda", self, m.compute, m.reduced), outs[0],
              outs[1]);
}
void amax(const ReductionMeta& m, const Tensor& out, const Tensor& self, IntArrayRef /*dim*/, bool /*keepdim*/) {
  reduce_rows("torch.amax", make_reduce(select_op<true>()), plan_rows("amax_cuda", self, m.compute, m.reduced), out);
}
void amin(const ReductionMeta& m, const Tensor& out, const Tensor& self, IntArrayRef /*dim*/, bool /*keepdim*/) {
  reduce_rows("torch.amin", make_reduce(select_op<false>()), plan_rows("amin_cuda", self, m.compute, m.reduced), out);
}
void argmax(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<std::int64_t> /*dim*/,
            bool /*keepdim*/) {
  reduce_rows("torch.argmax", make_reduce(select_op<true>()), plan_rows("argmax_cuda", self, m.compute, m.reduced),
              Tensor(), out);
}
void argmin(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<std::int64_t> /*dim*/,
            bool /*keepdim*/) {
  reduce_rows("torch.argmin", make_reduce(select_op<false>()), plan_rows("argmin_cuda", self, m.compute, m.reduced),
              Tensor(), out);
}
void all(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  reduce_rows("torch.all", make_reduce(ReduceOp::kAll), plan_rows("all_cuda", self, m.compute, m.reduced), out);
}
void any(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  reduce_rows("torch.any", make_reduce(ReduceOp::kAny), plan_rows("any_cuda", self, m.compute, m.reduced), out);
}
void all_dim(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::int64_t /*dim*/, bool /*keepdim*/) {
  all(m, out, self);
}
void any_dim(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::int64_t /*dim*/, bool /*keepdim*/) {
  any(m, out, self);
}

}  // namespace wick::cuda_backend
