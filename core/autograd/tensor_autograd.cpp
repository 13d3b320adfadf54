// core/autograd.cpp - autograd state on tensors: nodes, edges, saved tensors, hooks, views and in-place.
/// \file
#include "wick/autograd.h"

#include <atomic>
#include <limits>
#include <sstream>

#include "core/autograd/autograd_meta.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {

namespace {
void destroy_meta(autograd::AutogradMeta* m) noexcept { delete m; }
}  // namespace

autograd::AutogradMeta& TensorImpl::ensure_autograd_meta() {
  if (!autograd_meta_) autograd_meta_ = {new autograd::AutogradMeta(), MetaDeleter{&destroy_meta}};
  return *autograd_meta_;
}

namespace autograd {
namespace {

thread_local std::uint64_t tls_sequence_nr = 0;

// The torch-style type name used in autograd messages: "torch.FloatTensor [2, 3]".
std::string describe(const Tensor& t) {
  const char* name = "Tensor";
  switch (t.dtype()) {
    case ScalarType::kFloat32: name = "FloatTensor"; break;
    case ScalarType::kFloat64: name = "DoubleTensor"; break;
    case ScalarType::kInt64: name = "LongTensor"; break;
    case ScalarType::kInt32: name = "IntTensor"; break;
    case ScalarType::kBool: name = "BoolTensor"; break;
    default: break;
  }
  std::ostringstream os;
  os << "[torch." << name << " " << format_shape(t.sizes()) << "]";
  return os.str();
}

// A view of a base whose history was rewritten: gradients flow to the base
// through the view's slice (Note [Views and in-place]).
class AsStridedBackward final : public Node {
 public:
  AsStridedBackward(const Tensor& base, const Tensor& view)
      : base_sizes_(base.sizes()),
        base_strides_(base.strides()),
        base_offset_(base.storage_offset()),
        sizes_(view.sizes()),
        strides_(view.strides()),
        offset_(view.storage_offset()) {}
  tensor_list apply(tensor_list&& grads) override;
  [[nodiscard]] std::string name() const override { return "AsStridedBackward0"; }

 private:
  DimVector base_sizes_, base_strides_;
  std::int64_t base_offset_;
  DimVector sizes_, strides_;
  std::int64_t offset_;
  friend class CopySlices;
};

// Zeros laid out with `sizes`/`strides` (offset 0) over a fresh storage.
Tensor zeros_strided(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device) {
  std::int64_t extent = 1;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return make_empty(sizes, dtype, device);
    extent += (sizes[i] - 1) * strides[i];
  }
  Tensor flat = zeros({extent}, dtype, device);
  return make_view(flat, sizes, strides, 0);
}

tensor_list AsStridedBackward::apply(tensor_list&& grads) {
  if (!grads[0].defined()) return {Tensor()};
  const Tensor& g = grads[0];
  Tensor base_grad = zeros_strided(base_sizes_, base_strides_, g.dtype(), g.device());
  Tensor slice = make_view(base_grad, sizes_, strides_, offset_ - base_offset_);
  slice.add_(g);  // add: overlapping view elements sum their gradients
  return {base_grad};
}

void refresh_view_grad_fn(const Tensor& view, AutogradMeta& m);

// An in-place op on a view, seen from the base (Note [Views and in-place]).
class CopySlices final : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn)
      : view_(base, view), fn_(std::move(fn)) {
    add_input_metadata(base);
    next_edges_.push_back(gradient_edge(base));
    const auto& fe = fn_->next_edges();
    for (std::size_t i = 1; i < fe.size(); ++i) next_edges_.push_back(fe[i]);
  }
  tensor_list apply(tensor_list&& grads) override {
    tensor_list out(next_edges_.size());
    if (!grads[0].defined()) return out;
    const Tensor& g = grads[0];
    Tensor result = zeros_strided(view_.base_sizes_, view_.base_strides_, g.dtype(), g.device());
    result.copy_(g);
    Tensor slice = make_view(result, view_.sizes_, view_.strides_, view_.offset_ - view_.base_offset_);
    // Recording (a double backward): the slice is a tracked view of result,
    // so that the writes below reach result's graph (a gradient through
    // them is 0 where fn's input was overwritten), not only its storage.
    if (GradMode::is_enabled() && g.requires_grad()) {
      AutogradMeta& m = slice.impl()->ensure_autograd_meta();
      set_view_of(slice, result);
      refresh_view_grad_fn(slice, m);
      if (m.grad_fn) slice.impl()->set_autograd_key(true);
    }
    tensor_list r = fn_->apply({slice.clone()});
    if (r.at(0).defined()) {
      slice.copy_(r[0]);
    } else {
      slice.fill_(0);
    }
    out[0] = result;
    for (std::size_t i = 1; i < r.size() && i < out.size(); ++i) out[i] = r[i];
    return out;
  }
  [[nodiscard]] std::string name() const override { return "CopySlices"; }
  void release_variables() override { fn_->release_variables(); }

 private:
  AsStridedBackward view_;
  std::shared_ptr<Node> fn_;
};

