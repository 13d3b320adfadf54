// core/autograd/autograd_values.cpp - grad_fn nodes and hook handles as boxed values (wick/autograd_values.h).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "wick/autograd_values.h"

namespace wick {

namespace {

// Python's default repr: "<Type object at 0x7f...>".
std::string object_at(const std::string& type, const void* address) {
  char text[32];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(address)));
  return "<" + type + " object at " + text + ">";
}

}  // namespace

std::string GradFnObject::repr() const { return object_at(type_name(), node_.get()); }

std::string HookHandleObject::repr() const { return object_at("torch.utils.hooks.RemovableHandle", this); }

const HookHandleObject* as_hook_handle(const Value& v) noexcept {
  return v.is_object() ? dynamic_cast<const HookHandleObject*>(v.to_object().get()) : nullptr;
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
