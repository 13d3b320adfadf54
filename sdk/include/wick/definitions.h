// wick/definitions.h - operator definitions as tables: what the generator writes from .ops files.
/// \file
/// An operator is defined once, in a `.ops` file (format: sdk/opgen/wick_opgen.py).
/// The build turns the file into a `CatalogTable` (every schema, the derived
/// `out=` and in-place variants included, and every alias: methods, dunders,
/// other namespaces) and into the typed C++ API. Registering the table
/// defines the catalog entries:
///
///   // CMakeLists.txt: wick_add_plugin(myops SOURCES plugin.cpp OPS myops.ops)
///   #include "myops_ops.h"                       // generated: myops::scale(x, 2.0), ...
///   WICK_PLUGIN("myops", "1.0.0", registrar) {
///     registrar.define(myops::myops_catalog());   // every entry of myops.ops
///     registrar.library("myops", wick::DispatchKey::kCPU).impl("scale", &scale_cpu);
///   }
///
/// libwick registers its own `torch` tables the same way at start-up.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "wick/array_ref.h"
#include "wick/export.h"

namespace wick {

class Library;
struct StructuredGlue;

/// One schema to define in a namespace.
struct CatalogDef {
  /// Bits of `flags`, or-ed together.
  enum Flags : std::uint32_t {
    kIgnored = 1,      ///< not overridable (creation functions)
    kInplaceTwin = 2,  ///< torch.Tensor.X_ derived from X: writes X's result into self
    kInplaceView = 4,  ///< with kInplaceTwin: self takes the geometry of X's view
    kOutVariant = 8,   ///< X.out of a structured X: its Meta kernel is the glue's out kernel
    /// X.out of an X without a meta function: the torch catalog gives it a
    /// kernel that runs X and copies the result into `out` (Note [Out
    /// variants of composite operators] in dispatch/composite/out_ops.cpp);
    /// a plugin registers its own out kernels.
    kOutByCopy = 16,
    /// A torch.Tensor property (x.shape): read as an attribute, listed with kind "property".
    kProperty = 32,
  };
  const char* ns;      ///< "torch", "torch.Tensor", "myops"
  const char* schema;  ///< "add.out(Tensor self, ..., Tensor(a!) out) -> Tensor(a!)"
  std::uint32_t flags; ///< Flags bits (0 for a plain definition)
  const char* file;  ///< where it is defined: "dispatch/ops/elementwise.ops"
  int line; ///< the line of `file` it is defined at
  /// The operator's meta function glue (wick/structured.h), or null for
  /// operators without one (composites, views).
  const StructuredGlue* (*glue)() = nullptr;
  /// Sample calls for the operator's checks, one per line (wick/opcheck.h), or null.
  const char* samples = nullptr;
  /// Comma-separated tags ("domain=positive, nondifferentiable"), or null.
  const char* tags = nullptr;
  /// Comma-separated Tensor arguments that take a number in a boxed call
  /// (Note [Numbers for tensor arguments] in wick/library.h), or null.
  const char* numbers = nullptr;
};

/// One alias entry: `ns.name` shares the kernels of `target` (a qualified
/// full name) under its own name, and can be overridden on its own.
struct CatalogAlias {
  const char* ns;      ///< "torch.Tensor"
  const char* name;    ///< "__add__", or "max.dim" for an overload
  const char* target;  ///< "torch.add"
  const char* file; ///< where it is defined: "dispatch/ops/elementwise.ops"
  int line; ///< the line of `file` it is defined at
};

/// Definitions first (in any namespace), then aliases of them.
struct CatalogTable {
  ArrayRef<CatalogDef> defs; ///< the definitions, registered first
  ArrayRef<CatalogAlias> aliases; ///< the aliases, registered after every definition
};

/// Registers every definition and then every alias of `table`, each through
/// the registration block `library_for(ns)` returns for its namespace (the
/// blocks own the entries: destroying them removes the entries). Throws
/// what Library::def and Library::alias throw (SchemaError, RuntimeError
/// for a name defined twice), after which what was registered stays with
/// the blocks.
WICK_API void define_catalog(const CatalogTable& table,
                             const std::function<Library&(const std::string& ns)>& library_for);

}  // namespace wick