// Regenerates a tracked view's grad_fn after its base's history changed.
void refresh_view_grad_fn(const Tensor& view, AutogradMeta& m) {
  const Tensor& base = m.base;
  AutogradMeta* bm = meta_of(base);
  if (bm == nullptr || (!bm->grad_fn && !bm->requires_grad)) return;
  auto fn = std::make_shared<AsStridedBackward>(base, view);
  fn->mutable_next_edges().push_back(gradient_edge(base));
  m.output_nr = fn->add_input_metadata(view);
  m.grad_fn = std::move(fn);
  m.attr_version = view.version();
}

std::shared_ptr<Node> current_grad_fn(const Tensor& t, AutogradMeta& m) {
  if (m.is_view && m.attr_version != t.version()) refresh_view_grad_fn(t, m);
  return m.grad_fn;
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t, AutogradMeta& m) {
  std::lock_guard lock(m.accumulator_mutex);
  if (auto acc = m.grad_accumulator.lock()) return acc;
  auto acc = std::make_shared<AccumulateGrad>(t);
  m.grad_accumulator = acc;
  return acc;
}

}  // namespace

// --- hooks -------------------------------------------------------------------

Tensor HookList::run(Tensor grad) const {
  for (const auto& [id, hook] : hooks) {
    Tensor r = hook(grad);
    if (r.defined()) grad = std::move(r);
  }
  return grad;
}

RemovableHandle::RemovableHandle(std::weak_ptr<HookList> list, std::uint64_t id)
    : remover_([list = std::move(list), id] {
        if (auto l = list.lock()) std::erase_if(l->hooks, [&](const auto& h) { return h.first == id; });
      }) {}

void RemovableHandle::remove() {
  if (remover_) std::exchange(remover_, nullptr)();
}

// --- Node ----------------------------------------------------------------------

Tensor InputMeta::zeros() const { return wick::zeros(sizes, dtype, device); }

Node::Node() : sequence_nr_(tls_sequence_nr++) {}
Node::Node(std::uint64_t sequence_nr) : sequence_nr_(sequence_nr) {}
Node::~Node() = default;

std::uint32_t Node::add_input_metadata(const Tensor& t) {
  if (!complex_gradients()) {  // Note [Complex gradients]
    bool complex_input = false;
    for (const Edge& e : next_edges_) complex_input = complex_input || (e.valid() && is_complex(e.fn->input_meta(e.input_nr).dtype));
    WICK_CHECK(!complex_input && !is_complex(t.dtype()), NotImplementedError, name(),
               ": the derivative of this operation is not implemented for complex tensors (",
               complex_input ? "a complex input requires grad" : "its output is complex", ")");
  }
  input_meta_.push_back(InputMeta{DimVector(t.sizes()), t.dtype(), t.device()});
  return static_cast<std::uint32_t>(input_meta_.size() - 1);
}

