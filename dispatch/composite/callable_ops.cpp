// dispatch/composite/callable_ops.cpp - Tensor.apply_, map_ and map2_: a Python callable over the elements.
/// \file
/// PyTorch runs these in its Python binding, one call of the callable per
/// element, in row-major order of self; so do these kernels, with a
/// wick::Callable (wick/callable.h). The elements reach the callable as
/// Python numbers (item()), and its results are converted to self's dtype as
/// torch.tensor converts Python numbers; the tensor is written once, at the
/// end, so a callable that throws leaves self as it was.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/callable.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"

namespace wick {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;

// PyTorch's checks of the tensor the callable writes, in its words.
void check_self(T self, const char* name) {
  WICK_CHECK(!self.requires_grad(), RuntimeError, "Can't call ", name,
             "() on Variable that requires grad. Use var.detach().", name, "() instead.");
  WICK_CHECK(self.device().is_cpu() || self.device().is_meta(), TypeError, name, " is only implemented on CPU tensors");
}

// The other tensors must have self's type (PyTorch's map_: "expected
// torch.FloatTensor for 'other' (got torch.LongTensor)"; map2_'s says "for
// argument 'x'"), and broadcast to self's shape (expand's error otherwise).
Tensor operand(T self, T t, const char* op, const char* arg, bool map2) {
  WICK_CHECK(t.dtype() == self.dtype() && t.device() == self.device(), TypeError, op, ": expected ",
             legacy_type_name(self.dtype(), self.device()), " for ", map2 ? "argument '" : "'", arg, "' (got ",
             legacy_type_name(t.dtype(), t.device()), ")");
  return t.expand(self.sizes()).contiguous();
}

// self[i] = fn(self[i], operands[0][i], ...) for every element, in row-major order.
Tensor apply_elements(Tensor self, const std::vector<Tensor>& operands, const Value& callable) {
  const Callable& fn = callable_of(callable);
  if (self.device().is_meta() || self.numel() == 0) return self;
  const Tensor flat = self.contiguous().reshape({-1});
  std::vector<Tensor> others;
  others.reserve(operands.size());
  for (const Tensor& o : operands) others.push_back(o.reshape({-1}));
  std::vector<Value> results;
  results.reserve(static_cast<std::size_t>(flat.numel()));
  std::vector<Value> args(1 + others.size());
  for (I64 i = 0; i < flat.numel(); ++i) {
    args[0] = Value(flat.select(0, i).item());
    for (std::size_t k = 0; k < others.size(); ++k) args[k + 1] = Value(others[k].select(0, i).item());
    Value r = fn(args);
    WICK_CHECK(r.is_number() && !r.is_complex(), TypeError, "must be real number, not ", r.type_name());
    results.push_back(std::move(r));
  }
  const Tensor values = tensor(Value::list(std::move(results)), self.dtype(), self.device());
  {
    const NoGradGuard no_grad;
    self.copy_(values.reshape(self.sizes()));
  }
  return self;
}

Tensor apply__kernel(T self, const Value& callable) {
  check_self(self, "apply_");
  return apply_elements(self, {}, callable);
}

Tensor map__kernel(T self, T other, const Value& callable) {
  check_self(self, "map_");
  const Tensor o = operand(self, other, "map_", "other", false);
  return apply_elements(self, {o}, callable);
}

Tensor map2__kernel(T self, T x, T y, const Value& callable) {
  check_self(self, "map2_");
  const Tensor a = operand(self, x, "map2_", "x", true);
  const Tensor b = operand(self, y, "map2_", "y", true);
  return apply_elements(self, {a, b}, callable);
}

}  // namespace

const Callable& callable_of(const Value& v) {
  const Callable* fn = as_callable(v);
  WICK_CHECK(fn != nullptr, TypeError, "'", v.type_name(), "' object is not callable");
  return *fn;
}

void register_callable_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto tensor = std::make_unique<Library>("torch.Tensor", DispatchKey::kCompositeImplicit);
  tensor->impl("apply_", &apply__kernel).impl("map_", &map__kernel).impl("map2_", &map2__kernel);
  out.push_back(std::move(tensor));
}

}  // namespace wick
