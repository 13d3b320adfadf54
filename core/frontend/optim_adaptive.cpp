// core/frontend/optim_adaptive.cpp - optim::RMSprop, Adagrad and Adadelta.
/// \file
/// PyTorch 1.13's single-tensor updates, operation by operation (see
/// optim_adam.cpp).
#include <utility>

#include "core/frontend/optim_util.h"
#include "wick/optim.h"

namespace wick::optim {

using detail::check_non_negative;
using detail::decayed_grad;
using detail::num;
using detail::zeros_state;

// --- RMSprop ---------------------------------------------------------------------------------

void check_options(const RMSpropOptions& o) {
  check_non_negative(o.lr, "learning rate");
  check_non_negative(o.eps, "epsilon value");
  check_non_negative(o.momentum, "momentum value");
  check_non_negative(o.weight_decay, "weight_decay value");
  check_non_negative(o.alpha, "alpha value");
}

void RMSprop::update() {
  for_each_grad([&](const RMSpropOptions& o, Tensor& p, const Tensor& g) {
    ParamState& st = state_of(p);
    Tensor square_avg = zeros_state(st, "square_avg", p);
    if (o.momentum > 0) zeros_state(st, "momentum_buffer", p);
    if (o.centered) zeros_state(st, "grad_avg", p);
    st.step += 1;
    const Tensor grad = decayed_grad(p, g, o.maximize, o.weight_decay);
    square_avg.mul_(num(o.alpha)).addcmul_(grad, grad, 1 - o.alpha);
    Tensor avg;
    if (o.centered) {
      Tensor grad_avg = st.at("grad_avg");
      grad_avg.mul_(num(o.alpha)).add_(grad, 1 - o.alpha);
      avg = square_avg.addcmul(grad_avg, grad_avg, -1).sqrt_();
    } else {
      avg = square_avg.sqrt();
    }
    avg.add_(num(o.eps));
    if (o.momentum > 0) {
      Tensor buf = st.at("momentum_buffer");
      buf.mul_(num(o.momentum)).addcdiv_(grad, avg);
      p.add_(buf, -o.lr);
    } else {
      p.addcdiv_(grad, avg, -o.lr);
    }
  });
}

// --- Adagrad ---------------------------------------------------------------------------------

void check_options(const AdagradOptions& o) {
  check_non_negative(o.lr, "learning rate");
  check_non_negative(o.lr_decay, "lr_decay value");
  check_non_negative(o.weight_decay, "weight_decay value");
  check_non_negative(o.initial_accumulator_value, "initial_accumulator_value value");
  check_non_negative(o.eps, "epsilon value");
}

namespace {
// Adagrad's accumulator starts at initial_accumulator_value.
Tensor& adagrad_sum(ParamState& st, const Tensor& p, double initial) {
  if (!st.contains("sum")) st.set("sum", full_like(p, initial));
  return st.at("sum");
}
}  // namespace

// PyTorch creates Adagrad's state in the constructor, so it can be read (and
// shared) before the first step.
Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions options) : OptimizerWith(std::move(params), options) {
  create_state();
}
Adagrad::Adagrad(std::initializer_list<ParamGroupSpec> groups, AdagradOptions options)
    : Adagrad(std::vector<ParamGroupSpec>(groups), options) {}
Adagrad::Adagrad(std::vector<ParamGroupSpec> groups, AdagradOptions options)
    : OptimizerWith(std::move(groups), options) {
  create_state();
}

void Adagrad::create_state() {
  for (Group& group : groups_) {
    for (const Tensor& p : group.params) adagrad_sum(state_of(p), p, group.options.initial_accumulator_value);
  }
}

void Adagrad::update() {
  for_each_grad([&](const AdagradOptions& o, Tensor& p, const Tensor& g) {
    ParamState& st = state_of(p);
    Tensor sum = adagrad_sum(st, p, o.initial_accumulator_value);
    st.step += 1;
    const Tensor grad = decayed_grad(p, g, o.maximize, o.weight_decay);
    const double clr = o.lr / (1 + static_cast<double>(st.step - 1) * o.lr_decay);
    sum.addcmul_(grad, grad, 1);
    const Tensor std_dev = sum.sqrt().add_(num(o.eps));
    p.addcdiv_(grad, std_dev, -clr);
  });
}

// --- Adadelta --------------------------------------------------------------------------------

void check_options(const AdadeltaOptions& o) {
  check_non_negative(o.lr, "learning rate");
  WICK_CHECK(o.rho >= 0.0 && o.rho <= 1.0, ValueError, "Invalid rho value: ", python_float_repr(o.rho));
  check_non_negative(o.eps, "epsilon value");
  check_non_negative(o.weight_decay, "weight_decay value");
}

void Adadelta::update() {
  for_each_grad([&](const AdadeltaOptions& o, Tensor& p, const Tensor& g) {
    ParamState& st = state_of(p);
    Tensor square_avg = zeros_state(st, "square_avg", p);
    Tensor acc_delta = zeros_state(st, "acc_delta", p);
    st.step += 1;
    const Tensor grad = decayed_grad(p, g, o.maximize, o.weight_decay);
    square_avg.mul_(num(o.rho)).addcmul_(grad, grad, 1 - o.rho);
    const Tensor std_dev = square_avg.add(num(o.eps)).sqrt_();
    Tensor delta = acc_delta.add(num(o.eps)).sqrt_();
    delta.div_(std_dev).mul_(grad);
    acc_delta.mul_(num(o.rho)).addcmul_(delta, delta, 1 - o.rho);
    p.add_(delta, -o.lr);
  });
}

}  // namespace wick::optim
