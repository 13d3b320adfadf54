// dispatch/dispatcher.cpp - the registry, dispatch tables and both call paths.
/// \file
#include "wick/dispatcher.h"

#include <cstdlib>
#include <mutex>

#include "dispatch/registry.h"
#include "wick/log.h"

namespace wick {

// --- OperatorEntry -----------------------------------------------------------

OperatorEntry::OperatorEntry(std::string full_name_in, std::string qualified_in, std::string ns_in,
                             std::string base_in, std::string overload_in)
    : full_name(std::move(full_name_in)),
      qualified(std::move(qualified_in)),
      ns(std::move(ns_in)),
      base(std::move(base_in)),
      overload(std::move(overload_in)) {
  tables_.push_back(std::make_unique<DispatchTable>());
  table.store(tables_.back().get(), std::memory_order_release);
}

OperatorEntry::Resolved OperatorEntry::resolve(int k) const {
  constexpr int kComposite = static_cast<int>(DispatchKey::kCompositeImplicit);
  if (k == kComposite || !defined()) return {};
  if (!kernels[k].empty()) return {&kernels[k].back(), "kernel"};
  if (alias_target != nullptr && !alias_target->kernels[k].empty())
    return {&alias_target->kernels[k].back(), "alias"};
  // Composite kernels serve every backend, and Autograd when the op has no
  // formula of its own: the ops they call record the graph.
  if (is_backend_key(static_cast<DispatchKey>(k)) || k == static_cast<int>(DispatchKey::kAutograd)) {
    if (!kernels[kComposite].empty()) return {&kernels[kComposite].back(), "composite"};
    if (alias_target != nullptr && !alias_target->kernels[kComposite].empty())
      return {&alias_target->kernels[kComposite].back(), "composite"};
  }
  const auto& fb = Registry::get().fallbacks[k];
  if (!fb.empty()) return {&fb.back(), "fallback"};
  return {};
}

void OperatorEntry::rebuild() {
  auto t = std::make_unique<DispatchTable>();
  for (int k = 0; k < kNumDispatchKeys; ++k) {
    Resolved r = resolve(k);
    if (r.record == nullptr) continue;
    t->kernels[k] = r.record->kernel;
    if (!r.record->kernel.fallthrough) t->mask |= std::uint64_t{1} << k;
  }
  const DispatchTable* fresh = t.get();
  tables_.push_back(std::move(t));  // retire first: publishing must not fail
  table.store(fresh, std::memory_order_release);
}

// --- Registry ------------------------------------------------------------------

Registry::Registry() = default;

Registry& Registry::get() {
  // Never destroyed: plugins and builtins may unregister during exit.
  static Registry* r = new Registry();
  return *r;
}

OperatorEntry* Registry::find(std::string_view full_name) const {
  auto it = ops.find(std::string(full_name));
  return it == ops.end() ? nullptr : it->second.get();
}

OperatorEntry& Registry::find_or_create(const std::string& ns, const std::string& base,
                                        const std::string& overload) {
  std::string qualified = ns + "." + base;
  std::string full = overload.empty() ? qualified : qualified + "." + overload;
  auto& slot = ops[full];
  if (!slot) slot = std::make_unique<OperatorEntry>(full, qualified, ns, base, overload);
  return *slot;
}

void Registry::rebuild(OperatorEntry& e) {
  e.rebuild();
  for (OperatorEntry* a : e.aliases) a->rebuild();
}

void Registry::rebuild_all() {
  for (auto& [name, e] : ops) e->rebuild();
}

void Registry::recompute_signature(OperatorEntry& root) {
  if (root.signature_pinned) return;
  root.cpp_signature.clear();
  auto scan = [&](const OperatorEntry& e) {
    for (const auto& stack : e.kernels)
      for (const KernelRecord& r : stack)
        if (r.kernel.signature != nullptr && root.cpp_signature.empty()) root.cpp_signature = r.kernel.signature->name();
  };
  scan(root);
  for (const OperatorEntry* a : root.aliases) scan(*a);
}

// --- OperatorHandle -------------------------------------------------------------

const std::string& OperatorHandle::name() const noexcept { return entry_->full_name; }
const std::string& OperatorHandle::qualified_name() const noexcept { return entry_->qualified; }

const FunctionSchema& OperatorHandle::schema() const { return *schema_ptr(); }

std::shared_ptr<const FunctionSchema> OperatorHandle::schema_ptr() const {
  std::shared_lock lock(Registry::get().mutex);
  WICK_CHECK(entry_->schema, RuntimeError, "operator '", entry_->full_name, "' is not defined");
  return entry_->schema;
}

OperatorHandle::OperatorHandle(OperatorEntry* e) noexcept : entry_(e), slot_(e) {}

void OperatorHandle::check_signature(const std::type_info& sig) const {
  auto& reg = Registry::get();
  std::unique_lock lock(reg.mutex);
  OperatorEntry* root = entry_->alias_target != nullptr ? entry_->alias_target : entry_;
  if (root->cpp_signature.empty()) root->cpp_signature = sig.name();
  WICK_CHECK(root->cpp_signature == sig.name(), TypeError, entry_->full_name, ": typed call with C++ signature ",
             demangle(sig), " but its kernels use ", demangle_name(root->cpp_signature));
  root->signature_pinned = true;  // typed handles exist from now on
}

namespace {

DispatchKeySet value_keys(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kTensor: return v.to_tensor().key_set();
    case Value::Kind::kTensorList: return detail::arg_keys(v.to_tensor_list());
    case Value::Kind::kDevice: return DispatchKeySet(backend_key(v.to_device().type()));
    case Value::Kind::kObject: return DispatchKeySet(DispatchKey::kOverride);
    case Value::Kind::kList:
    case Value::Kind::kTuple: {
      DispatchKeySet ks;
      for (const Value& item : v.items()) ks = ks | value_keys(item);
      return ks;
    }
    default: return {};
  }
}

}  // namespace

