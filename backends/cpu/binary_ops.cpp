// backends/cpu/binary_ops.cpp - elementwise binary kernels, where, copy_ and fill_.
/// \file
/// Each is the computation of an operator whose meta function
/// (dispatch/ops/meta_elementwise.cpp) checked the arguments and gave the
/// output's shape and dtype and the compute dtype: convert the operands to
/// it and run a typed loop into `out` (Note [Structured kernels] in
/// wick/structured.h: the out= variants and the Meta backend are derived).
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include <wick/meta.h>
#include <wick/scalar_ops.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {

Tensor as_dtype(const Tensor& t, ScalarType dtype) { return t.dtype() == dtype ? t : t.to(dtype); }

namespace {

using M = ElementwiseMeta;

// The operands in the meta function's compute dtype.
struct Promoted {
  Tensor a;
  Tensor b;
};
Promoted promoted(const M& m, const Tensor& a, const Tensor& b) {
  return {as_dtype(a, m.compute), as_dtype(b, m.compute)};
}

void add_impl(const M& m, const Tensor& r, const Tensor& a, const Tensor& b, const Scalar& alpha, bool subtract) {
  const Promoted x = promoted(m, a, b);
  visit_dtype<dtypes::kAllAndComplex>(m.compute, subtract ? "sub_cpu" : "add_cpu", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      const bool al = alpha.to<bool>();
      binary_loop<bool, bool>(r, x.a, x.b, [al](bool p, bool q) { return p || (al && q); });
    } else {
      // Half and bfloat16 scale in float: alpha is not rounded to 16 bits
      // first. sub is p - alpha * q, not p + (-alpha) * q: the sign of a
      // complex zero part depends on it, as in PyTorch.
      // add of complex numbers multiplies by alpha even when it is 1, as
      // PyTorch's loop does (-0.5j + -0.5j is 0.-1.j: 1 * -0j has a +0 real
      // part); sub with alpha 1 subtracts directly (-0.5j - -0.5j is 0.+0.j).
      const C al = alpha.to<C>();
      const bool unit = al == C(1) && !is_complex_v<C>;
      if (subtract) {
        if (al == C(1)) {
          binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return static_cast<T>(C(p) - C(q)); });
        } else {
          binary_loop<T, T>(r, x.a, x.b, [al](T p, T q) { return static_cast<T>(C(p) - al * C(q)); });
        }
      } else if (unit) {
        binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return static_cast<T>(C(p) + C(q)); });
      } else {
        binary_loop<T, T>(r, x.a, x.b, [al](T p, T q) { return static_cast<T>(C(p) + al * C(q)); });
      }
    }
  });
}

}  // namespace

void add(const M& m, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  add_impl(m, out, a, b, alpha, false);
}
void sub(const M& m, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  add_impl(m, out, a, b, alpha, true);
}

void mul(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  const Promoted x = promoted(m, a, b);
  visit_dtype<dtypes::kAllAndComplex>(m.compute, "mul_cpu", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      binary_loop<bool, bool>(r, x.a, x.b, [](bool p, bool q) { return p && q; });
    } else {
      binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return static_cast<T>(C(p) * C(q)); });
    }
  });
}

void div(const M& m, const Tensor& r, const Tensor& a, const Tensor& b, std::optional<std::string_view> mode) {
  const char* op = "torch.div";
  const Promoted x = promoted(m, a, b);
  visit_dtype<dtypes::kAllAndComplex>(m.compute, !mode ? "div_true_cpu" : *mode == "trunc" ? "div_trunc_cpu" : "div_floor_cpu", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    if constexpr (std::is_same_v<T, bool>) {
      return;  // refused by the meta function
    } else if constexpr (is_complex_v<T>) {
      WICK_CHECK(!mode, RuntimeError, op, ": \"div_", *mode, "_cpu\" not implemented for '", type_title(m.compute), "'");
      binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return scalar_ops::complex_divide(p, q); });
    } else if constexpr (is_floating_v<T>) {
      if (!mode) {
        binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return static_cast<T>(C(p) / C(q)); });
      } else if (*mode == "trunc") {
        binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return static_cast<T>(std::trunc(C(p) / C(q))); });
      } else {
        binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return static_cast<T>(scalar_ops::floor_divide(C(p), C(q))); });
      }
    } else {
      std::atomic<bool> by_zero{false};  // set from any thread of the loop
      const bool floor = *mode == "floor";
      binary_loop<T, T>(r, x.a, x.b, [&](T p, T q) {
        if (q == 0) {
          by_zero.store(true, std::memory_order_relaxed);
          return T(0);
        }
        return floor ? scalar_ops::floor_divide(p, q) : scalar_ops::trunc_divide(p, q);
      });
      WICK_CHECK(!by_zero, RuntimeError, op, ": ZeroDivisionError");
    }
  });
}

