// dispatch/composite/statistics_ops.cpp - cov, corrcoef, isin and renorm, over the reductions, mm, sort and searchsorted.
/// \file
/// Differentiable where PyTorch's are (cov, corrcoef and renorm, through
/// the operators they are written in: renorm's gradient flows through the
/// norm, as PyTorch's renorm_backward does); isin gives bools.
#include <cmath>
#include <memory>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;

// PyTorch's checks of a weight vector: at most 1-D, one per observation,
// none negative.
void check_weights(T w, const char* name, I64 observations) {
  WICK_CHECK(w.dim() <= 1, RuntimeError, "torch.cov: cov(): expected ", name,
             " to have one or fewer dimensions but got ", name, " with ", w.dim(), " dimensions");
  WICK_CHECK(w.numel() == observations, RuntimeError, "torch.cov: cov(): expected ", name,
             " to have the same numel as there are observations in the input but got ", w.numel(), " != ",
             observations);
  // Data checks need values: a meta tensor has none (its geometry is checked).
  WICK_CHECK(observations == 0 || w.device().is_meta() || w.min().ge(0).item().to<bool>(), RuntimeError,
             "torch.cov: cov(): ", name, " cannot be negative");
}

void check_weight_dtype(T w, const char* name, bool integral) {
  const bool fits = integral ? is_integral(w.dtype(), /*include_bool=*/false) : is_floating(w.dtype());
  WICK_CHECK(fits, RuntimeError, "torch.cov: cov(): expected ", name, " to have ",
             integral ? "integral" : "floating point", " dtype but got ", name, " with ", type_title(w.dtype()),
             " dtype");
}

// The weighted mean of each variable (row) over its observations, then
// sum(w (x - mean)(x - mean)^H) / (w_sum - correction * sum(w a) / w_sum),
// as numpy.cov; a normaliser <= 0 gives infinities and NaNs (PyTorch warns).
Tensor cov_kernel(T self, I64 correction, const std::optional<Tensor>& fweights,
                  const std::optional<Tensor>& aweights) {
  WICK_CHECK(self.dim() <= 2, RuntimeError, "torch.cov: cov(): expected input to have two or fewer dimensions but got "
             "an input with ", self.dim(), " dimensions");
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, "torch.cov: cov(): bool dtype is not supported for input");
  const Tensor in = self.dim() < 2 ? self.reshape({1, -1}) : self;
  const I64 observations = in.sizes()[1];
  std::optional<Tensor> w;
  if (fweights) {
    check_weight_dtype(*fweights, "fweights", true);
    check_weights(*fweights, "fweights", observations);
    w = *fweights;
  }
  if (aweights) {
    check_weight_dtype(*aweights, "aweights", false);
    check_weights(*aweights, "aweights", observations);
    w = w ? w->mul(*aweights) : *aweights;
  }
  const Tensor w_sum = w ? w->sum() : full({}, observations, ScalarType::kInt64, in.device());
  const bool meta = in.device().is_meta();
  WICK_CHECK(!w || meta || w_sum.ne(0).item().to<bool>(), RuntimeError,
             "torch.cov: cov(): weights sum to zero, can't be normalized");
  const Tensor mean = (w ? in.mul(*w) : in).sum(IntArrayRef{1}).div(w_sum);
  Tensor norm = w && aweights && correction != 0 ? w_sum.sub(w->mul(*aweights).sum().mul(correction).div(w_sum))
                                                 : w_sum.sub(correction);
  if (!meta && norm.le(0).item().to<bool>()) norm = zeros_like(norm);
  const Tensor centred = in.sub(mean.unsqueeze(1));
  const Tensor c = mm(centred, (w ? centred.mul(*w) : centred).t().conj());
  return c.true_divide(norm).squeeze();
}

