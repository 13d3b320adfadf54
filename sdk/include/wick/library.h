// wick/library.h - registering operators, kernels and fallbacks.
/// \file
/// A `Library` is a registration block in the spirit of TORCH_LIBRARY /
/// TORCH_LIBRARY_IMPL: it defines operators in a namespace and/or registers
/// kernels for one dispatch key. It is an RAII handle: destroying it removes
/// exactly what it registered. Each registration records
/// `owner:file:line` so a conflict can name both sides.
///
///   void init(wick::Registrar& r) {                  // a plugin's init
///     auto& defs = r.library("myops");               // define operators
///     defs.def("scale(Tensor self, float factor) -> Tensor");
///     auto& cpu = r.library("myops", wick::DispatchKey::kCPU);
///     cpu.impl("scale", &scale_cpu);                 // Tensor scale_cpu(const Tensor&, double)
///   }
///
/// Registration is safe while other threads dispatch (Note [Dispatch table]).
///
/// Note [Numbers for tensor arguments]
/// A boxed call (wick::call, `wick eval`, the override protocol's
/// functions) takes a Python number for a Tensor argument only where the
/// definition says so (`DefOptions::numbers`, `numbers:` in a .ops file):
/// the number is then wrapped as PyTorch wraps it (a 0-dim tensor that
/// promotes as a Python number). Elsewhere it is PyTorch's TypeError
/// (`maximum(): argument 'other' (position 2) must be Tensor, not float`).
/// PyTorch 1.13 takes numbers where it has a Scalar overload for the
/// argument (add, the comparisons, pow, where, lerp's weight,
/// masked_fill's value, scatter's src, ...) and for the first operand of
/// add, sub, mul, div, true_divide and floor_divide; the torch operators
/// mark exactly those. Its Scalar overloads come in pairs, (Tensor, Scalar)
/// and (Scalar, Tensor), so a call still needs one tensor among its Tensor
/// arguments (`pow(2, 3)` is its "invalid combination of arguments"); a
/// `*` among the names lifts that where PyTorch takes numbers for all of
/// them at once (add, sub, mul, div, true_divide, floor_divide, and
/// result_type's Scalar overload). The typed C++ API is unaffected
/// (`cpp_scalar` in wick_opgen.py adds C++ overloads that take numbers).
/// There is no static-initialiser registration: libraries are made inside an
/// explicit call (a plugin's `init`, or your own code).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <utility>
#include <vector>

#include "wick/dispatch_key.h"
#include "wick/dispatcher.h"
#include "wick/export.h"
#include "wick/override.h"

namespace wick {

struct StructuredGlue;

/// Where a registration was made: the caller's file and line, recorded for
/// conflict errors. Like SourceLocation, which clang 14 cannot use with
/// libstdc++ 12; the builtins work in GCC and clang alike.
struct SourceLocation {
  const char* file = ""; ///< the caller's source file ("" when unknown)
  int line = 0; ///< the caller's line (0 when unknown)
  /// The location of the call this default argument belongs to.
  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          int line = __builtin_LINE()) noexcept {
    return {file, line};
  }
};

/// Options for `Library::def`.
struct DefOptions {
  /// Not overridable (PyTorch's "ignored" functions: creation functions
  /// without tensor arguments).
  bool ignored = false;
  /// A Tensor property (x.shape, x.T): Python reads it as an attribute, and
  /// the catalog lists it with kind "property". Its schema takes `Tensor self` only.
  bool property = false;
  /// The operator's meta function glue (wick/structured.h): backends then
  /// register impls with `impl_structured`, and the definition registers the
  /// operator's Meta kernel.
  const StructuredGlue* structured = nullptr;
  /// The operator is the out= variant of the structured operator whose glue
  /// is `structured` (its Meta kernel is the glue's out kernel).
  bool out_variant = false;
  /// Sample calls for its checks, one per line (wick/opcheck.h).
  std::string samples;
  /// Comma-separated tags ("domain=positive, nondifferentiable").
  std::string tags;
  /// Comma-separated Tensor arguments that take a number in a boxed call,
  /// and `*` where all of them may be numbers in one call (Note [Numbers
  /// for tensor arguments]).
  std::string numbers;
};

/// What a Library, or a plugin's Registrar, registered (for listings such as
/// `wick plugins list`).
struct WICK_API Registrations {
  std::vector<std::string> operators;  ///< defined or aliased: "myops.twice", "myops.twice.out"
  /// Kernels as (operator, dispatch key name); those at "Autograd" are formulas.
  std::vector<std::pair<std::string, std::string>> kernels;
  std::vector<std::string> fallbacks;  ///< dispatch key names
  std::vector<std::string> types;      ///< tensor-like types and tensor subclasses
  /// Appends `other`'s entries.
  void merge(const Registrations& other);
};

