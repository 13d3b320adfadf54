// core/autograd/grad_fn_value.cpp - a tensor's grad_fn as a boxed value (wick/grad_fn.h).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "wick/grad_fn.h"

namespace wick {

std::string GradFnObject::repr() const {
  char address[32];
  std::snprintf(address, sizeof address, "%#llx",
                static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(node_.get())));
  return "<" + type_name() + " object at " + address + ">";
}

Value grad_fn_value(const Tensor& t) {
  std::shared_ptr<autograd::Node> node = t.defined() ? t.grad_fn() : nullptr;
  if (!node) return Value();
  return Value(std::static_pointer_cast<Object>(std::make_shared<GradFnObject>(std::move(node))));
}

std::shared_ptr<autograd::Node> as_grad_fn(const Value& v) noexcept {
  if (!v.is_object()) return nullptr;
  const auto* g = dynamic_cast<const GradFnObject*>(v.to_object().get());
  return g != nullptr ? g->node() : nullptr;
}

}  // namespace wick
