// backends/cpu/stat_ops.cpp - prod, var, std, norm, logsumexp, cumsum and cumprod.
/// \file
/// Arithmetic reductions over the rows of a reduction plan (reduce_plan.h),
/// accumulated in double for floating inputs and int64 for integers, and the
/// two scans, which move the scanned dim last and run along contiguous rows.
/// Their meta functions (dispatch/ops/meta_reduction.cpp) checked the
/// arguments and gave the dtypes, as PyTorch's: prod, cumsum and cumprod of
/// integers (and bools) give int64 unless a dtype is asked for (the input is
/// converted to it first); var, std and norm take floating inputs only;
/// logsumexp computes integers in float32.
#include <cmath>
#include <limits>
#include <type_traits>

#include <wick/gen/torch_kernels.h>
#include "loops.h"
#include "reduce_plan.h"

namespace wick::cpu {
namespace {

// Integer products and sums wrap around (as PyTorch's do) instead of overflowing.
inline std::int64_t mul_acc(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) * static_cast<std::uint64_t>(b));
}
inline double mul_acc(double a, double b) { return a * b; }
inline std::complex<double> mul_acc(std::complex<double> a, std::complex<double> b) { return a * b; }
inline std::int64_t add_acc(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}
inline double add_acc(double a, double b) { return a + b; }
inline std::complex<double> add_acc(std::complex<double> a, std::complex<double> b) { return a + b; }

// out[i] = f(row i, inner) in the output dtype, rows in their own dtype.
// The real type of a complex one (T itself otherwise).
template <typename T>
struct ComplexParts {
  using type = T;
};
template <typename T>
struct ComplexParts<std::complex<T>> {
  using type = T;
};

template <std::uint32_t kSet = dtypes::kAll, typename F>
void map_rows(const char* op, const Plan& p, const Tensor& out_in, F f) {
  visit_dtype<kSet>(p.rows.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    // A real statistic of complex rows (var, norm) is written in the real dtype.
    using R = decltype(f(static_cast<const T*>(nullptr), std::int64_t{0}));
    using O = std::conditional_t<is_complex_v<T> && !is_complex_v<R>, compute_type_t<typename ComplexParts<T>::type>, T>;
    const T* in = p.rows.data_ptr<T>();
    write_as(out_in, cpp_to_dtype<O>, [&](const Tensor& out) {
      O* o = out.data_ptr<O>();
      for (std::int64_t i = 0; i < p.outer; ++i) o[i] = convert<O>(f(in + i * p.inner, p.inner));
    });
  });
}

void prod_rows(const ReductionMeta& m, const Tensor& out, const Tensor& self) {
  map_rows<dtypes::kAllAndComplex>("prod_cpu", plan_rows(self, m.compute, m.reduced), out, [](const auto* x, std::int64_t n) {
    using Acc = AccOf<std::remove_cvref_t<decltype(*x)>>;
    Acc r = 1;
    for (std::int64_t j = 0; j < n; ++j) r = mul_acc(r, static_cast<Acc>(x[j]));
    return r;
  });
}

}  // namespace

void prod(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<ScalarType> /*dtype*/) {
  prod_rows(m, out, self);
}

void prod_dim_int(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::int64_t /*dim*/, bool /*keepdim*/,
                  std::optional<ScalarType> /*dtype*/) {
  prod_rows(m, out, self);
}

namespace {

// --- var / std ----------------------------------------------------------------------

// The sum of squared deviations from the mean over max(0, n - correction):
// two passes in double. An empty row gives NaN; n <= correction gives inf
// (or NaN when every deviation is zero), as PyTorch.
template <bool kStd>
void var_std(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> /*dim*/,
             std::optional<std::int64_t> correction, bool /*keepdim*/) {
  const char* op = "std_var_cpu";
  const double c = static_cast<double>(correction.value_or(1));
  const Plan p = plan_rows(self, m.compute, m.reduced);
  // A complex row's variance is the mean squared distance from its mean: real.
  map_rows<dtypes::kAllAndComplex>(op, p, out, [c](const auto* x, std::int64_t n) {
    using T = std::remove_cvref_t<decltype(*x)>;
    using Acc = std::conditional_t<is_complex_v<T>, std::complex<double>, double>;
    const Acc mean = pairwise_sum<Acc>(x, n) / static_cast<double>(n);
    const double ss = pairwise_sum<double>(x, n, [mean](T v) {
      const Acc d = static_cast<Acc>(v) - mean;
      return std::norm(d);
    });
    const double var = ss / std::max(0.0, static_cast<double>(n) - c);
    return kStd ? std::sqrt(var) : var;
  });
}

// --- norm -----------------------------------------------------------------------------

// The p-norm of a row: max|x| (inf), min|x| (-inf), the count of non-zeros
// (0), else (sum |x|^p)^(1/p). The empty row's norm is 0, whatever p.
template <typename T>
double magnitude(T v) {
  if constexpr (is_complex_v<T>) {
    return std::abs(std::complex<double>(v));
  } else {
    return std::abs(static_cast<double>(v));
  }
}

template <typename T>
double row_norm(const T* x, std::int64_t n, double p) {
  if (n == 0) return 0.0;
  if (std::isinf(p)) {
    double r = p > 0 ? 0.0 : std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < n; ++j) {
      const double a = magnitude(x[j]);
      if (std::isnan(a)) return a;
      r = p > 0 ? std::max(r, a) : std::min(r, a);
    }
    return r;
  }
  if (p == 0.0) return pairwise_sum<double>(x, n, [](T v) { return v != T(0) ? 1.0 : 0.0; });
  if (p == 1.0) return pairwise_sum<double>(x, n, [](T v) { return magnitude(v); });
  if (p == 2.0) {
    return std::sqrt(pairwise_sum<double>(x, n, [](T v) {
      const double a = magnitude(v);
      return a * a;
    }));
  }
  const double s = pairwise_sum<double>(x, n, [p](T v) { return std::pow(magnitude(v), p); });
  return std::pow(s, 1.0 / p);
}

}  // namespace

