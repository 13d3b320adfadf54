// backends/cpu/stat_ops.cpp - prod, var, std, norm, logsumexp, cumsum and cumprod.
/// \file
/// Arithmetic reductions over the rows of a reduction plan (reduce_plan.h),
/// accumulated in double for floating inputs and int64 for integers, and the
/// two scans, which move the scanned dim last and run along contiguous rows.
/// Result dtypes as PyTorch: prod, cumsum and cumprod of integers (and bools)
/// give int64 unless a dtype is asked for (the input is converted to it
/// first); var, std and norm take floating inputs only; logsumexp computes
/// integers in float32.
#include <cmath>
#include <limits>
#include <type_traits>

#include "cpu_kernels.h"
#include "loops.h"
#include "reduce_plan.h"

namespace wick::cpu {
namespace {

// The accumulator of T: double for floating point, int64 for the rest.
template <typename T>
using AccOf = std::conditional_t<std::is_floating_point_v<T>, double, std::int64_t>;

// Integer products and sums wrap around (as PyTorch's do) instead of overflowing.
inline std::int64_t mul_acc(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
inline double mul_acc(double a, double b) { return a * b; }
inline std::int64_t add_acc(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline double add_acc(double a, double b) { return a + b; }

// PyTorch's dtype for sum-like results: integers (bool included) widen to int64.
ScalarType widened(ScalarType t, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_floating(t) ? t : ScalarType::kInt64;
}

// out[i] = f(row i, inner) in the output dtype, rows in their own dtype.
template <typename F>
void map_rows(const char* op, const Plan& p, const Tensor& out, F f) {
  visit_dtype(p.rows.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = p.rows.data_ptr<T>();
    visit_dtype(out.dtype(), op, [&](auto out_tag) {
      using O = decltype(out_tag);
      O* o = out.data_ptr<O>();
      for (std::int64_t i = 0; i < p.outer; ++i) o[i] = static_cast<O>(f(in + i * p.inner, p.inner));
    });
  });
}

Tensor prod_plan(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  const ScalarType out_t = widened(self.dtype(), dtype);
  Plan p = plan_reduction(op, as_dtype(self, out_t), dim, keepdim);
  Tensor out = make_empty(p.out_shape, out_t, self.device());
  map_rows(op, p, out, [](const auto* x, std::int64_t n) {
    using Acc = AccOf<std::remove_cvref_t<decltype(*x)>>;
    Acc r = 1;
    for (std::int64_t j = 0; j < n; ++j) r = mul_acc(r, static_cast<Acc>(x[j]));
    return r;
  });
  return out;
}

Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) {
  return prod_plan("torch.prod", self, std::nullopt, false, dtype);
}

Tensor prod_dim(const Tensor& self, std::int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  const std::int64_t dims[] = {dim};
  return prod_plan("torch.prod", self, IntArrayRef(dims, 1), keepdim, dtype);
}

// --- var / std ----------------------------------------------------------------------

// The sum of squared deviations from the mean over max(0, n - correction):
// two passes in double. An empty row gives NaN; n <= correction gives inf
// (or NaN when every deviation is zero), as PyTorch.
template <bool kStd>
Tensor var_std(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<std::int64_t> correction,
               bool keepdim) {
  const char* op = kStd ? "torch.std" : "torch.var";
  WICK_CHECK(is_floating(self.dtype()), RuntimeError, op,
             ": std and var only support floating point and complex dtypes");
  const double c = static_cast<double>(correction.value_or(1));
  Plan p = plan_reduction(op, self, dim, keepdim);
  Tensor out = make_empty(p.out_shape, self.dtype(), self.device());
  map_rows(op, p, out, [c](const auto* x, std::int64_t n) {
    using T = std::remove_cvref_t<decltype(*x)>;
    const double mean = pairwise_sum<double>(x, n) / static_cast<double>(n);
    const double ss = pairwise_sum<double>(x, n, [mean](T v) {
      const double d = static_cast<double>(v) - mean;
      return d * d;
    });
    const double var = ss / std::max(0.0, static_cast<double>(n) - c);
    return kStd ? std::sqrt(var) : var;
  });
  return out;
}

// --- norm -----------------------------------------------------------------------------

// The p-norm of a row: max|x| (inf), min|x| (-inf), the count of non-zeros
// (0), else (sum |x|^p)^(1/p). The empty row's norm is 0, whatever p.
template <typename T>
double row_norm(const T* x, std::int64_t n, double p) {
  if (n == 0) return 0.0;
  if (std::isinf(p)) {
    double r = p > 0 ? 0.0 : std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < n; ++j) {
      const double a = std::abs(static_cast<double>(x[j]));
      if (std::isnan(a)) return a;
      r = p > 0 ? std::max(r, a) : std::min(r, a);
    }
    return r;
  }
  if (p == 0.0) return pairwise_sum<double>(x, n, [](T v) { return v != T(0) ? 1.0 : 0.0; });
  if (p == 1.0) return pairwise_sum<double>(x, n, [](T v) { return std::abs(static_cast<double>(v)); });
  if (p == 2.0) {
    return std::sqrt(pairwise_sum<double>(x, n, [](T v) { return static_cast<double>(v) * static_cast<double>(v); }));
  }
  const double s = pairwise_sum<double>(x, n, [p](T v) { return std::pow(std::abs(static_cast<double>(v)), p); });
  return std::pow(s, 1.0 / p);
}

Tensor norm_plan(const Tensor& self, const std::optional<Scalar>& p, std::optional<IntArrayRef> dim, bool keepdim) {
  const char* op = "torch.norm";
  WICK_CHECK(is_floating(self.dtype()), RuntimeError, op,
             ": norm(): input dtype should be either floating point or complex. Got ", type_title(self.dtype()),
             " instead.");
  const double pv = p ? p->to<double>() : 2.0;
  Plan plan = plan_reduction(op, self, dim, keepdim);
  Tensor out = make_empty(plan.out_shape, self.dtype(), self.device());
  map_rows(op, plan, out, [pv](const auto* x, std::int64_t n) { return row_norm(x, n, pv); });
  return out;
}

Tensor norm(const Tensor& self, const Scalar& p) { return norm_plan(self, p, std::nullopt, false); }

Tensor norm_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  return norm_plan(self, p, dim, keepdim);
}

