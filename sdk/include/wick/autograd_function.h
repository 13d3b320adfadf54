// wick/autograd_function.h - custom differentiable functions: Function<T> and AutogradContext.
/// \file
/// The C++ form of PyTorch's `torch.autograd.Function` (the API libtorch
/// users know):
///
///   struct LinearFunction : wick::autograd::Function<LinearFunction> {
///     static Tensor forward(AutogradContext* ctx, Tensor input, Tensor weight, std::optional<Tensor> bias) {
///       ctx->save_for_backward({input, weight});
///       Tensor out = input.mm(weight.t());
///       return bias ? out + *bias : out;
///     }
///     static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
///       auto saved = ctx->get_saved_variables();
///       Tensor g = grad_outputs[0];
///       return {g.mm(saved[1]), g.t().mm(saved[0]), g.sum({0})};
///     }
///   };
///   Tensor y = LinearFunction::apply(x, w, b);
///
/// Rules (those of the PyTorch note):
/// - `forward` takes any arguments: tensors, `std::optional<Tensor>`,
///   `std::vector<Tensor>`, scalars, strings, lists. It runs with grad mode
///   off and sees its tensor inputs detached. It returns a Tensor, a
///   `std::vector<Tensor>` or a `std::tuple` of Tensors.
/// - Input slots: each argument is one slot, except that a tensor list is one
///   slot per element. `backward` gets one gradient per output and returns
///   one per slot (undefined for slots that need none; extra trailing
///   undefined ones are allowed). `needs_input_grad(i)` indexes the same slots.
/// - `save_for_backward` takes inputs or outputs (or other tensors);
///   `get_saved_variables()` / `saved_tensors()` gives them back, checked for
///   in-place changes, with their autograd history (gradients flow through
///   them in double backward). `saved_data` holds anything else (no history).
/// - `mark_dirty` for inputs modified in place (which must be returned);
///   `mark_non_differentiable` for outputs; integer outputs never require grad.
/// - `set_materialize_grads(false)`: undefined gradients (and tangents) reach
///   `backward` (`jvp`) as undefined tensors instead of zeros.
/// - `static tensor_list jvp(AutogradContext*, tensor_list input_tangents)`
///   (optional) gives forward-mode AD: one tangent per slot in, one per
///   output out; it runs right after `forward`, with the same ctx.
/// - `static constexpr bool once_differentiable = true;` declares that the
///   backward is not differentiable: differentiating it again is an error.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <vector>

#include "wick/autograd.h"
#include "wick/export.h"
#include "wick/value.h"

namespace wick::autograd {

class CppNodeBase;

/// The `ctx` of a custom function: what forward leaves for backward.
class WICK_API AutogradContext final {
 public:
  AutogradContext() = default;
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;

  /// Anything backward needs that is not a saved tensor.
  std::unordered_map<std::string, Value> saved_data;

  /// Saves tensors for backward (call once, in forward).
  void save_for_backward(tensor_list to_save);
  /// The saved tensors; RuntimeError if one was modified in place since (naming
  /// the function and both versions) or the graph was freed.
  [[nodiscard]] tensor_list get_saved_variables() const;
  /// Same as get_saved_variables() (PyTorch's ctx.saved_tensors).
  [[nodiscard]] tensor_list saved_tensors() const { return get_saved_variables(); }
  /// Declares inputs that forward modified in place.
  void mark_dirty(const tensor_list& inputs);
  /// Declares outputs that are not differentiable.
  void mark_non_differentiable(const tensor_list& outputs);
  /// Whether undefined gradients become zeros before backward (default true).
  void set_materialize_grads(bool value) noexcept { materialize_grads_ = value; }
  /// Whether input slot `index` needs a gradient.
  [[nodiscard]] bool needs_input_grad(std::size_t index) const;
  /// Whether any of the listed slots needs a gradient.
  [[nodiscard]] bool needs_input_grad(std::initializer_list<std::size_t> indices) const;

 private:
  friend class CppNodeBase;
  tensor_list to_save_;
  std::vector<SavedVariable> saved_;
  std::vector<const TensorImpl*> dirty_;
  std::vector<const TensorImpl*> non_differentiable_;
  std::vector<bool> needs_input_grad_;
  bool materialize_grads_ = true;
  bool saved_once_ = false;
  std::weak_ptr<Node> node_;
};

/// The graph node of a custom function (shared, non-template part).
class WICK_API CppNodeBase : public Node {
 public:
  AutogradContext ctx; ///< The context forward and backward share (saved tensors, saved_data, flags).

  [[nodiscard]] std::string name() const override { return name_; }
  void release_variables() override;

  /// Records the input slots; returns the detached tensors forward sees.
  tensor_list begin(std::string name, const tensor_list& inputs, const std::vector<bool>& is_tensor);
  /// Wires outputs into the graph (history, dirty inputs, saved tensors).
  /// Returns the outputs the caller should hand back.
  tensor_list finish(tensor_list outputs);
  /// Tangents for jvp, one per slot; nullopt when no input has one.
  [[nodiscard]] std::optional<tensor_list> input_tangents() const;
  /// Attaches jvp's result to the outputs.
  void set_output_tangents(const tensor_list& outputs, const tensor_list& tangents);
  /// Throws RuntimeError: the function has no jvp but forward mode reached it.
  [[noreturn]] void missing_jvp() const;
  /// Drops the references to inputs kept for the call (an input returned
  /// as an output would otherwise own its own grad_fn through this node).
  void end() noexcept;

 protected:
  /// A user backward: X::backward.
  using BackwardFn = tensor_list (*)(AutogradContext*, tensor_list);
  /// Runs a user backward with the note's checks.
  tensor_list run_backward(tensor_list&& grads, BackwardFn fn, bool once_differentiable);

