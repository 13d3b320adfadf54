// core/nn_module.cpp - nn::Module: registration, listing, conversion, state_dict, printing and hooks.
/// \file
#include "wick/nn.h"


#include <ostream>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>

#include "wick/autograd_function.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick::nn {
namespace {

// A name joined under a module prefix: "" + "w" -> "w", "fc1" + "w" -> "fc1.w".
std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// "wick::testing::(anonymous namespace)::Net" -> "Net" (qualifiers inside
// template arguments are kept).
std::string torch_size(IntArrayRef sizes) { return "torch.Size(" + format_shape(sizes) + ")"; }

// PyTorch's `_addindent`: indents every line but the first.
std::string add_indent(const std::string& s, std::size_t spaces) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    out += c;
    if (c == '\n') out.append(spaces, ' ');
  }
  return out;
}

std::string quoted_list(const std::vector<std::string>& keys) {
  std::string out;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (i > 0) out += ", ";
    out += '"' + keys[i] + '"';
  }
  return out;
}

}  // namespace

// --- Parameter ------------------------------------------------------------------

Parameter::Parameter(Tensor data, bool requires_grad) {
  WICK_CHECK(data.defined(), RuntimeError, "nn.Parameter: data is undefined");
  tensor_ = data.detach();
  if (is_floating(tensor_.dtype())) tensor_.requires_grad_(requires_grad);
}

// --- registration -------------------------------------------------------------------

Module::~Module() = default;

void Module::check_new_name(const std::string& name, const char* kind) const {
  WICK_CHECK(!name.empty(), ValueError, kind, " name can't be empty string \"\"");
  WICK_CHECK(name.find('.') == std::string::npos, ValueError, kind, " name can't contain \".\", got: ", name);
  bool taken = false;
  for (const auto& p : parameters_) taken = taken || p.name == name;
  for (const auto& b : buffers_) taken = taken || b.name == name;
  for (const auto& c : children_) taken = taken || c.first == name;
  WICK_CHECK(!taken, ValueError, "attribute '", name, "' already exists");
}

Tensor& Module::register_parameter(std::string name, Tensor tensor, bool requires_grad) {
  check_new_name(name, "parameter");
  if (tensor.defined()) {
    if (!tensor.is_leaf()) tensor = tensor.detach();
    if (is_floating(tensor.dtype())) tensor.requires_grad_(requires_grad);
  }
  parameters_.push_back(NamedTensor{std::move(name), std::move(tensor), true});
  return parameters_.back().tensor;
}

Tensor& Module::register_buffer(std::string name, Tensor tensor, bool persistent) {
  check_new_name(name, "buffer");
  buffers_.push_back(NamedTensor{std::move(name), std::move(tensor), persistent});
  return buffers_.back().tensor;
}

void Module::register_module_impl(std::string name, std::shared_ptr<Module> module) {
  check_new_name(name, "module");
  children_.emplace_back(std::move(name), std::move(module));
}

// --- listing ---------------------------------------------------------------------------

