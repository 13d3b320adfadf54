// dispatch/library.cpp - registration blocks, the plugin registrar and the builtins.
/// \file
#include "wick/library.h"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "core/device_runtime.h"
#include "dispatch/override_internal.h"
#include "dispatch/registry.h"
#include "wick/definitions.h"
#include "wick/log.h"
#include "wick/plugin.h"
#include "wick/structured.h"

namespace wick {

struct Library::Record {
  enum class Kind { kDef, kAlias, kKernel, kFallback, kType } kind;
  OperatorEntry* entry = nullptr;
  int key = 0;
  std::uint64_t id = 0;
  const TypeInfo* type = nullptr;
};

namespace {

std::string short_file(const char* file) { return std::filesystem::path(file).filename().string(); }

// Splits `name` ("add", "add.out", "torch.Tensor.add" when `ns` is a prefix)
// into base and overload relative to `ns`.
std::pair<std::string, std::string> split_name(const std::string& ns, std::string_view name) {
  if (name.size() > ns.size() + 1 && name.starts_with(ns) && name[ns.size()] == '.') name.remove_prefix(ns.size() + 1);
  auto dot = name.find('.');
  if (dot == std::string_view::npos) return {std::string(name), ""};
  return {std::string(name.substr(0, dot)), std::string(name.substr(dot + 1))};
}

// Marks the Tensor arguments named in `numbers` (comma-separated) as taking
// a number, and `*` as taking numbers for all of them in one call (Note
// [Numbers for tensor arguments]); ValueError for a name that is not a
// Tensor argument of the schema.
void mark_number_arguments(FunctionSchema& schema, std::string_view numbers, const std::string& ns) {
  while (!numbers.empty()) {
    const std::size_t comma = numbers.find(',');
    std::string_view name = numbers.substr(0, comma);
    numbers.remove_prefix(comma == std::string_view::npos ? numbers.size() : comma + 1);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) continue;
    if (name == "*") {
      schema.numbers_together = true;
      continue;
    }
    auto it = std::find_if(schema.arguments.begin(), schema.arguments.end(),
                           [&](const SchemaArgument& a) { return a.name == name; });
    WICK_CHECK(it != schema.arguments.end() && it->type.kind == TypeKind::kTensor && !it->type.is_list, ValueError, ns,
               ".", schema.full_name(), ": numbers names '", name, "', which is not a Tensor argument");
    it->takes_number = true;
  }
}

// Removes a record; its boxed functor (if any) is retired, not freed: a
// thread may still be calling it through a table published before.
void remove_record(Registry& reg, std::vector<KernelRecord>& stack, std::uint64_t id) {
  for (auto it = stack.begin(); it != stack.end(); ++it) {
    if (it->id != id) continue;
    if (it->keep) reg.retired_functors.push_back(std::move(it->keep));
    stack.erase(it);
    return;
  }
}

}  // namespace

Library::Library(std::string ns, std::optional<DispatchKey> key, std::string owner, SourceLocation)
    : ns_(std::move(ns)), key_(key), owner_(std::move(owner)) {
  WICK_CHECK(!ns_.empty(), ValueError, "Library: empty namespace");
}

Library::Library(Library&& o) noexcept
    : ns_(std::move(o.ns_)), key_(o.key_), owner_(std::move(o.owner_)), records_(std::move(o.records_)) {}

Library::~Library() { reset(); }

std::string Library::where(const SourceLocation& loc) const {
  return short_file(loc.file) + ":" + std::to_string(loc.line);
}

Library& Library::def(std::string_view schema_text, DefOptions options, SourceLocation loc) {
  FunctionSchema schema = parse_schema(schema_text);
  mark_number_arguments(schema, options.numbers, ns_);
  if (options.property) {  // read as an attribute: nothing to pass but the tensor
    WICK_CHECK(is_method_namespace(ns_) && schema.arguments.size() == 1 && schema.arguments[0].name == "self" &&
                   schema.arguments[0].type == SchemaType{} && schema.overload.empty(),
               ValueError, "property '", ns_, ".", schema.name, "': a property is defined in a Tensor namespace, "
               "takes `Tensor self` only and has no overloads");
  }
  auto& reg = Registry::get();
  std::unique_lock lock(reg.mutex);
  OperatorEntry& e = reg.find_or_create(ns_, schema.name, schema.overload);
  WICK_CHECK(!e.defined(), RuntimeError, "operator '", e.full_name, "' is already defined by ", e.def_owner, " (",
             e.def_where, "); second definition by ", owner_, " (", where(loc), ")");
  e.schema = std::make_shared<const FunctionSchema>(std::move(schema));
  e.def_owner = owner_;
  e.def_where = where(loc);
  e.ignored = options.ignored;
  e.property = options.property;
  e.samples = options.samples;
  e.tags = options.tags;
  records_.push_back(std::make_unique<Record>(Record{Record::Kind::kDef, &e, 0, 0}));
  if (const StructuredGlue* glue = options.structured; glue != nullptr) {
    // The Meta backend comes with the definition (Note [Meta tensors] in wick/meta.h).
    if (!options.out_variant) e.structured = glue;
    KernelFunction meta = options.out_variant ? glue->out_kernel(glue->meta_impl) : glue->kernel(glue->meta_impl);
    add_kernel(e, static_cast<int>(DispatchKey::kMeta), meta, nullptr, false, where(loc));
  }
  reg.rebuild(e);
  return *this;
}

