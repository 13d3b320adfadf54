// wick/autograd_values.h - autograd objects as boxed values: a tensor's grad_fn, and a hook's handle.
/// \file
/// What torch.Tensor.grad_fn and torch.Tensor.register_hook give a boxed caller.
///
/// Python's `y.grad_fn` is the autograd node that made y (`<MulBackward0
/// object at 0x...>`), or None for a leaf and for a result computed without
/// recording. A boxed call of the property returns the same, a Value holding
/// a GradFnObject:
///
///   wick::Value fn = wick::call("torch.Tensor.grad_fn", {y});
///   std::shared_ptr<wick::autograd::Node> node = wick::as_grad_fn(fn);  // y.grad_fn() in C++
///
/// C++ code reads the node directly with `y.grad_fn()`, which does not box.
///
/// `x.register_hook(fn)` takes a wick::Callable (wick/callable.h) and returns
/// Python's RemovableHandle, a Value holding a HookHandleObject:
///
///   wick::Value h = wick::call("torch.Tensor.register_hook", {x, wick::Value(fn)});
///   wick::as_hook_handle(h)->remove();
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "wick/autograd.h"
#include "wick/export.h"
#include "wick/value.h"

namespace wick {

/// An autograd node as a Value: its type is the node's name ("MulBackward0"), its repr Python's "<MulBackward0 object
/// at 0x...>".
class WICK_API GradFnObject final : public Object {
 public:
  /// Wraps `node` (not null).
  explicit GradFnObject(std::shared_ptr<autograd::Node> node) : node_(std::move(node)) {}
  /// The node.
  [[nodiscard]] const std::shared_ptr<autograd::Node>& node() const noexcept { return node_; }
  /// The node's name, as Python's `type(y.grad_fn).__name__`.
  [[nodiscard]] std::string type_name() const override { return node_->name(); }
  /// "<MulBackward0 object at 0x55d0c2a1b2c0>", the node's address.
  [[nodiscard]] std::string repr() const override;

 private:
  std::shared_ptr<autograd::Node> node_;
};

/// The handle of a hook registered by torch.Tensor.register_hook (Python's torch.utils.hooks.RemovableHandle).
class WICK_API HookHandleObject final : public Object {
 public:
  /// Wraps `handle`.
  explicit HookHandleObject(autograd::RemovableHandle handle) : handle_(std::move(handle)) {}
  /// Removes the hook (the first call; later ones do nothing).
  void remove() const { handle_.remove(); }
  /// "RemovableHandle".
  [[nodiscard]] std::string type_name() const override { return "RemovableHandle"; }
  /// "<torch.utils.hooks.RemovableHandle object at 0x...>", as Python's.
  [[nodiscard]] std::string repr() const override;

 private:
  mutable autograd::RemovableHandle handle_;
};

/// The hook handle a Value holds (from torch.Tensor.register_hook), or nullptr for any other value.
[[nodiscard]] WICK_API const HookHandleObject* as_hook_handle(const Value& v) noexcept;

/// `t.grad_fn` as Python gives it: a GradFnObject, or None when t has no history.
[[nodiscard]] WICK_API Value grad_fn_value(const Tensor& t);
/// The node a Value holds (a GradFnObject), or nullptr for None or any other value.
[[nodiscard]] WICK_API std::shared_ptr<autograd::Node> as_grad_fn(const Value& v) noexcept;

}  // namespace wick
