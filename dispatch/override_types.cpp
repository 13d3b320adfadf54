// dispatch/override_types.cpp - the registry of tensor-like types and tensor subclasses.
/// \file
/// Types are never freed: a TypeInfo outlives its registration (objects and
/// tensors may still point at it), so lookups by id need no lock.
#include <array>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "dispatch/override_internal.h"
#include "wick/dispatcher.h"
#include "wick/override.h"

namespace wick {

class TypeRegistryAccess {
 public:
  static TypeInfo& make(std::deque<std::unique_ptr<TypeInfo>>& store) {
    store.push_back(std::unique_ptr<TypeInfo>(new TypeInfo()));
    return *store.back();
  }
  static void fill(TypeInfo& t, TypeSpec spec, const TypeInfo* parent, bool subclass, TensorTypeId id,
                   std::string owner) {
    t.name_ = std::move(spec.name);
    t.parent_ = parent;
    t.subclass_ = subclass;
    t.id_ = id;
    t.handler_ = std::move(spec.handler);
    t.constructor_ = std::move(spec.constructor);
    t.to_tensor_ = std::move(spec.to_tensor);
    t.owner_ = std::move(owner);
    t.registered_.store(true, std::memory_order_release);
  }
  static void retire(TypeInfo& t) { t.registered_.store(false, std::memory_order_release); }
  static void reopen(TypeInfo& t) { t.registered_.store(true, std::memory_order_release); }
};

namespace {

constexpr std::size_t kMaxSubclasses = kMaxTensorTypeIds;

struct TypeRegistry {
  std::shared_mutex mutex;
  std::deque<std::unique_ptr<TypeInfo>> store;                // never shrinks
  std::unordered_map<std::string, TypeInfo*> by_name;         // registered ones
  std::vector<std::string> order;                             // registration order
  std::array<std::atomic<const TypeInfo*>, kMaxSubclasses> by_id{};  // subclass ids (0: Tensor)
  std::unordered_map<std::string, TensorTypeId> retired_ids;         // unregistered subclasses' ids, by name
  TensorTypeId next_id = 1;
};

TypeRegistry& types() {
  static auto* r = new TypeRegistry();  // never destroyed: types outlive static destructors
  return *r;
}

}  // namespace

bool TypeInfo::is_subclass_of(const TypeInfo& other) const noexcept {
  for (const TypeInfo* t = this; t != nullptr; t = t->parent_)
    if (t == &other) return true;
  return false;
}

const TypeInfo* TypeInfo::inherited_handler() const noexcept {
  for (const TypeInfo* t = this; t != nullptr; t = t->parent_)
    if (t->handler_) return t;
  return nullptr;
}

const ToTensor* TypeInfo::inherited_to_tensor() const noexcept {
  for (const TypeInfo* t = this; t != nullptr; t = t->parent_)
    if (t->to_tensor_) return t->registered() ? &t->to_tensor_ : nullptr;
  return nullptr;
}

const TypeInfo* find_type(std::string_view name) {
  auto& r = types();
  std::shared_lock lock(r.mutex);
  auto it = r.by_name.find(std::string(name));
  return it == r.by_name.end() ? nullptr : it->second;
}

const TypeInfo* type_of(TensorTypeId id) noexcept {
  if (id == 0 || id >= kMaxSubclasses) return nullptr;
  return types().by_id[id].load(std::memory_order_acquire);
}

const TypeInfo* type_of(const Value& v) {
  if (v.is_tensor()) {
    const Tensor& t = v.to_tensor();
    return t.defined() ? type_of(t.impl()->type_id()) : nullptr;
  }
  if (v.is_object()) {
    const auto& o = v.to_object();
    return o ? o->override_type() : nullptr;
  }
  return nullptr;
}

std::vector<std::string> registered_types() {
  auto& r = types();
  std::shared_lock lock(r.mutex);
  return r.order;
}

const TypeInfo& register_type(TypeSpec spec, const std::string& owner, const std::string& where) {
  WICK_CHECK(!spec.name.empty(), ValueError, "register_type: empty type name (", owner, ", ", where, ")");
  WICK_CHECK(spec.name != "Tensor", ValueError, "register_type: 'Tensor' is built in (", owner, ", ", where, ")");
  auto& r = types();
  std::unique_lock lock(r.mutex);
  if (auto it = r.by_name.find(spec.name); it != r.by_name.end()) {
    throw PluginError(detail::str_cat("type '", spec.name, "' is already registered by ", it->second->owner(),
                                      "; second registration by ", owner, " (", where, ")"));
  }
  // Note [Type parents]
  // The parent decides the kind: "Tensor" or a tensor subclass makes a
  // tensor subclass, a tensor-like makes a tensor-like (Length under
  // Quantity), none makes a tensor-like at the top. Handlers are tried
  // subclasses before superclasses whatever the kind, and a type without a
  // handler, constructor or to_tensor of its own uses its nearest ancestor's.
  bool subclass = spec.parent == "Tensor";
  const TypeInfo* parent = nullptr;
  if (!spec.parent.empty() && !subclass) {
    auto it = r.by_name.find(spec.parent);
    WICK_CHECK(it != r.by_name.end(), ValueError, "register_type '", spec.name, "': parent '", spec.parent,
               "' is not a registered type (nor 'Tensor')");
    parent = it->second;
    subclass = parent->is_tensor_subclass();
  }
  const bool inherits_handler = parent != nullptr && parent->inherited_handler() != nullptr;
  WICK_CHECK(subclass || spec.handler || inherits_handler, ValueError, "register_type '", spec.name,
             "': a tensor-like type needs a handler (its __torch_function__), its own or a parent's");
  TensorTypeId id = 0;
  if (subclass) {
    // Note [Subclass ids of reloaded plugins]
    // A subclass id indexes fixed tables (by_id here, the live-instance
    // counts in core/tensor.cpp), so ids are finite. A plugin loaded and
    // unloaded in a loop registers the same names again and again; the id of
    // a retired subclass of the same name is taken again once no tensor of
    // it is left (unloading refuses while one is, and a retired type makes
    // no new ones), so reloading never runs out of ids. Only distinct names
    // count against kMaxTensorTypeIds.
    if (auto it = r.retired_ids.find(spec.name); it != r.retired_ids.end()) {
      const TypeInfo* old = r.by_id[it->second].load(std::memory_order_acquire);
      if (old != nullptr && !old->registered() && old->live_instances() == 0) {
        id = it->second;
        r.retired_ids.erase(it);
      }
    }
    if (id == 0) {
      WICK_CHECK(r.next_id < kMaxSubclasses, RuntimeError, "register_type '", spec.name,
                 "': too many tensor subclasses (", kMaxSubclasses - 1, " distinct names)");
      id = r.next_id++;
    }
  }
  TypeInfo& t = TypeRegistryAccess::make(r.store);
  std::string name = spec.name;
  TypeRegistryAccess::fill(t, std::move(spec), parent, subclass, id, owner);
  r.by_name[name] = &t;
  r.order.push_back(name);
  if (subclass) r.by_id[id].store(&t, std::memory_order_release);
  return t;
}

void unregister_type(const TypeInfo& type) noexcept {
  auto& r = types();
  std::unique_lock lock(r.mutex);
  auto it = r.by_name.find(type.name());
  if (it == r.by_name.end() || it->second != &type) return;
  r.by_name.erase(it);
  std::erase(r.order, type.name());
  TypeRegistryAccess::retire(const_cast<TypeInfo&>(type));
  if (type.is_tensor_subclass()) r.retired_ids[type.name()] = type.id();
  // by_id keeps the pointer: tensors of this type may still exist and print.
}

void set_type_open(const TypeInfo& type, bool open) noexcept {
  auto& t = const_cast<TypeInfo&>(type);
  if (open) {
    TypeRegistryAccess::reopen(t);
  } else {
    TypeRegistryAccess::retire(t);
  }
}

// --- TensorLike -------------------------------------------------------------------

// Note [Live instances]
// A type's code lives in its plugin: the vtable of a TensorLike, the handler
// a subclass tensor dispatches to. So each type counts its instances alive
// (TensorLike objects here, subclass TensorImpls in core/tensor.cpp), and
// unload_plugin refuses while any of the plugin's types has one.

TensorLike::TensorLike(std::string_view type_name) : type_(find_type(type_name)) {
  WICK_CHECK(type_ != nullptr && !type_->is_tensor_subclass(), RuntimeError, "no tensor-like type '", type_name,
             "' is registered");
  type_->live_objects_.fetch_add(1, std::memory_order_acq_rel);
}

TensorLike::TensorLike(const TypeInfo& type) : type_(&type) {
  WICK_CHECK(!type.is_tensor_subclass(), RuntimeError, "'", type.name(),
             "' is a tensor subclass, not a tensor-like type (make instances with as_subclass)");
  type_->live_objects_.fetch_add(1, std::memory_order_acq_rel);
}

TensorLike::TensorLike(const TensorLike& other) : Object(other), type_(other.type_) {
  type_->live_objects_.fetch_add(1, std::memory_order_acq_rel);
}

TensorLike::~TensorLike() { type_->live_objects_.fetch_sub(1, std::memory_order_acq_rel); }

std::int64_t TypeInfo::live_instances() const noexcept {
  return live_objects_.load(std::memory_order_acquire) + live_subclass_tensors(id_);
}

std::string TensorLike::type_name() const { return type_->name(); }

namespace {

// The operators these helpers need, called through the dispatcher: the
// mechanism never links against the typed API of the layer above it.
using Ints = IntArrayRef;
using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;

Tensor alias_of(const Tensor& t) {
  static const auto op = find_op("torch.Tensor.view").typed<Tensor(const Tensor&, Ints)>();
  return op.call(t, t.sizes());
}
Tensor empty_float(Ints sizes) {
  static const auto op = find_op("torch.empty").typed<Tensor(Ints, OptDtype, OptDevice)>();
  return op.call(sizes, ScalarType::kFloat32, std::nullopt);
}
Tensor float_tensor(const Value& data) {
  static const auto op = find_op("torch.tensor").typed<Tensor(const Value&, OptDtype, OptDevice)>();
  return op.call(data, ScalarType::kFloat32, std::nullopt);
}

}  // namespace

Tensor as_subclass(const Tensor& t, const TypeInfo* type) {
  WICK_CHECK(t.defined(), RuntimeError, "as_subclass: undefined tensor");
  WICK_CHECK(type == nullptr || type->is_tensor_subclass(), TypeError, "as_subclass: '", type->name(),
             "' is not a tensor subclass");
  Tensor out;
  {
    DisableTorchFunction off;  // an alias that stays attached to the autograd graph
    out = alias_of(t);
  }
  out.impl()->set_type_id(type == nullptr ? 0 : type->id());
  return out;
}

namespace {

// torch.Tensor(...), the legacy constructor: data, sizes, or a tensor.
Tensor tensor_constructor(std::string_view type_name, const std::vector<Value>& args, const Kwargs& kwargs) {
  WICK_CHECK(kwargs.empty(), TypeError, type_name, "() got an unexpected keyword argument '", kwargs.front().first,
             "'");
  if (args.empty()) return empty_float({0});
  bool all_ints = true;
  for (const Value& a : args) all_ints = all_ints && a.is_int();
  if (all_ints) {
    std::vector<std::int64_t> sizes;
    for (const Value& a : args) sizes.push_back(a.to_int());
    for (std::size_t i = 0; i < sizes.size(); ++i)
      WICK_CHECK(sizes[i] >= 0, RuntimeError, type_name, "(): negative dimension ", sizes[i], " (argument ", i + 1,
                 ")");
    return empty_float(sizes);
  }
  WICK_CHECK(args.size() == 1, TypeError, type_name, "() takes data, sizes or a tensor; got ", args.size(),
             " arguments that are not all ints");
  const Value& data = args[0];
  if (data.is_tensor()) {  // an alias, whatever its dtype (as torch.Tensor(t) in PyTorch 1.13)
    WICK_CHECK(data.to_tensor().defined(), TypeError, type_name, "(): argument 'data' is an undefined tensor");
    return as_subclass(data.to_tensor(), nullptr);
  }
  WICK_CHECK(data.is_list() || data.is_tuple() || data.is_int_list() || data.is_double_list(), TypeError, type_name,
             "(): argument 'data' must be a sequence (got ", data.type_name(), ")");
  return float_tensor(data);
}

}  // namespace

Value new_instance(const TypeInfo* type, const std::vector<Value>& args, const Kwargs& kwargs) {
  for (const TypeInfo* t = type; t != nullptr; t = t->parent()) {
    // A type whose plugin is gone calls no code of that plugin.
    WICK_CHECK(t->registered(), TypeError, "cannot create '", type->name(), "' instances: the plugin of '", t->name(),
               "' is unloaded");
    if (!t->constructor()) continue;
    Value v = t->constructor()(*type, args, kwargs);
    if (v.is_tensor() && v.to_tensor().defined() && type->is_tensor_subclass() &&
        v.to_tensor().impl()->type_id() != type->id())
      return Value(as_subclass(v.to_tensor(), type));  // an ancestor's constructor made its own type
    return v;
  }
  WICK_CHECK(type == nullptr || type->is_tensor_subclass(), TypeError, "cannot create '", type->name(),
             "' instances: the type registered no constructor");
  Tensor t = tensor_constructor(type == nullptr ? "Tensor" : type->name(), args, kwargs);
  return Value(type == nullptr ? t : as_subclass(t, type));
}

}  // namespace wick
