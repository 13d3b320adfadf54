// plugins/extending_autograd/train_linear.cpp - train the note's Linear module on a synthetic regression.
/// \file
/// y = x·Wᵀ + b for a hidden W (3×4) and b; the model is the Linear module
/// built on LinearFunction, the loss a mean squared error, the optimizer SGD
/// with momentum. Prints the module and the loss; exits 1 unless the loss
/// falls below 1e-3 of its starting value.
#include <cstdio>
#include <iostream>

#include <wick/loader.h>
#include <wick/ops.h>
#include <wick/optim.h>
#include <wick/random.h>

#include "extending_autograd.h"

int main() {
  wick::init();
  wick::manual_seed(0);
  const wick::Tensor x = wick::randn({256, 4});
  const wick::Tensor true_w = wick::randn({3, 4});
  const wick::Tensor true_b = wick::randn({3});
  const wick::Tensor y = wick::add(x.mm(true_w.t()), true_b);

  auto model = std::make_shared<extending_autograd::Linear>(4, 3);
  std::cout << *model << "\n";
  wick::optim::SGD opt(model->parameters(), {.lr = 0.1, .momentum = 0.9});

  double first = 0;
  double loss_value = 0;
  for (int step = 0; step <= 200; ++step) {
    wick::Tensor diff = (*model)(x) - y;
    wick::Tensor loss = (diff * diff).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    loss_value = loss.item<double>();
    if (step == 0) first = loss_value;
    if (step % 50 == 0) std::printf("step %3d  loss %.6g\n", step, loss_value);
  }
  const bool ok = loss_value < 1e-3 * first;
  std::printf("loss %.3g -> %.3g (%s)\n", first, loss_value, ok ? "below 1e-3 of the start" : "NOT converged");
  return ok ? 0 : 1;
}
