// core/frontend/grad_scaler.cpp - GradScaler: loss scaling with inf/NaN checks.
/// \file
#include "wick/grad_scaler.h"

#include <cmath>

#include "wick/autograd.h"
#include "wick/error.h"
#include "wick/ops.h"

namespace wick::autocast {

GradScaler::GradScaler(GradScalerOptions options) : options_(options), scale_(options.init_scale) {
  WICK_CHECK(options_.init_scale > 0, ValueError, "GradScaler: init_scale must be positive, got ", options_.init_scale);
  WICK_CHECK(options_.growth_factor > 1.0, ValueError, "The growth factor must be > 1.0.  Got ",
             options_.growth_factor);
  WICK_CHECK(options_.backoff_factor > 0 && options_.backoff_factor < 1.0, ValueError,
             "The backoff factor must be < 1.0.  Got ", options_.backoff_factor);
  WICK_CHECK(options_.growth_interval >= 1, ValueError, "GradScaler: growth_interval must be at least 1, got ",
             options_.growth_interval);
}

Tensor GradScaler::scale(const Tensor& loss) const {
  if (!options_.enabled) return loss;
  return mul(loss, wrap_scalar(Scalar(scale_)));
}

void GradScaler::unscale_(const std::vector<Tensor>& params) {
  if (!options_.enabled) return;
  WICK_CHECK(!unscaled_, RuntimeError, "unscale_() has already been called on this optimizer since the last update().");
  const NoGradGuard no_grad;
  const Scalar inverse = 1.0 / scale_;
  bool found = false;
  for (const Tensor& p : params) {
    Tensor g = p.defined() ? p.grad() : Tensor();
    if (!g.defined()) continue;
    WICK_CHECK(g.dtype() != ScalarType::kFloat16, ValueError, "Attempting to unscale FP16 gradients.");
    g.mul_(wrap_scalar(inverse));
    // inf * 0 and NaN * 0 are NaN: one sum tells whether any element is.
    if (!found) found = std::isnan(sum(mul(g, wrap_scalar(Scalar(0.0)))).item<double>());
  }
  found_inf_ = found;
  unscaled_ = true;
}

void GradScaler::update() {
  if (!options_.enabled) return;
  if (found_inf_) {
    scale_ *= options_.backoff_factor;
    growth_tracker_ = 0;
  } else if (++growth_tracker_ == options_.growth_interval) {
    scale_ *= options_.growth_factor;
    growth_tracker_ = 0;
  }
  unscaled_ = false;
  found_inf_ = false;
}

}  // namespace wick::autocast
