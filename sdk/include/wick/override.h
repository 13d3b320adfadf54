// wick/override.h - the __torch_function__ protocol: tensor-like types, tensor subclasses, handlers, modes.
/// \file
/// A type that takes part in the protocol is registered by name: a
/// *tensor-like* (an `Object` that is not a tensor, such as the note's
/// ScalarTensor) or a *tensor subclass* (a `Tensor` whose type is a
/// registered subclass of `Tensor`, such as SubTensor). Arguments of such
/// types add the `Override` dispatch key to a call; the `Override` kernel (one
/// boxed fallback, for every operator) runs the protocol:
///
///  1. the innermost active `TorchFunctionMode` sees the call first;
///  2. the distinct overriding types among the arguments (keyword arguments
///     and tensor lists included) are ordered subclasses before
///     superclasses (tensor-likes with tensor-like parents too), otherwise
///     left to right, and their handlers (their own or the nearest
///     ancestor's) called in that order; the first result that is not
///     `NotImplemented` wins;
///  3. if all decline: TypeError "no implementation found for 'torch.mul' on
///     types that implement __torch_function__: [ScalarTensor]".
///
/// A subclass without a handler of its own gets the default one: run the
/// operator below `Override` and return tensors as the lowest subclass among
/// the arguments (NotImplemented when the subclasses are unrelated).
///
///   auto& lib = registrar.library("scalar_tensor");
///   auto type = lib.register_type({.name = "ScalarTensor", .handler = handle});
///   Value handle(const TorchFunctionCall& call) {
///     if (call.op_name() == "torch.mean") return ...;
///     return NotImplemented;
///   }
///
/// With no tensor-like argument and no mode a call never reaches this code:
/// the `Override` bit is simply absent from its keys.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wick/dispatcher.h"
#include "wick/export.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick {

class TypeInfo;
struct TorchFunctionCall;

/// A handler (a type's `__torch_function__`, or a mode's): returns the
/// result, or `NotImplemented` to decline.
using TorchFunctionHandler = std::function<Value(const TorchFunctionCall&)>;

/// Builds an instance of `type` (the type called, which may be a subclass of
/// the one that registered the constructor) from Python-style arguments:
/// `ScalarTensor(5, 2)`.
using TypeConstructor =
    std::function<Value(const TypeInfo& type, const std::vector<Value>& args, const Kwargs& kwargs)>;

/// An instance of the tensor-like `type` as a plain tensor (the note's
/// `ScalarTensor.tensor()`).
using ToTensor = std::function<Tensor(const TypeInfo& type, const Value& instance)>;

/// What registering a type needs.
struct TypeSpec {
  std::string name{};  ///< "ScalarTensor", "SubTensor"
  /// The parent type (Note [Type parents], dispatch/override_types.cpp):
  /// "Tensor" or a registered tensor subclass for a tensor subclass; a
  /// registered tensor-like for a tensor-like below it ("Quantity" for
  /// "Length"); empty for a tensor-like at the top. Handlers are tried
  /// subclasses before superclasses, for tensor-likes as for subclasses.
  std::string parent{};
  /// The type's __torch_function__. Optional when an ancestor has one (it
  /// is inherited, as a Python method is) and for tensor subclasses (the
  /// default behaviour); required for a tensor-like at the top.
  TorchFunctionHandler handler{};
  /// Optional: what calling the type by name does (`new_instance`, `wick
  /// eval`). A subclass without one inherits its parent's, and at the top
  /// `torch.Tensor(...)`'s.
  TypeConstructor constructor{};
  /// Optional, for tensor-likes: converts an instance to a tensor; used by
  /// the converting fallback (`call_with_tensors`). Inherited like `handler`.
  ToTensor to_tensor{};
};

