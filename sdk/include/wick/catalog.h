// wick/catalog.h - introspection of the operator catalog.
/// \file
/// What `wick ops ...` prints: overridable and ignored functions by
/// namespace, Python-style signatures, and each operator's dispatch table
/// with the provider of every kernel.
///
///   for (const auto& name : wick::overridable_functions("torch.Tensor")) ...
///   std::string sig = wick::python_signature("torch.add");  // (input, other, *, alpha=1, out=None)
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "wick/dispatch_key.h"
#include "wick/dispatcher.h"
#include "wick/export.h"

namespace wick {

/// One catalog entry (all overloads of one name).
struct CatalogEntry {
  std::string qualified_name;  ///< "torch.Tensor.__add__"
  std::string ns;              ///< "torch.Tensor"
  std::string name;            ///< "__add__"
  /// "function", "method", "dunder" or "property" (a Tensor attribute: x.shape).
  std::string kind;
  bool ignored = false; ///< true for an entry the override protocol never sees (see get_ignored_functions)
  std::string alias_of;                ///< "torch.add", or empty
  std::vector<std::string> overloads;  ///< full names: "torch.add", "torch.add.out"
};

/// What the definition of one overload says (for checks and listings).
struct OperatorInfo {
  std::string full_name;   ///< "torch.add.out"
  std::string schema;      ///< its schema, canonically printed
  std::string alias_of;    ///< the full name it aliases, or empty
  std::string defined_by;  ///< "host", or the plugin that defined it
  std::string where;       ///< where: "elementwise.ops:10"
  /// It has a meta function (`meta:`): its Meta kernel and out= kernel are
  /// derived, and backends register impls (wick/structured.h).
  bool structured = false;
  /// A Tensor property (`x.shape`): Python reads it as an attribute.
  bool property = false;
  /// Sample calls from the definition (an alias's are its target's), one
  /// per element, in the syntax of wick/opcheck.h.
  std::vector<std::string> samples;
  /// Tags from the definition: "domain=positive", "nondifferentiable", ...
  std::vector<std::string> tags;
};
/// The definition of overload `full_name`; ValueError for an unknown operator.
[[nodiscard]] WICK_API OperatorInfo operator_info(std::string_view full_name);

/// Whether `ns` is wick's internal namespace (`aten`: the device kernels
/// behind conv and pooling, whose formulas call one another, and the
/// operators behind torch.unique that return all three of its results). Its operators
/// dispatch like any other, and `wick ops table` shows them, but they are
/// not API: the overridable, ignored and testing-override lists leave them out.
[[nodiscard]] WICK_API bool is_internal_namespace(std::string_view ns);
/// Whether `ns` holds methods: torch.Tensor, and a plugin's `<ns>.Tensor`
/// (a plugin's `variants: method` entries live there, not in torch.Tensor).
/// Their first argument is spelled `self`; functions spell it `input`.
[[nodiscard]] constexpr bool is_method_namespace(std::string_view ns) noexcept {
  return ns == "torch.Tensor" || ns.ends_with(".Tensor");
}
/// Every defined catalog entry (internal ones included), sorted by qualified name.
[[nodiscard]] WICK_API std::vector<CatalogEntry> catalog_entries();
/// Overridable entries' qualified names (not internal ones), optionally of one namespace only.
[[nodiscard]] WICK_API std::vector<std::string> overridable_functions(std::string_view ns = {});
/// Ignored entries' qualified names (not internal ones), optionally of one namespace only.
[[nodiscard]] WICK_API std::vector<std::string> ignored_functions(std::string_view ns = {});
/// Python-style signature of an entry, with `out=None` when it has an out
/// overload; ValueError for an unknown operator.
[[nodiscard]] WICK_API std::string python_signature(std::string_view qualified_name);
/// The Python-style signature of every overload of an entry, sorted by
/// overload name, each with `out=None` when it has an out= variant (X.out
/// belongs to X, X.dim_out to X.dim; the out overloads are not listed). What
/// `wick ops show` prints per overload, and what the signature test compares
/// with PyTorch 1.13's (tests/differential/signature_test.cpp). ValueError for
/// an unknown operator.
[[nodiscard]] WICK_API std::vector<std::string> python_signatures(std::string_view qualified_name);

// --- the overrides API (torch.overrides) -------------------------------------------

/// Overridable operators by namespace ("torch", "torch.Tensor",
/// "torch.nn.functional", and plugin namespaces), each list sorted.
[[nodiscard]] WICK_API std::map<std::string, std::vector<std::string>> get_overridable_functions();
/// Operators the protocol never sees (creation functions without tensor arguments).
[[nodiscard]] WICK_API std::vector<std::string> get_ignored_functions();

/// A stand-in for an overridable operator with its exact signature: calling
/// it validates the arguments as the operator would (TypeError naming the
/// operator and argument) and returns -1, without running anything.
struct TestingOverride {
  std::string signature;  ///< what `wick ops signature` prints
  std::function<Value(std::vector<Value> args, const Kwargs& kwargs)> fn; ///< the stand-in: checks `args` and `kwargs` against the signature, returns -1
};
/// One stand-in per overridable operator (torch.overrides.get_testing_overrides).
[[nodiscard]] WICK_API std::map<std::string, TestingOverride> get_testing_overrides();

/// One row of an operator's dispatch table.
struct DispatchTableRow {
  DispatchKey key; ///< the dispatch key
  /// "kernel", "composite" (from CompositeImplicit), "fallback",
  /// "fallthrough", or "alias" (inherited from the alias target).
  std::string source;
  /// Registering plugin (or "host").
  std::string provider;
  std::string location;  ///< where it was registered: `file:line`
};
/// The runnable keys of an operator (one overload), highest priority first.
[[nodiscard]] WICK_API std::vector<DispatchTableRow> dispatch_table(std::string_view op_name);

}  // namespace wick