const std::shared_ptr<HookList>& Node::pre_hooks_ptr(std::uint32_t i) {
  if (pre_hooks_.size() <= i) pre_hooks_.resize(i + 1);
  if (!pre_hooks_[i]) pre_hooks_[i] = std::make_shared<HookList>();
  return pre_hooks_[i];
}
HookList& Node::pre_hooks(std::uint32_t i) { return *pre_hooks_ptr(i); }

void Node::run_pre_hooks(tensor_list& grads) const {
  for (std::size_t i = 0; i < pre_hooks_.size() && i < grads.size(); ++i) {
    if (pre_hooks_[i] && !pre_hooks_[i]->hooks.empty() && grads[i].defined()) grads[i] = pre_hooks_[i]->run(grads[i]);
  }
}

// --- edges and history -------------------------------------------------------------

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = meta_of(t);
  if (m == nullptr) return {};
  if (auto fn = current_grad_fn(t, *m)) return {std::move(fn), m->output_nr};
  if (m->requires_grad) return {grad_accumulator(t, *m), 0};
  return {};
}

std::vector<Edge> collect_next_edges(const tensor_list& inputs) {
  std::vector<Edge> edges;
  edges.reserve(inputs.size());
  for (const Tensor& t : inputs) edges.push_back(gradient_edge(t));
  return edges;
}

void sync_autograd_key(TensorImpl& impl) noexcept {
  AutogradMeta* m = impl.autograd_meta();
  const bool on = m != nullptr && (m->requires_grad || m->grad_fn || m->fw_grad.defined());
  impl.set_autograd_key(on);
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn) {
  if (!t.defined() || !is_differentiable_type(t.dtype())) return;
  AutogradMeta& m = t.impl()->ensure_autograd_meta();
  m.output_nr = fn->add_input_metadata(t);
  m.grad_fn = fn;
  m.attr_version = t.version();
  t.impl()->set_autograd_key(true);
}

void set_view_of(const Tensor& view, const Tensor& base) {
  AutogradMeta* bm = meta_of(base);
  AutogradMeta& m = view.impl()->ensure_autograd_meta();
  m.is_view = true;
  m.base = (bm != nullptr && bm->is_view) ? bm->base : base;
  m.attr_version = view.version();
}

void check_inplace(const Tensor& self, const char* op) {
  AutogradMeta* m = meta_of(self);
  if (m == nullptr || !GradMode::is_enabled()) return;
  if (m->is_view) {
    AutogradMeta* bm = meta_of(m->base);
    WICK_CHECK(bm == nullptr || !(bm->requires_grad && !bm->grad_fn), RuntimeError, op,
               ": a view of a leaf Variable that requires grad is being used in an in-place operation.");
  }
  WICK_CHECK(!(m->requires_grad && !m->grad_fn), RuntimeError, op,
             ": a leaf Variable that requires grad is being used in an in-place operation.");
}

// Note [Tangents of views written in place]
// A view's tangent is a view of its base's: an in-place write into a view
// (y = x.clone(); y[0] = z) changes the base's tangent in the view's
// elements, as CopySlices changes the base's gradient. The base's tangent is
// rebuilt in the base's geometry (it may be shared with another tensor, so
// it is never written into), the view's elements take the new tangent (zeros
// for an undefined one), and the view's tangent becomes that region.
void set_inplace_fw_grad(const Tensor& self, const Tensor& tangent) {
  const AutogradMeta* m = meta_of(self);
  if (m == nullptr || !m->is_view || m->base.dtype() != self.dtype() || !is_differentiable_type(self.dtype())) {
    set_fw_grad(self, tangent);
    return;
  }
  const Tensor base = m->base;
  const Tensor old = fw_grad_of(base);
  if (!old.defined() && !tangent.defined()) {
    set_fw_grad(self, tangent);
    return;
  }
  Tensor rebuilt = zeros_strided(base.sizes(), base.strides(), base.dtype(), base.device());
  if (old.defined()) rebuilt.copy_(old);
  Tensor region = make_view(rebuilt, self.sizes(), self.strides(), self.storage_offset() - base.storage_offset());
  if (tangent.defined()) {
    region.copy_(tangent);
  } else {
    region.fill_(0);
  }
  set_fw_grad(base, rebuilt);
  set_fw_grad(self, region);
}

