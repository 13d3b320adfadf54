// wick/autograd.h - the reverse-mode autograd engine: graph nodes, saved tensors, backward and grad.
/// \file
/// `Autograd` kernels (wick's built-in formulas, a plugin's own, or a custom
/// `Function`, see wick/autograd_function.h) record a graph of `Node`s while
/// grad mode is on and an input requires grad. `backward` / `grad` walk it
/// from the outputs to the leaves.
///
///   Tensor x = wick::randn({3}).requires_grad_();
///   Tensor y = (x * 2 + 1).sum();
///   y.backward();                       // x.grad() == [2, 2, 2]
///   auto g = wick::autograd::grad({y2}, {x}, {}, /*retain_graph=*/true, /*create_graph=*/true);
///
/// Note [Gradient shapes]
/// A node may return a gradient that is broadcast against its input (the
/// formulas of broadcasting ops do): the engine sums it down to the input's
/// shape and casts it to the input's dtype. A gradient whose shape cannot be
/// reduced that way is an error naming the node and the index.
///
/// Note [Saved tensors]
/// Tensors a node needs for its backward are kept as `SavedVariable`s, which
/// record the version counter at save time. Unpacking checks it (an in-place
/// change in between is an error naming the node and both versions) and fails
/// once backward has freed the graph (retain_graph=false). A node's own output
/// is saved without its grad_fn (no reference cycle) and gets it back on unpack.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wick/dim_vector.h"
#include "wick/dispatch_key.h"
#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::autograd {

/// A list of tensors, as libtorch's torch::autograd::variable_list: what Node::apply takes and returns.
using tensor_list = std::vector<Tensor>;  // NOLINT(readability-identifier-naming): libtorch's name

class Node;

/// Where a gradient goes: input `input_nr` of node `fn`. Invalid (null fn)
/// for inputs that need no gradient.
struct Edge {
  std::shared_ptr<Node> fn; ///< The node that receives the gradient; null for an input that needs none.
  std::uint32_t input_nr = 0; ///< Which input of `fn` the gradient is.
  /// True when the edge leads somewhere (fn is not null).
  [[nodiscard]] bool valid() const noexcept { return fn != nullptr; }
};

/// Shape, dtype and device of a tensor a node receives a gradient for (used
/// to validate gradients and to materialise undefined ones as zeros).
struct InputMeta {
  DimVector sizes; ///< The tensor's sizes.
  ScalarType dtype = ScalarType::kFloat32; ///< The tensor's dtype.
  Device device; ///< The tensor's device.
  /// A zero tensor of this shape, dtype and device (what an undefined gradient becomes).
  [[nodiscard]] Tensor zeros() const;
};

/// A tensor hook: returns a replacement gradient, or an undefined tensor to
/// keep it.
using TensorHook = std::function<Tensor(const Tensor&)>;

/// The hooks of one tensor (or one node input). Shared so a RemovableHandle
/// can outlive the tensor.
struct HookList {
  std::vector<std::pair<std::uint64_t, TensorHook>> hooks; ///< (id, hook) pairs in registration order.
  std::uint64_t next_id = 1; ///< The id the next registered hook gets (ids start at 1 and are never reused).
  /// Runs every hook in order; each sees the previous one's result.
  [[nodiscard]] Tensor run(Tensor grad) const;
};

/// Removes the hook it was returned for (tensor and module hooks alike);
/// removing twice, or after the owner is gone, is a no-op.
class WICK_API RemovableHandle final {
 public:
  RemovableHandle() = default;
  /// `remover` runs once, on the first remove().
  explicit RemovableHandle(std::function<void()> remover) : remover_(std::move(remover)) {}
  /// A handle for hook `id` of `list`.
  RemovableHandle(std::weak_ptr<HookList> list, std::uint64_t id);
  /// Runs the remover (removes the hook) the first time; later calls and a default-constructed handle do nothing.
  void remove();

