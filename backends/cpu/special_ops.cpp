// backends/cpu/special_ops.cpp - CPU kernels of the special functions (lgamma, digamma, polygamma, erfinv, i0, ...).
/// \file
/// Each computes one function of wick/special_math.h over the meta's
/// compute dtype: float and double inputs in double, rounded once;
/// bfloat16 and float16 through float. The dtypes each kernel takes are
/// those PyTorch 1.13's CPU kernel takes, and the others are refused with
/// its kernel's name ("i1_cpu" not implemented for 'BFloat16').
#include <cstdint>

#include <wick/meta.h>
#include <wick/special_math.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

using M = ElementwiseMeta;
namespace sm = special_math;

constexpr std::uint32_t kFloatDouble = dtypes::bit(ScalarType::kFloat32) | dtypes::bit(ScalarType::kFloat64);
constexpr std::uint32_t kWithBFloat16 = kFloatDouble | dtypes::bit(ScalarType::kBFloat16);

// out = fn(self) in double, for the dtypes in kSet.
template <std::uint32_t kSet, typename Fn>
void special_unary(const char* kernel, const M& m, const Tensor& r, const Tensor& self, Fn fn) {
  const Tensor x = as_dtype(self, m.compute);
  visit_dtype<kSet>(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_floating_v<T>) {
      unary_loop<T, T>(r, x,
                       [&](T v) { return static_cast<T>(static_cast<compute_type_t<T>>(fn(static_cast<double>(v)))); });
    }
  });
}

// out = fn(self, other) in double, for the dtypes in kSet.
template <std::uint32_t kSet, typename Fn>
void special_binary(const char* kernel, const M& m, const Tensor& r, const Tensor& a, const Tensor& b, Fn fn) {
  const Tensor x = as_dtype(a, m.compute);
  const Tensor y = as_dtype(b, m.compute);
  visit_dtype<kSet>(m.compute, kernel, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (is_floating_v<T>) {
      binary_loop<T, T>(r, x, y, [&](T p, T q) {
        return static_cast<T>(static_cast<compute_type_t<T>>(fn(static_cast<double>(p), static_cast<double>(q))));
      });
    }
  });
}

}  // namespace

void lgamma(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("lgamma_vml_cpu", m, r, self, [](double v) { return sm::lgamma(v); });
}
void digamma(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("digamma", m, r, self, [](double v) { return sm::digamma(v); });
}
void polygamma(const M& m, const Tensor& r, std::int64_t n, const Tensor& self) {
  // PyTorch's kernel for n = 0 is digamma's, for n = 1 trigamma's.
  const char* kernel = n == 0 ? "digamma" : n == 1 ? "trigamma" : "polygamma";
  special_unary<kWithBFloat16>(kernel, m, r, self, [n](double v) { return sm::polygamma(n, v); });
}
void erfinv(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("erfinv_vml_cpu", m, r, self, [](double v) { return sm::erfinv(v); });
}
void i0(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("i0_vml_cpu", m, r, self, [](double v) { return sm::i0(v); });
}
void i0e(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kWithBFloat16>("i0e_cpu", m, r, self, [](double v) { return sm::i0e(v); });
}
void i1(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("i1_cpu", m, r, self, [](double v) { return sm::i1(v); });
}
void i1e(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("i1e_cpu", m, r, self, [](double v) { return sm::i1e(v); });
}
void ndtri(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("ndtri_cpu", m, r, self, [](double v) { return sm::ndtri(v); });
}
void log_ndtr(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("log_ndtr_cpu", m, r, self, [](double v) { return sm::log_ndtr(v); });
}
void erfcx(const M& m, const Tensor& r, const Tensor& self) {
  special_unary<kFloatDouble>("erfcx_cpu", m, r, self, [](double v) { return sm::erfcx(v); });
}

void zeta(const M& m, const Tensor& r, const Tensor& self, const Tensor& other) {
  special_binary<kFloatDouble>("zeta_cpu", m, r, self, other, [](double s, double q) { return sm::zeta(s, q); });
}
void igamma(const M& m, const Tensor& r, const Tensor& self, const Tensor& other) {
  special_binary<dtypes::kFloating>("igamma_cpu", m, r, self, other,
                                    [](double a, double x) { return sm::igamma(a, x); });
}
void igammac(const M& m, const Tensor& r, const Tensor& self, const Tensor& other) {
  special_binary<dtypes::kFloating>("igammac_cpu", m, r, self, other,
                                    [](double a, double x) { return sm::igammac(a, x); });
}

}  // namespace wick::cpu