void Module::collect_modules(const std::string& prefix,
                             std::vector<std::pair<std::string, std::shared_ptr<Module>>>& out,
                             std::unordered_set<const Module*>& seen) {
  if (!seen.insert(this).second) return;
  std::shared_ptr<Module> self = weak_from_this().lock();
  // Not owned by a shared_ptr (a module on the stack): a non-owning pointer.
  if (!self) self = std::shared_ptr<Module>(std::shared_ptr<Module>(), this);
  out.emplace_back(prefix, std::move(self));
  for (auto& [name, child] : children_) {
    if (child) child->collect_modules(join_name(prefix, name), out, seen);
  }
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_modules() {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  std::unordered_set<const Module*> seen;
  collect_modules("", out, seen);
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules() {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& entry : named_modules()) out.push_back(std::move(entry.second));
  return out;
}

std::vector<std::pair<std::string, std::shared_ptr<Module>>> Module::named_children() const {
  std::vector<std::pair<std::string, std::shared_ptr<Module>>> out;
  std::unordered_set<const Module*> seen;
  for (const auto& [name, child] : children_) {
    if (child && seen.insert(child.get()).second) out.emplace_back(name, child);
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const {
  std::vector<std::shared_ptr<Module>> out;
  for (auto& entry : named_children()) out.push_back(std::move(entry.second));
  return out;
}

namespace {

// Named parameters or buffers of `root` and (with `recurse`) its descendants;
// each TensorImpl once. `Module::named_modules` is non-const only because it
// hands out non-const pointers; nothing is modified here.
template <class Get>
std::vector<std::pair<std::string, Tensor>> named_members(const Module& root, bool recurse, Get get) {
  std::vector<std::pair<std::string, Tensor>> out;
  std::unordered_set<const TensorImpl*> seen;
  auto add = [&](const std::string& prefix, const Module& m) {
    for (auto& [name, t] : get(m)) {
      if (t.defined() && seen.insert(t.impl()).second) out.emplace_back(join_name(prefix, name), t);
    }
  };
  if (!recurse) {
    add("", root);
    return out;
  }
  for (const auto& [prefix, m] : const_cast<Module&>(root).named_modules()) add(prefix, *m);
  return out;
}

std::vector<Tensor> tensors_of(std::vector<std::pair<std::string, Tensor>> named) {
  std::vector<Tensor> out;
  out.reserve(named.size());
  for (auto& entry : named) out.push_back(std::move(entry.second));
  return out;
}

}  // namespace

std::vector<std::pair<std::string, Tensor>> Module::named_parameters(bool recurse) const {
  return named_members(*this, recurse, [](const Module& m) {
    std::vector<std::pair<std::string, Tensor>> own;
    for (const auto& p : m.parameters_) own.emplace_back(p.name, p.tensor);
    return own;
  });
}

std::vector<std::pair<std::string, Tensor>> Module::named_buffers(bool recurse) const {
  return named_members(*this, recurse, [](const Module& m) {
    std::vector<std::pair<std::string, Tensor>> own;
    for (const auto& b : m.buffers_) own.emplace_back(b.name, b.tensor);
    return own;
  });
}

std::vector<Tensor> Module::parameters(bool recurse) const { return tensors_of(named_parameters(recurse)); }
std::vector<Tensor> Module::buffers(bool recurse) const { return tensors_of(named_buffers(recurse)); }

const Module::NamedTensor* Module::find_tensor(std::string_view path, bool buffer) const {
  const Module* m = this;
  std::size_t dot;
  while ((dot = path.find('.')) != std::string_view::npos) {
    const std::string_view child_name = path.substr(0, dot);
    const Module* next = nullptr;
    for (const auto& [name, child] : m->children_) {
      if (name == child_name) next = child.get();
    }
    WICK_CHECK(next != nullptr, ValueError, "'", m->name(), "' object has no submodule '", child_name, "'");
    m = next;
    path.remove_prefix(dot + 1);
  }
  for (const auto& e : buffer ? m->buffers_ : m->parameters_) {
    if (e.name == path) return &e;
  }
  throw ValueError(wick::detail::str_cat("'", m->name(), "' object has no ", buffer ? "buffer" : "parameter", " '",
                                        path, "'"));
}

Tensor Module::parameter(std::string_view name) const { return find_tensor(name, false)->tensor; }
Tensor Module::buffer(std::string_view name) const { return find_tensor(name, true)->tensor; }

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& child : children()) child->apply(fn);
  fn(*this);
  return *this;
}

// --- mode, conversion, gradients ----------------------------------------------------------

Module& Module::train(bool on) {
  training_ = on;
  for (const auto& [name, child] : children_) {
    if (child) child->train(on);
  }
  return *this;
}

void Module::convert(const std::function<std::optional<Tensor>(const Tensor&)>& fn) {
  // Every conversion first, then every assignment: a failure changes nothing.
  std::vector<std::pair<Tensor, Tensor>> updates;
  {
    NoGradGuard no_grad;
    auto add = [&](const Tensor& t) {
      if (!t.defined()) return;
      if (std::optional<Tensor> converted = fn(t)) updates.emplace_back(t, std::move(*converted));
    };
    for (const Tensor& p : parameters()) {
      add(p);
      add(p.grad());
    }
    for (const Tensor& b : buffers()) add(b);
  }
  for (const auto& [target, converted] : updates) target.set_data(converted);
}

Module& Module::to(ScalarType dtype) {
  WICK_CHECK(is_floating(dtype), TypeError,
             "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=torch.",
             dtype_name(dtype));
  convert([dtype](const Tensor& t) -> std::optional<Tensor> {
    if (!is_floating(t.dtype()) || t.dtype() == dtype) return std::nullopt;
    return t.to(dtype);
  });
  return *this;
}

Module& Module::to(Device device) {
  convert([device](const Tensor& t) -> std::optional<Tensor> {
    const Device d = t.device();
    if (d.type() == device.type() && (device.index() < 0 || d.index() < 0 || d.index() == device.index())) {
      return std::nullopt;
    }
    Tensor moved = empty(t.sizes(), t.dtype(), device);
    moved.copy_(t);
    return moved;
  });
  return *this;
}

void Module::zero_grad(bool set_to_none) { nn::zero_grad(parameters(), set_to_none); }

void zero_grad(const std::vector<Tensor>& params, bool set_to_none) {
  NoGradGuard no_grad;
  for (const Tensor& p : params) {
    Tensor g = p.grad();
    if (!g.defined()) continue;
    if (set_to_none) {
      Tensor(p).mutable_grad() = Tensor();
      continue;
    }
    if (g.grad_fn()) {
      g.detach_();
    } else {
      g.requires_grad_(false);
    }
    g.fill_(0);
  }
}

// --- saving and loading ----------------------------------------------------------------------

void Module::collect_state(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const auto& p : parameters_) {
    if (p.tensor.defined()) out.emplace_back(prefix + p.name, p.tensor.detach());
  }
  for (const auto& b : buffers_) {
    if (b.tensor.defined() && b.persistent) out.emplace_back(prefix + b.name, b.tensor.detach());
  }
  for (const auto& [name, child] : children_) {
    if (child) child->collect_state(prefix + name + ".", out);
  }
}

