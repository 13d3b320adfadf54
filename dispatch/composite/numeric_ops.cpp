// dispatch/composite/numeric_ops.cpp - isnan, isinf, isfinite, isposinf, isneginf, isclose, allclose, equal, nan_to_num, deg2rad, rad2deg, clamp_min, clamp_max, nansum, nanmean.
/// \file
/// Float predicates and NaN handling (dispatch/ops/numeric.ops), composed
/// from the elementwise operators, where and sum: they run on every backend,
/// and the differentiable ones (nan_to_num, deg2rad, rad2deg, clamp_min,
/// clamp_max, nansum, nanmean) get their gradients from their parts. Integers
/// and bools are never NaN or infinite; a complex number is NaN or infinite
/// when either part is. The dtype rules and refusals are PyTorch 1.13's.
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"

namespace wick {
namespace {

using I64 = std::int64_t;
constexpr double kInf = std::numeric_limits<double>::infinity();

bool never_special(const Tensor& self) { return !is_floating(self.dtype()) && !is_complex(self.dtype()); }
Tensor all_false(const Tensor& self) { return zeros_like(self, ScalarType::kBool); }

Tensor isnan_kernel(const Tensor& self) { return ne(self, self); }

Tensor isinf_kernel(const Tensor& self) {
  if (never_special(self)) return all_false(self);
  if (is_complex(self.dtype())) return logical_or(isinf_kernel(real(self)), isinf_kernel(imag(self)));
  return eq(abs(self), Scalar(kInf));
}

Tensor isfinite_kernel(const Tensor& self) {
  if (never_special(self)) return ones_like(self, ScalarType::kBool);
  if (is_complex(self.dtype())) return logical_and(isfinite_kernel(real(self)), isfinite_kernel(imag(self)));
  return logical_and(eq(self, self), ne(abs(self), Scalar(kInf)));
}

Tensor signed_inf(const Tensor& self, double inf, const char* name) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, name, " does not support complex inputs.");
  if (never_special(self)) return all_false(self);
  return eq(self, Scalar(inf));
}
Tensor isposinf_kernel(const Tensor& self) { return signed_inf(self, kInf, "isposinf"); }
Tensor isneginf_kernel(const Tensor& self) { return signed_inf(self, -kInf, "isneginf"); }

// Note [closeness]: equal elements are close (infinities included); else
// |self - other| must be finite and at most atol + rtol * |other|, computed
// in their dtype (bools as the default float dtype), as PyTorch 1.13.
Tensor isclose_kernel(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  WICK_CHECK(self.dtype() == other.dtype(), RuntimeError, type_title(self.dtype()), " did not match ",
             type_title(other.dtype()));
  WICK_CHECK(rtol >= 0, RuntimeError, "rtol must be greater than or equal to zero, but got ", rtol);
  WICK_CHECK(atol >= 0, RuntimeError, "atol must be greater than or equal to zero, but got ", atol);
  Tensor close = eq(self, other);
  if (equal_nan && (is_floating(self.dtype()) || is_complex(self.dtype()))) {
    close = logical_or(close, logical_and(ne(self, self), ne(other, other)));
  }
  const ScalarType as_float = ScalarType::kFloat32;
  const Tensor a = self.dtype() == ScalarType::kBool ? self.to(as_float) : self;
  const Tensor b = other.dtype() == ScalarType::kBool ? other.to(as_float) : other;
  const Tensor allowed = add(abs(mul(b, Scalar(rtol))), Scalar(atol));
  const Tensor actual = abs(sub(a, b));
  return logical_or(close, logical_and(isfinite_kernel(actual), le(actual, allowed)));
}

bool allclose_kernel(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return all(isclose_kernel(self, other, rtol, atol, equal_nan)).item().to<bool>();
}

bool equal_kernel(const Tensor& self, const Tensor& other) {
  if (self.sizes() != other.sizes()) return false;
  return all(eq(self, other)).item().to<bool>();
}

