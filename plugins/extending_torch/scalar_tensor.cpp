// plugins/extending_torch/scalar_tensor.cpp - the note's ScalarTensor and its converting variant.
/// \file
/// A ScalarTensor stands for the N×N matrix `value * eye(N)` without storing
/// it. ScalarTensor handles torch.mean and torch.add (with the note's fast
/// path for two ScalarTensors and slow path through tensors) and declines
/// everything else, so `torch.mul(s, 3)` is the protocol's TypeError.
/// ScalarTensorFallback is the note's second version: the same operators,
/// and every other operator on `to_tensor()` of its arguments.
#include <memory>
#include <string>

#include <wick/ops.h>
#include <wick/override.h>

#include "extending_torch.h"

namespace extending_torch {
namespace {

using wick::Kwargs;
using wick::Scalar;
using wick::Tensor;
using wick::TypeInfo;
using wick::Value;

class ScalarTensor final : public wick::TensorLike {
 public:
  ScalarTensor(const TypeInfo& type, std::int64_t n, Scalar value) : TensorLike(type), n_(n), value_(value) {}
  [[nodiscard]] std::string repr() const override {
    return type().name() + "(N=" + std::to_string(n_) + ", value=" + value_.repr() + ")";
  }
  /// The matrix it stands for: value * eye(N) (float32, as torch.eye).
  [[nodiscard]] Tensor to_tensor() const { return wick::mul(wick::eye(n_), wick::wrap_scalar(value_)); }
  [[nodiscard]] std::int64_t n() const noexcept { return n_; }
  [[nodiscard]] const Scalar& value() const noexcept { return value_; }

 private:
  std::int64_t n_;
  Scalar value_;  // a Python number: bool, int or float, as given
};

/// The ScalarTensor in `v` (of either registered type), or nullptr.
const ScalarTensor* get(const Value& v) {
  return v.is_object() ? dynamic_cast<const ScalarTensor*>(v.to_object().get()) : nullptr;
}

/// Python's `a + b` on two numbers: bools and ints add as ints.
Scalar add_numbers(const Scalar& a, const Scalar& b) {
  if (a.is_integral() && b.is_integral()) return Scalar(a.to<std::int64_t>() + b.to<std::int64_t>());
  return Scalar(a.to<double>() + b.to<double>());
}

Value make(const TypeInfo& type, std::int64_t n, Scalar value) {
  return Value(std::shared_ptr<wick::Object>(std::make_shared<ScalarTensor>(type, n, value)));
}

/// `ScalarTensor(N, value)`.
Value construct(const TypeInfo& type, const std::vector<Value>& args, const Kwargs& kwargs) {
  const std::vector<Value> a = wick::bind_params(type.name(), {"N", "value"}, args, kwargs);
  WICK_CHECK(a[0].is_int(), TypeError, type.name(), "(): argument 'N' must be int, not ", a[0].type_name());
  WICK_CHECK(a[0].to_int() >= 0, ValueError, type.name(), "(): argument 'N' must be non-negative, got ", a[0].to_int());
  WICK_CHECK(a[1].is_number(), TypeError, type.name(), "(): argument 'value' must be a number, not ", a[1].type_name());
  return make(type, a[0].to_int(), a[1].to_scalar());
}

/// The note's `ensure_tensor`: a ScalarTensor as its matrix, anything else as it is.
Value ensure_tensor(const Value& v) {
  if (const ScalarTensor* s = get(v)) return Value(s->to_tensor());
  return v;
}

/// The note's HANDLED_FUNCTIONS, shared by both types.
wick::HandledFunctions handled_functions() {
  wick::HandledFunctions handled;
  // @implements(torch.mean): float(input._value) / input._N
  handled.implements("torch.mean", {"input"}, [](const std::vector<Value>& a) -> Value {
    const ScalarTensor* s = get(a[0]);
    if (s == nullptr) return wick::call("torch.mean", {a[0]});
    return Value(s->value().to<double>() / static_cast<double>(s->n()));
  });
  // @implements(torch.add): the fast path for two ScalarTensors, else through tensors.
  handled.implements("torch.add", {"input", "other"}, [](const std::vector<Value>& a) -> Value {
    const ScalarTensor* x = get(a[0]);
    const ScalarTensor* y = get(a[1]);
    if (x != nullptr && y != nullptr) {
      WICK_CHECK(x->n() == y->n(), ValueError, "Shape mismatch!");
      return make(x->type(), x->n(), add_numbers(x->value(), y->value()));
    }
    return wick::call("torch.add", {ensure_tensor(a[0]), ensure_tensor(a[1])});
  });
  return handled;
}

Tensor to_tensor(const TypeInfo& type, const Value& v) {
  const ScalarTensor* s = get(v);
  WICK_CHECK(s != nullptr, TypeError, type.name(), ".to_tensor(): expected a ", type.name(), ", not ", v.type_name());
  return s->to_tensor();
}

}  // namespace

void register_scalar_tensor(wick::Library& lib) {
  auto handled = std::make_shared<const wick::HandledFunctions>(handled_functions());
  lib.register_type({
      .name = "ScalarTensor",
      .handler = [handled](const wick::TorchFunctionCall& call) { return handled->handle(call); },
      .constructor = construct,
      .to_tensor = to_tensor,
  });
  lib.register_type({
      .name = "ScalarTensorFallback",
      // The note's second __torch_function__: the table when it has the
      // operator and every type is a tensor or a ScalarTensor, else convert.
      .handler = [handled](const wick::TorchFunctionCall& call) -> Value {
        bool ours = handled->handles(call.op_name());
        for (const TypeInfo* t : call.types)
          ours =
              ours && (t->is_tensor_subclass() || t->name() == "ScalarTensor" || t->name() == "ScalarTensorFallback");
        return ours ? handled->handle(call) : wick::call_with_tensors(call);
      },
      .constructor = construct,
      .to_tensor = to_tensor,
  });
}

}  // namespace extending_torch
