// core/optim.cpp - optim::SGD.
/// \file
#include "wick/optim.h"

#include <unordered_set>
#include <utility>

#include "wick/autograd.h"
#include "wick/nn.h"
#include "wick/value.h"

namespace wick::optim {

SGD::SGD(std::vector<Tensor> params, SGDOptions options) : options_(options) {
  WICK_CHECK(options.lr >= 0.0, ValueError, "Invalid learning rate: ", python_float_repr(options.lr));
  WICK_CHECK(options.momentum >= 0.0, ValueError, "Invalid momentum value: ", python_float_repr(options.momentum));
  WICK_CHECK(options.weight_decay >= 0.0, ValueError, "Invalid weight_decay value: ",
             python_float_repr(options.weight_decay));
  WICK_CHECK(!options.nesterov || (options.momentum > 0 && options.dampening == 0), ValueError,
             "Nesterov momentum requires a momentum and zero dampening");
  WICK_CHECK(!params.empty(), ValueError, "optimizer got an empty parameter list");
  std::unordered_set<const TensorImpl*> seen;
  for (Tensor& p : params) {
    WICK_CHECK(p.defined(), ValueError, "can't optimize an undefined Tensor");
    WICK_CHECK(p.is_leaf(), ValueError, "can't optimize a non-leaf Tensor");
    if (seen.insert(p.impl()).second) params_.push_back(std::move(p));
  }
  momentum_buffers_.resize(params_.size());
}

void SGD::step() {
  NoGradGuard no_grad;
  const SGDOptions& o = options_;
  for (std::size_t i = 0; i < params_.size(); ++i) {
    Tensor& p = params_[i];
    const Tensor g = p.grad();
    if (!g.defined()) continue;
    Tensor d = o.maximize ? -g : g;
    if (o.weight_decay != 0) d = d.add(p, o.weight_decay);
    if (o.momentum != 0) {
      Tensor& buf = momentum_buffers_[i];
      if (!buf.defined()) {
        buf = d.clone();
      } else {
        buf.mul_(wrap_scalar(o.momentum));
        buf.add_(d, 1 - o.dampening);
      }
      d = o.nesterov ? d.add(buf, o.momentum) : buf;
    }
    p.add_(d, -o.lr);
  }
}

void SGD::zero_grad(bool set_to_none) { nn::zero_grad(params_, set_to_none); }

}  // namespace wick::optim