void OperatorHandle::call_boxed(Stack& stack) const {
  DispatchKeySet ks;
  for (const Value& v : stack) ks = ks | (v.is_tensor() ? v.to_tensor().key_set() : value_keys(v));
  const LocalDispatchKeySet& tls = tls_local_dispatch_key_set();
  redispatch_boxed(effective_keys(ks, tls.included, tls.excluded), stack);
}

void OperatorHandle::redispatch_boxed(DispatchKeySet ks, Stack& stack) const {
  const DispatchTable& t = table();
  const std::uint64_t bits = ks.bits() & t.mask;
  if (bits == 0) report_missing_kernel(ks);
  const int k = 63 - std::countl_zero(bits);
  const KernelFunction& kf = t.kernels[k];
  kf.boxed(kf, *this, DispatchKeySet::from_bits(ks.bits() & (~std::uint64_t{0} >> (63 - k))), stack);
}

void OperatorHandle::report_missing_kernel(DispatchKeySet ks) const {
  std::string keys;
  for (int k = kNumDispatchKeys - 1; k >= 0; --k) {
    if (!ks.has(static_cast<DispatchKey>(k))) continue;
    if (!keys.empty()) keys += ", ";
    keys += dispatch_key_name(static_cast<DispatchKey>(k));
  }
  const DispatchKeySet backends = ks & DispatchKeySet::all_backends();
  const DispatchKey wanted = !backends.empty() ? backends.highest() : ks.empty() ? DispatchKey::kCPU : ks.highest();
  bool defined = false;
  {
    std::shared_lock lock(Registry::get().mutex);
    defined = entry_->defined();
  }
  if (!defined) {
    throw NotImplementedError(detail::str_cat("operator '", entry_->full_name, "' is not defined"));
  }
  // What the start-up layer knows (the plugin directories searched, plugins
  // refused); wick::init() installs it (Note [Start-up]).
  const Registry& reg = Registry::get();
  std::string hint;
  if (wanted == DispatchKey::kMeta) {
    // The Meta backend is not a plugin: its kernels come with meta functions.
    hint = " The operator has no meta function: give its definition a `meta:` line (Note [Meta functions] in "
           "wick/meta.h), or register a kernel at DispatchKey::kMeta.";
  } else if (const auto fn = reg.missing_kernel_hint.load(std::memory_order_acquire); fn != nullptr) {
    hint = fn(wanted);
  } else {
    hint = " wick::init() has not run: it loads the backends.";
  }
  throw NotImplementedError(detail::str_cat(entry_->full_name, ": no kernel for dispatch key ",
                                            dispatch_key_name(wanted), " (call keys: [", keys, "]).", hint));
}

std::optional<OperatorHandle> try_find_op(std::string_view name) {
  auto& reg = Registry::get();
  std::shared_lock lock(reg.mutex);
  OperatorEntry* e = reg.find(name);
  if (e == nullptr || !e->defined()) return std::nullopt;
  return OperatorHandle(e);
}

OperatorHandle find_op(std::string_view name) {
  if (auto op = try_find_op(name)) return *op;
  if (!Registry::get().started.load(std::memory_order_acquire)) {
    throw ValueError(detail::str_cat("unknown operator '", name,
                                     "': wick::init() has not run (it defines the torch operators and loads the "
                                     "backends and plugins)"));
  }
  throw ValueError(detail::str_cat("unknown operator '", name, "'"));
}

// --- settled optionals (Note [Settled optionals]) ---------------------------------------

namespace detail {
namespace {
template <typename T>
std::optional<T> settle(std::optional<T> v, T filler) noexcept {
  if (v.has_value()) return v;
  std::optional<T> empty(filler);  // every byte written...
  empty.reset();                   // ...then disengaged: the payload keeps its defined bytes
  return empty;
}
}  // namespace
std::optional<ScalarType> settled(std::optional<ScalarType> v) noexcept { return settle(v, ScalarType::kUndefined); }
std::optional<Device> settled(std::optional<Device> v) noexcept { return settle(v, Device()); }
std::optional<bool> settled(std::optional<bool> v) noexcept { return settle(v, false); }
}  // namespace detail

// --- kernels ---------------------------------------------------------------------

namespace {
void call_boxed_functor(const KernelFunction& self, const OperatorHandle& op, DispatchKeySet ks, Stack& stack) {
  (*static_cast<BoxedFunctor*>(self.functor))(op, ks, stack);
}
void call_fallthrough(const KernelFunction&, const OperatorHandle& op, DispatchKeySet ks, Stack& stack) {
  op.redispatch_boxed(next_keys(ks), stack);
}
}  // namespace

KernelFunction make_boxed_kernel(BoxedFunctor* functor) {
  KernelFunction k;
  k.functor = functor;
  k.boxed = &call_boxed_functor;
  return k;
}

KernelFunction make_fallthrough_kernel() {
  KernelFunction k;
  k.boxed = &call_fallthrough;
  k.fallthrough = true;
  return k;
}

}  // namespace wick
