// dispatch/override_protocol.cpp - the Override kernel: modes, handler order, NotImplemented, subclasses.
/// \file
/// One boxed fallback at the `Override` key serves every operator; see
/// wick/override.h for the rules it implements.
#include <algorithm>
#include <array>

#include "core/value_repr.h"
#include "dispatch/override_internal.h"
#include "dispatch/registry.h"
#include "wick/library.h"

namespace wick {
namespace {

// The thread's mode stack (innermost last), and its size in a trivially
// destructible thread_local so the common "no mode" check is one load.
thread_local std::vector<std::shared_ptr<TorchFunctionHandler>> t_modes;
constinit thread_local std::size_t t_mode_count __attribute__((tls_model("initial-exec"))) = 0;
constinit thread_local BoxedCallFrame* t_frame __attribute__((tls_model("initial-exec"))) = nullptr;

// The distinct overriding types of a call, subclasses before their
// superclasses and otherwise first-seen order. Calls rarely have more than
// a few, so they live inline (no allocation).
class TypeList {
 public:
  TypeList() = default;
  TypeList(const TypeList&) = delete;
  TypeList& operator=(const TypeList&) = delete;

  // Adds the type of `v` (and of list items).
  void collect(const Value& v) {
    if (v.is_list() || v.is_tuple()) {
      for (const Value& item : v.items()) collect(item);
    } else if (v.is_tensor_list()) {
      for (const Tensor& t : v.to_tensor_list())
        if (t.defined()) add(type_of(t.impl()->type_id()));
    } else {
      add(type_of(v));
    }
  }
  [[nodiscard]] ArrayRef<const TypeInfo*> ref() const noexcept { return {data(), size_}; }

 private:
  static constexpr std::size_t kInline = 8;
  const TypeInfo** data() noexcept { return heap_.empty() ? inline_.data() : heap_.data(); }
  const TypeInfo* const* data() const noexcept { return heap_.empty() ? inline_.data() : heap_.data(); }

  void add(const TypeInfo* t) {
    if (t == nullptr) return;
    const TypeInfo** d = data();
    if (std::find(d, d + size_, t) != d + size_) return;
    // Before the first type already collected that is a superclass of it.
    const std::size_t pos = static_cast<std::size_t>(
        std::find_if(d, d + size_, [&](const TypeInfo* seen) { return t->is_subclass_of(*seen); }) - d);
    if (heap_.empty() && size_ == kInline) heap_.assign(inline_.begin(), inline_.end());
    if (!heap_.empty()) {
      heap_.insert(heap_.begin() + static_cast<std::ptrdiff_t>(pos), t);
    } else {
      std::copy_backward(inline_.begin() + static_cast<std::ptrdiff_t>(pos),
                         inline_.begin() + static_cast<std::ptrdiff_t>(size_),
                         inline_.begin() + static_cast<std::ptrdiff_t>(size_ + 1));
      inline_[pos] = t;
    }
    ++size_;
  }