Library& Library::alias(std::string_view alias_name, std::string_view target, SourceLocation loc) {
  auto& reg = Registry::get();
  std::unique_lock lock(reg.mutex);
  OperatorEntry* t = reg.find(target);
  WICK_CHECK(t != nullptr && t->defined(), ValueError, "alias '", ns_, ".", alias_name, "': unknown target '", target,
             "'");
  if (t->alias_target != nullptr) t = t->alias_target;  // aliases of aliases point at the root
  auto [base, overload] = split_name(ns_, alias_name);
  OperatorEntry& e = reg.find_or_create(ns_, base, overload);
  WICK_CHECK(!e.defined(), RuntimeError, "operator '", e.full_name, "' is already defined by ", e.def_owner, " (",
             e.def_where, ")");
  FunctionSchema s = *t->schema;
  s.name = base;
  s.overload = overload;
  e.schema = std::make_shared<const FunctionSchema>(std::move(s));
  e.def_owner = owner_;
  e.def_where = where(loc);
  e.ignored = t->ignored;
  e.property = t->property;
  e.alias_target = t;
  t->aliases.push_back(&e);
  records_.push_back(std::make_unique<Record>(Record{Record::Kind::kAlias, &e, 0, 0}));
  e.rebuild();
  return *this;
}

// Adds kernel `k` for `e` at `key`, recorded in this block (registry lock held).
void Library::add_kernel(OperatorEntry& e, int key, KernelFunction k, std::shared_ptr<BoxedFunctor> keep, bool replace,
                         const std::string& where_text) {
  auto& reg = Registry::get();
  OperatorEntry* root = e.alias_target != nullptr ? e.alias_target : &e;
  const DispatchKey dk = static_cast<DispatchKey>(key);
  WICK_CHECK(k.signature == nullptr || root->cpp_signature.empty() || root->cpp_signature == k.signature->name(),
             TypeError, "kernel for ", e.full_name, " at ", dispatch_key_name(dk), " registered by ", owner_, " (",
             where_text, ") has C++ signature ", demangle(*k.signature), " but the operator's kernels use ",
             demangle_name(root->cpp_signature));
  auto& stack = e.kernels[key];
  if (!stack.empty()) {
    const KernelRecord& old = stack.back();
    WICK_CHECK(replace, PluginError, "conflicting kernels for ", e.full_name, " at ", dispatch_key_name(dk),
               ": already registered by ", old.owner, " (", old.where, "); new registration by ", owner_, " (",
               where_text, "). Pass replace = true to override explicitly.");
    logging::warn(e.full_name, " at ", dispatch_key_name(dk), ": kernel of ", old.owner, " (", old.where,
                  ") replaced by ", owner_, " (", where_text, ")");
  }
  if (k.signature != nullptr && root->cpp_signature.empty()) root->cpp_signature = k.signature->name();
  KernelRecord rec{k, std::move(keep), owner_, where_text, reg.next_id++};
  stack.push_back(rec);
  records_.push_back(std::make_unique<Record>(Record{Record::Kind::kKernel, &e, key, rec.id}));
  reg.rebuild(e);
}

Library& Library::impl_kernel(std::string_view name, KernelFunction k, std::shared_ptr<BoxedFunctor> keep, bool replace,
                              SourceLocation loc) {
  WICK_CHECK(key_.has_value(), ValueError, "Library(", ns_, ").impl(", name,
             "): this block has no dispatch key; construct it with one");
  auto [base, overload] = split_name(ns_, name);
  auto& reg = Registry::get();
  std::unique_lock lock(reg.mutex);
  OperatorEntry& e = reg.find_or_create(ns_, base, overload);
  add_kernel(e, static_cast<int>(*key_), k, std::move(keep), replace, where(loc));
  return *this;
}