/// A registered type. Lives until the process ends (a type that is
/// unregistered stays valid but is marked so); compare by address.
class WICK_API TypeInfo final {
 public:
  /// The type's name ("ScalarTensor").
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// The parent type; null for a direct subclass of Tensor and for a
  /// tensor-like at the top.
  [[nodiscard]] const TypeInfo* parent() const noexcept { return parent_; }
  /// True for a tensor subclass, false for a tensor-like.
  [[nodiscard]] bool is_tensor_subclass() const noexcept { return subclass_; }
  /// The id a TensorImpl of this subclass carries (TensorImpl::type_id()).
  [[nodiscard]] TensorTypeId id() const noexcept { return id_; }
  /// True for this type and its descendants.
  [[nodiscard]] bool is_subclass_of(const TypeInfo& other) const noexcept;
  /// The type's own handler (empty when it registered none).
  [[nodiscard]] const TorchFunctionHandler& handler() const noexcept { return handler_; }
  /// The nearest of this type and its ancestors with a handler (the one the
  /// protocol calls for it); nullptr when none has one.
  [[nodiscard]] const TypeInfo* inherited_handler() const noexcept;
  /// The `to_tensor` of the nearest of this type and its ancestors with one;
  /// nullptr when none has one, or when that type's plugin is unloaded.
  [[nodiscard]] const ToTensor* inherited_to_tensor() const noexcept;
  /// The type's own constructor (empty when it registered none).
  [[nodiscard]] const TypeConstructor& constructor() const noexcept { return constructor_; }
  /// The type's own `to_tensor` (empty when it registered none).
  [[nodiscard]] const ToTensor& to_tensor() const noexcept { return to_tensor_; }
  /// The owner of the Library that registered the type (a plugin's name), for messages.
  [[nodiscard]] const std::string& owner() const noexcept { return owner_; }
  /// False once the registering Library (or plugin) is gone.
  [[nodiscard]] bool registered() const noexcept { return registered_.load(std::memory_order_acquire); }
  /// Instances alive now: TensorLike objects of this type, or TensorImpls of
  /// this subclass (not counting descendants). A plugin cannot be unloaded
  /// while its types or their descendants have any.
  [[nodiscard]] std::int64_t live_instances() const noexcept;

 private:
  friend class TypeRegistryAccess;
  friend class TensorLike;
  TypeInfo() = default;
  std::string name_;
  const TypeInfo* parent_ = nullptr;
  bool subclass_ = false;
  TensorTypeId id_ = 0;
  TorchFunctionHandler handler_;
  TypeConstructor constructor_;
  ToTensor to_tensor_;
  std::string owner_;
  std::atomic<bool> registered_{false};
  mutable std::atomic<std::int64_t> live_objects_{0};  // TensorLike instances
};

/// The registered type named `name` (nullptr when none).
[[nodiscard]] WICK_API const TypeInfo* find_type(std::string_view name);
/// The subclass with this id (nullptr for 0, plain Tensor).
[[nodiscard]] WICK_API const TypeInfo* type_of(TensorTypeId id) noexcept;
/// The type of a value: its subclass or tensor-like type; nullptr for a
/// plain tensor and for everything else.
[[nodiscard]] WICK_API const TypeInfo* type_of(const Value& v);
/// Names of all registered types, in registration order.
[[nodiscard]] WICK_API std::vector<std::string> registered_types();

/// A view of `t` (same storage, no copy) whose type is `type` (a subclass;
/// nullptr for plain Tensor): `torch.Tensor.as_subclass`.
[[nodiscard]] WICK_API Tensor as_subclass(const Tensor& t, const TypeInfo* type);

/// Calls the class `type` as Python would (`SubTensor([0])`, `ScalarTensor(5,
/// 2)`; nullptr is `torch.Tensor`): the type's constructor, else its nearest
/// ancestor's (the result re-typed as `type`), else `torch.Tensor`'s, which
/// takes data (`[[1, 2]]`: a float32 tensor), sizes (`2, 3`: uninitialised
/// float32) or a tensor (an alias). TypeError for arguments the
/// constructor refuses and for a tensor-like without a constructor.
[[nodiscard]] WICK_API Value new_instance(const TypeInfo* type, const std::vector<Value>& args,
                                          const Kwargs& kwargs = {});