// cov over the outer product of the deviations, clamped to [-1, 1] (each
// part of a complex one).
Tensor corrcoef_kernel(T self) {
  WICK_CHECK(self.dim() <= 2, RuntimeError, "torch.corrcoef: corrcoef(): expected input to have two or fewer "
             "dimensions but got an input with ", self.dim(), " dimensions");
  Tensor c = cov(self);
  if (c.dim() == 0) return c.div(c);  // one variable: 1, or NaN where its variance is 0, inf or NaN
  const Tensor d = c.diagonal();
  const Tensor deviation = (is_complex(d.dtype()) ? real(d) : d).sqrt();
  c = c.div(deviation.reshape({-1, 1})).div(deviation.reshape({1, -1}));
  if (is_complex(c.dtype())) return complex(real(c).clamp(-1, 1), imag(c).clamp(-1, 1));
  return c.clamp(-1, 1);
}

// Each element's place in the sorted test elements (searchsorted): found
// where the element there equals it. NaN equals nothing. PyTorch 1.13 has
// no isin for bool, bfloat16 or complex tensors.
Tensor isin_kernel(T elements, T test_elements, bool assume_unique, bool invert) {
  (void)assume_unique;  // an optimisation hint in PyTorch; the result is the same
  for (const Tensor* t : {&elements, &test_elements}) {
    WICK_CHECK(t->dtype() != ScalarType::kBool && t->dtype() != ScalarType::kBFloat16 && !is_complex(t->dtype()),
               RuntimeError,
               "torch.isin: Unsupported input type encountered for isin(): ", type_title(t->dtype()));
  }
  const ScalarType common = result_type(elements, test_elements);
  // A Python number (a wrapped CPU scalar) goes to the other's device.
  const Device device = elements.impl()->is_wrapped_number() ? test_elements.device() : elements.device();
  const Tensor x = elements.to(device, common);
  Tensor found;
  if (test_elements.numel() == 0) {
    found = zeros(elements.sizes(), ScalarType::kBool, device);
  } else {
    const Tensor sorted = std::get<0>(test_elements.to(device, common).flatten().sort());
    const Tensor place = searchsorted(sorted, x.contiguous()).clamp_max(sorted.numel() - 1);
    found = sorted.take(place).eq(x);
  }
  return invert ? found.logical_not() : found;
}

// Each slice along dim with a p-norm over maxnorm is scaled by
// maxnorm / (norm + 1e-7); the norm in float32 for float16 and bfloat16.
Tensor renorm_kernel(T self, const Scalar& p, I64 dim, const Scalar& maxnorm) {
  const char* op = "torch.renorm";
  WICK_CHECK(!p.is_complex(), RuntimeError, op, ": renorm: p must be real-valued");
  WICK_CHECK(p.to<double>() > 0.0, RuntimeError, op, ": renorm: non-positive-norm not supported");
  WICK_CHECK(!maxnorm.is_complex(), RuntimeError, op, ": renorm: maxnorm must be real-valued");
  WICK_CHECK(maxnorm.to<double>() >= 0.0, RuntimeError, op, ": renorm: expected maxnorm to be >= 0 but got ",
             maxnorm.to<double>());
  WICK_CHECK(self.dim() > 1, RuntimeError, op, ": renorm: input needs at least 2 dimensions, got ", self.dim(),
             " dimensions");
  const I64 d = wrap_dim(dim, self.dim());
  DimVector others;
  for (I64 k = 0; k < self.dim(); ++k) {
    if (k != d) others.push_back(k);
  }
  const ScalarType t = self.dtype();
  const bool reduced = t == ScalarType::kFloat16 || t == ScalarType::kBFloat16;
  const Tensor norm = linalg::vector_norm(self, p, IntArrayRef(others), /*keepdim=*/true,
                                          reduced ? std::optional(ScalarType::kFloat32) : std::nullopt);
  const double limit = maxnorm.to<double>();
  const Tensor factor = where(norm.gt(limit), norm.add(1e-7).reciprocal().mul(limit), Scalar(1.0));
  return self.mul(reduced ? factor.to(t) : factor);
}

}  // namespace

void register_statistics_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  torch->impl("cov", &cov_kernel)
      .impl("corrcoef", &corrcoef_kernel)
      .impl("isin", &isin_kernel)
      .impl("renorm", &renorm_kernel);
  out.push_back(std::move(torch));
}

}  // namespace wick
