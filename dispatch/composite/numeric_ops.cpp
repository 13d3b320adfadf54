// dispatch/composite/numeric_ops.cpp - isnan, isinf, isfinite, isposinf, isneginf, isclose, allclose, equal, nan_to_num, deg2rad, rad2deg, clamp_min, clamp_max, nansum, nanmean, copysign, hypot, logaddexp(2), xlogy, xlog1py, sinc, logit, entr, ndtr, fmax, fmin, float_power, ldexp, heaviside, signbit, positive, count_nonzero, aminmax, var_mean, std_mean, dist.
/// \file
/// Float predicates, NaN handling and the other numeric functions
/// (dispatch/ops/numeric.ops), composed from the elementwise operators,
/// where and the reductions: they run on every backend, and the
/// differentiable ones get their gradients from their parts. Integers
/// and bools are never NaN or infinite; a complex number is NaN or infinite
/// when either part is. The dtype rules and refusals are PyTorch 1.13's.
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

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

OptionalIntArrayRef dims_of(const std::optional<IntArrayRef>& dim) {
  return dim ? OptionalIntArrayRef(*dim) : OptionalIntArrayRef();
}

Tensor nansum_kernel(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "nansum does not support complex inputs");
  const Tensor x = never_special(self) ? self : where(ne(self, self), zeros_like(self), self);
  return sum(x, dims_of(dim), keepdim, dtype);
}

Tensor nanmean_kernel(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                      std::optional<ScalarType> dtype) {
  WICK_CHECK(is_floating(self.dtype()), RuntimeError,
             "nanmean(): expected input to have floating point dtype but got ", type_title(self.dtype()));
  const Tensor count = sum(eq(self, self), dims_of(dim), keepdim);
  return div(nansum_kernel(self, dim, keepdim, dtype), count);
}

// Integers and bools as the default float dtype; floats and complex numbers as they are.
Tensor as_floating(const Tensor& t) {
  return is_floating(t.dtype()) || is_complex(t.dtype()) ? t : t.to(kDefaultFloat);
}

void check_floating(const Tensor& t, const char* kernel) {
  WICK_CHECK(is_floating(t.dtype()), RuntimeError, "\"", kernel, "\" not implemented for '", type_title(t.dtype()),
             "'");
}

// Where the sign bit is set (-0.0 and -NaN included): the float's bits, read
// as the signed integer of its width, are negative. Bools never.
Tensor signbit_kernel(const Tensor& self) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "signbit is not implemented for complex tensors.");
  if (self.dtype() == ScalarType::kBool) return all_false(self);
  if (!is_floating(self.dtype())) return lt(self, Scalar(0));
  const std::size_t width = itemsize(self.dtype());
  const ScalarType bits = width == 8 ? ScalarType::kInt64 : width == 4 ? ScalarType::kInt32 : ScalarType::kInt16;
  const Tensor dense = self.contiguous();
  return lt(make_view(dense, dense.sizes(), dense.strides(), dense.storage_offset(), bits), Scalar(0));
}

Tensor copysign_kernel(const Tensor& self, const Tensor& other) {
  const ScalarType t = result_type(self, other);
  WICK_CHECK(!is_complex(t), RuntimeError, "\"copysign_cpu\" not implemented for '", type_title(t), "'");
  const Tensor magnitude = abs(as_floating(self.to(t)));
  return where(signbit_kernel(other), neg(magnitude), magnitude);
}

Tensor hypot_kernel(const Tensor& self, const Tensor& other) {
  check_floating(self, "hypot_cpu");
  check_floating(other, "hypot_cpu");
  // max * sqrt(1 + (min / max)^2): no square of a large number overflows.
  const Tensor a = abs(self);
  const Tensor b = abs(other);
  const Tensor big = maximum(a, b);
  const Tensor small = minimum(a, b);
  const Tensor ratio = where(eq(big, Scalar(0)), zeros_like(big), div(small, big));
  const Tensor r = mul(big, sqrt(add(mul(ratio, ratio), Scalar(1))));
  // An infinite operand wins over a NaN, as std::hypot.
  return where(logical_or(isinf_kernel(self), isinf_kernel(other)), full_like(r, Scalar(kInf)), r);
}

// max + log1p(exp(-|a - b|)) (base 2 for logaddexp2); equal infinities are themselves.
Tensor log_add(const Tensor& self, const Tensor& other, bool base2, const char* kernel) {
  check_floating(self, kernel);
  check_floating(other, kernel);
  const Tensor big = maximum(self, other);
  const Tensor gap = neg(abs(sub(self, other)));
  const Tensor r = base2 ? add(big, div(log1p(exp2(gap)), Scalar(0.69314718055994530942)))
                         : add(big, log1p(exp(gap)));
  return where(logical_and(isinf_kernel(self), eq(self, other)), self.to(r.dtype()).expand_as(r), r);
}
Tensor logaddexp_kernel(const Tensor& self, const Tensor& other) { return log_add(self, other, false, "logaddexp_cpu"); }
Tensor logaddexp2_kernel(const Tensor& self, const Tensor& other) { return log_add(self, other, true, "logaddexp2_cpu"); }

