// core/autograd_function.cpp - the non-template half of custom functions (wick/autograd_function.h).
/// \file
#include "wick/autograd_function.h"

#include <algorithm>

#include "core/autograd/autograd_meta.h"
#include "core/demangle.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick::autograd {
namespace {

bool contains(const std::vector<const TensorImpl*>& v, const TensorImpl* p) {
  return std::find(v.begin(), v.end(), p) != v.end();
}

}  // namespace

// --- AutogradContext --------------------------------------------------------------------

void AutogradContext::save_for_backward(tensor_list to_save) { to_save_ = std::move(to_save); }

tensor_list AutogradContext::get_saved_variables() const {
  WICK_CHECK(saved_once_ || saved_.empty(), RuntimeError,
             "get_saved_variables() called before forward finished; use the tensors directly in forward");
  auto node = node_.lock();
  tensor_list out;
  out.reserve(saved_.size());
  for (const SavedVariable& v : saved_) out.push_back(v.unpack(node));
  return out;
}

void AutogradContext::mark_dirty(const tensor_list& inputs) {
  for (const Tensor& t : inputs)
    if (t.defined()) dirty_.push_back(t.impl());
}

void AutogradContext::mark_non_differentiable(const tensor_list& outputs) {
  for (const Tensor& t : outputs)
    if (t.defined()) non_differentiable_.push_back(t.impl());
}

bool AutogradContext::needs_input_grad(std::size_t index) const {
  WICK_CHECK(index < needs_input_grad_.size(), IndexError, "needs_input_grad: index ", index,
             " is out of range for a function with ", needs_input_grad_.size(), " input slots");
  return needs_input_grad_[index];
}

bool AutogradContext::needs_input_grad(std::initializer_list<std::size_t> indices) const {
  return std::any_of(indices.begin(), indices.end(), [&](std::size_t i) { return needs_input_grad(i); });
}

// --- CppNodeBase -------------------------------------------------------------------------------

tensor_list CppNodeBase::begin(std::string name, const tensor_list& inputs, const std::vector<bool>& is_tensor) {
  name_ = std::move(name) + "Backward";
  inputs_ = inputs;
  is_tensor_ = is_tensor;
  records_ = GradMode::is_enabled() &&
             std::any_of(inputs.begin(), inputs.end(), [](const Tensor& t) { return t.defined() && t.requires_grad(); });
  ctx.node_ = weak_from_this();
  ctx.needs_input_grad_.assign(inputs.size(), false);
  detached_.resize(inputs.size());
  if (records_) next_edges_ = collect_next_edges(inputs);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].defined()) continue;
    ctx.needs_input_grad_[i] = records_ && inputs[i].requires_grad();
    detached_[i] = inputs[i].detach();
  }
  return detached_;
}

tensor_list CppNodeBase::finish(tensor_list outputs) {
  num_outputs_ = outputs.size();
  auto self = shared_from_this();
  auto slot_of = [&](const Tensor& t) -> int {
    for (std::size_t j = 0; j < detached_.size(); ++j)
      if (detached_[j].defined() && detached_[j].is_same(t)) return static_cast<int>(j);
    return -1;
  };
  std::size_t dirty_returned = 0;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    Tensor& out = outputs[i];
    if (!out.defined()) {
      input_meta_.push_back(InputMeta{});
      continue;
    }
    const int slot = slot_of(out);
    const bool dirty = contains(ctx.dirty_, out.impl());
    const bool differentiable = !contains(ctx.non_differentiable_, out.impl()) && is_differentiable_type(out.dtype());
    const auto output_nr = add_input_metadata(out);
    if (dirty) {
      WICK_CHECK(slot >= 0, RuntimeError, name_, ": only input tensors can be marked dirty (mark_dirty)");
      ++dirty_returned;
      out = inputs_[static_cast<std::size_t>(slot)];  // the caller gets its own tensor back, modified
      out.bump_version();  // forward wrote it through the detached alias; make sure savers notice
      if (records_ && differentiable) {
        check_inplace(out, name_.c_str());
        rebase_history(out, self, output_nr);
      }
      continue;
    }
    if (!records_ || !differentiable) continue;
    set_history_at(out, output_nr);
  }
  WICK_CHECK(dirty_returned == ctx.dirty_.size(), RuntimeError, name_,
             ": some tensors marked as dirty during forward were not returned as outputs");

  // Saved tensors: inputs keep their history, outputs get this node on unpack.
  for (const Tensor& t : ctx.to_save_) {
    if (!t.defined()) {
      ctx.saved_.emplace_back();
      continue;
    }
    const int slot = slot_of(t);
    if (slot >= 0 && !contains(ctx.dirty_, t.impl())) {
      ctx.saved_.emplace_back(inputs_[static_cast<std::size_t>(slot)], false);
      continue;
    }
    const Tensor* as_output = nullptr;
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      const bool same = outputs[i].is_same(t) || (slot >= 0 && outputs[i].is_same(inputs_[static_cast<std::size_t>(slot)]));
      if (outputs[i].defined() && same) as_output = &outputs[i];
    }
    if (as_output != nullptr) {
      ctx.saved_.emplace_back(*as_output, records_);
    } else {
      ctx.saved_.emplace_back(t, false);
    }
  }
  ctx.to_save_.clear();
  ctx.saved_once_ = true;
  return outputs;
}