namespace {

// A binary operator with one loop body for every dtype in kSet of the
// meta's compute dtype, writing that dtype, or bool for a comparison or
// logical operator (kPredicate): each dtype's loop is built for the one
// output type it can have. Half and bfloat16 compute in float (fn sees
// floats) and round the result.
template <std::uint32_t kSet, bool kPredicate, typename Fn>
void binary_kernel(const char* kernel, const M& m, const Tensor& r, const Tensor& a, const Tensor& b, Fn fn) {
  const Promoted x = promoted(m, a, b);
  visit_dtype<kSet>(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    if constexpr (kPredicate) {
      binary_loop<bool, T>(r, x.a, x.b, [&](T p, T q) { return convert<bool>(fn(C(p), C(q))); });
    } else {
      binary_loop<T, T>(r, x.a, x.b, [&](T p, T q) { return static_cast<T>(fn(C(p), C(q))); });
    }
  });
}
template <std::uint32_t kSet = dtypes::kAll, typename Fn>
void simple_binary(const char* kernel, const M& m, const Tensor& r, const Tensor& a, const Tensor& b, Fn fn) {
  binary_kernel<kSet, false>(kernel, m, r, a, b, fn);
}
template <std::uint32_t kSet = dtypes::kAll, typename Fn>
void predicate_binary(const char* kernel, const M& m, const Tensor& r, const Tensor& a, const Tensor& b, Fn fn) {
  binary_kernel<kSet, true>(kernel, m, r, a, b, fn);
}

}  // namespace

void pow(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  simple_binary<dtypes::kAllAndComplex>("pow", m, r, a, b, [](auto p, auto q) {
    using T = decltype(p);
    if constexpr (is_floating_v<T> || is_complex_v<T>) {
      return std::pow(p, q);
    } else if constexpr (std::is_same_v<T, bool>) {
      return p || !q;
    } else {
      return scalar_ops::int_power(p, q);
    }
  });
}
// Integers and bools only (the meta function refuses floating dtypes).
#define WICK_BITWISE_BINARY(NAME)                                                                      \
  void NAME(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {                           \
    simple_binary<dtypes::kIntegral | dtypes::bit(ScalarType::kBool)>(                                 \
        #NAME "_cpu", m, r, a, b, [](auto p, auto q) { return scalar_ops::NAME(p, q); });              \
  }
WICK_BITWISE_BINARY(bitwise_and)
WICK_BITWISE_BINARY(bitwise_or)
WICK_BITWISE_BINARY(bitwise_xor)
#undef WICK_BITWISE_BINARY

// Integers only: PyTorch names the kernels lshift_cpu and rshift_cpu and has
// no loop for bools or floating types.
void bitwise_left_shift(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  simple_binary<dtypes::kIntegral>("lshift_cpu", m, r, a, b, [](auto p, auto q) { return scalar_ops::left_shift(p, q); });
}
void bitwise_right_shift(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  simple_binary<dtypes::kIntegral>("rshift_cpu", m, r, a, b, [](auto p, auto q) { return scalar_ops::right_shift(p, q); });
}
void gcd(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  simple_binary<dtypes::kIntegral>("gcd_cpu", m, r, a, b, [](auto p, auto q) { return scalar_ops::gcd(p, q); });
}
void lcm(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  simple_binary<dtypes::kIntegral>("lcm_cpu", m, r, a, b, [](auto p, auto q) { return scalar_ops::lcm(p, q); });
}
// The floating dtypes; float16 and bfloat16 step their own bit patterns
// (not float32's, which would round back to the same value).
void nextafter(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  const Promoted x = promoted(m, a, b);
  visit_dtype<dtypes::kFloating>(m.compute, "nextafter_cpu", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_reduced_floating_v<T>) {
      binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return scalar_ops::next_after_16(p, q); });
    } else {
      binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return std::nextafter(p, q); });
    }
  });
}