// x * f(y) in floating point, 0 where x is 0 unless y is NaN: xlogy and
// xlog1py; `kernel` names PyTorch's kernel in the complex refusal.
template <typename F>
Tensor x_times(const Tensor& self, const Tensor& other, const char* kernel, F f) {
  const ScalarType t = result_type(self, other);
  WICK_CHECK(!is_complex(t), RuntimeError, "\"", kernel, "\" not implemented for '", type_title(t), "'");
  const ScalarType real = is_floating(t) ? t : kDefaultFloat;
  const Tensor x = self.to(real);
  const Tensor y = other.to(real);
  const Tensor r = mul(x, f(y));
  return where(logical_and(eq(x, Scalar(0)), eq(y, y)), zeros_like(r), r);
}

Tensor xlogy_kernel(const Tensor& self, const Tensor& other) {
  return x_times(self, other, "xlogy_cpu", [](const Tensor& y) { return log(y); });
}
Tensor xlog1py_kernel(const Tensor& self, const Tensor& other) {
  return x_times(self, other, "xlog1py_cpu", [](const Tensor& y) { return log1p(y); });
}

// sin(pi x) / (pi x), computed in the input's floating type as PyTorch's
// kernel; 1 at 0, where the quotient is evaluated at 1 instead so that no
// NaN reaches the gradient (PyTorch's gradient is 0 there).
Tensor sinc_kernel(const Tensor& self) {
  const Tensor x = as_floating(self);
  const Tensor zero = eq(x, Scalar(0));
  const Tensor p = mul(where(zero, ones_like(x), x), Scalar(std::numbers::pi));
  const Tensor r = div(sin(p), p);
  return where(zero, ones_like(r), r);
}

// log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is given and
// not negative (PyTorch ignores a negative eps); NaN stays NaN.
Tensor logit_kernel(const Tensor& self, std::optional<double> eps) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "\"logit_cpu\" not implemented for '", type_title(self.dtype()),
             "'");
  Tensor x = as_floating(self);
  if (eps && *eps >= 0) {
    // The bounds in the input's type, as PyTorch's kernel: 1 - eps rounded from float32 for float32.
    const double hi =
        x.dtype() == ScalarType::kFloat32 ? static_cast<double>(1.0F - static_cast<float>(*eps)) : 1.0 - *eps;
    x = clamp(x, std::optional<Scalar>(Scalar(*eps)), std::optional<Scalar>(Scalar(hi)));
  }
  return log(div(x, add(neg(x), Scalar(1))));  // 1 - x (+0 at 1: log(inf), as PyTorch)
}

// -x log x for x > 0, 0 at 0, -inf below 0, NaN for NaN.
Tensor entr_kernel(const Tensor& self) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "\"entr_cpu\" not implemented for '", type_title(self.dtype()),
             "'");
  const Tensor x = as_floating(self);
  const Tensor positive = gt(x, Scalar(0));
  // log of 1 where x is not positive: no NaN in the unused branch or its gradient.
  const Tensor r = neg(mul(x, log(where(positive, x, ones_like(x)))));
  const Tensor rest = where(eq(x, Scalar(0)), zeros_like(x), where(lt(x, Scalar(0)), full_like(x, Scalar(-kInf)), x));
  return where(positive, r, rest);
}

// The standard normal distribution function, as PyTorch computes it.
Tensor ndtr_kernel(const Tensor& self) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "\"ndtr_cpu\" not implemented for '", type_title(self.dtype()),
             "'");
  const Tensor x = as_floating(self);
  return mul(erfc(mul(x, Scalar(-std::numbers::sqrt2 / 2))), Scalar(0.5));
}

// maximum/minimum where a NaN loses to a number.
Tensor nan_losing(const Tensor& self, const Tensor& other, bool max, const char* kernel) {
  const ScalarType t = result_type(self, other);
  WICK_CHECK(!is_complex(t), RuntimeError, kernel, " not implemented for complex tensors.");
  const Tensor r = max ? maximum(self, other) : minimum(self, other);
  if (!is_floating(t)) return r;
  const Tensor a = self.to(t).expand_as(r);
  const Tensor b = other.to(t).expand_as(r);
  return where(ne(a, a), b, where(ne(b, b), a, r));
}
Tensor fmax_kernel(const Tensor& self, const Tensor& other) { return nan_losing(self, other, true, "fmax"); }
Tensor fmin_kernel(const Tensor& self, const Tensor& other) { return nan_losing(self, other, false, "fmin"); }