// The meta function resolved p (None: 2).
void norm_ScalarOpt_dim(const NormMeta& m, const Tensor& out, const Tensor& self, const std::optional<Scalar>& /*p*/,
                        IntArrayRef /*dim*/, bool /*keepdim*/) {
  map_rows<dtypes::kAllAndComplex>("norm_cpu", plan_rows(self, m.compute, m.reduced), out,
           [p = m.p](const auto* x, std::int64_t n) { return row_norm(x, n, p); });
}

// --- logsumexp ---------------------------------------------------------------------------

// log(sum(exp(x - hi))) + hi with hi the row's max (0 when it is infinite, so
// that all -inf gives -inf and a +inf gives inf); an empty row gives -inf.
void logsumexp(const ReductionMeta& m, const Tensor& out, const Tensor& self, IntArrayRef /*dim*/, bool /*keepdim*/) {
  const char* op = "logsumexp";
  const Plan p = plan_rows(self, m.compute, m.reduced);
  map_rows(op, p, out, [](const auto* x, std::int64_t n) {
    using T = std::remove_cvref_t<decltype(*x)>;
    double hi = -std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < n; ++j) {
      const double v = static_cast<double>(x[j]);
      if (std::isnan(v)) return v;
      hi = std::max(hi, v);
    }
    if (std::isinf(hi)) hi = 0.0;
    const double s = pairwise_sum<double>(x, n, [hi](T v) { return std::exp(static_cast<double>(v) - hi); });
    return std::log(s) + hi;
  });
}

namespace {

// --- cumsum / cumprod ------------------------------------------------------------------------

// Rows along the scanned dim: it is swapped with the last one, scanned into
// contiguous rows, and swapped back into `out` (written directly when the
// dim is the last one already).
template <bool kProd>
void scan_rows(const ScanMeta& m, const Tensor& out, const Tensor& self, std::int64_t /*dim*/,
               std::optional<ScalarType> /*dtype*/) {
  const char* op = kProd ? "cumprod_out_cpu" : "cumsum_out_cpu";
  const std::int64_t nd = self.dim();
  const std::int64_t d = m.dim;
  const std::int64_t last = nd == 0 ? 0 : nd - 1;
  Tensor rows = as_dtype(self, m.compute);
  if (d != last) rows = rows.transpose(d, last);
  rows = rows.contiguous();
  const Tensor scanned = d == last ? out : make_empty(rows.sizes(), m.compute, out.device());
  const std::int64_t inner = nd == 0 ? 1 : rows.sizes()[last];
  const std::int64_t outer = inner == 0 ? 0 : rows.numel() / inner;
  visit_dtype<dtypes::kAllAndComplex>(m.compute, op, [&](auto tag) {
    using T = decltype(tag);
    using Acc = AccOf<T>;
    const T* in = rows.data_ptr<T>();
    T* o = scanned.data_ptr<T>();
    for (std::int64_t i = 0; i < outer; ++i) {
      Acc acc = kProd ? 1 : 0;
      for (std::int64_t j = 0; j < inner; ++j) {
        const Acc v = static_cast<Acc>(in[i * inner + j]);
        acc = kProd ? mul_acc(acc, v) : add_acc(acc, v);
        o[i * inner + j] = static_cast<T>(acc);
      }
    }
    if (d != last) unary_loop<T, T>(out, scanned.transpose(d, last), [](T v) { return v; });
  });
}

}  // namespace

void var_correction(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim,
                    std::optional<std::int64_t> correction, bool keepdim) {
  var_std<false>(m, out, self, dim, correction, keepdim);
}
void std_correction(const ReductionMeta& m, const Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim,
                    std::optional<std::int64_t> correction, bool keepdim) {
  var_std<true>(m, out, self, dim, correction, keepdim);
}

void scan(const ScanMeta& m, const Tensor& out, const Tensor& self, std::int64_t dim, std::optional<ScalarType> dtype,
          bool prod) {
  prod ? scan_rows<true>(m, out, self, dim, dtype) : scan_rows<false>(m, out, self, dim, dtype);
}

}  // namespace wick::cpu
