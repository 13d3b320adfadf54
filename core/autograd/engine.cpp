// core/autograd_engine.cpp - running a backward pass over the recorded graph.
/// \file
/// Note [Engine]
/// A backward pass runs on the calling thread. It first walks the graph from
/// the roots to count, for each node, the edges that lead into it; a node is
/// ready when all of them have delivered their gradient (summed in its input
/// buffer). Ready nodes run latest-created first (highest sequence number),
/// which keeps memory low and matches PyTorch's order for hooks. For
/// `grad(outputs, inputs)` only nodes on a path to an input run, and
/// gradients are captured where they enter the inputs' edges instead of
/// being accumulated into `.grad()`.
#include <algorithm>
#include <queue>
#include <sstream>
#include <unordered_map>

#include "core/autograd/autograd_meta.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick::autograd {
namespace {

// Feeds the root gradients into the graph.
class GraphRoot final : public Node {
 public:
  GraphRoot(std::vector<Edge> edges, tensor_list grads) : grads_(std::move(grads)) { next_edges_ = std::move(edges); }
  tensor_list apply(tensor_list&&) override { return std::move(grads_); }
  [[nodiscard]] std::string name() const override { return "GraphRoot"; }

 private:
  tensor_list grads_;
};

struct NodeState {
  int dependencies = 0;
  bool reaches_input = true;  // grad(): on a path to a captured input
  bool executes = true;       // grad(): has a successor that reaches an input
  tensor_list buffer;
  std::vector<std::pair<std::uint32_t, std::size_t>> captures;  // (input_nr, result index)
};

// Per-node state of one pass. Small graphs (the common case) are searched
// linearly, which beats hashing; larger ones get an index.
class NodeStates {
 public:
  NodeState& operator[](Node* n) { return states_[index_of(n).first].second; }
  NodeState* find(Node* n) {
    auto it = lookup(n);
    return it == kNone ? nullptr : &states_[it].second;
  }
  /// The node's state and whether it was just added.
  std::pair<NodeState*, bool> try_emplace(Node* n) {
    auto [i, fresh] = index_of(n);
    return {&states_[i].second, fresh};
  }

