// backends/cuda/reduce_ops.cpp - host side of the CUDA reductions and scans.
/// \file
/// sum, mean, prod, var, std, norm, logsumexp, max/min (all and .dim), amax,
/// amin, argmax, argmin, all, any, cumsum and cumprod, with the CPU kernels'
/// signatures, checks, messages and result dtypes (backends/cpu/
/// reduce_ops.cpp, minmax_ops.cpp, stat_ops.cpp). Each one lays its input
/// out as contiguous rows (`plan_reduction`: the kept dims first, the
/// reduced ones last, copied only when that view is not contiguous already)
/// and launches one row reduction or scan (reduce_kernels.h).
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include <wick/tensor_util.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "elementwise_host.h"
#include "reduce_kernels.h"

namespace wick::cuda_backend {
namespace {

struct Plan {
  DimVector out_shape;
  Tensor rows;  // contiguous [outer, inner], on the device
  std::int64_t outer = 1;
  std::int64_t inner = 1;
};

// Reducing `dim` (none or empty: every dim) of `self`: RuntimeError for a
// repeated dim, IndexError (wrap_dim) for one out of range, naming `op`.
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
  DimVector sizes;
  DimVector strides;
  for (int pass = 0; pass < 2; ++pass) {  // kept dims, then reduced ones
    for (std::int64_t d = 0; d < nd; ++d) {
      if (reduce[d] != (pass == 1)) continue;
      sizes.push_back(self.sizes()[d]);
      strides.push_back(self.strides()[d]);
      (pass == 0 ? p.outer : p.inner) *= self.sizes()[d];
      if (pass == 0 && !keepdim) p.out_shape.push_back(self.sizes()[d]);
    }
  }
  if (keepdim) {
    p.out_shape.assign(self.sizes());
    for (std::int64_t d = 0; d < nd; ++d)
      if (reduce[d]) p.out_shape[d] = 1;
  }
  p.rows = nd == 0 ? self : contiguous_on_device(make_view(self, sizes, strides, self.storage_offset()));
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

// PyTorch's dtype for sum-like results: integers (bool included) widen to int64.
ScalarType widened(ScalarType t, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_floating(t) ? t : ScalarType::kInt64;
}

Tensor sum(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "torch.sum";
  const ScalarType out_t = widened(self.dtype(), dtype);
  const Plan p = plan_reduction(op, as_dtype(self, dtype.value_or(self.dtype())), dim, keepdim);
  Tensor out = make_empty(p.out_shape, out_t, self.device());
  reduce_rows(op, make_reduce(ReduceOp::kSum), p, out);
  return out;
}

Tensor mean(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "torch.mean";
  const ScalarType out_t = dtype.value_or(self.dtype());
  WICK_CHECK(is_floating(out_t), RuntimeError, op,
             ": mean(): could not infer output dtype. Input dtype must be either a floating point or complex "
             "dtype. Got: ",
             type_title(out_t));
  const Plan p = plan_reduction(op, as_dtype(self, out_t), dim, keepdim);
  Tensor out = make_empty(p.out_shape, out_t, self.device());
  RowReduce r = make_reduce(ReduceOp::kSum);
  r.scale = p.inner == 0 ? std::nan("") : 1.0 / static_cast<double>(p.inner);
  reduce_rows(op, r, p, out);
  return out;
}

Tensor prod_plan(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  const ScalarType out_t = widened(self.dtype(), dtype);
  const Plan p = plan_reduction(op, as_dtype(self, out_t), dim, keepdim);
  Tensor out = make_empty(p.out_shape, out_t, self.device());
  reduce_rows(op, make_reduce(ReduceOp::kProd), p, out);
  return out;
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  return prod_plan("torch.prod", self, std::nullopt, false, dtype);
}

Tensor prod_dim(const Tensor& self, std::int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  const std::int64_t dims[] = {dim};
  return prod_plan("torch.prod", self, IntArrayRef(dims, 1), keepdim, dtype);
}

// --- var, std, norm, logsumexp ----------------------------------------------------------------

// The sum of squared deviations over max(0, n - correction): NaN for an
// empty row, inf (or NaN) when n <= correction, as the CPU kernel.
template <bool kStd>
Tensor var_std(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<std::int64_t> correction,
               bool keepdim) {
  const char* op = kStd ? "torch.std" : "torch.var";
  WICK_CHECK(is_floating(self.dtype()), RuntimeError, op,
             ": std and var only support floating point and complex dtypes");
  const Plan p = plan_reduction(op, self, dim, keepdim);
  Tensor out = make_empty(p.out_shape, self.dtype(), self.device());
  RowReduce r = make_reduce(ReduceOp::kVar);
  r.param = static_cast<double>(correction.value_or(1));
  r.take_sqrt = kStd;
  reduce_rows(op, r, p, out);
  return out;
}

Tensor norm_plan(const Tensor& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim, bool keepdim) {
  const char* op = "torch.norm";
  WICK_CHECK(is_floating(self.dtype()), RuntimeError, op,
             ": norm(): input dtype should be either floating point or complex. Got ", type_title(self.dtype()),
             " instead.");
  const Plan plan = plan_reduction(op, self, dim, keepdim);
  Tensor out = make_empty(plan.out_shape, self.dtype(), self.device());
  RowReduce r = make_reduce(ReduceOp::kNorm);
  r.param = p ? p->to<double>() : 2.0;
  reduce_rows(op, r, plan, out);
  return out;
}

Tensor norm(const Tensor& self, const Scalar& p) { return norm_plan(self, p, std::nullopt, false); }

Tensor norm_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  return norm_plan(self, p, dim, keepdim);
}

// Two passes: each row's max (NaN wins), then log(sum(exp(x - max))) + max.
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const char* op = "torch.logsumexp";
  const ScalarType out_t = is_floating(self.dtype()) ? self.dtype() : ScalarType::kFloat32;
  const Plan p = plan_reduction(op, as_dtype(self, out_t), dim, keepdim);
  Tensor out = make_empty(p.out_shape, out_t, self.device());
  if (p.outer == 0) return out;
  if (p.inner == 0) {  // log(0): -inf for every row
    const ElementwiseArgs args = make_args(out.sizes(), {&out}, op);
    DeviceGuard guard(out.device());
    launch_fill(to_dtype(out_t, op), args, scalar_value(-std::numeric_limits<double>::infinity(), out_t),
                current_stream());
    check_launch(op);
    return out;
  }
  const std::int64_t outer = p.outer;
  const Tensor row_max = make_empty(IntArrayRef(&outer, 1), out_t, self.device());
  reduce_rows(op, make_reduce(ReduceOp::kMax), p, row_max);
  RowReduce r = make_reduce(ReduceOp::kLogSumExp);
  r.row_max = row_max.data_ptr();
  reduce_rows(op, r, p, out);
  return out;
}

