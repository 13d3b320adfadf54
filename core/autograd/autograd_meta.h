// core/autograd/autograd_meta.h - private: a tensor's autograd state and the helpers formulas share.
/// \file
/// Note [Views and in-place]
/// A view made by an Autograd kernel of a tensor that has autograd state
/// remembers its root base. An in-place op on such a view rewrites the
/// base's history with a `CopySlices` node (the op's gradient applied to the
/// view's slice of the base's gradient) and gives the view a fresh grad_fn
/// that views the base's. Other views of the same base notice the change by
/// their version counter and regenerate their grad_fn the same way.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>

#include "wick/autograd.h"

namespace wick::autograd {

struct AutogradMeta {
  bool requires_grad = false;  // leaves only; a non-leaf requires grad through grad_fn
  bool retains_grad = false;
  Tensor grad;
  std::shared_ptr<Tensor> retained_grad;  // non-leaf .grad() after retain_grad()
  std::shared_ptr<Node> grad_fn;
  std::weak_ptr<Node> grad_accumulator;
  std::mutex accumulator_mutex;
  std::uint32_t output_nr = 0;
  std::shared_ptr<HookList> hooks;  // leaf hooks (run by AccumulateGrad)

  // Views (Note [Views and in-place]).
  bool is_view = false;
  Tensor base;
  std::uint32_t attr_version = 0;  // version when grad_fn was last set

  // Forward mode: the tangent and the dual level it belongs to.
  Tensor fw_grad;
  std::uint64_t fw_level = 0;
};

[[nodiscard]] inline AutogradMeta* meta_of(const Tensor& t) noexcept {
  return t.defined() ? t.impl()->autograd_meta() : nullptr;
}

/// The current dual level's id (0: none active).
[[nodiscard]] std::uint64_t current_dual_level() noexcept;
/// The tangent of `t` at the current level, or undefined.
[[nodiscard]] Tensor fw_grad_of(const Tensor& t);
/// Attaches `tangent` to `t` at the current level (expanded to t's shape).
void set_fw_grad(const Tensor& t, const Tensor& tangent);
/// set_fw_grad for the result of an in-place op on `self`: a view's base gets
/// the tangent in the view's elements too (Note [Tangents of views written
/// in place], core/autograd/tensor_autograd.cpp).
void set_inplace_fw_grad(const Tensor& self, const Tensor& tangent);
/// Refreshes the Autograd key from requires_grad and the tangent.
void sync_autograd_key(TensorImpl& impl) noexcept;

/// Makes `view` (fresh from a view kernel) a tracked view of `base`.
void set_view_of(const Tensor& view, const Tensor& base);
/// Errors for in-place ops on leaves that require grad and views of them.
void check_inplace(const Tensor& self, const char* op);
/// After an in-place op on `self` recorded as `fn` (whose edge 0 is self's
/// old gradient edge): makes `fn` the new history of self (Note [Views and
/// in-place]). `output_nr`: self's index among fn's inputs when fn already
/// has its metadata (otherwise it is added).
void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn,
                    std::optional<std::uint32_t> output_nr = std::nullopt);

/// Sums `grad` down to `sizes` (undoing broadcasting); unchanged when equal.
[[nodiscard]] Tensor sum_to(const Tensor& grad, IntArrayRef sizes);
/// True when `shape` can be broadcast to `target`.
[[nodiscard]] bool is_expandable_to(IntArrayRef shape, IntArrayRef target) noexcept;

/// Adds `g` into the gradient slot `slot` (a tensor's `.grad()`), as
/// AccumulateGrad does: kept with its history when `record` (create_graph),
/// else the first gradient taken (copied when something else can see it)
/// and later ones added in place.
void accumulate_grad(Tensor& slot, Tensor g, bool record);

/// Node for a leaf's gradient: accumulates into `.grad()`.
class AccumulateGrad final : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  tensor_list apply(tensor_list&& grads) override;
  [[nodiscard]] std::string name() const override { return "AccumulateGrad"; }
  [[nodiscard]] const Tensor& variable() const noexcept { return variable_; }

 private:
  Tensor variable_;
  std::mutex mutex_;  // a parameter's accumulator may be shared by concurrent backward passes
};

/// Raises `message` when reached by a backward (once-differentiable
/// functions differentiated twice, missing formulas).
class ErrorNode final : public Node {
 public:
  ErrorNode(std::string message, std::string name) : message_(std::move(message)), name_(std::move(name)) {}
  tensor_list apply(tensor_list&& grads) override;
  [[nodiscard]] std::string name() const override { return name_; }

 private:
  std::string message_;
  std::string name_;
};

}  // namespace wick::autograd