// NaN to `nan` (0), +inf to `posinf` and -inf to `neginf` (the dtype's
// largest and lowest finite values), each converted to self's dtype.
Tensor nan_to_num_kernel(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                         std::optional<double> neginf) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "\"nan_to_num\" not implemented for '",
             type_title(self.dtype()), "'");
  if (never_special(self)) return self.clone();
  double high = std::numeric_limits<float>::max();
  if (self.dtype() == ScalarType::kFloat64) high = std::numeric_limits<double>::max();
  if (self.dtype() == ScalarType::kFloat16) high = 65504.0;
  if (self.dtype() == ScalarType::kBFloat16) high = 3.3895313892515355e38;
  const Tensor with_nan = where(ne(self, self), full_like(self, Scalar(nan.value_or(0.0))), self);
  const Tensor with_pos = where(eq(self, Scalar(kInf)), full_like(self, Scalar(posinf.value_or(high))), with_nan);
  return where(eq(self, Scalar(-kInf)), full_like(self, Scalar(neginf.value_or(-high))), with_pos);
}

// Integers and bools in the default float dtype; complex numbers refused.
Tensor scaled_angle(const Tensor& self, double factor, const char* name) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, name, " is not supported for complex tensors.");
  const Tensor x = is_floating(self.dtype()) ? self : self.to(ScalarType::kFloat32);
  return mul(x, Scalar(factor));
}
Tensor deg2rad_kernel(const Tensor& self) { return scaled_angle(self, 0.017453292519943295, "deg2rad"); }
Tensor rad2deg_kernel(const Tensor& self) { return scaled_angle(self, 57.295779513082320876798154814105, "rad2deg"); }

// A tensor bound on complex numbers is refused by PyTorch's maximum/minimum
// kernel; a number (a 0-dim CPU tensor) by clamp's check.
void check_bound(const Tensor& self, const Tensor& bound, const char* kernel) {
  const bool number = bound.dim() == 0 && bound.device().is_cpu();
  WICK_CHECK(number || !is_complex(self.dtype()), RuntimeError, "\"", kernel, "\" not implemented for '",
             type_title(self.dtype()), "'");
}
Tensor clamp_min_kernel(const Tensor& self, const Tensor& min) {
  check_bound(self, min, "maximum_cpu");
  return clamp(self, min, std::nullopt);
}
Tensor clamp_max_kernel(const Tensor& self, const Tensor& max) {
  check_bound(self, max, "minimum_cpu");
  return clamp(self, std::nullopt, max);
}

Tensor nansum_kernel(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "nansum does not support complex inputs");
  const Tensor x = never_special(self) ? self : where(ne(self, self), zeros_like(self), self);
  return sum(x, dim ? OptionalIntArrayRef(*dim) : OptionalIntArrayRef(), keepdim, dtype);
}

Tensor nanmean_kernel(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                      std::optional<ScalarType> dtype) {
  WICK_CHECK(is_floating(self.dtype()), RuntimeError,
             "nanmean(): expected input to have floating point dtype but got ", type_title(self.dtype()));
  const Tensor count = sum(eq(self, self), dim ? OptionalIntArrayRef(*dim) : OptionalIntArrayRef(), keepdim);
  return div(nansum_kernel(self, dim, keepdim, dtype), count);
}

}  // namespace

void register_numeric_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  lib->impl("isnan", &isnan_kernel)
      .impl("isinf", &isinf_kernel)
      .impl("isfinite", &isfinite_kernel)
      .impl("isposinf", &isposinf_kernel)
      .impl("isneginf", &isneginf_kernel)
      .impl("isclose", &isclose_kernel)
      .impl("allclose", &allclose_kernel)
      .impl("equal", &equal_kernel)
      .impl("nan_to_num", &nan_to_num_kernel)
      .impl("deg2rad", &deg2rad_kernel)
      .impl("rad2deg", &rad2deg_kernel)
      .impl("clamp_min", &clamp_min_kernel)
      .impl("clamp_max", &clamp_max_kernel)
      .impl("nansum", &nansum_kernel)
      .impl("nanmean", &nanmean_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick
