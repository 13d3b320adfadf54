// dispatch/composite/out_ops.cpp - the out= variants of composite operators (torch.matmul(a, b, out=o), ...).
/// \file
/// Note [Out variants of composite operators]
/// PyTorch gives most functions an `out=` keyword. An operator with a meta
/// function gets its out= kernel from its glue (Note [Structured kernels] in
/// wick/structured.h): the impl writes into `out` directly. An operator
/// without one (a decomposition such as matmul, stack or the linalg norms)
/// declares `variants: out` all the same, and its `X.out` gets one boxed
/// CompositeImplicit kernel, `OutCopyKernel`, that:
///   1. refuses, while the graph is recorded, an argument that requires grad
///      (unless the operator is tagged nondifferentiable, as nonzero)
///      (PyTorch's "matmul(): functions with out=... arguments don't support
///      automatic differentiation, but one of the arguments requires grad.");
///   2. calls X through the dispatcher with the other arguments;
///   3. applies the out= rules of the structured kernels to X's result
///      (detail::prepare_out: same device, PyTorch's cast rule, and a resize
///      of an `out` of another shape, refused when `out` is also an input);
///   4. writes the result with `out.copy_(result)`, which converts to out's
///      dtype and bumps its version, and returns `out`, the same TensorImpl.
/// The result is a temporary, as in PyTorch's composite out= functions; the
/// operators on the hot path are structured and write into `out` directly.
#include <algorithm>
#include <iterator>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "dispatch/composite/composite.h"
#include "dispatch/ops/definitions.h"
#include "wick/autograd.h"
#include "wick/meta.h"
#include "wick/structured.h"

namespace wick {
namespace {

class OutCopyKernel final : public BoxedFunctor {
 public:
  explicit OutCopyKernel(const OutCopyDecl& decl)
      : name_(decl.functional),
        op_(find_op(name_)),
        label_(op_.qualified_name()),
        differentiable_(decl.differentiable) {
    const std::string& out_name = decl.name;
    const FunctionSchema& mine = find_op(out_name).schema();
    n_args_ = mine.arguments.size();
    WICK_INTERNAL_ASSERT(op_.schema().arguments.size() + 1 == n_args_ && mine.arguments.back().name == "out",
                         "out variant ", out_name, ": not ", name_, "'s arguments followed by out");
    // A creation function (no tensor argument) makes its result in out's
    // dtype unless dtype= says otherwise, as PyTorch's factories do.
    const auto& arguments = op_.schema().arguments;
    const bool creation = std::none_of(arguments.begin(), arguments.end(),
                                       [](const SchemaArgument& a) { return a.type.kind == TypeKind::kTensor; });
    for (std::size_t i = 0; creation && i < arguments.size(); ++i)
      if (arguments[i].name == "dtype" && arguments[i].type.kind == TypeKind::kScalarType) dtype_index_ = i;
  }

  void operator()(const OperatorHandle&, DispatchKeySet, Stack& stack) override {
    WICK_INTERNAL_ASSERT(stack.size() >= n_args_, "out variant of ", name_, ": short stack");
    const Tensor out = stack.back().to_tensor();
    stack.pop_back();
    const auto first = stack.end() - static_cast<std::ptrdiff_t>(n_args_ - 1);
    Stack args(std::make_move_iterator(first), std::make_move_iterator(stack.end()));
    stack.erase(first, stack.end());

    if (dtype_index_) {
      Value& dtype = args[*dtype_index_];
      if (dtype.is_none()) {
        dtype = Value(out.dtype());
      } else {
        WICK_CHECK(dtype.to_dtype() == out.dtype(), RuntimeError, "dtype ", type_title(dtype.to_dtype()),
                   " does not match dtype of out parameter (", type_title(out.dtype()), ")");
      }
    }
    std::vector<Tensor> inputs;
    for (const Value& v : args) {
      if (v.is_tensor()) inputs.push_back(v.to_tensor());
      if (v.is_tensor_list())
        for (const Tensor& t : v.to_tensor_list()) inputs.push_back(t);
    }
    if (differentiable_ && autograd::GradMode::is_enabled()) {
      for (const Tensor& t : inputs)
        WICK_CHECK(!t.defined() || !t.requires_grad(), RuntimeError, op_.schema().name,
                   "(): functions with out=... arguments don't support automatic differentiation, but one of the "
                   "arguments requires grad.");
    }
    op_.call_boxed(args);
    const Tensor result = args.back().to_tensor();
    std::vector<const Tensor*> pointers;
    pointers.reserve(inputs.size());
    for (const Tensor& t : inputs) pointers.push_back(&t);
    (void)detail::prepare_out(out, TensorMeta::of(result), label_.c_str(),
                              ArrayRef<const Tensor*>(pointers.data(), pointers.size()));
    Tensor target = out;
    target.copy_(result);
    stack.emplace_back(out);
  }

 private:
  std::string name_;  // "torch.matmul", "torch.clamp.Tensor"
  OperatorHandle op_;
  std::string label_;    // in errors: "torch.clamp"
  bool differentiable_;  // PyTorch refuses out= with grad only for a differentiable operator
  std::size_t n_args_ = 0;
  std::optional<std::size_t> dtype_index_;  // a creation function's dtype= (Note above, in the constructor)
};

}  // namespace

void register_out_copy_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto torch = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  for (const OutCopyDecl& decl : out_copy_variants())
    torch->impl_boxed(decl.name, std::make_shared<OutCopyKernel>(decl));
  out.push_back(std::move(torch));
}

}  // namespace wick