std::vector<std::pair<std::string, Tensor>> Module::state_dict() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect_state("", out);
  return out;
}

struct Module::LoadPlan {
  std::unordered_map<std::string, std::size_t> index;  // key -> position in the input (last wins)
  std::vector<std::pair<Tensor, Tensor>> copies;       // (destination, source)
  std::vector<std::string> errors;
  IncompatibleKeys keys;
};

void Module::plan_load(const std::string& prefix, const std::vector<std::pair<std::string, Tensor>>& state,
                       LoadPlan& plan) const {
  std::vector<const NamedTensor*> local;
  for (const auto& p : parameters_) {
    if (p.tensor.defined()) local.push_back(&p);
  }
  for (const auto& b : buffers_) {
    if (b.tensor.defined() && b.persistent) local.push_back(&b);
  }
  for (const NamedTensor* e : local) {
    const std::string key = prefix + e->name;
    auto it = plan.index.find(key);
    if (it == plan.index.end()) {
      plan.keys.missing_keys.push_back(key);
      continue;
    }
    Tensor src = state[it->second].second;
    if (!src.defined()) {
      plan.errors.push_back("While copying the parameter named \"" + key +
                            "\", expected torch.Tensor or Tensor-like object from checkpoint but received "
                            "<class 'NoneType'>");
      continue;
    }
    // Checkpoints from before 0-dim tensors stored scalars as one-element vectors.
    if (e->tensor.dim() == 0 && src.dim() == 1) src = src.select(0, 0);
    if (!src.sizes().equals(e->tensor.sizes())) {
      plan.errors.push_back("size mismatch for " + key + ": copying a param with shape " + torch_size(src.sizes()) +
                            " from checkpoint, the shape in current model is " + torch_size(e->tensor.sizes()) +
                            ".");
      continue;
    }
    plan.copies.emplace_back(e->tensor, std::move(src));
  }
  // An input key under this prefix is unexpected unless its first component
  // names one of our tensors or submodules.
  for (const auto& [key, tensor] : state) {
    if (!key.starts_with(prefix)) continue;
    const std::string_view rest = std::string_view(key).substr(prefix.size());
    const std::string_view head = rest.substr(0, rest.find('.'));
    bool known = false;
    for (const NamedTensor* e : local) known = known || e->name == head;
    for (const auto& c : children_) known = known || c.first == head;
    if (!known) plan.keys.unexpected_keys.push_back(key);
  }
  for (const auto& [name, child] : children_) {
    if (child) child->plan_load(prefix + name + ".", state, plan);
  }
}