Library& Library::impl_structured_kernel(std::string_view name, void* impl, const std::type_info& type, bool replace,
                                         SourceLocation loc) {
  WICK_CHECK(key_.has_value(), ValueError, "Library(", ns_, ").impl_structured(", name,
             "): this block has no dispatch key; construct it with one");
  WICK_CHECK(impl != nullptr, ValueError, "impl_structured(", name, "): null impl");
  auto [base, overload] = split_name(ns_, name);
  auto& reg = Registry::get();
  std::unique_lock lock(reg.mutex);
  OperatorEntry* e = reg.find(ns_ + "." + base + (overload.empty() ? "" : "." + overload));
  WICK_CHECK(e != nullptr && e->defined(), ValueError, "impl_structured: unknown operator '", ns_, ".", name, "'");
  OperatorEntry* root = e->alias_target != nullptr ? e->alias_target : e;
  const StructuredGlue* glue = root->structured;
  WICK_CHECK(glue != nullptr, TypeError, "impl_structured: ", root->full_name,
             " has no meta function (`meta:` in its definition); register its kernel with impl()");
  WICK_CHECK(type == *glue->impl_type, TypeError, "impl_structured: the impl of ", root->full_name, " registered by ",
             owner_, " (", where(loc), ") has C++ type ", demangle(type), " but its meta function's impl is ",
             demangle(*glue->impl_type));
  const std::string at = where(loc);
  add_kernel(*root, static_cast<int>(*key_), glue->kernel(impl), nullptr, replace, at);
  if (glue->out_name != nullptr) {
    OperatorEntry* out = reg.find(glue->out_name);
    WICK_INTERNAL_ASSERT(out != nullptr && out->defined(), "impl_structured: ", root->full_name, "'s out variant ",
                         glue->out_name, " is not defined");
    add_kernel(*out, static_cast<int>(*key_), glue->out_kernel(impl), nullptr, replace, at);
  }
  return *this;
}

Library& Library::impl_boxed(std::string_view name, std::shared_ptr<BoxedFunctor> fn, bool replace,
                             SourceLocation loc) {
  WICK_CHECK(fn != nullptr, ValueError, "impl_boxed(", name, "): null kernel");
  KernelFunction k = make_boxed_kernel(fn.get());
  return impl_kernel(name, k, std::move(fn), replace, loc);
}

Library& Library::impl_fallthrough(std::string_view name, SourceLocation loc) {
  return impl_kernel(name, make_fallthrough_kernel(), nullptr, false, loc);
}

namespace {
Library& add_fallback(Library& lib, std::optional<DispatchKey> key, KernelFunction k,
                      std::shared_ptr<BoxedFunctor> keep, const std::string& owner, const std::string& where,
                      std::uint64_t& id_out) {
  WICK_CHECK(key.has_value(), ValueError, "Library(", lib.ns(), ").fallback: this block has no dispatch key");
  auto& reg = Registry::get();
  std::unique_lock lock(reg.mutex);
  auto& stack = reg.fallbacks[static_cast<int>(*key)];
  WICK_CHECK(stack.empty(), PluginError, "conflicting fallbacks for key ", dispatch_key_name(*key),
             ": already registered by ", stack.empty() ? "" : stack.back().owner, " (",
             stack.empty() ? "" : stack.back().where, "); new registration by ", owner, " (", where, ")");
  id_out = reg.next_id++;
  stack.push_back(KernelRecord{k, std::move(keep), owner, where, id_out});
  reg.rebuild_all();
  return lib;
}
}  // namespace

Library& Library::fallback(std::shared_ptr<BoxedFunctor> fn, SourceLocation loc) {
  WICK_CHECK(fn != nullptr, ValueError, "fallback: null kernel");
  std::uint64_t id = 0;
  KernelFunction k = make_boxed_kernel(fn.get());
  add_fallback(*this, key_, k, std::move(fn), owner_, where(loc), id);
  records_.push_back(std::make_unique<Record>(Record{Record::Kind::kFallback, nullptr, static_cast<int>(*key_), id}));
  return *this;
}

Library& Library::fallthrough_fallback(SourceLocation loc) {
  std::uint64_t id = 0;
  add_fallback(*this, key_, make_fallthrough_kernel(), nullptr, owner_, where(loc), id);
  records_.push_back(std::make_unique<Record>(Record{Record::Kind::kFallback, nullptr, static_cast<int>(*key_), id}));
  return *this;
}

const TypeInfo& Library::register_type(TypeSpec spec, SourceLocation loc) {
  const TypeInfo& t = wick::register_type(std::move(spec), owner_, where(loc));
  records_.push_back(std::make_unique<Record>(Record{Record::Kind::kType, nullptr, 0, 0, &t}));
  return t;
}

void Registrations::merge(const Registrations& other) {
  operators.insert(operators.end(), other.operators.begin(), other.operators.end());
  kernels.insert(kernels.end(), other.kernels.begin(), other.kernels.end());
  fallbacks.insert(fallbacks.end(), other.fallbacks.begin(), other.fallbacks.end());
  types.insert(types.end(), other.types.begin(), other.types.end());
}