// float_power computes in float64, complex128 when either side is complex.
ScalarType float_power_dtype(const Tensor& self, const Tensor& exponent) {
  return is_complex(self.dtype()) || is_complex(exponent.dtype()) ? ScalarType::kComplex128 : ScalarType::kFloat64;
}

Tensor float_power_kernel(const Tensor& self, const Tensor& exponent) {
  const ScalarType t = float_power_dtype(self, exponent);
  return pow(self.to(t), exponent.to(t));
}

// In place: pow_ once self has the dtype float_power computes in.
Tensor float_power__kernel(const Tensor& self, const Tensor& exponent) {
  const ScalarType t = float_power_dtype(self, exponent);
  WICK_CHECK(self.dtype() == t, RuntimeError, "the base given to float_power_ has dtype ", type_title(self.dtype()),
             " but the operation's result requires dtype ", type_title(t));
  Tensor out = self;
  return out.pow_(exponent.to(t));
}

Tensor ldexp_kernel(const Tensor& self, const Tensor& other) {
  // 2^other: exp2 for real exponents, exp(other * ln 2) for complex ones.
  const Tensor power = is_complex(other.dtype()) ? exp(mul(other, Scalar(0.69314718055994530942)))
                                                 : exp2(as_floating(other));
  return mul(as_floating(self), power);
}

// frexp: x = mantissa * 2^exponent with |mantissa| in [0.5, 1), an int32
// exponent; 0, inf and NaN keep their value with exponent 0. The exponent
// is floor(log2|x|) + 1, corrected by one where log2 rounded across a power
// of two; the mantissa is x * 2^-exponent in float64 (in two halves, since
// 2^1074 overflows even there), exact, so its gradient is PyTorch's
// grad / 2^exponent.
std::tuple<Tensor, Tensor> frexp_kernel(const Tensor& self) {
  WICK_CHECK(is_floating(self.dtype()), RuntimeError, "torch.frexp() only supports floating-point dtypes");
  const Tensor x = self.to(ScalarType::kFloat64);
  const Tensor finite = logical_and(isfinite(x), ne(x, Scalar(0)));
  const Tensor magnitude = where(finite, abs(x.detach()), ones_like(x));
  Tensor exponent = add(floor(log2(magnitude)), Scalar(1));
  const auto scaled = [&](const Tensor& e) {
    const Tensor half = trunc(div(e, Scalar(2)));
    return mul(mul(x, exp2(neg(half))), exp2(neg(sub(e, half))));
  };
  const Tensor m = abs(scaled(exponent).detach());
  exponent = add(exponent, sub(ge(m, Scalar(1)).to(ScalarType::kFloat64), lt(m, Scalar(0.5)).to(ScalarType::kFloat64)));
  exponent = where(finite, exponent, zeros_like(exponent));
  Tensor mantissa = where(finite, scaled(exponent), x).to(self.dtype());
  return {std::move(mantissa), exponent.to(ScalarType::kInt32)};
}

Tensor heaviside_kernel(const Tensor& self, const Tensor& values) {
  WICK_CHECK(!is_complex(self.dtype()) && !is_complex(values.dtype()), RuntimeError,
             "heaviside is not yet implemented for complex tensors.");
  WICK_CHECK(self.dtype() == values.dtype(), RuntimeError,
             "heaviside is not yet implemented for tensors with different dtypes.");
  const Tensor step = gt(self, Scalar(0)).to(self.dtype());
  return where(eq(self, Scalar(0)), values, step);
}

Tensor positive_kernel(const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, "The `+` operator, on a bool tensor is not supported.");
  return self;
}

Tensor count_nonzero_dims_kernel(const Tensor& self, IntArrayRef dim) {
  return sum(ne(self, Scalar(0)), OptionalIntArrayRef(dim), false, ScalarType::kInt64);
}
Tensor count_nonzero_kernel(const Tensor& self, std::optional<I64> dim) {
  if (!dim) return count_nonzero_dims_kernel(self, {});
  const I64 d = *dim;
  return count_nonzero_dims_kernel(self, IntArrayRef(d));
}

using Pair = std::tuple<Tensor, Tensor>;

