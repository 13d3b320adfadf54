// core/frontend/optim_adam.cpp - optim::Adam, AdamW, Adamax, NAdam and RAdam.
/// \file
/// Each update follows PyTorch 1.13's single-tensor function (_single_tensor_adam
/// and its siblings) operation by operation, so that float64 results agree
/// to rounding: the bias corrections are computed in double from the step
/// count, everything else as in-place tensor operations in the parameter's
/// dtype.
#include <cmath>
#include <utility>

#include "core/frontend/optim_util.h"
#include "wick/optim.h"

namespace wick::optim {

using detail::check_betas;
using detail::check_non_negative;
using detail::decayed_grad;
using detail::num;
using detail::zeros_state;

namespace {

void check_adam_like(double lr, double eps, const std::array<double, 2>& betas, double weight_decay) {
  check_non_negative(lr, "learning rate");
  check_non_negative(eps, "epsilon value");
  check_betas(betas);
  check_non_negative(weight_decay, "weight_decay value");
}

// The moment updates and the parameter update Adam and AdamW share; `grad`
// already has maximize and (for Adam) weight decay applied.
void adam_update(Tensor& p, const Tensor& grad, ParamState& st, double lr, const std::array<double, 2>& betas,
                 double eps, bool amsgrad) {
  const auto [beta1, beta2] = betas;
  Tensor exp_avg = zeros_state(st, "exp_avg", p);
  Tensor exp_avg_sq = zeros_state(st, "exp_avg_sq", p);
  st.step += 1;
  const auto step = static_cast<double>(st.step);
  exp_avg.mul_(num(beta1)).add_(grad, 1 - beta1);
  exp_avg_sq.mul_(num(beta2)).addcmul_(grad, grad, 1 - beta2);
  const double bias_correction1 = 1 - std::pow(beta1, step);
  const double bias_correction2 = 1 - std::pow(beta2, step);
  const double step_size = lr / bias_correction1;
  const double bias_correction2_sqrt = std::sqrt(bias_correction2);
  Tensor denom;
  if (amsgrad) {
    Tensor max_sq = zeros_state(st, "max_exp_avg_sq", p);
    max_sq.copy_(maximum(max_sq, exp_avg_sq));
    denom = max_sq.sqrt().div(bias_correction2_sqrt).add_(num(eps));
  } else {
    denom = exp_avg_sq.sqrt().div(bias_correction2_sqrt).add_(num(eps));
  }
  p.addcdiv_(exp_avg, denom, -step_size);
}

// Creates a state's tensors in PyTorch's order on a parameter's first step.
void init_adam_state(ParamState& st, const Tensor& p, bool amsgrad) {
  if (!st.tensors.empty()) return;
  st.set("exp_avg", zeros_like(p));
  st.set("exp_avg_sq", zeros_like(p));
  if (amsgrad) st.set("max_exp_avg_sq", zeros_like(p));
}

}  // namespace

// --- Adam ------------------------------------------------------------------------------------

void check_options(const AdamOptions& o) { check_adam_like(o.lr, o.eps, o.betas, o.weight_decay); }

void Adam::update() {
  for_each_grad([&](const AdamOptions& o, Tensor& p, const Tensor& g) {
    ParamState& st = state_of(p);
    init_adam_state(st, p, o.amsgrad);
    adam_update(p, decayed_grad(p, g, o.maximize, o.weight_decay), st, o.lr, o.betas, o.eps, o.amsgrad);
  });
}

// --- AdamW -----------------------------------------------------------------------------------

void check_options(const AdamWOptions& o) { check_adam_like(o.lr, o.eps, o.betas, o.weight_decay); }

void AdamW::update() {
  for_each_grad([&](const AdamWOptions& o, Tensor& p, const Tensor& g) {
    ParamState& st = state_of(p);
    init_adam_state(st, p, o.amsgrad);
    p.mul_(num(1 - o.lr * o.weight_decay));
    adam_update(p, o.maximize ? -g : g, st, o.lr, o.betas, o.eps, o.amsgrad);
  });
}

// --- Adamax ----------------------------------------------------------------------------------

void check_options(const AdamaxOptions& o) { check_adam_like(o.lr, o.eps, o.betas, o.weight_decay); }

void Adamax::update() {
  for_each_grad([&](const AdamaxOptions& o, Tensor& p, const Tensor& g) {
    const auto [beta1, beta2] = o.betas;
    ParamState& st = state_of(p);
    Tensor exp_avg = zeros_state(st, "exp_avg", p);
    Tensor exp_inf = zeros_state(st, "exp_inf", p);
    st.step += 1;
    const Tensor grad = decayed_grad(p, g, o.maximize, o.weight_decay);
    exp_avg.mul_(num(beta1)).add_(grad, 1 - beta1);
    // exp_inf = max(beta2 * exp_inf, |grad| + eps), elementwise.
    exp_inf.mul_(num(beta2));
    exp_inf.copy_(maximum(exp_inf, grad.abs().add(num(o.eps))));
    const double clr = o.lr / (1 - std::pow(beta1, static_cast<double>(st.step)));
    p.addcdiv_(exp_avg, exp_inf, -clr);
  });
}

// --- NAdam -----------------------------------------------------------------------------------

void check_options(const NAdamOptions& o) {
  check_adam_like(o.lr, o.eps, o.betas, o.weight_decay);
  check_non_negative(o.momentum_decay, "momentum_decay value");
}

void NAdam::update() {
  for_each_grad([&](const NAdamOptions& o, Tensor& p, const Tensor& g) {
    const auto [beta1, beta2] = o.betas;
    ParamState& st = state_of(p);
    // PyTorch keeps the running product of the momentum schedule in a
    // float32 0-dim tensor (torch.tensor(1.)): so does wick, for its rounding.
    if (!st.contains("mu_product")) st.set("mu_product", full({}, 1.0, ScalarType::kFloat32));
    Tensor mu_product = st.at("mu_product");
    Tensor exp_avg = zeros_state(st, "exp_avg", p);
    Tensor exp_avg_sq = zeros_state(st, "exp_avg_sq", p);
    st.step += 1;
    const auto step = static_cast<double>(st.step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const Tensor grad = decayed_grad(p, g, false, o.weight_decay);
    const double mu = beta1 * (1. - 0.5 * std::pow(0.96, step * o.momentum_decay));
    const double mu_next = beta1 * (1. - 0.5 * std::pow(0.96, (step + 1) * o.momentum_decay));
    mu_product.mul_(num(mu));
    const double mu_product_next = mu_product.mul(num(mu)).mul(num(mu_next)).item<double>();
    exp_avg.mul_(num(beta1)).add_(grad, 1 - beta1);
    exp_avg_sq.mul_(num(beta2)).addcmul_(grad, grad, 1 - beta2);
    const Tensor denom = exp_avg_sq.div(bias_correction2).sqrt().add_(num(o.eps));
    p.addcdiv_(grad, denom, -o.lr * (1. - mu) / (1. - mu_product.item<double>()));
    p.addcdiv_(exp_avg, denom, -o.lr * mu_next / (1. - mu_product_next));
  });
}

// --- RAdam -----------------------------------------------------------------------------------

void check_options(const RAdamOptions& o) { check_adam_like(o.lr, o.eps, o.betas, o.weight_decay); }

void RAdam::update() {
  for_each_grad([&](const RAdamOptions& o, Tensor& p, const Tensor& g) {
    const auto [beta1, beta2] = o.betas;
    ParamState& st = state_of(p);
    Tensor exp_avg = zeros_state(st, "exp_avg", p);
    Tensor exp_avg_sq = zeros_state(st, "exp_avg_sq", p);
    st.step += 1;
    const auto step = static_cast<double>(st.step);
    const double bias_correction1 = 1 - std::pow(beta1, step);
    const double bias_correction2 = 1 - std::pow(beta2, step);
    const Tensor grad = decayed_grad(p, g, false, o.weight_decay);
    exp_avg.mul_(num(beta1)).add_(grad, 1 - beta1);
    exp_avg_sq.mul_(num(beta2)).addcmul_(grad, grad, 1 - beta2);
    const Tensor corrected = exp_avg.div(bias_correction1);
    // The variance of the adaptive term is tractable once rho_t > 5.
    const double rho_inf = 2 / (1 - beta2) - 1;
    const double rho_t = rho_inf - 2 * step * std::pow(beta2, step) / bias_correction2;
    if (rho_t > 5.) {
      const double rect = std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
      // Python's `number / tensor` is reciprocal(tensor) * number.
      const Tensor adaptive_lr = exp_avg_sq.sqrt().add_(num(o.eps)).reciprocal().mul(std::sqrt(bias_correction2));
      p.add_(corrected.mul(o.lr).mul(adaptive_lr).mul(rect), -1.0);
    } else {
      p.add_(corrected.mul(o.lr), -1.0);
    }
  });
}

}  // namespace wick::optim
