// myplugin.cpp - a wick plugin: an operator defined once (myplugin.ops) with a
// meta function, a CPU kernel and an autograd formula, and a tensor-like type
// with a handler. Only <wick/...> headers and the generated ones.
#include <wick/autograd_function.h>
#include <wick/ops.h>
#include <wick/override.h>
#include <wick/plugin.h>

#include "myplugin_kernels.h"
#include "myplugin_meta.h"
#include "myplugin_ops.h"

// --- the operator: myplugin.scale(Tensor self, float factor) -> Tensor --------------

// The meta function: checks the arguments and gives the result's shape and
// dtype, for every backend and for meta tensors (`wick/meta.h`).
wick::ElementwiseMeta myplugin::meta::scale(const wick::Tensor& self, double /*factor*/) {
  return wick::meta::unary_op("myplugin.scale", self, wick::meta::UnaryKind::kFloat);
}

namespace {

using wick::Tensor;
using wick::Value;

// A loop over the elements in the result's dtype.
template <typename T>
void scale_loop(const Tensor& out, const Tensor& self, T factor) {
  const Tensor in = self.contiguous().to(out.dtype());
  const T* src = in.data_ptr<T>();
  T* dst = Tensor(out).data_ptr<T>();
  for (std::int64_t i = 0; i < in.numel(); ++i) dst[i] = src[i] * factor;
}

}  // namespace

// The CPU kernel, declared by the generator (myplugin_kernels.h: `dispatch: CPU`):
// the computation only. `out` is allocated (or, for out=, checked) from the
// meta function's result; m.compute is float32 or float64.
void myplugin::cpu::scale(const wick::ElementwiseMeta& m, const wick::Tensor& out, const wick::Tensor& self,
                          double factor) {
  if (m.compute == wick::ScalarType::kFloat32) {
    scale_loop<float>(out, self, static_cast<float>(factor));
  } else {
    scale_loop<double>(out, self, factor);
  }
}

namespace {

// The formula: d(self * factor)/d(self) = factor.
struct ScaleFunction : wick::autograd::Function<ScaleFunction> {
  static Tensor forward(wick::autograd::AutogradContext* ctx, Tensor self, double factor) {
    ctx->saved_data["factor"] = factor;
    static const auto op = wick::find_op("myplugin.scale").typed<Tensor(const Tensor&, double)>();
    return op.call(self, factor);  // grad mode is off here: this reaches the CPU kernel
  }
  static wick::autograd::tensor_list backward(wick::autograd::AutogradContext* ctx, wick::autograd::tensor_list grads) {
    return {grads[0] * ctx->saved_data["factor"].to_double(), Tensor()};
  }
  // Forward mode: the tangent of self, scaled the same way.
  static wick::autograd::tensor_list jvp(wick::autograd::AutogradContext* ctx, wick::autograd::tensor_list tangents) {
    return {tangents[0] * ctx->saved_data["factor"].to_double()};
  }
};

Tensor scale_autograd(const Tensor& self, double factor) { return ScaleFunction::apply(self, factor); }

// --- the type: Scaled(tensor, factor), a tensor-like for `tensor * factor` ---------------

class Scaled final : public wick::TensorLike {
 public:
  Scaled(const wick::TypeInfo& type, Tensor t, double factor) : TensorLike(type), t_(std::move(t)), factor_(factor) {}
  [[nodiscard]] std::string repr() const override {
    return "Scaled(factor=" + Value(factor_).repr() + ", tensor=" + t_.repr() + ")";
  }
  [[nodiscard]] Tensor value() const { return wick::mul(t_, wick::wrap_scalar(factor_)); }
  [[nodiscard]] const Tensor& tensor() const { return t_; }
  [[nodiscard]] double factor() const { return factor_; }

 private:
  Tensor t_;
  double factor_;
};

const Scaled* as_scaled(const Value& v) {
  return v.is_object() ? dynamic_cast<const Scaled*>(v.to_object().get()) : nullptr;
}

// Its handler: torch.sum without materialising the product, everything else
// on the product (the note's converting fallback).
Value handle(const wick::TorchFunctionCall& call) {
  if (call.op_name() == "torch.sum" && call.args.size() == 1 && call.kwargs.empty())
    if (const Scaled* s = as_scaled(call.args[0])) return wick::mul(s->tensor().sum(), wick::wrap_scalar(s->factor()));
  return wick::call_with_tensors(call);
}

}  // namespace

WICK_PLUGIN("myplugin", "0.1.0", registrar) {
  registrar.define(myplugin_catalog());
  myplugin::cpu::register_myplugin_kernels(registrar, wick::DispatchKey::kCPU);
  registrar.library("myplugin", wick::DispatchKey::kAutograd).impl("scale", &scale_autograd);
  registrar.library("myplugin")
      .register_type({
          .name = "Scaled",
          .handler = handle,
          .constructor =
              [](const wick::TypeInfo& type, const std::vector<Value>& args, const wick::Kwargs& kwargs) {
                const std::vector<Value> a = wick::bind_params("Scaled", {"tensor", "factor"}, args, kwargs);
                WICK_CHECK(a[0].is_tensor(), TypeError, "Scaled(): argument 'tensor' must be Tensor, not ",
                           a[0].type_name());
                WICK_CHECK(a[1].is_number(), TypeError, "Scaled(): argument 'factor' must be a number, not ",
                           a[1].type_name());
                return Value(
                    std::shared_ptr<wick::Object>(std::make_shared<Scaled>(type, a[0].to_tensor(), a[1].to_double())));
              },
          .to_tensor =
              [](const wick::TypeInfo&, const Value& v) {
                const Scaled* s = as_scaled(v);
                WICK_CHECK(s != nullptr, TypeError, "Scaled.to_tensor(): expected a Scaled, not ", v.type_name());
                return s->value();
              },
      });
}