void maximum(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  simple_binary("maximum_cpu", m, r, a, b, [](auto p, auto q) { return scalar_ops::maximum(p, q); });
}
void minimum(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  simple_binary("minimum_cpu", m, r, a, b, [](auto p, auto q) { return scalar_ops::minimum(p, q); });
}
void eq(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary<dtypes::kAllAndComplex>("eq_cpu", m, r, a, b, [](auto p, auto q) { return p == q; });
}
void ne(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary<dtypes::kAllAndComplex>("ne_cpu", m, r, a, b, [](auto p, auto q) { return p != q; });
}
void lt(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary("lt_cpu", m, r, a, b, [](auto p, auto q) { return p < q; });
}
void le(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary("le_cpu", m, r, a, b, [](auto p, auto q) { return p <= q; });
}
void gt(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary("gt_cpu", m, r, a, b, [](auto p, auto q) { return p > q; });
}
void ge(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary("ge_cpu", m, r, a, b, [](auto p, auto q) { return p >= q; });
}

namespace {

// fmod keeps the sign of the dividend (C's fmod), remainder the sign of the
// divisor (Python's %). Integers: division by zero is an error, INT_MIN by -1 is 0.
template <bool kPython>
void modulo(const char* op, const char* kernel, const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  const Promoted x = promoted(m, a, b);
  visit_dtype(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    if constexpr (is_floating_v<T>) {
      binary_loop<T, T>(r, x.a, x.b, [](T p, T q) { return static_cast<T>(scalar_ops::modulo<kPython>(C(p), C(q))); });
    } else if constexpr (!std::is_same_v<T, bool>) {  // bools are refused by the meta function
      std::atomic<bool> by_zero{false};               // set from any thread of the loop
      binary_loop<T, T>(r, x.a, x.b, [&](T p, T q) {
        if (q == 0) {
          by_zero.store(true, std::memory_order_relaxed);
          return T(0);
        }
        return scalar_ops::modulo<kPython>(p, q);
      });
      WICK_CHECK(!by_zero, RuntimeError, op, ": ZeroDivisionError");
    }
  });
}

}  // namespace

void fmod(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) { modulo<false>("torch.fmod", "fmod_cpu", m, r, a, b); }
void remainder(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  modulo<true>("torch.remainder", "remainder_cpu", m, r, a, b);
}

void atan2(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  simple_binary("atan2_cpu", m, r, a, b, [](auto y, auto x) { return std::atan2(y, x); });
}

// The logical operators: nonzero (NaN included; a complex number with
// either part nonzero) is true; the result is bool.
template <typename T>
bool truth(T v) {
  return v != T(0);
}

void logical_and(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary<dtypes::kAllAndComplex>("logical_and_cpu", m, r, a, b, [](auto p, auto q) { return truth(p) && truth(q); });
}
void logical_or(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary<dtypes::kAllAndComplex>("logical_or_cpu", m, r, a, b, [](auto p, auto q) { return truth(p) || truth(q); });
}
void logical_xor(const M& m, const Tensor& r, const Tensor& a, const Tensor& b) {
  predicate_binary<dtypes::kAllAndComplex>("logical_xor_cpu", m, r, a, b, [](auto p, auto q) { return truth(p) != truth(q); });
}

// lerp(self, end, weight) = self + weight * (end - self), computed from the
// nearer end as PyTorch does.
void lerp(const M& m, const Tensor& r, const Tensor& self, const Tensor& end, const Tensor& weight) {
  const Tensor w = as_dtype(weight, m.compute);
  visit_dtype<dtypes::kFloatingAndComplex>(m.compute, "lerp_kernel_tensor", [&](auto tag) {
    using T = decltype(tag);
    using C = compute_type_t<T>;
    for_each_element<4>(m.out.sizes, {r, self, end, w},
                        [](std::array<char*, 4> p, std::int64_t n, std::array<std::int64_t, 4> st) {
                          for (std::int64_t i = 0; i < n; ++i) {
                            const C a = *reinterpret_cast<const T*>(p[1] + i * st[1]);
                            const C b = *reinterpret_cast<const T*>(p[2] + i * st[2]);
                            const C wt = *reinterpret_cast<const T*>(p[3] + i * st[3]);
                            *reinterpret_cast<T*>(p[0] + i * st[0]) = static_cast<T>(
                                std::abs(wt) < 0.5 ? a + wt * (b - a) : b - (b - a) * (C(1) - wt));
                          }
                        });
  });
}