/// A registration block (as torch::Library): defines operators, registers kernels, fallbacks, aliases and types for one namespace and optional dispatch key, and removes them all when destroyed or reset. Conflicts throw, naming both sides' owner:file:line.
class WICK_API Library final {
 public:
  /// A block for namespace `ns` ("torch", "torch.Tensor", "myops"); with a
  /// key, `impl` registers for that key. `owner` names the plugin (or "host").
  Library(std::string ns, std::optional<DispatchKey> key = std::nullopt, std::string owner = "host",
          SourceLocation loc = SourceLocation::current());
  ~Library();
  /// Takes over `other`'s registrations (the moved-from block holds none).
  Library(Library&&) noexcept;
  Library& operator=(Library&&) = delete;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  /// Defines an operator from a schema (namespace from this block). Throws
  /// SchemaError for a bad schema, RuntimeError if it is already defined.
  Library& def(std::string_view schema, DefOptions options = {},
               SourceLocation loc = SourceLocation::current());
  /// Defines `alias_name` in this namespace as a distinct catalog entry that
  /// shares the kernels of `target` ("torch.add"); it has the target's schema
  /// under its own name and can get kernels of its own (e.g. an override).
  Library& alias(std::string_view alias_name, std::string_view target,
                 SourceLocation loc = SourceLocation::current());
  /// Registers a typed kernel for `name` ("add", "add.out"; relative to this
  /// namespace unless it contains a namespace) at this block's key.
  template <typename F>
  Library& impl(std::string_view name, F* fn, bool replace = false,
                SourceLocation loc = SourceLocation::current()) {
    return impl_kernel(name, make_kernel(fn), nullptr, replace, loc);
  }
  /// Registers a backend's impl of an operator with a meta function (Note
  /// [Structured kernels] in wick/structured.h) at this block's key: the
  /// operator's kernel and its out= variant's are derived from the meta
  /// function. TypeError when the operator has no meta function, or when
  /// `F` is not the impl type its meta function asks for
  /// (`void(const M&, const Tensor& out, args...)`).
  template <typename F>
  Library& impl_structured(std::string_view name, F* fn, bool replace = false,
                           SourceLocation loc = SourceLocation::current()) {
    return impl_structured_kernel(name, reinterpret_cast<void*>(fn), typeid(F), replace, loc);
  }
  /// Registers a boxed kernel object (kept alive by this block).
  Library& impl_boxed(std::string_view name, std::shared_ptr<BoxedFunctor> fn, bool replace = false,
                      SourceLocation loc = SourceLocation::current());
  /// Registers a fallthrough for `name` at this block's key.
  Library& impl_fallthrough(std::string_view name,
                            SourceLocation loc = SourceLocation::current());
  /// A boxed fallback for every operator at this block's key.
  Library& fallback(std::shared_ptr<BoxedFunctor> fn,
                    SourceLocation loc = SourceLocation::current());
  /// Makes this block's key fall through for every operator without a kernel.
  Library& fallthrough_fallback(SourceLocation loc = SourceLocation::current());

  /// Registers a tensor-like type or tensor subclass (wick/override.h),
  /// owned by this block: destroying it unregisters the type. PluginError
  /// when the name is taken (naming both owners); ValueError for a bad spec.
  const TypeInfo& register_type(TypeSpec spec, SourceLocation loc = SourceLocation::current());

  /// What this block registered (and still holds).
  [[nodiscard]] Registrations registrations() const;
  /// The namespace this block registers in.
  [[nodiscard]] const std::string& ns() const noexcept { return ns_; }
  /// The owner named at construction (a plugin, or "host").
  [[nodiscard]] const std::string& owner() const noexcept { return owner_; }
  /// Removes everything this block registered (also done by the destructor).
  void reset() noexcept;

 private:
  Library& impl_kernel(std::string_view name, KernelFunction k, std::shared_ptr<BoxedFunctor> keep,
                       bool replace, SourceLocation loc);
  Library& impl_structured_kernel(std::string_view name, void* impl, const std::type_info& type, bool replace,
                                  SourceLocation loc);
  std::string where(const SourceLocation& loc) const;
  void add_kernel(OperatorEntry& e, int key, KernelFunction k, std::shared_ptr<BoxedFunctor> keep, bool replace,
                  const std::string& where_text);
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string owner_;
  struct Record;
  std::vector<std::unique_ptr<Record>> records_;
};

}  // namespace wick