void rebase_history(const Tensor& self, const std::shared_ptr<Node>& fn, std::optional<std::uint32_t> output_nr) {
  AutogradMeta& m = self.impl()->ensure_autograd_meta();
  if (m.is_view) {
    AutogradMeta* bm = meta_of(m.base);
    const bool base_tracked = bm != nullptr && (bm->requires_grad || bm->grad_fn);
    // CopySlices rebuilds the view's geometry in the base's elements: a
    // view of another dtype (view_as_real, real, imag) has none there.
    WICK_CHECK(!(base_tracked || fn) || m.base.dtype() == self.dtype(), NotImplementedError,
               "an in-place operation on a ", dtype_name(self.dtype()), " view of a ", dtype_name(m.base.dtype()),
               " tensor (view_as_real, real, imag, view_as_complex) is not differentiable in wick; modify a copy");
    // The base joins the graph too: its slice now depends on fn's inputs.
    if (base_tracked || fn) {
      const Tensor& base = m.base;
      auto copy = std::make_shared<CopySlices>(base, self, fn);
      AutogradMeta& b = base.impl()->ensure_autograd_meta();
      b.grad_fn = copy;
      b.output_nr = 0;
      b.attr_version = base.version();
      base.impl()->set_autograd_key(true);
      refresh_view_grad_fn(self, m);
      self.impl()->set_autograd_key(true);
      return;
    }
  }
  m.output_nr = output_nr ? *output_nr : fn->add_input_metadata(self);
  m.grad_fn = fn;
  m.attr_version = self.version();
  self.impl()->set_autograd_key(true);
}

// --- shape helpers -----------------------------------------------------------------

bool is_expandable_to(IntArrayRef shape, IntArrayRef target) noexcept {
  if (shape.size() > target.size()) return false;
  const std::size_t off = target.size() - shape.size();
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] != 1 && shape[i] != target[off + i]) return false;
  }
  return true;
}

Tensor sum_to(const Tensor& grad, IntArrayRef sizes) {
  if (grad.sizes() == sizes) return grad;
  const std::size_t lead = grad.dim() - sizes.size();
  std::vector<std::int64_t> dims;
  for (std::size_t i = 0; i < lead; ++i) dims.push_back(static_cast<std::int64_t>(i));
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 1 && grad.sizes()[lead + i] != 1) dims.push_back(static_cast<std::int64_t>(lead + i));
  }
  Tensor r = dims.empty() ? grad : wick::sum(grad, IntArrayRef(dims), /*keepdim=*/true);
  if (r.sizes() != sizes) r = r.reshape(sizes);
  return r;
}

// --- SavedVariable ------------------------------------------------------------------

SavedVariable::SavedVariable(const Tensor& t, bool is_output) : is_output_(is_output) {
  if (!t.defined()) return;
  was_defined_ = true;
  version_ = t.version();
  AutogradMeta* m = meta_of(t);
  requires_grad_ = t.requires_grad();
  is_leaf_ = m == nullptr || !m->grad_fn;
  if (is_output && m != nullptr && m->grad_fn) {
    // Keep the data, not the grad_fn (which owns this SavedVariable).
    data_ = make_view(t, t.sizes(), t.strides(), t.storage_offset());
    output_nr_ = m->output_nr;
  } else {
    data_ = t;
    is_output_ = false;
  }
}