IncompatibleKeys Module::load_state_dict(const std::vector<std::pair<std::string, Tensor>>& state, bool strict) {
  LoadPlan plan;
  for (std::size_t i = 0; i < state.size(); ++i) plan.index[state[i].first] = i;
  plan_load("", state, plan);
  std::vector<std::string> errors;
  if (strict && !plan.keys.missing_keys.empty()) {
    errors.push_back("Missing key(s) in state_dict: " + quoted_list(plan.keys.missing_keys) + ". ");
  }
  if (strict && !plan.keys.unexpected_keys.empty()) {
    errors.push_back("Unexpected key(s) in state_dict: " + quoted_list(plan.keys.unexpected_keys) + ". ");
  }
  errors.insert(errors.end(), plan.errors.begin(), plan.errors.end());
  if (!errors.empty()) {
    std::string msg = "Error(s) in loading state_dict for " + name() + ":";
    for (const std::string& e : errors) msg += "\n\t" + e;
    throw RuntimeError(msg);
  }
  NoGradGuard no_grad;
  for (auto& [dst, src] : plan.copies) dst.copy_(src);
  return std::move(plan.keys);
}

// --- printing ----------------------------------------------------------------------------------

std::string Module::name() const {
  // The dynamic class name without namespaces, as custom Functions name theirs.
  std::string n = autograd::detail::function_name(typeid(*this));
  if (n.size() > 4 && n.ends_with("Impl")) n.resize(n.size() - 4);
  return n;
}

void Module::repr_into(std::string& out) const {
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  std::size_t extra_lines = 0;
  if (!extra.empty()) {
    std::size_t start = 0;
    for (;;) {
      const std::size_t nl = extra.find('\n', start);
      lines.push_back(extra.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
      ++extra_lines;
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  for (const auto& [name, child] : children_) {
    std::string child_repr = "None";
    if (child) {
      child_repr.clear();
      child->repr_into(child_repr);
    }
    lines.push_back("(" + name + "): " + add_indent(child_repr, 2));
  }
  out += name();
  out += '(';
  if (extra_lines == 1 && children_.empty()) {
    out += lines[0];
  } else if (!lines.empty()) {
    for (const std::string& line : lines) out += "\n  " + line;
    out += '\n';
  }
  out += ')';
}

std::string Module::repr() const {
  std::string out;
  repr_into(out);
  return out;
}

std::ostream& operator<<(std::ostream& os, const Module& module) { return os << module.repr(); }

// --- hooks ------------------------------------------------------------------------------------------

autograd::RemovableHandle Module::register_forward_pre_hook(ForwardPreHook hook) {
  WICK_CHECK(hook, ValueError, "register_forward_pre_hook: the hook is empty");
  if (!hooks_) hooks_ = std::make_shared<detail::ForwardHookLists>();
  const std::uint64_t id = hooks_->next_id++;
  hooks_->pre.emplace_back(id, std::move(hook));
  return autograd::RemovableHandle([weak = std::weak_ptr<detail::ForwardHookLists>(hooks_), id] {
    if (auto lists = weak.lock()) std::erase_if(lists->pre, [id](const auto& h) { return h.first == id; });
  });
}

autograd::RemovableHandle Module::register_forward_hook(ForwardHook hook) {
  WICK_CHECK(hook, ValueError, "register_forward_hook: the hook is empty");
  if (!hooks_) hooks_ = std::make_shared<detail::ForwardHookLists>();
  const std::uint64_t id = hooks_->next_id++;
  hooks_->post.emplace_back(id, std::move(hook));
  return autograd::RemovableHandle([weak = std::weak_ptr<detail::ForwardHookLists>(hooks_), id] {
    if (auto lists = weak.lock()) std::erase_if(lists->post, [id](const auto& h) { return h.first == id; });
  });
}

std::vector<Value> Module::run_forward_pre_hooks(std::vector<Value> inputs) {
  if (!hooks_) return inputs;
  // A copy: a hook may remove itself or register another while we iterate.
  const auto hooks = hooks_->pre;
  for (const auto& [id, hook] : hooks) {
    if (std::optional<std::vector<Value>> replaced = hook(*this, inputs)) inputs = std::move(*replaced);
  }
  return inputs;
}

Value Module::run_forward_hooks(const std::vector<Value>& inputs, Value output) {
  if (!hooks_) return output;
  const auto hooks = hooks_->post;
  for (const auto& [id, hook] : hooks) {
    if (std::optional<Value> replaced = hook(*this, inputs, output)) output = std::move(*replaced);
  }
  return output;
}

namespace detail {

void hook_arity_error(const Module& m, std::size_t expected, std::size_t got) {
  throw TypeError(wick::detail::str_cat(m.name(), ".forward() takes ", expected, " argument(s) but the forward ",
                                        "pre-hooks returned ", got));
}

}  // namespace detail
}  // namespace wick::nn