  std::array<const TypeInfo*, kInline> inline_{};
  std::vector<const TypeInfo*> heap_;
  std::size_t size_ = 0;
};

std::string type_list(ArrayRef<const TypeInfo*> types) {
  std::string s = "[";
  for (std::size_t i = 0; i < types.size(); ++i) s += (i ? ", " : "") + types[i]->name();
  return s + "]";
}

// Whether two Values are the same default (for rebuilding kwargs of typed calls).
bool same_value(const Value& a, const Value& b) {
  if (a.kind() != b.kind()) return false;
  if (a.is_tensor() || a.is_object()) return false;
  auto no_tensor = [](const Tensor&) { return std::string(); };  // never reached: tensors differ above
  return value_repr(a, no_tensor) == value_repr(b, no_tensor);
}

// A typed call's arguments as the user would have written them, rebuilt from
// the bound stack: positional parameters as args (trailing defaults
// dropped), keyword-only ones that differ from their defaults as kwargs.
void rebuild_arguments(const FunctionSchema& s, const Value* stack_args, std::vector<Value>& args, Kwargs& kwargs) {
  std::size_t last = 0;
  for (std::size_t i = 0; i < s.arguments.size(); ++i) {
    const SchemaArgument& a = s.arguments[i];
    const Value& v = stack_args[i];
    const bool is_default = a.default_value && same_value(*a.default_value, v);
    if (a.variadic) {  // spread, as Python passes *tensors to __torch_function__
      if (v.is_tensor_list()) {
        for (const Tensor& t : v.to_tensor_list()) args.emplace_back(t);
      } else if (v.is_list() || v.is_tuple()) {
        for (const Value& item : v.items()) args.push_back(item);
      } else {
        args.push_back(v);
      }
      last = args.size();
    } else if (a.kwarg_only) {
      if (!is_default) kwargs.emplace_back(a.name, v);
    } else {
      args.push_back(v);
      if (!is_default) last = args.size();
    }
  }
  args.resize(last);
}

// The handler of `t`: its own or its nearest ancestor's (Note [Type
// parents]), else the default subclass behaviour. A type whose registration
// is gone keeps its name (its tensors still print) but its handler is not
// called again: the default runs instead. (Objects of a tensor-like type
// cannot outlive their plugin's code.)
Value run_handler(const TypeInfo& t, const TorchFunctionCall& call) {
  if (const TypeInfo* h = t.inherited_handler(); h != nullptr && h->registered()) return h->handler()(call);
  return default_torch_function(call);
}

// Runs the protocol for one call; `below` runs the operator without it
// (used by the default subclass behaviour).
Value run_protocol(const OperatorHandle& op, TorchFunctionCall& call) {
  // 1. the innermost mode, popped while it runs.
  if (t_mode_count != 0) {
    std::shared_ptr<TorchFunctionHandler> mode = t_modes.back();
    t_modes.pop_back();
    t_mode_count = t_modes.size();
    const bool last = t_modes.empty();
    auto& tls = tls_local_dispatch_key_set();
    if (last) tls.included = tls.included.remove(DispatchKey::kOverride);
    struct Restore {
      std::shared_ptr<TorchFunctionHandler> mode;
      bool last;
      ~Restore() {
        t_modes.push_back(std::move(mode));
        t_mode_count = t_modes.size();
        if (last) tls_local_dispatch_key_set().included = tls_local_dispatch_key_set().included.add(DispatchKey::kOverride);
      }
    } restore{mode, last};
    Value r = (*mode)(call);
    if (!r.is_not_implemented()) return r;
  }
  // 2. argument types, subclasses first.
  for (const TypeInfo* t : call.types) {
    Value r = run_handler(*t, call);
    if (!r.is_not_implemented()) return r;
  }
  if (call.types.empty()) return NotImplemented;  // only a mode, which declined: run the op
  throw TypeError(detail::str_cat("no implementation found for '", op.qualified_name(),
                                  "' on types that implement __torch_function__: ", type_list(call.types)));
}

// Pushes a handler's result as the operator's results.
void push_result(const FunctionSchema& s, Stack& stack, Value r) {
  if (s.returns.size() > 1 && r.is_tuple()) {
    for (const Value& item : r.items()) stack.push_back(item);
  } else if (!s.returns.empty()) {
    stack.push_back(std::move(r));
  }
}

// What default_torch_function needs to run the operator below Override on
// the bound arguments: the call being handled (only its own operator may
// use it), its keys, and its stack arguments.
struct Pending {
  const void* op_entry;
  DispatchKeySet ks;
  const Value* args;
  std::size_t n;
};
constinit thread_local Pending* t_pending __attribute__((tls_model("initial-exec"))) = nullptr;

// While handlers run: `pending` is the call's (nullptr: none), and the
// boxed-call frame is cleared (it belonged to the call being handled).
class HandlerScope {
 public:
  explicit HandlerScope(Pending* pending) noexcept : pending_(t_pending), frame_(t_frame) {
    t_pending = pending;
    t_frame = nullptr;
  }
  ~HandlerScope() {
    t_pending = pending_;
    t_frame = frame_;
  }
  HandlerScope(const HandlerScope&) = delete;
  HandlerScope& operator=(const HandlerScope&) = delete;

