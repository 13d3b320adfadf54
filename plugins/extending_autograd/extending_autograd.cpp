// plugins/extending_autograd/extending_autograd.cpp - LinearFunction, MulConstant, Linear and the operators.
/// \file
#include "extending_autograd.h"

#include <cmath>

#include <wick/nn.h>
#include <wick/ops.h>

namespace extending_autograd {

// --- LinearFunction ---------------------------------------------------------------

Tensor LinearFunction::forward(AutogradContext* ctx, Tensor input, Tensor weight, std::optional<Tensor> bias) {
  ctx->save_for_backward({input, weight, bias ? *bias : Tensor()});
  Tensor output = input.mm(weight.t());
  if (bias) output.add_(bias->unsqueeze(0).expand(output.sizes()));
  return output;
}

tensor_list LinearFunction::backward(AutogradContext* ctx, tensor_list grad_outputs) {
  // Unpack the saved tensors; gradients stay undefined unless needed.
  tensor_list saved = ctx->get_saved_variables();
  const Tensor& input = saved[0];
  const Tensor& weight = saved[1];
  const Tensor& bias = saved[2];
  const Tensor& grad_output = grad_outputs[0];
  Tensor grad_input, grad_weight, grad_bias;
  if (ctx->needs_input_grad(0)) grad_input = grad_output.mm(weight);
  if (ctx->needs_input_grad(1)) grad_weight = grad_output.t().mm(input);
  if (bias.defined() && ctx->needs_input_grad(2)) grad_bias = grad_output.sum({0});
  return {grad_input, grad_weight, grad_bias};
}

tensor_list LinearFunction::jvp(AutogradContext* ctx, tensor_list input_tangents) {
  // d(x Wᵀ + b) = dx Wᵀ + x dWᵀ + db (tangents arrive as zeros when absent).
  tensor_list saved = ctx->get_saved_variables();
  Tensor tangent = input_tangents[0].mm(saved[1].t()).add(saved[0].mm(input_tangents[1].t()));
  if (saved[2].defined()) tangent = tangent.add(input_tangents[2].unsqueeze(0));
  return {tangent};
}

// --- MulConstant ----------------------------------------------------------------------

namespace {

// The plugin's own operator: forward calls it, so with grad mode off (as
// in forward) it reaches the CPU kernel below.
Tensor mul_constant_op(const Tensor& t, double constant) {
  static const auto op = wick::find_op("extending_autograd.mul_constant").typed<Tensor(const Tensor&, double)>();
  return op.call(t, constant);
}

}  // namespace

Tensor MulConstant::forward(AutogradContext* ctx, Tensor tensor, double constant) {
  ctx->saved_data["constant"] = constant;
  return mul_constant_op(tensor, constant);
}

tensor_list MulConstant::backward(AutogradContext* ctx, tensor_list grad_outputs) {
  // One gradient per forward argument: none for the constant.
  return {grad_outputs[0] * ctx->saved_data["constant"].to_double(), Tensor()};
}

tensor_list MulConstant::jvp(AutogradContext* ctx, tensor_list input_tangents) {
  return {input_tangents[0] * ctx->saved_data["constant"].to_double()};
}

Tensor MulConstantLazy::forward(AutogradContext* ctx, Tensor tensor, double constant) {
  ctx->set_materialize_grads(false);
  ctx->saved_data["constant"] = constant;
  return mul_constant_op(tensor, constant);
}

tensor_list MulConstantLazy::backward(AutogradContext* ctx, tensor_list grad_outputs) {
  if (!grad_outputs[0].defined()) return {Tensor(), Tensor()};  // nothing to do for a zero gradient
  return {grad_outputs[0] * ctx->saved_data["constant"].to_double(), Tensor()};
}

// --- Linear -----------------------------------------------------------------------------------

Linear::Linear(std::int64_t input_features, std::int64_t output_features, bool bias)
    : input_features_(input_features), output_features_(output_features) {
  // Parameters register themselves; an absent bias registers as undefined.
  weight = register_parameter("weight", wick::empty({output_features, input_features}));
  this->bias = register_parameter("bias", bias ? wick::empty({output_features}) : Tensor());
  // Initialised as in the note: uniform in [-0.1, 0.1].
  wick::nn::init::uniform_(weight, -0.1, 0.1);
  if (bias) wick::nn::init::uniform_(this->bias, -0.1, 0.1);
}

Tensor Linear::forward(const Tensor& input) {
  return LinearFunction::apply(input, weight, bias.defined() ? std::optional<Tensor>(bias) : std::nullopt);
}

std::string Linear::extra_repr() const {
  return "input_features=" + std::to_string(input_features_) + ", output_features=" +
         std::to_string(output_features_) + ", bias=" + (bias.defined() ? "True" : "False");
}

// --- operators ---------------------------------------------------------------------------------

namespace {

Tensor linear_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  return LinearFunction::apply(input, weight, bias);
}

// The argument check and the result's geometry, shared by the CPU and Meta
// kernels.
Tensor mul_constant_result(const Tensor& self) {
  WICK_CHECK(self.dtype() == wick::ScalarType::kFloat32 || self.dtype() == wick::ScalarType::kFloat64, TypeError,
             "extending_autograd.mul_constant(): argument 'self' must be a float32 or float64 tensor, not ",
             wick::dtype_name(self.dtype()));
  return wick::make_empty(self.sizes(), self.dtype(), self.device());
}

// A real CPU kernel: one loop over contiguous float or double data.
Tensor mul_constant_cpu(const Tensor& self, double constant) {
  Tensor in = self.contiguous();
  Tensor out = mul_constant_result(in);
  const std::int64_t n = in.numel();
  if (in.dtype() == wick::ScalarType::kFloat32) {
    const float* src = in.data_ptr<float>();
    float* dst = out.data_ptr<float>();
    const auto c = static_cast<float>(constant);
    for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i] * c;
  } else {
    const double* src = in.data_ptr<double>();
    double* dst = out.data_ptr<double>();
    for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i] * constant;
  }
  return out;
}

// Meta tensors: the result's geometry only.
Tensor mul_constant_meta(const Tensor& self, double /*constant*/) { return mul_constant_result(self); }

// The operator's formula: the custom Function records the graph (and runs
// the operator again, below Autograd, in its forward).
Tensor mul_constant_autograd(const Tensor& self, double constant) { return MulConstant::apply(self, constant); }

}  // namespace

void register_operators(wick::Library& defs, wick::Library& composite, wick::Library& cpu, wick::Library& meta,
                        wick::Library& autograd) {
  // Samples for `wick opcheck` (Note [Sample syntax] in wick/opcheck.h).
  wick::DefOptions linear_options;
  linear_options.samples = "T[2, 3], T[4, 3], T[4]\nT[2, 3], T[4, 3]\nT[1, 3], T[2, 3], T[2]";
  defs.def("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", linear_options);
  wick::DefOptions mul_constant_options;
  mul_constant_options.samples = "T[2, 3], 2.5\nT[], -0.5";
  defs.def("mul_constant(Tensor self, float constant) -> Tensor", mul_constant_options);
  composite.impl("linear", &linear_composite);
  cpu.impl("mul_constant", &mul_constant_cpu);
  meta.impl("mul_constant", &mul_constant_meta);
  autograd.impl("mul_constant", &mul_constant_autograd);
}

}  // namespace extending_autograd