void SavedVariable::reset() noexcept {
  data_ = Tensor();
  released_ = true;
}

Tensor SavedVariable::unpack(const std::shared_ptr<Node>& node) const {
  if (!was_defined_) return {};
  const std::string fn_name = node ? node->name() : std::string("a backward function");
  WICK_CHECK(!released_, RuntimeError,
             "Trying to backward through the graph a second time (or directly access saved tensors after they "
             "have already been freed). Saved intermediate values of the graph are freed when you call "
             ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph "
             "a second time or if you need to access saved tensors after calling backward.");
  if (data_.version() != version_) {
    std::ostringstream os;
    os << "one of the variables needed for gradient computation has been modified by an inplace operation: "
       << describe(data_) << ", which is saved by " << fn_name;
    if (is_output_) os << " (its output " << output_nr_ << ")";
    os << ", is at version " << data_.version() << "; expected version " << version_
       << " instead. Hint: the backtrace further above shows the operation that failed to compute its "
          "gradient. Clone the tensor before modifying it in place, or save a copy.";
    throw RuntimeError(os.str());
  }
  if (!is_output_) return data_;
  // A saved output: give it back its grad_fn (this node) for double backward.
  Tensor t = make_view(data_, data_.sizes(), data_.strides(), data_.storage_offset());
  if (node && requires_grad_) {
    AutogradMeta& m = t.impl()->ensure_autograd_meta();
    m.grad_fn = node;
    m.output_nr = output_nr_;
    m.attr_version = t.version();
    t.impl()->set_autograd_key(true);
  }
  return t;
}

// --- AccumulateGrad and ErrorNode -------------------------------------------------------

AccumulateGrad::AccumulateGrad(Tensor variable)
    : Node(std::numeric_limits<std::uint64_t>::max()), variable_(std::move(variable)) {
  add_input_metadata(variable_);
}

tensor_list AccumulateGrad::apply(tensor_list&& grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  std::lock_guard lock(mutex_);
  AutogradMeta& m = variable_.impl()->ensure_autograd_meta();
  if (m.hooks && !m.hooks->hooks.empty()) g = m.hooks->run(g);
  if (!m.requires_grad) return {};  // requires_grad_(false) since the graph was built
  accumulate_grad(m.grad, std::move(g), GradMode::is_enabled());
  return {};
}

void accumulate_grad(Tensor& slot, Tensor g, bool record) {
  if (record) {
    // create_graph: keep the gradient's own history.
    slot = slot.defined() ? wick::add(slot, g) : g;
  } else if (!slot.defined()) {
    // Steal a gradient nothing else can see; copy anything shared.
    const bool unique = g.use_count() == 1 && g.storage()->use_count() == 1 && g.is_contiguous() &&
                        meta_of(g) == nullptr;
    slot = unique ? std::move(g) : wick::clone(g);
  } else if (slot.requires_grad()) {
    slot = wick::add(slot, g);
  } else {
    slot.add_(g);
  }
}

tensor_list ErrorNode::apply(tensor_list&&) { throw RuntimeError(message_); }

// --- guards --------------------------------------------------------------------------

AutoGradMode::AutoGradMode(bool enabled) noexcept
    : was_excluded_(tls_local_dispatch_key_set().excluded.has(DispatchKey::kAutograd)) {
  auto& tls = tls_local_dispatch_key_set();
  tls.excluded = enabled ? tls.excluded.remove(DispatchKey::kAutograd) : tls.excluded.add(DispatchKey::kAutograd);
}
AutoGradMode::~AutoGradMode() {
  auto& tls = tls_local_dispatch_key_set();
  tls.excluded = was_excluded_ ? tls.excluded.add(DispatchKey::kAutograd)
                               : tls.excluded.remove(DispatchKey::kAutograd);
}

}  // namespace autograd

// --- Tensor's autograd methods ----------------------------------------------------------

using autograd::AutogradMeta;
using autograd::meta_of;