 private:
  Pending* pending_;
  BoxedCallFrame* frame_;
};

class OverrideKernel final : public BoxedFunctor {
 public:
  void operator()(const OperatorHandle& op, DispatchKeySet ks, Stack& stack) override {
    if (op.entry()->ignored) {
      op.redispatch_boxed(next_keys(ks), stack);
      return;
    }
    // wick::call's frame, when it is this operator's, holds the schema and
    // the arguments as the user wrote them (Note [Boxed call frame]); a typed
    // call holds the schema here and rebuilds the arguments from the stack.
    BoxedCallFrame* frame = t_frame;
    const bool own_frame = frame != nullptr && frame->op_entry == op.entry();
    std::shared_ptr<const FunctionSchema> held;
    const FunctionSchema& s = own_frame ? *frame->schema : *(held = op.schema_ptr());
    const std::size_t n = s.arguments.size();
    WICK_INTERNAL_ASSERT(stack.size() >= n, "override kernel: short stack");
    const Value* args = stack.data() + (stack.size() - n);
    TypeList types;
    for (std::size_t i = 0; i < n; ++i) types.collect(args[i]);
    if (types.ref().empty() && t_mode_count == 0) {
      op.redispatch_boxed(next_keys(ks), stack);  // nothing to do here (e.g. a mode is only included)
      return;
    }
    TorchFunctionCall call{op, types.ref(), {}, {}};
    std::vector<Value> rebuilt_args;
    Kwargs rebuilt_kwargs;
    if (own_frame) {
      call.args = *frame->args;
      call.kwargs = *frame->kwargs;
    } else {
      rebuild_arguments(s, args, rebuilt_args, rebuilt_kwargs);
      call.args = rebuilt_args;
      call.kwargs = rebuilt_kwargs;
    }
    // The keys and arguments for default_torch_function's redispatch (the
    // stack is left alone until the handlers are done).
    Pending pending{op.entry(), ks, args, n};
    HandlerScope scope(&pending);
    Value r = run_protocol(op, call);
    if (r.is_not_implemented()) {  // a mode declined and no argument overrides: the plain op
      Stack plain(args, args + n);
      stack.resize(stack.size() - n);
      op.redispatch_boxed(next_keys(ks), plain);
      for (Value& v : plain) stack.push_back(std::move(v));
      return;
    }
    stack.resize(stack.size() - n);
    push_result(s, stack, std::move(r));
  }
};

// Re-types tensors in a result as `type` (keeping inputs returned as they are).
Value rewrap(Value v, const TypeInfo* type, const Stack& inputs) {
  if (v.is_tensor()) {
    Tensor t = v.to_tensor();
    if (!t.defined() || type == nullptr || t.impl()->type_id() == type->id()) return v;
    for (const Value& in : inputs)
      if (in.is_tensor() && in.to_tensor().is_same(t)) return v;
    t.impl()->set_type_id(type->id());
    return Value(t);
  }
  if (v.is_tensor_list()) {
    std::vector<Tensor> out;
    for (const Tensor& t : v.to_tensor_list()) out.push_back(rewrap(Value(t), type, inputs).to_tensor());
    return Value(std::move(out));
  }
  if (v.is_tuple() || v.is_list()) {
    std::vector<Value> items;
    for (const Value& item : v.items()) items.push_back(rewrap(item, type, inputs));
    return Value::list(std::move(items), v.is_tuple());
  }
  return v;
}

}  // namespace

BoxedCallFrame*& tls_boxed_call_frame() noexcept { return t_frame; }

// --- default subclass behaviour ----------------------------------------------------

Value default_torch_function(const TorchFunctionCall& call) {
  // Every type must be a superclass of one of them: a chain with a lowest member.
  const TypeInfo* lowest = nullptr;
  for (const TypeInfo* t : call.types) {
    if (!t->is_tensor_subclass()) return NotImplemented;
    if (lowest == nullptr || t->is_subclass_of(*lowest)) {
      lowest = t;
    } else if (!lowest->is_subclass_of(*t)) {
      return NotImplemented;
    }
  }
  Pending* pending = t_pending;
  if (pending != nullptr && pending->op_entry != call.op.entry()) pending = nullptr;  // another call's
  Stack stack;
  DispatchKeySet ks;
  if (pending != nullptr) {
    stack.assign(pending->args, pending->args + pending->n);
    ks = next_keys(pending->ks);
  }
  {
    DisableTorchFunction off;  // nothing the operator calls inside sees the protocol again
    if (pending != nullptr) {
      call.op.redispatch_boxed(ks, stack);
    } else {
      stack.clear();
      Value r = wick::call(call.op.name(), call.args.vec(), call.kwargs.vec());
      stack.push_back(std::move(r));
    }
  }
  const Stack inputs = pending != nullptr ? Stack(pending->args, pending->args + pending->n) : Stack{};
  if (stack.size() == 1) return rewrap(std::move(stack[0]), lowest, inputs);
  std::vector<Value> items;
  for (Value& v : stack) items.push_back(rewrap(std::move(v), lowest, inputs));
  return Value::list(std::move(items), /*tuple=*/true);
}

const Value* TorchFunctionCall::kwarg(std::string_view name) const noexcept {
  for (const auto& [k, v] : kwargs)
    if (k == name) return &v;
  return nullptr;
}

// --- HandledFunctions and the converting fallback ----------------------------------------

std::vector<Value> bind_params(std::string_view function, const std::vector<Param>& params, ArrayRef<Value> args,
                               KwargsRef kwargs) {
  const std::size_t n = params.size();
  if (args.size() > n) {  // CPython: "takes 2 ..." or, with defaults, "takes from 1 to 3 ..."
    const auto required = static_cast<std::size_t>(
        std::count_if(params.begin(), params.end(), [](const Param& p) { return !p.default_value; }));
    const std::string count = required == n ? std::to_string(n) : detail::str_cat("from ", required, " to ", n);
    throw TypeError(detail::str_cat(function, "() takes ", count, " positional argument", n == 1 ? "" : "s", " but ",
                                    args.size(), args.size() == 1 ? " was" : " were", " given"));
  }
  std::vector<std::optional<Value>> bound(n);
  for (std::size_t i = 0; i < args.size(); ++i) bound[i] = args[i];
  for (const auto& kv : kwargs) {
    const auto it = std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.name == kv.first; });
    WICK_CHECK(it != params.end(), TypeError, function, "() got an unexpected keyword argument '", kv.first, "'");
    auto& slot = bound[static_cast<std::size_t>(it - params.begin())];
    WICK_CHECK(!slot.has_value(), TypeError, function, "() got multiple values for argument '", kv.first, "'");
    slot = kv.second;
  }
  std::vector<std::string> missing;
  std::vector<Value> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (!bound[i] && params[i].default_value) bound[i] = *params[i].default_value;
    if (!bound[i]) missing.push_back("'" + params[i].name + "'");
    out.push_back(bound[i] ? std::move(*bound[i]) : Value());
  }
  if (!missing.empty()) {
    // CPython: "'a'", "'a' and 'b'", "'a', 'b', and 'c'".
    std::string names;
    for (std::size_t i = 0; i < missing.size(); ++i) {
      const bool last = i + 1 == missing.size();
      names += (i == 0 ? "" : !last ? ", " : missing.size() == 2 ? " and " : ", and ") + missing[i];
    }
    throw TypeError(detail::str_cat(function, "() missing ", missing.size(), " required positional argument",
                                    missing.size() == 1 ? "" : "s", ": ", names));
  }
  return out;
}

