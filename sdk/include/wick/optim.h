// wick/optim.h - optimizers that update parameters in place from their gradients.
/// \file
/// `SGD` is PyTorch's stochastic gradient descent with momentum, dampening,
/// Nesterov momentum, weight decay and maximize:
///
///   wick::optim::SGD opt(net->parameters(), {.lr = 0.1, .momentum = 0.9});
///   for (...) {
///     opt.zero_grad();
///     loss(net, batch).backward();
///     opt.step();
///   }
#pragma once

#include <vector>

#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::optim {

/// Hyper-parameters of SGD (the names and defaults of torch.optim.SGD; `lr`
/// has no default).
struct SGDOptions {
  double lr;
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
};

/// For each parameter p with gradient g (parameters without one are skipped):
///
///   d = maximize ? -g : g
///   d = d + weight_decay * p                      (when weight_decay != 0)
///   buf = clone(d) on the first step, else momentum * buf + (1 - dampening) * d
///   d = nesterov ? d + momentum * buf : buf       (when momentum != 0)
///   p -= lr * d
class WICK_API SGD final {
 public:
  /// ValueError, as torch.optim.SGD: "Invalid learning rate: -0.1", "Invalid
  /// momentum value: ...", "Invalid weight_decay value: ...", "Nesterov
  /// momentum requires a momentum and zero dampening", "optimizer got an empty
  /// parameter list", "can't optimize a non-leaf Tensor" (and for an undefined
  /// one). A parameter listed twice is kept once.
  SGD(std::vector<Tensor> params, SGDOptions options);

  /// One update of every parameter that has a gradient, in place (the
  /// parameters keep their identity) and without recording a graph.
  void step();
  /// Zeroes the parameters' gradients in place, or resets them to undefined.
  void zero_grad(bool set_to_none = false);

  [[nodiscard]] const SGDOptions& options() const noexcept { return options_; }
  [[nodiscard]] const std::vector<Tensor>& params() const noexcept { return params_; }

 private:
  std::vector<Tensor> params_;
  std::vector<Tensor> momentum_buffers_;  // one per parameter, undefined until its first step
  SGDOptions options_;
};

}  // namespace wick::optim
