// backends/cpu/minmax_ops.cpp - max, min, amax, amin, argmax, argmin, all and any.
/// \file
/// Selection reductions over the rows of a reduction plan (reduce_plan.h).
/// As PyTorch: NaN wins a max or min (the first NaN's index is reported),
/// ties report the first occurrence, and reducing an empty tensor without a
/// dim (or over a dim of size zero) is an error, since there is no identity.
#include <cmath>
#include <limits>
#include <tuple>
#include <type_traits>

#include "cpu_kernels.h"
#include "loops.h"
#include "reduce_plan.h"

namespace wick::cpu {
namespace {

template <typename T>
bool is_nan(T v) {
  if constexpr (std::is_floating_point_v<T>) {
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
T extreme_value(const T* x, std::int64_t n) {
  constexpr std::int64_t kLanes = 16;
  auto pick = [](T m, T v) { return (is_nan(v) || (kMax ? v > m : v < m)) ? v : m; };
  T m = x[0];
  std::int64_t j = 1;
  if (n >= 2 * kLanes) {
    T acc[kLanes];
    int nan[kLanes] = {};
    for (std::int64_t l = 0; l < kLanes; ++l) acc[l] = x[l];
    for (j = kLanes; j + kLanes <= n; j += kLanes) {
      for (std::int64_t l = 0; l < kLanes; ++l) {
        const T v = x[j + l];
        nan[l] |= static_cast<int>(is_nan(v));
        acc[l] = (kMax ? v > acc[l] : v < acc[l]) ? v : acc[l];
      }
    }
    m = acc[0];
    for (std::int64_t l = 0; l < kLanes; ++l) {
      if (nan[l] != 0) return std::numeric_limits<T>::quiet_NaN();  // only floats set it
      m = pick(m, acc[l]);
    }
  }
  for (; j < n; ++j) m = pick(m, x[j]);
  return m;
}

// `name(): Expected reduction dim to be specified ...` for an empty tensor
// reduced as a whole (argmax's message is shorter and an IndexError).
void check_whole_nonempty(const char* op, const char* name, const Tensor& self, bool index_error) {
  if (self.numel() != 0) return;
  if (index_error)
    throw IndexError(detail::str_cat(op, ": ", name,
                                     "(): Expected reduction dim to be specified for input.numel() == 0."));
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

// values[i] = rows[i, extreme], indices[i] = extreme (either may be undefined).
template <bool kMax>
void select_rows(const char* op, const Plan& p, const Tensor& values, const Tensor& indices) {
  visit_dtype(p.rows.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = p.rows.data_ptr<T>();
    T* v = values.defined() ? values.data_ptr<T>() : nullptr;
    std::int64_t* ix = indices.defined() ? indices.data_ptr<std::int64_t>() : nullptr;
    for (std::int64_t i = 0; i < p.outer; ++i) {
      const T* row = in + i * p.inner;
      if (ix == nullptr) {
        v[i] = extreme_value<kMax>(row, p.inner);
        continue;
      }
      const std::int64_t k = extreme_index<kMax>(row, p.inner);
      if (v != nullptr) v[i] = row[k];
      ix[i] = k;
    }
  });
}

template <bool kMax>
constexpr const char* name_of() {
  return kMax ? "max" : "min";
}

template <bool kMax>
Tensor extreme_all(const Tensor& self) {
  const char* op = kMax ? "torch.max" : "torch.min";
  check_whole_nonempty(op, name_of<kMax>(), self, false);
  Plan p = plan_reduction(op, self, std::nullopt, false);
  Tensor out = make_empty(p.out_shape, self.dtype(), self.device());
  select_rows<kMax>(op, p, out, Tensor());
  return out;
}

template <bool kMax>
std::tuple<Tensor, Tensor> extreme_dim(const Tensor& self, std::int64_t dim, bool keepdim) {
  const char* op = kMax ? "torch.max" : "torch.min";
  const std::int64_t dims[] = {dim};
  Plan p = plan_reduction(op, self, IntArrayRef(dims, 1), keepdim);
  check_dims_nonempty(op, name_of<kMax>(), self, IntArrayRef(dims, 1));
  Tensor values = make_empty(p.out_shape, self.dtype(), self.device());
  Tensor indices = make_empty(p.out_shape, ScalarType::kInt64, self.device());
  select_rows<kMax>(op, p, values, indices);
  return {values, indices};
}

template <bool kMax>
Tensor amax_amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  const char* op = kMax ? "torch.amax" : "torch.amin";
  const char* name = kMax ? "amax" : "amin";
  Plan p = plan_reduction(op, self, dim, keepdim);
  if (dim.empty()) {
    check_whole_nonempty(op, name, self, false);
  } else {
    check_dims_nonempty(op, name, self, dim);
  }
  Tensor out = make_empty(p.out_shape, self.dtype(), self.device());
  select_rows<kMax>(op, p, out, Tensor());
  return out;
}

template <bool kMax>
Tensor arg_extreme(const Tensor& self, std::optional<std::int64_t> dim, bool keepdim) {
  const char* op = kMax ? "torch.argmax" : "torch.argmin";
  const char* name = kMax ? "argmax" : "argmin";
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"", name, "_cpu\" not implemented for 'Bool'");
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
  select_rows<kMax>(op, p, Tensor(), out);
  return out;
}

// all (kAll) or any over rows; the result is bool whatever the input dtype.
template <bool kAll>
Tensor all_any_rows(const char* op, const Plan& p, const Device& device) {
  Tensor out = make_empty(p.out_shape, ScalarType::kBool, device);
  bool* o = out.data_ptr<bool>();
  visit_dtype(p.rows.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* in = p.rows.data_ptr<T>();
    for (std::int64_t i = 0; i < p.outer; ++i) {
      const T* row = in + i * p.inner;
      bool r = kAll;
      for (std::int64_t j = 0; j < p.inner; ++j) {
        if ((row[j] != T(0)) != kAll) {
          r = !kAll;
          break;
        }
      }
      o[i] = r;
    }
  });
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

void register_minmax_ops(Library& torch) {
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

}  // namespace wick::cpu