HandledFunctions& HandledFunctions::implements(std::string op, std::vector<Param> params, Impl fn) {
  WICK_CHECK(fn != nullptr, ValueError, "implements(", op, "): null implementation");
  std::string function = op.substr(op.rfind('.') + 1);
  entries_.push_back(Entry{std::move(op), std::move(function), std::move(params), std::move(fn)});
  return *this;
}

bool HandledFunctions::handles(std::string_view op) const {
  return std::any_of(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.op == op; });
}

Value HandledFunctions::handle(const TorchFunctionCall& call) const {
  for (const Entry& e : entries_)
    if (e.op == call.op_name()) return e.fn(bind_params(e.function, e.params, call.args, call.kwargs));
  return NotImplemented;
}

Value call_with_tensors(const TorchFunctionCall& call) {
  std::function<Value(const Value&)> convert = [&](const Value& v) -> Value {
    if (v.is_object()) {
      const TypeInfo* t = type_of(v);
      if (t == nullptr) return v;
      const ToTensor* to_tensor = t->inherited_to_tensor();
      WICK_CHECK(to_tensor != nullptr, TypeError, call.op_name(), ": cannot convert the '", t->name(),
                 "' argument to a tensor (neither the type nor a parent registered a to_tensor, or its plugin is "
                 "unloaded)");
      return Value((*to_tensor)(*t, v));
    }
    if (v.is_list() || v.is_tuple()) {
      std::vector<Value> items;
      items.reserve(v.items().size());
      for (const Value& item : v.items()) items.push_back(convert(item));
      return Value::list(std::move(items), v.is_tuple());
    }
    return v;
  };
  std::vector<Value> args;
  args.reserve(call.args.size());
  for (const Value& a : call.args) args.push_back(convert(a));
  Kwargs kwargs;
  for (const auto& [k, v] : call.kwargs) kwargs.emplace_back(k, convert(v));
  return wick::call(call.op.name(), std::move(args), kwargs);
}