 private:
  std::function<void()> remover_;
};

/// A node of the backward graph: one per recorded operation. Input `i` of a
/// node is the gradient of the operation's output `i`; output `j` is the
/// gradient for `next_edges()[j]`.
class WICK_API Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  /// For nodes that must run last in a tie (AccumulateGrad).
  explicit Node(std::uint64_t sequence_nr);
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  /// Computes the gradients for next_edges() from one gradient per input
  /// (undefined where none arrived).
  virtual tensor_list apply(tensor_list&& grads) = 0;
  /// "MulBackward0", "LinearFunctionBackward", ...
  [[nodiscard]] virtual std::string name() const = 0;
  /// Frees saved tensors (after a backward without retain_graph).
  virtual void release_variables() {}
  /// True when this node's formula is right for complex tensors (Note
  /// [Complex gradients]). Custom Functions answer true: their backward is
  /// their author's, as in PyTorch. A node that answers false refuses to
  /// record an operation with a complex input or output.
  [[nodiscard]] virtual bool complex_gradients() const noexcept { return true; }

  /// Where each output (gradient) of apply() goes, one edge per input of the forward operation.
  [[nodiscard]] const std::vector<Edge>& next_edges() const noexcept { return next_edges_; }
  /// next_edges() for a node under construction.
  [[nodiscard]] std::vector<Edge>& mutable_next_edges() noexcept { return next_edges_; }
  /// Number of gradients apply() returns: one per next edge.
  [[nodiscard]] std::size_t num_outputs() const noexcept { return next_edges_.size(); }
  /// True when output `i` goes somewhere (the input it belongs to needs a gradient).
  [[nodiscard]] bool should_compute_output(std::size_t i) const noexcept {
    return i < next_edges_.size() && next_edges_[i].valid();
  }
  /// Number of gradients apply() takes: one per output of the forward operation (add_input_metadata calls).
  [[nodiscard]] std::size_t num_inputs() const noexcept { return input_meta_.size(); }
  /// Metadata of input `i`; std::out_of_range when `i` is not below num_inputs().
  [[nodiscard]] const InputMeta& input_meta(std::size_t i) const { return input_meta_.at(i); }
  /// Registers `t` as the next input (an output of the forward op) and returns its index.
  std::uint32_t add_input_metadata(const Tensor& t);
  /// Order of creation: the engine runs later nodes first.
  [[nodiscard]] std::uint64_t sequence_nr() const noexcept { return sequence_nr_; }

  /// Hooks for input `i` (hooks registered on the non-leaf tensor that is
  /// this node's output `i`); created on first use.
  HookList& pre_hooks(std::uint32_t i);
  /// The shared hook list of input `i`, created on first use (what a RemovableHandle refers to).
  [[nodiscard]] const std::shared_ptr<HookList>& pre_hooks_ptr(std::uint32_t i);
  /// True when some input has a hook list (even an empty one).
  [[nodiscard]] bool has_pre_hooks() const noexcept { return !pre_hooks_.empty(); }
  /// Runs the hooks of every input over `grads`.
  void run_pre_hooks(tensor_list& grads) const;

 protected:
  std::vector<Edge> next_edges_; ///< Where each gradient apply() returns goes (next_edges()).
  std::vector<InputMeta> input_meta_; ///< Metadata of each input (input_meta()).

 private:
  std::uint64_t sequence_nr_;
  std::vector<std::shared_ptr<HookList>> pre_hooks_;
};

