// dispatch/inplace_ops.cpp - the in-place twins (torch.Tensor.exp_ from torch.exp, ...) and zero_.
/// \file
/// Note [In-place twins]
/// Most of PyTorch's in-place methods are "compute X, write the result into
/// self". wick makes each of them from its out-of-place operator with one
/// boxed CompositeImplicit kernel, `TwinKernel`, told which operator to call
/// (torch.Tensor.X_ calls torch.X with the same arguments; the list is
/// inplace_twins() in torch_catalog.cpp). A *value twin* (exp_, clamp_, eq_,
/// scatter_, ...):
///   1. refuses a leaf that requires grad, and views of one, naming itself;
///   2. calls X through the dispatcher; while the graph is recorded, on a
///      clone of self, so that what X saves for backward is not the tensor
///      about to be overwritten;
///   3. checks X's result: its dtype must be castable to self's ("exp_:
///      result type Float can't be cast to the desired output type Long"),
///      and its shape must be self's (the other operands broadcast to self,
///      never self to them: "output with shape [3] doesn't match the
///      broadcast shape [2, 3]");
///   4. writes it with `self.copy_(result)`, which bumps the version
///      counter (and rebases a view's base, Note [Views and in-place]), and
///      returns self, the same TensorImpl.
/// A twin has no formula of its own: its graph is X's node followed by
/// copy_'s, so backward, double backward and forward mode are X's formulas.
/// Comparisons keep self's dtype (eq_ writes 0 and 1), as in PyTorch.
///
/// A *view twin* (transpose_, t_, squeeze_, unsqueeze_) calls the view X and
/// gives self that view's sizes, strides and offset in place, its grad_fn
/// (X's view node on self's old history) and its tangent, and bumps the
/// version as PyTorch does. On a view of a tensor that requires grad it is
/// refused (the base's history cannot follow a change of the view's shape).
///
/// add_, sub_, mul_ and div_ are not twins: being the optimizers' hot path,
/// they write through their out= kernels with no temporary and have
/// formulas of their own (dispatch/autograd_shape.cpp).
#include <iterator>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/autograd/autograd_meta.h"
#include "dispatch/composite/composite.h"
#include "dispatch/ops/definitions.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using autograd::meta_of;

bool any_requires_grad(const Stack& args) {
  for (const Value& v : args)
    if (v.is_tensor() && v.to_tensor().requires_grad()) return true;
  return false;
}

class TwinKernel final : public BoxedFunctor {
 public:
  explicit TwinKernel(const InplaceTwinDecl& twin)
      : name_(twin.name.substr(0, twin.name.find('.'))),
        structured_check_(twin.structured_check),
        base_(twin.functional),
        view_(twin.view),
        op_(find_op(base_)) {
    const std::string& name = twin.name;
    const FunctionSchema& mine = find_op("torch.Tensor." + name).schema();
    const FunctionSchema& theirs = op_.schema();
    n_args_ = mine.arguments.size();
    WICK_INTERNAL_ASSERT(theirs.arguments.size() == n_args_, "in-place twin ", name, ": ", base_, " takes ",
                         theirs.arguments.size(), " arguments, not ", n_args_);
    for (std::size_t i = 0; i < n_args_; ++i)
      WICK_INTERNAL_ASSERT(mine.arguments[i].type.kind == theirs.arguments[i].type.kind, "in-place twin ", name,
                           ": argument ", i, " differs in type from ", base_, "'s");
  }

  void operator()(const OperatorHandle&, DispatchKeySet, Stack& stack) override {
    WICK_INTERNAL_ASSERT(stack.size() >= n_args_, "in-place twin ", name_, ": short stack");
    const auto first = stack.end() - static_cast<std::ptrdiff_t>(n_args_);
    Stack args(std::make_move_iterator(first), std::make_move_iterator(stack.end()));
    stack.erase(first, stack.end());
    const Tensor self = args[0].to_tensor();
    autograd::check_inplace(self, name_.c_str());
    if (view_) {
      adopt_view(self, args);
    } else {
      write_result(self, args);
    }
    stack.emplace_back(self);
  }

 private:
  void write_result(const Tensor& self, Stack& args) const {
    if (autograd::GradMode::is_enabled() && any_requires_grad(args)) args[0] = Value(self.clone());
    op_.call_boxed(args);
    const Tensor& result = args.back().to_tensor();
    WICK_CHECK(can_cast(result.dtype(), self.dtype()), RuntimeError, name_, ": result type ",
               type_title(result.dtype()), " can't be cast to the desired output type ", type_title(self.dtype()));
    if (structured_check_) {
      WICK_CHECK(result.sizes() == self.sizes(), RuntimeError, name_, ": Bad in-place call: input tensor size ",
                 format_shape(self.sizes()), " and output tensor size ", format_shape(result.sizes()), " should match");
    }
    WICK_CHECK(result.sizes() == self.sizes(), RuntimeError, name_, ": output with shape ", format_shape(self.sizes()),
               " doesn't match the broadcast shape ", format_shape(result.sizes()));
    Tensor out = self;
    out.copy_(result);
  }

  void adopt_view(const Tensor& self, Stack& args) const {
    const bool record = autograd::GradMode::is_enabled() && self.requires_grad();
    if (record) {
      const autograd::AutogradMeta* m = meta_of(self);
      WICK_CHECK(m == nullptr || !m->is_view, RuntimeError, name_,
                 ": an in-place view operation on a view of a tensor that requires grad is not supported; use ",
                 base_.substr(base_.find('.') + 1), "() instead");
    }
    op_.call_boxed(args);
    const Tensor view = args.back().to_tensor();
    // Read before the version bump, which would make the view regenerate its grad_fn from self.
    const std::shared_ptr<autograd::Node> fn = record ? view.grad_fn() : nullptr;
    const std::uint32_t output_nr = fn ? view.output_nr() : 0;
    self.impl()->set_geometry(view.sizes(), view.strides(), view.storage_offset());
    self.bump_version();
    if (fn) autograd::rebase_history(self, fn, output_nr);
    if (const Tensor tangent = autograd::fw_grad_of(view); tangent.defined()) autograd::set_fw_grad(self, tangent);
  }

  std::string name_;               // "exp_" (for clamp_.Tensor: "clamp_")
  bool structured_check_ = false;  // tag inplace_check=structured: PyTorch's structured in-place message
  std::string base_;               // "torch.exp"
  bool view_;
  OperatorHandle op_;  // torch.exp
  std::size_t n_args_ = 0;
};

Tensor zero_kernel(const Tensor& self) {
  autograd::check_inplace(self, "zero_");
  Tensor out = self;
  return out.fill_(0);
}

}  // namespace

void register_inplace_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto tensor = std::make_unique<Library>("torch.Tensor", DispatchKey::kCompositeImplicit);
  for (const InplaceTwinDecl& twin : inplace_twins()) tensor->impl_boxed(twin.name, std::make_shared<TwinKernel>(twin));
  tensor->impl("zero_", &zero_kernel);
  out.push_back(std::move(tensor));
}

}  // namespace wick