// --- modes and the API -----------------------------------------------------------------

TorchFunctionMode::TorchFunctionMode(TorchFunctionHandler handler)
    : handler_(std::make_shared<TorchFunctionHandler>(std::move(handler))) {
  WICK_CHECK(*handler_ != nullptr, ValueError, "TorchFunctionMode: null handler");
  t_modes.push_back(handler_);
  t_mode_count = t_modes.size();
  auto& tls = tls_local_dispatch_key_set();
  tls.included = tls.included.add(DispatchKey::kOverride);
}

TorchFunctionMode::~TorchFunctionMode() {
  auto it = std::find(t_modes.begin(), t_modes.end(), handler_);
  if (it != t_modes.end()) t_modes.erase(it);
  t_mode_count = t_modes.size();
  if (t_modes.empty()) {
    auto& tls = tls_local_dispatch_key_set();
    tls.included = tls.included.remove(DispatchKey::kOverride);
  }
}

bool is_tensor_like(const Value& v) noexcept {
  if (v.is_tensor()) {
    const Tensor& t = v.to_tensor();
    return t.defined() && t.impl()->type_id() != 0;
  }
  if (v.is_object()) return type_of(v) != nullptr;  // a registered tensor-like (not any object)
  if (v.is_tensor_list()) {
    for (const Tensor& t : v.to_tensor_list())
      if (t.defined() && t.impl()->type_id() != 0) return true;
    return false;
  }
  if (v.is_list() || v.is_tuple()) {
    for (const Value& item : v.items())
      if (is_tensor_like(item)) return true;
  }
  return false;
}

Value handle_torch_function(const OperatorHandle& op, ArrayRef<Value> args, KwargsRef kwargs) {
  TypeList types;
  for (const Value& v : args) types.collect(v);
  for (const auto& [k, v] : kwargs) types.collect(v);
  TorchFunctionCall call{op, types.ref(), args, kwargs};
  HandlerScope scope(nullptr);
  Value r = run_protocol(op, call);
  if (r.is_not_implemented()) return wick::call(op.name(), args.vec(), kwargs.vec());
  return r;
}

void register_override_protocol(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kOverride);
  lib->fallback(std::make_shared<OverrideKernel>());
  out.push_back(std::move(lib));
}

}  // namespace wick