/// The edge a gradient for `t` should flow into: its grad_fn, or the
/// gradient accumulator of a leaf that requires grad; invalid otherwise.
[[nodiscard]] WICK_API Edge gradient_edge(const Tensor& t);
/// Edges for each of `inputs` (undefined tensors give invalid edges).
[[nodiscard]] WICK_API std::vector<Edge> collect_next_edges(const tensor_list& inputs);
/// Makes `t` output `output_nr` of `fn` (registers its metadata on `fn`,
/// sets grad_fn and the Autograd key). Integer and bool tensors are left alone.
WICK_API void set_history(const Tensor& t, const std::shared_ptr<Node>& fn);
// Note [Complex gradients]
// A complex tensor's gradient is PyTorch's: the gradient of its real view,
// dL/dre + i dL/dim (so (|z|^2).sum() has gradient 2z). A holomorphic
// f's formula is then grad * conj(f'(z)); a product's is grad * conj(other).
// Only formulas written for this are used on complex tensors: each built-in
// formula says whether it is (Node::complex_gradients), and one that is not
// refuses to record an operation with a complex input or output, naming
// itself, instead of returning a wrong gradient. Forward mode (tangents) is
// real only: a complex tangent is refused.
/// True when a tensor of this dtype can require gradients: the floating
/// dtypes (float16 and bfloat16 included) and the complex ones.
[[nodiscard]] constexpr bool is_differentiable_type(ScalarType t) noexcept { return is_floating(t) || is_complex(t); }

/// A tensor kept for backward; see Note [Saved tensors].
class WICK_API SavedVariable final {
 public:
  SavedVariable() = default;
  /// `is_output`: `t` is an output of the node saving it.
  SavedVariable(const Tensor& t, bool is_output);
  /// The saved tensor. `node` is the node that saved it (for error messages,
  /// and to restore grad_fn on a saved output).
  [[nodiscard]] Tensor unpack(const std::shared_ptr<Node>& node) const;
  /// Drops the saved tensor (release_variables); unpacking afterwards throws RuntimeError ("Trying to backward through the graph a second time ...").
  void reset() noexcept;
  /// True when the tensor saved was defined (still true after reset()).
  [[nodiscard]] bool defined() const noexcept { return was_defined_; }

 private:
  Tensor data_;
  std::uint32_t version_ = 0;
  std::uint32_t output_nr_ = 0;
  bool is_output_ = false;
  bool is_leaf_ = false;
  bool requires_grad_ = false;
  bool was_defined_ = false;
  bool released_ = false;
};

/// Gradients of `outputs` with respect to `inputs`, returned (not
/// accumulated into `.grad()`). `grad_outputs` may be empty or hold
/// undefined tensors for one-element outputs. RuntimeError when an input was
/// not used in the graph, unless `allow_unused` (then its gradient is undefined).
[[nodiscard]] WICK_API tensor_list grad(const tensor_list& outputs, const tensor_list& inputs,
                                        const tensor_list& grad_outputs = {},
                                        std::optional<bool> retain_graph = std::nullopt,
                                        bool create_graph = false, bool allow_unused = false);
/// Accumulates gradients of `tensors` into the leaves' `.grad()`.
WICK_API void backward(const tensor_list& tensors, const tensor_list& grad_tensors = {},
                       std::optional<bool> retain_graph = std::nullopt, bool create_graph = false);

/// Grad mode: whether operations record the graph (the `Autograd` key is not excluded).
struct GradMode {
  /// True unless grad mode is off in this thread (no_grad, AutoGradMode(false)).
  [[nodiscard]] static bool is_enabled() noexcept {
    return !tls_local_dispatch_key_set().excluded.has(DispatchKey::kAutograd);
  }
};

/// Sets grad mode for a scope to `enabled`.
class WICK_API AutoGradMode final {
 public:
  /// Turns grad mode on or off (`enabled`) in this thread until the guard is destroyed, which restores the previous mode.
  explicit AutoGradMode(bool enabled) noexcept;
  ~AutoGradMode();
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool was_excluded_;
};

/// Turns gradient recording on for a scope (inside a NoGradGuard, say).
class WICK_API EnableGradGuard final {
 public:
  EnableGradGuard() noexcept : mode_(true) {}

 private:
  AutoGradMode mode_;
};

}  // namespace wick::autograd

namespace wick {
using autograd::EnableGradGuard;
}  // namespace wick
