// dispatch/composite/special_ops.cpp - the special functions built from others: mvlgamma, Tensor.polygamma, round(decimals=).
/// \file
/// mvlgamma(x, p) = p (p - 1) / 4 log(pi) + sum_{j < p} lgamma(x - j / 2), as
/// PyTorch computes it: lgamma of x broadcast against the p offsets, summed
/// over them. Tensor.polygamma(n) is torch.polygamma(n, self) with self
/// first, as PyTorch's method takes it. round(x, decimals=d) scales by 10^|d|
/// in x's dtype, rounds half to even and scales back, as PyTorch's kernel;
/// torch.special.round is round with decimals defaulting to 0.
#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

Tensor mvlgamma_kernel(const Tensor& self, std::int64_t p) {
  const char* op = "torch.mvlgamma";
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": The input tensor may not be a boolean tensor.");
  WICK_CHECK(p >= 1, RuntimeError, op, ": p has to be greater than or equal to 1");
  const ScalarType t = is_integral(self.dtype(), false) ? kDefaultFloat : self.dtype();
  // offsets 0, -1/2, ..., -(p - 1)/2 along a new last dim
  const Tensor offsets = mul(arange(Scalar(p), std::nullopt, 1, t, self.device()), Scalar(-0.5));
  const Tensor terms = lgamma(add(unsqueeze(self.to(t), -1), offsets));
  const double constant = static_cast<double>(p) * static_cast<double>(p - 1) / 4 * std::log(std::numbers::pi);
  return add(sum(terms, IntArrayRef{-1}), Scalar(constant));
}

Tensor polygamma_method_kernel(const Tensor& self, std::int64_t n) { return polygamma(n, self); }

// PyTorch's round with a decimals argument (given, or torch.special.round's
// default 0) takes float32, float64 and bfloat16 only; its kernel for 0 is
// round_vml_cpu, for the others round_cpu.
Tensor round_decimals_kernel(const Tensor& self, std::int64_t decimals) {
  const ScalarType t = self.dtype();
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64 || t == ScalarType::kBFloat16, RuntimeError,
             "torch.round: \"", decimals == 0 ? "round_vml_cpu" : "round_cpu", "\" not implemented for '",
             type_title(t), "'");
  if (decimals == 0) return round(self);
  const double scale = std::pow(10.0, std::fabs(static_cast<double>(decimals)));
  const Scalar factor(scale);
  return decimals > 0 ? div(round(mul(self, factor)), factor) : mul(round(div(self, factor)), factor);
}

}  // namespace

void register_special_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  lib->impl("mvlgamma", &mvlgamma_kernel).impl("round.decimals", &round_decimals_kernel);
  out.push_back(std::move(lib));
  auto tensor = std::make_unique<Library>("torch.Tensor", DispatchKey::kCompositeImplicit);
  tensor->impl("polygamma", &polygamma_method_kernel);
  out.push_back(std::move(tensor));
  auto special = std::make_unique<Library>("torch.special", DispatchKey::kCompositeImplicit);
  special->impl("round", &round_decimals_kernel);
  out.push_back(std::move(special));
}

}  // namespace wick