 private:
  static constexpr std::size_t kNone = ~std::size_t{0};
  static constexpr std::size_t kLinearLimit = 32;
  std::size_t lookup(Node* n) const {
    if (index_.empty()) {
      for (std::size_t i = 0; i < states_.size(); ++i)
        if (states_[i].first == n) return i;
      return kNone;
    }
    auto it = index_.find(n);
    return it == index_.end() ? kNone : it->second;
  }
  std::pair<std::size_t, bool> index_of(Node* n) {
    const std::size_t found = lookup(n);
    if (found != kNone) return {found, false};
    states_.emplace_back(n, NodeState{});
    const std::size_t i = states_.size() - 1;
    if (!index_.empty()) {
      index_.emplace(n, i);
    } else if (states_.size() > kLinearLimit) {
      for (std::size_t k = 0; k < states_.size(); ++k) index_.emplace(states_[k].first, k);
    }
    return {i, true};
  }
  std::vector<std::pair<Node*, NodeState>> states_;
  std::unordered_map<Node*, std::size_t> index_;
};

struct ReadyOrder {
  bool operator()(const Node* a, const Node* b) const noexcept { return a->sequence_nr() < b->sequence_nr(); }
};

void validate_outputs(const Node& fn, tensor_list& grads) {
  const auto& edges = fn.next_edges();
  WICK_CHECK(grads.size() == edges.size(), RuntimeError, "Function ", fn.name(),
             " returned an incorrect number of gradients (expected ", edges.size(), ", got ", grads.size(), ")");
  for (std::size_t i = 0; i < grads.size(); ++i) {
    Tensor& g = grads[i];
    if (!edges[i].valid() || !g.defined()) continue;
    const InputMeta& meta = edges[i].fn->input_meta(edges[i].input_nr);
    if (g.sizes() != IntArrayRef(meta.sizes)) {
      WICK_CHECK(is_expandable_to(meta.sizes, g.sizes()), RuntimeError, "Function ", fn.name(),
                 " returned an invalid gradient at index ", i, " - got ", format_shape(g.sizes()),
                 " but expected shape compatible with ", format_shape(meta.sizes));
      g = sum_to(g, meta.sizes);
    }
    if (g.dtype() != meta.dtype) g = g.to(meta.dtype);
  }
}

void accumulate_into(tensor_list& buffer, std::uint32_t pos, Tensor&& g) {
  if (!g.defined()) return;
  Tensor& slot = buffer[pos];
  if (!slot.defined()) {
    slot = std::move(g);
  } else {
    slot = wick::add(slot, g);
  }
}

// Runs the graph from `roots`; returns the captured gradients of `inputs`
// (empty when accumulating into leaves).
tensor_list run_backward(const tensor_list& roots, const tensor_list& grad_roots, bool keep_graph,
                         bool create_graph, const tensor_list* inputs, bool allow_unused) {
  WICK_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(), RuntimeError, "got ", grad_roots.size(),
             " gradients for ", roots.size(), " tensors");
  std::vector<Edge> root_edges;
  tensor_list root_grads;
  root_edges.reserve(roots.size());
  for (std::size_t i = 0; i < roots.size(); ++i) {
    const Tensor& t = roots[i];
    WICK_CHECK(t.defined(), RuntimeError, "element ", i, " of tensors is undefined");
    Edge e = gradient_edge(t);
    WICK_CHECK(e.valid(), RuntimeError, "element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_roots.empty() ? Tensor() : grad_roots[i];
    if (!g.defined()) {
      WICK_CHECK(t.numel() == 1, RuntimeError, "grad can be implicitly created only for scalar outputs");
      WICK_CHECK(!is_complex(t.dtype()), RuntimeError, "grad can be implicitly created only for real scalar outputs");
      g = wick::ones(t.sizes(), t.dtype(), t.device());
    } else {
      WICK_CHECK(g.sizes() == t.sizes(), RuntimeError, "Mismatch in shape: grad_output[", i, "] has a shape of ",
                 format_shape(g.sizes()), " and output[", i, "] has a shape of ", format_shape(t.sizes()), ".");
    }
    root_edges.push_back(std::move(e));
    root_grads.push_back(std::move(g));
  }
  auto root = std::make_shared<GraphRoot>(std::move(root_edges), std::move(root_grads));

  // Discover the graph and count dependencies.
  NodeStates state;
  std::vector<Node*> order;  // discovery order (for the reachability pass)
  {
    std::vector<Node*> stack{root.get()};
    state[root.get()];
    while (!stack.empty()) {
      Node* n = stack.back();
      stack.pop_back();
      order.push_back(n);
      for (const Edge& e : n->next_edges()) {
        if (!e.valid()) continue;
        auto [ns, fresh] = state.try_emplace(e.fn.get());
        ns->dependencies++;
        if (fresh) stack.push_back(e.fn.get());
      }
    }
  }

  tensor_list results;
  if (inputs != nullptr) {
    results.resize(inputs->size());
    for (std::size_t i = 0; i < inputs->size(); ++i) {
      const Tensor& t = (*inputs)[i];
      WICK_CHECK(t.defined() && t.requires_grad(), RuntimeError, "One of the differentiated Tensors does not require grad");
      Edge e = gradient_edge(t);
      NodeState* ns = state.find(e.fn.get());
      WICK_CHECK(ns != nullptr || allow_unused, RuntimeError,
                 "One of the differentiated Tensors appears to not have been used in the graph. Set "
                 "allow_unused=True if this is the desired behavior.");
      if (ns != nullptr) ns->captures.emplace_back(e.input_nr, i);
    }
    // A node runs only if something after it reaches an input; children are
    // discovered after parents, so walk the discovery order backwards.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      NodeState& s = state[*it];
      bool succ = false;
      for (const Edge& e : (*it)->next_edges()) {
        if (e.valid() && state[e.fn.get()].reaches_input) succ = true;
      }
      s.executes = succ;
      s.reaches_input = succ || !s.captures.empty();
    }
  }

  // Run.
  std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
  ready.push(root.get());
  AutoGradMode mode(create_graph);
  while (!ready.empty()) {
    Node* fn = ready.top();
    ready.pop();
    NodeState& s = state[fn];
    tensor_list grads = std::move(s.buffer);
    grads.resize(std::max<std::size_t>(grads.size(), fn->num_inputs()));
    if (fn->has_pre_hooks()) fn->run_pre_hooks(grads);
    for (const auto& [input_nr, index] : s.captures) {
      if (input_nr < grads.size()) results[index] = grads[input_nr];
    }
    if (!s.executes) continue;
    tensor_list out = fn->apply(std::move(grads));
    validate_outputs(*fn, out);
    if (!keep_graph) fn->release_variables();
    const auto& edges = fn->next_edges();
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.valid()) continue;
      NodeState& ns = state[e.fn.get()];
      if (!ns.reaches_input) continue;
      if (ns.buffer.size() < e.fn->num_inputs()) ns.buffer.resize(e.fn->num_inputs());
      if (e.input_nr >= ns.buffer.size()) ns.buffer.resize(e.input_nr + 1);
      accumulate_into(ns.buffer, e.input_nr, std::move(out[i]));
      if (--ns.dependencies == 0) ready.push(e.fn.get());
    }
  }
  return results;
}

}  // namespace

tensor_list grad(const tensor_list& outputs, const tensor_list& inputs, const tensor_list& grad_outputs,
                 std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
  WICK_CHECK(!inputs.empty(), RuntimeError, "grad requires at least one input");
  return run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph), create_graph, &inputs,
                      allow_unused);
}

void backward(const tensor_list& tensors, const tensor_list& grad_tensors, std::optional<bool> retain_graph,
              bool create_graph) {
  run_backward(tensors, grad_tensors, retain_graph.value_or(create_graph), create_graph, nullptr, false);
}

}  // namespace wick::autograd