Registrations Library::registrations() const {
  Registrations out;
  for (const auto& r : records_) {
    switch (r->kind) {
      case Record::Kind::kDef:
      case Record::Kind::kAlias:
        out.operators.push_back(r->entry->full_name);
        break;
      case Record::Kind::kKernel:
        out.kernels.emplace_back(r->entry->full_name, dispatch_key_name(static_cast<DispatchKey>(r->key)));
        break;
      case Record::Kind::kFallback:
        out.fallbacks.push_back(dispatch_key_name(static_cast<DispatchKey>(r->key)));
        break;
      case Record::Kind::kType:
        out.types.push_back(r->type->name());
        break;
    }
  }
  return out;
}

void Library::reset() noexcept {
  if (records_.empty()) return;
  auto& reg = Registry::get();
  std::unique_lock lock(reg.mutex);
  bool all = false;
  for (auto it = records_.rbegin(); it != records_.rend(); ++it) {
    Record& r = **it;
    switch (r.kind) {
      case Record::Kind::kDef:
        // Aliases of an operator that goes away go with it.
        for (OperatorEntry* a : r.entry->aliases) {
          a->alias_target = nullptr;
          a->schema.reset();
          a->rebuild();
        }
        r.entry->aliases.clear();
        r.entry->schema.reset();
        r.entry->structured = nullptr;
        reg.recompute_signature(*r.entry);
        break;
      case Record::Kind::kAlias: {
        OperatorEntry* t = r.entry->alias_target;
        if (t != nullptr) std::erase(t->aliases, r.entry);
        r.entry->alias_target = nullptr;
        r.entry->schema.reset();
        break;
      }
      case Record::Kind::kKernel:
        remove_record(reg, r.entry->kernels[r.key], r.id);
        reg.recompute_signature(r.entry->alias_target != nullptr ? *r.entry->alias_target : *r.entry);
        break;
      case Record::Kind::kFallback:
        remove_record(reg, reg.fallbacks[r.key], r.id);
        all = true;
        break;
      case Record::Kind::kType:
        unregister_type(*r.type);
        break;
    }
    if (r.entry != nullptr) reg.rebuild(*r.entry);
  }
  if (all) reg.rebuild_all();
  records_.clear();
}

// --- Registrar -------------------------------------------------------------------

Registrar::Registrar(std::string owner) : owner_(std::move(owner)) {}
Registrar::~Registrar() { clear(); }

Library& Registrar::library(std::string ns, std::optional<DispatchKey> key, SourceLocation loc) {
  libraries_.push_back(std::make_unique<Library>(std::move(ns), key, owner_, loc));
  return *libraries_.back();
}

void Registrar::define(const CatalogTable& table) {
  define_catalog(table, [this](const std::string& ns) -> Library& { return library(ns); });
}

DispatchKey Registrar::register_backend(std::string_view device_type_name) {
  return backend_key(register_device_type(device_type_name));
}

void Registrar::register_device_runtime(DeviceType type, DeviceRuntime& runtime) {
  detail::set_device_runtime(type, &runtime);
  runtimes_.push_back(type);
}

void Registrar::on_clear(std::function<void()> undo) { undo_.push_back(std::move(undo)); }

Registrations Registrar::registrations() const {
  Registrations out;
  for (const auto& lib : libraries_) out.merge(lib->registrations());
  return out;
}

void Registrar::clear() noexcept {
  while (!libraries_.empty()) libraries_.pop_back();
  // Kernels go first: nothing can reach a device once its runtime is gone.
  for (auto it = runtimes_.rbegin(); it != runtimes_.rend(); ++it) detail::set_device_runtime(*it, nullptr);
  runtimes_.clear();
  while (!undo_.empty()) {
    const std::function<void()> undo = std::move(undo_.back());
    undo_.pop_back();
    undo();
  }
}

// --- definition tables (wick/definitions.h) --------------------------------------------

void define_catalog(const CatalogTable& table, const std::function<Library&(const std::string& ns)>& library_for) {
  for (const CatalogDef& d : table.defs) {
    const DefOptions options{.ignored = (d.flags & CatalogDef::kIgnored) != 0,
                             .property = (d.flags & CatalogDef::kProperty) != 0,
                             .structured = d.glue != nullptr ? d.glue() : nullptr,
                             .out_variant = (d.flags & CatalogDef::kOutVariant) != 0,
                             .samples = d.samples != nullptr ? d.samples : "",
                             .tags = d.tags != nullptr ? d.tags : "",
                             .numbers = d.numbers != nullptr ? d.numbers : ""};
    library_for(d.ns).def(d.schema, options, SourceLocation{d.file, d.line});
  }
  for (const CatalogAlias& a : table.aliases) {
    library_for(a.ns).alias(a.name, a.target, SourceLocation{a.file, a.line});
  }
}

}  // namespace wick
