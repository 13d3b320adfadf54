// dispatch/catalog.cpp - catalog introspection: listings, signatures, tables.
/// \file
#include "wick/catalog.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "dispatch/registry.h"
#include "wick/error.h"

namespace wick {
namespace {

std::string kind_of(const OperatorEntry& e) {
  if (e.property) return "property";
  if (e.base.size() > 4 && e.base.starts_with("__") && e.base.ends_with("__")) return "dunder";
  if (is_method_namespace(e.ns)) return "method";
  return "function";
}

}  // namespace

bool is_internal_namespace(std::string_view ns) { return ns == "aten"; }

std::vector<CatalogEntry> catalog_entries() {
  auto& reg = Registry::get();
  std::shared_lock lock(reg.mutex);
  std::map<std::string, CatalogEntry> by_name;
  for (const auto& [full, e] : reg.ops) {
    if (!e->defined()) continue;
    CatalogEntry& c = by_name[e->qualified];
    if (c.qualified_name.empty()) {
      c.qualified_name = e->qualified;
      c.ns = e->ns;
      c.name = e->base;
      c.kind = kind_of(*e);
    }
    if (e->overload.empty()) {
      c.ignored = e->ignored;
      if (e->alias_target != nullptr) c.alias_of = e->alias_target->qualified;
    }
    c.overloads.push_back(e->full_name);
  }
  std::vector<CatalogEntry> out;
  for (auto& [name, c] : by_name) {
    std::sort(c.overloads.begin(), c.overloads.end());
    out.push_back(std::move(c));
  }
  return out;
}

namespace {
std::vector<std::string> filtered(std::string_view ns, bool ignored) {
  std::vector<std::string> out;
  for (const auto& c : catalog_entries())
    if (c.ignored == ignored && !is_internal_namespace(c.ns) && (ns.empty() || c.ns == ns))
      out.push_back(c.qualified_name);
  return out;
}
}  // namespace

std::vector<std::string> overridable_functions(std::string_view ns) { return filtered(ns, false); }
std::vector<std::string> ignored_functions(std::string_view ns) { return filtered(ns, true); }

std::map<std::string, std::vector<std::string>> get_overridable_functions() {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& c : catalog_entries())
    if (!c.ignored && !is_internal_namespace(c.ns)) out[c.ns].push_back(c.qualified_name);
  return out;
}

std::vector<std::string> get_ignored_functions() { return ignored_functions(); }

std::map<std::string, TestingOverride> get_testing_overrides() {
  std::map<std::string, TestingOverride> out;
  for (const auto& c : catalog_entries()) {
    if (c.ignored || is_internal_namespace(c.ns)) continue;
    const std::string name = c.qualified_name;
    out[name] = TestingOverride{python_signature(name), [name](std::vector<Value> args, const Kwargs& kwargs) {
                                  (void)wick::bind_call(name, std::move(args), kwargs);
                                  return Value(-1);
                                }};
  }
  return out;
}

namespace {

bool is_out_overload(const std::string& overload) { return overload == "out" || overload.ends_with("_out"); }

/// The signature of overload `e` with its out= variant's `out` merged in
/// (X.out into X, X.dim_out into X.dim). Caller holds the registry lock.
std::string merged_signature(const Registry& reg, const OperatorEntry& e) {
  const FunctionSchema& s = *e.schema;
  std::string sig = s.python_signature(/*rename_self=*/e.self_is_input());
  // A method's first argument is the tensor it is called on: Python spells it
  // self whatever the definition names it (torch.bernoulli(input) ->
  // Tensor.bernoulli(self)).
  if (!e.self_is_input() && !s.arguments.empty() && s.arguments[0].name != "self")
    sig.replace(1, s.arguments[0].name.size(), "self");
  const std::string out_name = e.full_name + (e.overload.empty() ? ".out" : "_out");
  const OperatorEntry* out = reg.find(out_name);
  if (s.find_argument("out") < 0 && out != nullptr && out->defined()) {
    const bool has_star =
        std::any_of(s.arguments.begin(), s.arguments.end(), [](const SchemaArgument& a) { return a.kwarg_only || a.variadic; });
    sig.pop_back();  // ')'
    if (sig != "(") sig += ", ";
    sig += has_star ? "out=None)" : "*, out=None)";
  }
  return sig;
}

}  // namespace

std::string python_signature(std::string_view qualified_name) {
  OperatorHandle op = find_op(qualified_name);
  auto& reg = Registry::get();
  std::shared_lock lock(reg.mutex);
  return merged_signature(reg, *op.entry());
}

std::vector<std::string> python_signatures(std::string_view qualified_name) {
  auto& reg = Registry::get();
  std::vector<std::string> out;
  {
    std::shared_lock lock(reg.mutex);
    std::vector<const OperatorEntry*> overloads;
    for (const auto& [full, e] : reg.ops)
      if (e->defined() && e->qualified == qualified_name && !is_out_overload(e->overload)) overloads.push_back(e.get());
    std::sort(overloads.begin(), overloads.end(),
              [](const OperatorEntry* a, const OperatorEntry* b) { return a->full_name < b->full_name; });
    for (const OperatorEntry* e : overloads) out.push_back(merged_signature(reg, *e));
  }
  WICK_CHECK(!out.empty(), ValueError, "unknown operator '", qualified_name, "'");
  return out;
}

namespace {
std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(sep, start), text.size());
    std::string part = text.substr(start, end - start);
    const auto first = part.find_first_not_of(" \t");
    const auto last = part.find_last_not_of(" \t");
    if (first != std::string::npos) out.push_back(part.substr(first, last - first + 1));
    start = end + 1;
  }
  return out;
}
}  // namespace

OperatorInfo operator_info(std::string_view full_name) {
  OperatorHandle op = find_op(full_name);
  auto& reg = Registry::get();
  std::shared_lock lock(reg.mutex);
  const OperatorEntry& e = *op.entry();
  const OperatorEntry& root = e.alias_target != nullptr ? *e.alias_target : e;
  OperatorInfo info;
  info.full_name = e.full_name;
  info.schema = e.schema ? e.schema->str() : "";
  info.alias_of = e.alias_target != nullptr ? e.alias_target->full_name : "";
  info.defined_by = e.def_owner;
  info.where = e.def_where;
  info.structured = root.structured != nullptr;
  info.property = e.property;
  info.samples = split(root.samples, '\n');
  info.tags = split(root.tags, ',');
  return info;
}

std::vector<DispatchTableRow> dispatch_table(std::string_view op_name) {
  OperatorHandle op = find_op(op_name);
  auto& reg = Registry::get();
  std::shared_lock lock(reg.mutex);
  std::vector<DispatchTableRow> rows;
  for (int k = kNumDispatchKeys - 1; k >= 0; --k) {
    auto r = op.entry()->resolve(k);
    if (r.record == nullptr) continue;
    // Composite kernels fill every backend slot; list only the named backends.
    if (is_backend_key(static_cast<DispatchKey>(k)) &&
        dispatch_key_name(static_cast<DispatchKey>(k)).starts_with("Key"))
      continue;
    DispatchTableRow row;
    row.key = static_cast<DispatchKey>(k);
    row.source = r.record->kernel.fallthrough ? "fallthrough" : r.source;
    row.provider = r.record->owner;
    row.location = r.record->where;
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace wick