bool Tensor::requires_grad() const noexcept {
  AutogradMeta* m = meta_of(*this);
  if (m == nullptr) return false;
  return m->requires_grad || m->grad_fn != nullptr;
}

Tensor& Tensor::requires_grad_(bool requires_grad) {
  AutogradMeta* m = meta_of(*this);
  WICK_CHECK(m == nullptr || !m->grad_fn || requires_grad, RuntimeError,
             "you can only change requires_grad flags of leaf variables. If you want to use a computed variable "
             "in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
  if (m != nullptr && m->grad_fn) return *this;
  WICK_CHECK(!requires_grad || autograd::is_differentiable_type(dtype()), RuntimeError,
             "only Tensors of floating point dtype can require gradients");
  impl()->ensure_autograd_meta().requires_grad = requires_grad;
  autograd::sync_autograd_key(*impl());
  return *this;
}

Tensor Tensor::grad() const {
  AutogradMeta* m = meta_of(*this);
  if (m == nullptr) return {};
  if (m->retained_grad) return *m->retained_grad;
  return m->grad;
}

Tensor& Tensor::mutable_grad() {
  WICK_CHECK(defined(), RuntimeError, "mutable_grad() on an undefined tensor");
  return impl()->ensure_autograd_meta().grad;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  AutogradMeta* m = meta_of(*this);
  if (m == nullptr) return nullptr;
  return autograd::current_grad_fn(*this, *m);
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

std::uint32_t Tensor::output_nr() const {
  AutogradMeta* m = meta_of(*this);
  return m == nullptr ? 0 : m->output_nr;
}

bool Tensor::retains_grad() const {
  AutogradMeta* m = meta_of(*this);
  return m != nullptr && m->retains_grad;
}

Tensor Tensor::detach() const {
  Tensor t = make_view(*this, sizes(), strides(), storage_offset());
  t.impl()->set_wrapped_number(impl()->is_wrapped_number());
  return t;
}

Tensor& Tensor::detach_() {
  AutogradMeta* m = meta_of(*this);
  if (m != nullptr) {
    WICK_CHECK(!m->is_view, RuntimeError, "Can't detach views in-place. Use detach() instead.");
    m->grad_fn.reset();
    m->requires_grad = false;
    m->output_nr = 0;
    autograd::sync_autograd_key(*impl());
  }
  return *this;
}

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

autograd::RemovableHandle Tensor::register_hook(std::function<Tensor(const Tensor&)> hook) const {
  WICK_CHECK(requires_grad(), RuntimeError, "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = impl()->ensure_autograd_meta();
  std::shared_ptr<autograd::HookList> list;
  if (auto fn = grad_fn()) {
    list = fn->pre_hooks_ptr(m.output_nr);
  } else {
    if (!m.hooks) m.hooks = std::make_shared<autograd::HookList>();
    list = m.hooks;
  }
  const std::uint64_t id = list->next_id++;
  list->hooks.emplace_back(id, std::move(hook));
  return autograd::RemovableHandle(list, id);
}

void Tensor::retain_grad() const {
  WICK_CHECK(requires_grad(), RuntimeError, "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = impl()->ensure_autograd_meta();
  if (is_leaf() || m.retains_grad) return;
  m.retains_grad = true;
  // The slot is shared with the hook, which lives in grad_fn and may outlive this tensor.
  m.retained_grad = std::make_shared<Tensor>();
  auto list = grad_fn()->pre_hooks_ptr(m.output_nr);
  list->hooks.emplace_back(list->next_id++, [slot = m.retained_grad](const Tensor& g) {
    *slot = slot->defined() ? wick::add(*slot, g) : wick::clone(g);
    return Tensor();
  });
}

void Tensor::set_data(const Tensor& data) const {
  WICK_CHECK(data.defined(), RuntimeError, "set_data: new data is undefined");
  impl()->set_data_from(*data.impl());
}

}  // namespace wick