// relu's backward in one pass: an exact 0 where self <= threshold (a NaN
// gradient there too); a NaN self lets the gradient through, as PyTorch's.
void threshold_backward(const M& m, const Tensor& r, const Tensor& grad, const Tensor& self, const Scalar& threshold) {
  const Promoted x = promoted(m, grad, self);
  visit_dtype(m.compute, "threshold_backward_cpu", [&](auto tag) {
    using T = decltype(tag);
    if constexpr (!std::is_same_v<T, bool>) {  // the meta refused bool
      const T t = threshold.to<T>();
      binary_loop<T, T>(r, x.a, x.b, [t](T g, T s) { return s <= t ? T(0) : g; });
    }
  });
}

void where(const M& m, const Tensor& r, const Tensor& cond, const Tensor& a, const Tensor& b) {
  const Promoted x = promoted(m, a, b);
  visit_dtype<dtypes::kAllAndComplex>(m.compute, "where_cpu", [&](auto tag) {
    using T = decltype(tag);
    for_each_element<4>(
        m.out.sizes, {r, cond, x.a, x.b}, [](std::array<char*, 4> p, std::int64_t n, std::array<std::int64_t, 4> s) {
          for (std::int64_t i = 0; i < n; ++i) {
            const bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
            *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[c ? 2 : 3] + i * s[c ? 2 : 3]);
          }
        });
  });
}

namespace {

// Whether `in` shares memory with `out` other than element for element.
bool overlaps_differently(const Tensor& out, const Tensor& in) {
  if (!in.defined() || out.storage().get() != in.storage().get()) return false;
  return !(out.storage_offset() == in.storage_offset() && out.sizes().equals(in.sizes()) &&
           out.strides().equals(in.strides()) && out.dtype() == in.dtype());
}

}  // namespace

void copy_(const InplaceMeta&, const Tensor& self, const Tensor& src_in,
           bool /*non_blocking: CPU copies are synchronous*/) {
  const char* op = "torch.Tensor.copy_";
  WICK_CHECK(self.device().is_cpu() && src_in.device().is_cpu(), RuntimeError, op, ": cannot copy from ",
             src_in.device().str(), " to ", self.device().str(), " on the CPU backend");
  // A source that overlaps the destination with another layout is read
  // from a copy (x.copy_(x.t()) must not read what it already wrote).
  const Tensor src = overlaps_differently(self, src_in) ? src_in.clone() : src_in;
  if (self.dtype() == src.dtype()) {
    if (copy_transposed(self, src)) return;
    // A plain copy of bytes: one loop per element size.
    switch (itemsize(self.dtype())) {
      case 1: unary_loop<std::uint8_t, std::uint8_t>(self, src, [](std::uint8_t v) { return v; }); return;
      case 2: unary_loop<std::uint16_t, std::uint16_t>(self, src, [](std::uint16_t v) { return v; }); return;
      case 4: unary_loop<std::uint32_t, std::uint32_t>(self, src, [](std::uint32_t v) { return v; }); return;
      case 8: unary_loop<std::uint64_t, std::uint64_t>(self, src, [](std::uint64_t v) { return v; }); return;
      default: break;
    }
  }
  copy_convert(self, src);
}

void fill_(const InplaceMeta&, const Tensor& self, const Scalar& value) {
  visit_dtype<dtypes::kAllAndComplex>(self.dtype(), "fill_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T v = value.to<T>();
    for_each_element<1>(self.sizes(), {self},
                        [v](std::array<char*, 1> p, std::int64_t n, std::array<std::int64_t, 1> s) {
                          if (s[0] == sizeof(T)) {
                            T* o = reinterpret_cast<T*>(p[0]);
                            for (std::int64_t i = 0; i < n; ++i) o[i] = v;
                            return;
                          }
                          for (std::int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
                        });
  });
}

}  // namespace wick::cpu