 private:
  void set_history_at(const Tensor& out, std::uint32_t output_nr);
  std::string name_;
  tensor_list inputs_;              // originals, one per slot (undefined for non-tensors)
  tensor_list detached_;            // what forward saw
  std::vector<bool> is_tensor_;
  std::size_t num_outputs_ = 0;
  bool records_ = false;
};

namespace detail {

// Input slots of one argument.
inline void extract(tensor_list& ts, std::vector<bool>& is_t, const Tensor& t) {
  ts.push_back(t);
  is_t.push_back(true);
}
inline void extract(tensor_list& ts, std::vector<bool>& is_t, const std::optional<Tensor>& t) {
  ts.push_back(t ? *t : Tensor());
  is_t.push_back(true);
}
inline void extract(tensor_list& ts, std::vector<bool>& is_t, const std::vector<Tensor>& list) {
  for (const Tensor& t : list) extract(ts, is_t, t);
}
template <typename X>
void extract(tensor_list& ts, std::vector<bool>& is_t, const X&) {
  ts.emplace_back();
  is_t.push_back(false);
}

// The argument forward sees: tensors replaced by their detached versions.
inline Tensor substitute(const Tensor&, const tensor_list& d, std::size_t& i) { return d[i++]; }
inline std::optional<Tensor> substitute(const std::optional<Tensor>& t, const tensor_list& d, std::size_t& i) {
  const Tensor& r = d[i++];
  if (!t) return std::nullopt;
  return r;
}
inline std::vector<Tensor> substitute(const std::vector<Tensor>& list, const tensor_list& d, std::size_t& i) {
  std::vector<Tensor> out;
  out.reserve(list.size());
  for (std::size_t k = 0; k < list.size(); ++k) out.push_back(d[i++]);
  return out;
}
template <typename X>
const X& substitute(const X& x, const tensor_list&, std::size_t& i) {
  ++i;
  return x;
}
template <typename X>
using Substituted = std::decay_t<decltype(substitute(std::declval<const X&>(), std::declval<const tensor_list&>(),
                                                     std::declval<std::size_t&>()))>;

// Outputs <-> list.
inline tensor_list to_list(const Tensor& t) { return {t}; }
inline tensor_list to_list(const tensor_list& ts) { return ts; }
template <typename... Ts>
tensor_list to_list(const std::tuple<Ts...>& t) {
  return std::apply([](const auto&... x) { return tensor_list{x...}; }, t);
}
template <typename R> struct FromList;
template <> struct FromList<Tensor> {
  static Tensor get(tensor_list&& l) { return std::move(l[0]); }
};
template <> struct FromList<tensor_list> {
  static tensor_list get(tensor_list&& l) { return std::move(l); }
};
template <typename... Ts> struct FromList<std::tuple<Ts...>> {
  static std::tuple<Ts...> get(tensor_list&& l) { return make(l, std::index_sequence_for<Ts...>{}); }
  template <std::size_t... I>
  static std::tuple<Ts...> make(tensor_list& l, std::index_sequence<I...>) {
    return std::tuple<Ts...>(std::move(l[I])...);
  }
};

/// "LinearFunction" from the type's mangled name.
WICK_API std::string function_name(const std::type_info& type);

}  // namespace detail

/// The node of custom function `X`.
template <typename X>
class CppNode final : public CppNodeBase {
 public:
  tensor_list apply(tensor_list&& grads) override {
    return run_backward(std::move(grads), &call_backward, once_flag());
  }

 private:
  static constexpr bool once_flag() {
    if constexpr (requires { X::once_differentiable; }) {
      return static_cast<bool>(X::once_differentiable);
    } else {
      return false;
    }
  }
  static tensor_list call_backward(AutogradContext* ctx, tensor_list grads) { return X::backward(ctx, std::move(grads)); }
};

/// Base of a custom function; see the file comment.
template <typename X>
struct Function {
  /// Runs X::forward(ctx, args...) without recording, then records one node whose backward is X::backward (and jvp, X::jvp). Returns forward's result; its errors, and RuntimeError for misuse (see the file comment).
  template <typename... Args>
  static auto apply(Args&&... args) {
    auto node = std::make_shared<CppNode<X>>();
    tensor_list inputs;
    std::vector<bool> is_tensor;
    (detail::extract(inputs, is_tensor, args), ...);
    const tensor_list detached = node->begin(detail::function_name(typeid(X)), inputs, is_tensor);
    std::size_t index = 0;
    // Braced initialisation evaluates left to right, keeping slots in order.
    std::tuple<detail::Substituted<std::decay_t<Args>>...> forwarded{detail::substitute(args, detached, index)...};
    using Out = decltype(std::apply([&](auto&... a) { return X::forward(&node->ctx, a...); }, forwarded));
    Out result = [&] {
      AutoGradMode no_grad(false);
      return std::apply([&](auto&... a) { return X::forward(&node->ctx, a...); }, forwarded);
    }();
    tensor_list outputs = node->finish(detail::to_list(result));
    if (auto tangents = node->input_tangents()) {
      if constexpr (requires(AutogradContext* c, tensor_list t) { X::jvp(c, t); }) {
        tensor_list out_tangents = [&] {
          AutoGradMode no_grad(false);
          return X::jvp(&node->ctx, std::move(*tangents));
        }();
        node->set_output_tangents(outputs, out_tangents);
      } else {
        node->missing_jvp();
      }
    }
    node->end();
    return detail::FromList<std::decay_t<Out>>::get(std::move(outputs));
  }
};

}  // namespace wick::autograd