void CppNodeBase::set_history_at(const Tensor& out, std::uint32_t output_nr) {
  AutogradMeta& m = out.impl()->ensure_autograd_meta();
  m.grad_fn = shared_from_this();
  m.output_nr = output_nr;
  m.attr_version = out.version();
  out.impl()->set_autograd_key(true);
}

std::optional<tensor_list> CppNodeBase::input_tangents() const {
  if (current_dual_level() == 0) return std::nullopt;
  tensor_list tangents(inputs_.size());
  bool any = false;
  for (std::size_t i = 0; i < inputs_.size(); ++i) {
    tangents[i] = fw_grad_of(inputs_[i]);
    any = any || tangents[i].defined();
  }
  if (!any) return std::nullopt;
  if (ctx.materialize_grads_) {
    for (std::size_t i = 0; i < inputs_.size(); ++i) {
      if (!tangents[i].defined() && inputs_[i].defined() && is_differentiable_type(inputs_[i].dtype()))
        tangents[i] = wick::zeros(inputs_[i].sizes(), inputs_[i].dtype(), inputs_[i].device());
    }
  }
  return tangents;
}

void CppNodeBase::set_output_tangents(const tensor_list& outputs, const tensor_list& tangents) {
  WICK_CHECK(tangents.size() == outputs.size(), RuntimeError, name_.substr(0, name_.size() - 8),
             ".jvp returned an incorrect number of tangents (expected ", outputs.size(), ", got ", tangents.size(), ")");
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    const Tensor& t = tangents[i];
    if (!out.defined() || !t.defined()) continue;
    if (!is_differentiable_type(out.dtype()) || contains(ctx.non_differentiable_, out.impl())) continue;
    WICK_CHECK(t.sizes() == out.sizes(), RuntimeError, name_.substr(0, name_.size() - 8),
               ".jvp returned an invalid tangent at index ", i, " - got ", format_shape(t.sizes()),
               " but expected shape ", format_shape(out.sizes()));
    set_fw_grad(out, t);
  }
}

void CppNodeBase::missing_jvp() const {
  throw RuntimeError(name_.substr(0, name_.size() - 8) +
                     ": you must implement the jvp function for a custom autograd Function to use it with "
                     "forward mode AD (static tensor_list jvp(AutogradContext*, tensor_list)).");
}

tensor_list CppNodeBase::run_backward(tensor_list&& grads, BackwardFn fn, bool once_differentiable) {
  if (ctx.materialize_grads_) {
    for (std::size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined() && i < input_meta_.size()) grads[i] = input_meta_[i].zeros();
  }
  const bool differentiate_again = GradMode::is_enabled();
  tensor_list keep = once_differentiable && differentiate_again ? grads : tensor_list{};
  tensor_list out;
  if (once_differentiable) {
    AutoGradMode no_grad(false);
    out = fn(&ctx, std::move(grads));
  } else {
    out = fn(&ctx, std::move(grads));
  }
  const std::size_t n = is_tensor_.size();
  if (out.size() > n) {
    const bool extra_undefined = std::all_of(out.begin() + static_cast<std::ptrdiff_t>(n), out.end(),
                                             [](const Tensor& t) { return !t.defined(); });
    WICK_CHECK(extra_undefined, RuntimeError, "function ", name_, " returned an incorrect number of gradients (expected ",
               n, ", got ", out.size(), ")");
    out.resize(n);
  }
  WICK_CHECK(out.size() == n, RuntimeError, "function ", name_, " returned an incorrect number of gradients (expected ",
             n, ", got ", out.size(), ")");
  for (std::size_t i = 0; i < n; ++i) {
    WICK_CHECK(is_tensor_[i] || !out[i].defined(), RuntimeError, "function ", name_,
               " returned a gradient different than None at position ", i + 1,
               ", but the corresponding forward input was not a Variable");
    if (!should_compute_output(i)) out[i] = Tensor();
  }
  if (once_differentiable && differentiate_again) {
    const bool any_grad = std::any_of(keep.begin(), keep.end(), [](const Tensor& t) { return t.defined() && t.requires_grad(); });
    if (any_grad) {
      auto err = std::make_shared<ErrorNode>(
          "trying to differentiate twice a function that was marked with @once_differentiable (" + name_ + ")",
          "DelayedError");
      err->mutable_next_edges() = collect_next_edges(keep);
      for (Tensor& g : out) {
        if (!g.defined()) continue;
        g = g.detach();
        set_history(g, err);
      }
    }
  }
  return out;
}

void CppNodeBase::end() noexcept {
  inputs_.clear();
  detached_.clear();
}

void CppNodeBase::release_variables() {
  for (SavedVariable& v : ctx.saved_) v.reset();
}

namespace detail {

std::string function_name(const std::type_info& type) {
  std::string name = demangle(type);
  // Drop namespaces (outside any template arguments).
  int depth = 0;
  std::size_t cut = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (depth == 0 && name[i] == ':' && i + 1 < name.size() && name[i + 1] == ':') cut = i + 2;
  }
  return name.substr(cut);
}

}  // namespace detail
}  // namespace wick::autograd