Pair aminmax_kernel(const Tensor& self, std::optional<I64> dim, bool keepdim) {
  if (!dim) {
    WICK_CHECK(self.numel() > 0, RuntimeError,
               "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
    // keepdim without dim keeps every dim as 1, as PyTorch 1.13.
    const Tensor lo = amin(self, {}, keepdim);
    const Tensor hi = amax(self, {}, keepdim);
    return {lo, hi};
  }
  const I64 d = *dim;
  return {amin(self, IntArrayRef(d), keepdim), amax(self, IntArrayRef(d), keepdim)};
}

// var_mean and std_mean: the spread (var or std) and the mean over the same dims.
struct VarMean {
  static constexpr const char* kName = "var_mean";
  static Tensor spread(const Tensor& x, OptionalIntArrayRef dim, std::optional<I64> correction, bool keepdim) {
    return var_correction(x, dim, correction, keepdim);
  }
};
struct StdMean {
  static constexpr const char* kName = "std_mean";
  static Tensor spread(const Tensor& x, OptionalIntArrayRef dim, std::optional<I64> correction, bool keepdim) {
    return std_correction(x, dim, correction, keepdim);
  }
};
template <typename M>
Pair moment_mean_correction(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<I64> correction,
                            bool keepdim) {
  WICK_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()), RuntimeError, M::kName,
             " only support floating point and complex dtypes");
  return {M::spread(self, dims_of(dim), correction, keepdim), mean(self, dims_of(dim), keepdim)};
}
template <typename M>
Pair moment_mean_dim(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return moment_mean_correction<M>(self, dim, unbiased ? 1 : 0, keepdim);
}
template <typename M>
Pair moment_mean(const Tensor& self, bool unbiased) {
  return moment_mean_correction<M>(self, std::nullopt, unbiased ? 1 : 0, false);
}

Tensor dist_kernel(const Tensor& self, const Tensor& other, const Scalar& p) {
  const Tensor difference = sub(self, other);
  const ScalarType t = difference.dtype();
  WICK_CHECK(is_floating(t) || is_complex(t), RuntimeError,
             "norm(): input dtype should be either floating point or complex. Got ", type_title(t), " instead.");
  return linalg::vector_norm(difference, p);
}

// --- addcmul, addcdiv, true_divide ---------------------------------------------------------------------

Tensor addcmul_kernel(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  const ScalarType t = result_type(self, tensor1, tensor2);
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, "\"addcmul_cpu_out\" not implemented for 'Bool'");
  return add(self, mul(mul(tensor1, tensor2), scalar_in_dtype(value, t)));
}

Tensor addcdiv_kernel(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value) {
  WICK_CHECK(!is_integral(tensor1.dtype(), true) || !is_integral(tensor2.dtype(), true), RuntimeError,
             "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
             "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + "
             "value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * "
             "tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: "
             "(input + value * tensor1 / tensor2), for all dtypes.");
  return add(self, mul(div(tensor1, tensor2), value));
}

Tensor true_divide_kernel(const Tensor& self, const Tensor& other) { return div(self, other); }

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
      .impl("nanmean", &nanmean_kernel)
      .impl("copysign", &copysign_kernel)
      .impl("hypot", &hypot_kernel)
      .impl("logaddexp", &logaddexp_kernel)
      .impl("logaddexp2", &logaddexp2_kernel)
      .impl("xlogy", &xlogy_kernel)
      .impl("fmax", &fmax_kernel)
      .impl("fmin", &fmin_kernel)
      .impl("float_power", &float_power_kernel)
      .impl("ldexp", &ldexp_kernel)
      .impl("frexp", &frexp_kernel)
      .impl("heaviside", &heaviside_kernel)
      .impl("signbit", &signbit_kernel)
      .impl("positive", &positive_kernel)
      .impl("count_nonzero.dim_IntList", &count_nonzero_dims_kernel)
      .impl("count_nonzero", &count_nonzero_kernel)
      .impl("aminmax", &aminmax_kernel)
      .impl("var_mean", &moment_mean<VarMean>)
      .impl("var_mean.dim", &moment_mean_dim<VarMean>)
      .impl("var_mean.correction", &moment_mean_correction<VarMean>)
      .impl("std_mean", &moment_mean<StdMean>)
      .impl("std_mean.dim", &moment_mean_dim<StdMean>)
      .impl("std_mean.correction", &moment_mean_correction<StdMean>)
      .impl("dist", &dist_kernel)
      .impl("addcmul", &addcmul_kernel)
      .impl("addcdiv", &addcdiv_kernel)
      .impl("true_divide", &true_divide_kernel)
      .impl("sinc", &sinc_kernel)
      .impl("logit", &logit_kernel);
  out.push_back(std::move(lib));
  auto special = std::make_unique<Library>("torch.special", DispatchKey::kCompositeImplicit);
  special->impl("xlog1py", &xlog1py_kernel).impl("entr", &entr_kernel).impl("ndtr", &ndtr_kernel);
  out.push_back(std::move(special));
  auto tensor = std::make_unique<Library>("torch.Tensor", DispatchKey::kCompositeImplicit);
  tensor->impl("float_power_", &float_power__kernel);
  out.push_back(std::move(tensor));
}

}  // namespace wick
