// plugins/extending_autograd/extending_autograd.h - the PyTorch note's autograd and nn examples, in C++.
/// \file
/// Built only against the installed SDK. The same sources make the bundled
/// plugin (which registers the `extending_autograd.*` operators) and can be
/// compiled into a program or test that wants the C++ types:
///
///   using namespace extending_autograd;
///   Tensor y = LinearFunction::apply(x, w, b);          // custom Function
///   auto lin = std::make_shared<Linear>(4, 3);          // Linear(input_features=4, output_features=3, bias=True)
///   Tensor z = (*lin)(x);
///   wick::call("extending_autograd.linear", {x, w, b}); // the operator the plugin registers
#pragma once

#include <optional>
#include <string>

#include <wick/autograd_function.h>
#include <wick/library.h>
#include <wick/nn.h>

namespace extending_autograd {

using wick::Tensor;
using wick::autograd::AutogradContext;
using wick::autograd::tensor_list;

/// y = input · weightᵀ (+ bias): the note's LinearFunction, with a jvp for
/// forward mode.
struct LinearFunction : wick::autograd::Function<LinearFunction> {
  static Tensor forward(AutogradContext* ctx, Tensor input, Tensor weight, std::optional<Tensor> bias);
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs);
  static tensor_list jvp(AutogradContext* ctx, tensor_list input_tangents);
};

/// y = tensor · constant, the constant a non-tensor argument (its gradient
/// slot is undefined).
struct MulConstant : wick::autograd::Function<MulConstant> {
  static Tensor forward(AutogradContext* ctx, Tensor tensor, double constant);
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs);
  static tensor_list jvp(AutogradContext* ctx, tensor_list input_tangents);
};

/// MulConstant with set_materialize_grads(false): backward handles an
/// undefined gradient itself (and returns undefined for it).
struct MulConstantLazy : wick::autograd::Function<MulConstantLazy> {
  static Tensor forward(AutogradContext* ctx, Tensor tensor, double constant);
  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs);
};

/// The note's Linear module, built on LinearFunction.
class Linear : public wick::nn::Callable<Linear> {
 public:
  Linear(std::int64_t input_features, std::int64_t output_features, bool bias = true);
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;

  Tensor weight;
  Tensor bias;  ///< undefined when built without bias

 private:
  std::int64_t input_features_;
  std::int64_t output_features_;
};

/// Registers the plugin's operators on `registrar`'s libraries:
///   extending_autograd.linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
///   extending_autograd.mul_constant(Tensor self, float constant) -> Tensor
/// `linear` is a composite over LinearFunction; `mul_constant` has a CPU
/// kernel, a Meta kernel (its result's geometry) and an Autograd kernel
/// (MulConstant) of its own. Both carry samples for `wick opcheck`.
void register_operators(wick::Library& defs, wick::Library& composite, wick::Library& cpu, wick::Library& meta,
                        wick::Library& autograd);

}  // namespace extending_autograd