/// Base of tensor-like objects. The type is fixed at construction.
/// (Declared in wick/value.h as `Object`; this is its typed form.)
class WICK_API TensorLike : public Object {
 public:
  /// RuntimeError when no tensor-like type `type_name` is registered.
  explicit TensorLike(std::string_view type_name);
  /// The same with the type at hand (no lookup); RuntimeError for a subclass.
  explicit TensorLike(const TypeInfo& type);
  ~TensorLike() override;
  /// Another instance of the same type (counted as a live instance).
  TensorLike(const TensorLike& other);
  TensorLike& operator=(const TensorLike&) = delete;
  [[nodiscard]] std::string type_name() const override;
  [[nodiscard]] const TypeInfo* override_type() const noexcept override { return type_; }
  /// The object's registered type.
  [[nodiscard]] const TypeInfo& type() const noexcept { return *type_; }

 private:
  const TypeInfo* type_;
};

/// One call being handled: the operator, the overriding types (in the
/// order handlers are tried), and the arguments as the caller gave them.
/// The fields are views: valid while the handler runs (copy what you keep).
struct WICK_API TorchFunctionCall {
  OperatorHandle op; ///< the operator called
  ArrayRef<const TypeInfo*> types; ///< the overriding types, in the order handlers are tried
  ArrayRef<Value> args; ///< the positional arguments as given
  KwargsRef kwargs; ///< the keyword arguments as given

  /// "torch.add", "torch.Tensor.__add__" (without the overload).
  [[nodiscard]] const std::string& op_name() const noexcept { return op.qualified_name(); }
  /// The keyword argument `name`, or nullptr.
  [[nodiscard]] const Value* kwarg(std::string_view name) const noexcept;
};

/// The default behaviour of a tensor subclass (PyTorch's
/// `Tensor.__torch_function__`): NotImplemented unless every type in
/// `call.types` is a superclass of one of them (a chain), else runs the
/// operator below `Override` (no handler sees it again, so a handler that
/// defers here cannot recurse) and returns its tensors as the lowest
/// subclass. A subclass handler calls this as its `super()`.
WICK_API Value default_torch_function(const TorchFunctionCall& call);

/// A parameter of a function written in C++ with Python's calling rules:
/// `"input"` (required) or `{"metadata", Value()}` (default None).
struct WICK_API Param {
  /// A required parameter named `n`.
  Param(const char* n) : name(n) {}                     // NOLINT(implicit)
  /// A required parameter named `n`.
  Param(std::string n) : name(std::move(n)) {}          // NOLINT(implicit)
  /// A parameter named `n` with default `d`.
  Param(std::string n, Value d) : name(std::move(n)), default_value(std::move(d)) {}
  std::string name; ///< the parameter's name
  std::optional<Value> default_value; ///< its default; std::nullopt for a required parameter
};

/// Binds `args` and `kwargs` to `params` as Python binds a call of
/// `function(params...)`: the values in parameter order, defaults filled in.
/// TypeError in Python's words: "add() got an unexpected keyword argument
/// 'alpha'", "add() takes 2 positional arguments but 3 were given", "add()
/// got multiple values for argument 'other'", "add() missing 1 required
/// positional argument: 'other'".
[[nodiscard]] WICK_API std::vector<Value> bind_params(std::string_view function, const std::vector<Param>& params,
                                                      ArrayRef<Value> args, KwargsRef kwargs);

/// A per-type table of operator implementations (the note's HANDLED_FUNCTIONS
/// and `@implements`).
class WICK_API HandledFunctions final {
 public:
  /// An implementation gets its arguments bound to its parameters, in order.
  using Impl = std::function<Value(const std::vector<Value>& bound)>;
  /// Registers `fn` for operator `op` ("torch.add"), declared with `params`.
  /// A call is bound with `bind_params` under the operator's short name, so
  /// an argument the implementation does not declare is a TypeError as
  /// Python gives it: "add() got an unexpected keyword argument 'alpha'".
  HandledFunctions& implements(std::string op, std::vector<Param> params, Impl fn);
  /// The handler: runs the implementation of `call`'s operator, or returns
  /// NotImplemented when there is none.
  [[nodiscard]] Value handle(const TorchFunctionCall& call) const;
  /// True when an implementation is registered for operator `op` ("torch.add").
  [[nodiscard]] bool handles(std::string_view op) const;