// --- cumsum, cumprod ---------------------------------------------------------------------------

// `t` with dims a and b swapped (a view).
Tensor swapped(const Tensor& t, std::int64_t a, std::int64_t b) {
  DimVector sizes(t.sizes());
  DimVector strides(t.strides());
  std::swap(sizes[a], sizes[b]);
  std::swap(strides[a], strides[b]);
  return make_view(t, sizes, strides, t.storage_offset());
}

template <bool kProd>
Tensor scan(const Tensor& self, std::int64_t dim, std::optional<ScalarType> dtype) {
  const char* op = kProd ? "torch.cumprod" : "torch.cumsum";
  const ScalarType out_t = widened(self.dtype(), dtype);
  const std::int64_t nd = self.dim();
  const std::int64_t d = wrap_dim(dim, nd);
  const std::int64_t last = nd == 0 ? 0 : nd - 1;
  // Rows along `d`: swap it with the last dim, scan, swap back.
  Tensor rows = as_dtype(self, out_t);
  if (d != last) rows = swapped(rows, d, last);
  rows = contiguous_on_device(rows);
  Tensor out = make_empty(rows.sizes(), out_t, self.device());
  RowScan s;
  s.prod = kProd;
  s.dtype = to_dtype(out_t, op);
  s.row_len = nd == 0 ? 1 : rows.sizes()[last];
  s.rows = s.row_len == 0 ? 0 : rows.numel() / s.row_len;
  if (s.rows != 0) {
    s.in = rows.data_ptr();
    s.out = out.data_ptr();
    DeviceGuard guard(out.device());
    launch_row_scan(s, current_stream());
    check_launch(op);
  }
  if (d != last) out = contiguous_on_device(swapped(out, d, last));
  return out;
}

// --- max, min, amax, amin, argmax, argmin --------------------------------------------------------