// --- logsumexp ---------------------------------------------------------------------------

// log(sum(exp(x - m))) + m with m the row's max (0 when it is infinite, so
// that all -inf gives -inf and a +inf gives inf); an empty row gives -inf.
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const char* op = "torch.logsumexp";
  const ScalarType out_t = is_floating(self.dtype()) ? self.dtype() : ScalarType::kFloat32;
  Plan p = plan_reduction(op, as_dtype(self, out_t), dim, keepdim);
  Tensor out = make_empty(p.out_shape, out_t, self.device());
  map_rows(op, p, out, [](const auto* x, std::int64_t n) {
    using T = std::remove_cvref_t<decltype(*x)>;
    double m = -std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < n; ++j) {
      const double v = static_cast<double>(x[j]);
      if (std::isnan(v)) return v;
      m = std::max(m, v);
    }
    if (std::isinf(m)) m = 0.0;
    const double s = pairwise_sum<double>(x, n, [m](T v) { return std::exp(static_cast<double>(v) - m); });
    return std::log(s) + m;
  });
  return out;
}

// --- cumsum / cumprod ------------------------------------------------------------------------

template <bool kProd>
Tensor scan(const Tensor& self, std::int64_t dim, std::optional<ScalarType> dtype) {
  const char* op = kProd ? "torch.cumprod" : "torch.cumsum";
  const ScalarType out_t = widened(self.dtype(), dtype);
  const std::int64_t nd = self.dim();
  const std::int64_t d = wrap_dim(dim, nd);
  const std::int64_t last = nd == 0 ? 0 : nd - 1;
  // Rows along `d`: swap it with the last dim, scan, swap back.
  Tensor rows = as_dtype(self, out_t);
  if (d != last) rows = rows.transpose(d, last);
  rows = rows.contiguous();
  Tensor out = make_empty(rows.sizes(), out_t, self.device());
  const std::int64_t inner = nd == 0 ? 1 : rows.sizes()[last];
  const std::int64_t outer = inner == 0 ? 0 : rows.numel() / inner;
  visit_dtype(out_t, op, [&](auto tag) {
    using T = decltype(tag);
    using Acc = AccOf<T>;
    const T* in = rows.data_ptr<T>();
    T* o = out.data_ptr<T>();
    for (std::int64_t i = 0; i < outer; ++i) {
      Acc acc = kProd ? 1 : 0;
      for (std::int64_t j = 0; j < inner; ++j) {
        const Acc v = static_cast<Acc>(in[i * inner + j]);
        acc = kProd ? mul_acc(acc, v) : add_acc(acc, v);
        o[i * inner + j] = static_cast<T>(acc);
      }
    }
  });
  if (d != last) out = out.transpose(d, last).contiguous();
  return out;
}

}  // namespace

void register_stat_ops(Library& torch) {
  torch.impl("prod", &prod)
      .impl("prod.dim_int", &prod_dim)
      .impl("var.correction", &var_std<false>)
      .impl("std.correction", &var_std<true>)
      .impl("norm", &norm)
      .impl("norm.ScalarOpt_dim", &norm_dim)
      .impl("logsumexp", &logsumexp)
      .impl("cumsum", &scan<false>)
      .impl("cumprod", &scan<true>);
}

}  // namespace wick::cpu