 private:
  struct Entry {
    std::string op;
    std::string function;  ///< "add", for messages
    std::vector<Param> params;
    Impl fn;
  };
  std::vector<Entry> entries_;
};

/// The note's converting fallback: replaces every tensor-like argument
/// (lists and keyword arguments included) by its type's `to_tensor` and
/// calls the operator again. TypeError naming the operator and the type when
/// a tensor-like's type has no `to_tensor`.
WICK_API Value call_with_tensors(const TorchFunctionCall& call);

// --- modes and guards ---------------------------------------------------------

/// A TorchFunctionMode: while pushed (RAII, per thread) its handler sees
/// every operator call first, before argument handlers; returning
/// NotImplemented passes the call on. The handler runs with the mode popped,
/// so the ops it calls are not seen by it again.
class WICK_API TorchFunctionMode final {
 public:
  /// Pushes a mode with `handler` for this thread until destruction, which pops it.
  explicit TorchFunctionMode(TorchFunctionHandler handler);
  ~TorchFunctionMode();
  TorchFunctionMode(const TorchFunctionMode&) = delete;
  TorchFunctionMode& operator=(const TorchFunctionMode&) = delete;

 private:
  std::shared_ptr<TorchFunctionHandler> handler_;
};

/// Turns the protocol off for a scope (torch._C.DisableTorchFunction):
/// tensor-likes reach kernels unconverted, subclasses behave as Tensor.
class WICK_API DisableTorchFunction final {
 public:
  DisableTorchFunction() noexcept : guard_(DispatchKey::kOverride) {}

 private:
  ExcludeDispatchKeyGuard guard_;
};

// --- the overrides API (torch.overrides) ------------------------------------------

/// True for tensor-likes and tensor subclasses (torch.overrides.is_tensor_like),
/// and for lists holding one.
[[nodiscard]] WICK_API bool is_tensor_like(const Value& v) noexcept;
/// True when the protocol would run for these arguments: a value among
/// `args` (lists included) has an overriding type, or a mode is active; and
/// the protocol is not disabled (DisableTorchFunction). Inline: plain
/// tensors and numbers cost a load and a test each.
[[nodiscard]] inline bool has_torch_function(ArrayRef<Value> args) noexcept {
  const LocalDispatchKeySet& tls = tls_local_dispatch_key_set();
  if (tls.excluded.has(DispatchKey::kOverride)) return false;
  if (tls.included.has(DispatchKey::kOverride)) return true;  // a TorchFunctionMode is active
  for (const Value& v : args) {
    if (const Tensor* t = v.tensor_if()) {
      if (t->key_set().has(DispatchKey::kOverride)) return true;  // a subclass
      continue;
    }
    // Only objects and lists can hold a tensor-like; one test for the rest.
    constexpr std::uint32_t kMayHold = 1u << static_cast<int>(Value::Kind::kObject) |
                                       1u << static_cast<int>(Value::Kind::kTensorList) |
                                       1u << static_cast<int>(Value::Kind::kList) |
                                       1u << static_cast<int>(Value::Kind::kTuple);
    if (((kMayHold >> static_cast<int>(v.kind())) & 1u) != 0 && is_tensor_like(v)) return true;
  }
  return false;
}
/// Runs the protocol for a plugin author's own entry point `op` (a catalog
/// operator): what the dispatcher does at the Override key.
WICK_API Value handle_torch_function(const OperatorHandle& op, ArrayRef<Value> args, KwargsRef kwargs = {});

}  // namespace wick