// `name(): Expected reduction dim to be specified ...` for an empty tensor
// reduced as a whole (argmax's message is shorter and an IndexError).
void check_whole_nonempty(const char* op, const char* name, const Tensor& self, bool index_error) {
  if (self.numel() != 0) return;
  if (index_error)
    throw IndexError(
        detail::str_cat(op, ": ", name, "(): Expected reduction dim to be specified for input.numel() == 0."));
  throw RuntimeError(detail::str_cat(op, ": ", name,
                                     "(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                                     "the reduction dim with the 'dim' argument."));
}

// Every reduced dim must have a non-zero size.
void check_dims_nonempty(const char* op, const char* name, const Tensor& self, IntArrayRef dims) {
  if (self.dim() == 0) return;
  for (std::int64_t d : dims) {
    const std::int64_t w = wrap_dim(d, self.dim());
    WICK_CHECK(self.sizes()[w] != 0, IndexError, op, ": ", name, "(): Expected reduction dim ", w,
               " to have non-zero size.");
  }
}

template <bool kMax>
constexpr const char* name_of() {
  return kMax ? "max" : "min";
}

template <bool kMax>
constexpr ReduceOp select_op() {
  return kMax ? ReduceOp::kMax : ReduceOp::kMin;
}

template <bool kMax>
Tensor extreme_all(const Tensor& self) {
  const char* op = kMax ? "torch.max" : "torch.min";
  check_whole_nonempty(op, name_of<kMax>(), self, false);
  const Plan p = plan_reduction(op, self, std::nullopt, false);
  Tensor out = make_empty(p.out_shape, self.dtype(), self.device());
  reduce_rows(op, make_reduce(select_op<kMax>()), p, out);
  return out;
}

template <bool kMax>
std::tuple<Tensor, Tensor> extreme_dim(const Tensor& self, std::int64_t dim, bool keepdim) {
  const char* op = kMax ? "torch.max" : "torch.min";
  const std::int64_t dims[] = {dim};
  const Plan p = plan_reduction(op, self, IntArrayRef(dims, 1), keepdim);
  check_dims_nonempty(op, name_of<kMax>(), self, IntArrayRef(dims, 1));
  Tensor values = make_empty(p.out_shape, self.dtype(), self.device());
  Tensor indices = make_empty(p.out_shape, ScalarType::kInt64, self.device());
  reduce_rows(op, make_reduce(select_op<kMax>()), p, values, indices);
  return {values, indices};
}

template <bool kMax>
Tensor amax_amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const char* op = kMax ? "torch.amax" : "torch.amin";
  const char* name = kMax ? "amax" : "amin";
  const Plan p = plan_reduction(op, self, dim, keepdim);
  if (dim.empty()) {
    check_whole_nonempty(op, name, self, false);
  } else {
    check_dims_nonempty(op, name, self, dim);
  }
  Tensor out = make_empty(p.out_shape, self.dtype(), self.device());
  reduce_rows(op, make_reduce(select_op<kMax>()), p, out);
  return out;
}

template <bool kMax>
Tensor arg_extreme(const Tensor& self, std::optional<std::int64_t> dim, bool keepdim) {
  const char* op = kMax ? "torch.argmax" : "torch.argmin";
  const char* name = kMax ? "argmax" : "argmin";
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"", name, "_cuda\" not implemented for 'Bool'");
  Plan p;
  if (dim) {
    const std::int64_t dims[] = {*dim};
    p = plan_reduction(op, self, IntArrayRef(dims, 1), keepdim);
    check_dims_nonempty(op, name, self, IntArrayRef(dims, 1));
  } else {
    check_whole_nonempty(op, name, self, true);
    // The index into the flattened tensor; keepdim keeps every dim, as size 1.
    p = plan_reduction(op, self, std::nullopt, keepdim);
  }
  Tensor out = make_empty(p.out_shape, ScalarType::kInt64, self.device());
  reduce_rows(op, make_reduce(select_op<kMax>()), p, Tensor(), out);
  return out;
}

// --- all, any ----------------------------------------------------------------------------------

template <bool kAll>
Tensor all_any_rows(const char* op, const Plan& p, Device device) {
  Tensor out = make_empty(p.out_shape, ScalarType::kBool, device);
  reduce_rows(op, make_reduce(kAll ? ReduceOp::kAll : ReduceOp::kAny), p, out);
  return out;
}

template <bool kAll>
Tensor all_any(const Tensor& self) {
  const char* op = kAll ? "torch.all" : "torch.any";
  return all_any_rows<kAll>(op, plan_reduction(op, self, std::nullopt, false), self.device());
}

template <bool kAll>
Tensor all_any_dim(const Tensor& self, std::int64_t dim, bool keepdim) {
  const char* op = kAll ? "torch.all" : "torch.any";
  const std::int64_t dims[] = {dim};
  return all_any_rows<kAll>(op, plan_reduction(op, self, IntArrayRef(dims, 1), keepdim), self.device());
}

}  // namespace

void register_reduce_ops(Library& torch) {
  torch.impl("sum", &sum).impl("mean", &mean);
  torch.impl("prod", &prod)
      .impl("prod.dim_int", &prod_dim)
      .impl("var.correction", &var_std<false>)
      .impl("std.correction", &var_std<true>)
      .impl("norm", &norm)
      .impl("norm.ScalarOpt_dim", &norm_dim)
      .impl("logsumexp", &logsumexp)
      .impl("cumsum", &scan<false>)
      .impl("cumprod", &scan<true>);
  torch.impl("max", &extreme_all<true>)
      .impl("min", &extreme_all<false>)
      .impl("max.dim", &extreme_dim<true>)
      .impl("min.dim", &extreme_dim<false>)
      .impl("amax", &amax_amin<true>)
      .impl("amin", &amax_amin<false>)
      .impl("argmax", &arg_extreme<true>)
      .impl("argmin", &arg_extreme<false>)
      .impl("all", &all_any<true>)
      .impl("any", &all_any<false>)
      .impl("all.dim", &all_any_dim<true>)
      .impl("any.dim", &all_any_dim<false>);
}

}  // namespace wick::cuda_backend
