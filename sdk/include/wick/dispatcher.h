// wick/dispatcher.h - operator handles, kernels and the two calling conventions.
/// \file
/// Every operator call goes through an `OperatorHandle`. Typed calls reach
/// unboxed kernels directly; boxed calls (`call_boxed`, or `wick::call` by
/// name with keyword arguments) work on a `Stack` of `Value`s. Both use the
/// same per-operator dispatch table.
///
///   auto op = wick::find_op("torch.add").typed<Tensor(const Tensor&, const Tensor&, const Scalar&)>();
///   Tensor z = op.call(x, y, 1);
///   wick::Value r = wick::call("torch.add", {x, 3}, {{"alpha", 2}});
///
/// Note [Dispatch table]
/// The table an operator is called through is an immutable `DispatchTable`
/// rebuilt on every registration change and published with one atomic
/// pointer store; a call does one acquire load, an AND with the table's mask,
/// a count-leading-zeros and an indirect call: no lock, no string, no map.
/// Retired tables are kept until the operator is destroyed (at exit), so a
/// thread still calling through an old table never reads freed memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <typeinfo>
#include <utility>
#include <vector>

#include "wick/dispatch_key.h"
#include "wick/array_ref.h"
#include "wick/export.h"
#include "wick/schema.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick {

class OperatorEntry;
class OperatorHandle;

/// A boxed kernel object: what a stateful boxed kernel or fallback is.
class WICK_API BoxedFunctor {
 public:
  virtual ~BoxedFunctor() = default;
  /// Pops the operator's arguments from the end of `stack` and pushes its results.
  virtual void operator()(const OperatorHandle& op, DispatchKeySet ks, Stack& stack) = 0;
};

/// One kernel: an optional unboxed entry (exact C++ signature) and a boxed
/// entry (always present).
struct KernelFunction {
  /// The boxed entry: runs the kernel with its arguments on `stack` and leaves the results there.
  using BoxedFn = void (*)(const KernelFunction& self, const OperatorHandle& op, DispatchKeySet ks,
                           Stack& stack);
  void* functor = nullptr;  ///< user function pointer, or BoxedFunctor*
  void* unboxed = nullptr;  ///< Ret (*)(void* functor, DispatchKeySet, Args...)
  BoxedFn boxed = nullptr; ///< the boxed entry; null only for a fallthrough kernel
  const std::type_info* signature = nullptr;  ///< typeid(Ret(Args...)) of the unboxed entry
  bool fallthrough = false; ///< a fallthrough: the key is skipped and the call goes on to the keys below it

  /// True when this is a kernel (a boxed entry or a fallthrough), false for an empty slot.
  [[nodiscard]] bool valid() const noexcept { return boxed != nullptr || fallthrough; }
};

/// An operator's immutable dispatch table (Note [Dispatch table]): one kernel slot per dispatch key.
struct DispatchTable {
  /// Bit k set when key k has a runnable kernel (own, composite or fallback).
  std::uint64_t mask = 0;
  KernelFunction kernels[kNumDispatchKeys]; ///< Kernel of each key (an empty slot where `mask` has no bit).
};

/// The part of an operator a call reads: the published table (see Note
/// [Dispatch table]). OperatorEntry, private to libwick, derives from it.
struct OperatorTableSlot {
  std::atomic<const DispatchTable*> table{nullptr}; ///< The current table; never null once the operator is defined.
};

namespace detail {
// Key-set contribution of one typed argument.
inline DispatchKeySet arg_keys(const Tensor& t) noexcept { return t.key_set(); }
inline DispatchKeySet arg_keys(const std::optional<Tensor>& t) noexcept {
  return t ? t->key_set() : DispatchKeySet();
}
inline DispatchKeySet arg_keys(const std::vector<Tensor>& ts) noexcept {
  DispatchKeySet ks;
  for (const auto& t : ts) ks = ks | t.key_set();
  return ks;
}
inline DispatchKeySet arg_keys(const std::vector<std::optional<Tensor>>& ts) noexcept {
  DispatchKeySet ks;
  for (const auto& t : ts)
    if (t) ks = ks | t->key_set();
  return ks;
}
inline DispatchKeySet arg_keys(const Device& d) noexcept { return DispatchKeySet(backend_key(d.type())); }
inline DispatchKeySet arg_keys(const std::optional<Device>& d) noexcept {
  return d ? DispatchKeySet(backend_key(d->type())) : DispatchKeySet();
}
template <typename T>
constexpr DispatchKeySet arg_keys(const T&) noexcept { return {}; }

template <typename... Args>
DispatchKeySet compute_keys(const Args&... args) noexcept {
  return (DispatchKeySet() | ... | arg_keys(args));
}

/// Note [Settled optionals]
/// A caller's `std::nullopt` leaves the optional's payload bytes undefined.
/// Kernels compiled at -O3 test a small optional passed in a register by
/// shifting out the "engaged" byte, and valgrind's memcheck then computes
/// the flags from the undefined payload too and reports a use of an
/// uninitialised value that cannot happen. The generated typed API passes
/// these optionals through `settled`, which returns the same optional with
/// every byte defined (out of line, so the compiler cannot skip it).
[[nodiscard]] WICK_API std::optional<ScalarType> settled(std::optional<ScalarType> v) noexcept;
[[nodiscard]] WICK_API std::optional<Device> settled(std::optional<Device> v) noexcept;
[[nodiscard]] WICK_API std::optional<bool> settled(std::optional<bool> v) noexcept;
}  // namespace detail

template <typename Sig> class TypedOperatorHandle;

/// A cheap, copyable reference to a catalog operator. Handles stay valid for
/// the life of the process (operators are never destroyed, only undefined).
class WICK_API OperatorHandle {
 public:
  /// A handle to operator entry `e` (find_op makes them).
  explicit OperatorHandle(OperatorEntry* e) noexcept;

  /// "torch.add" or "torch.add.out".
  [[nodiscard]] const std::string& name() const noexcept;
  /// "torch.add" (without the overload).
  [[nodiscard]] const std::string& qualified_name() const noexcept;
  /// The schema; valid while the operator stays defined (see schema_ptr).
  [[nodiscard]] const FunctionSchema& schema() const;
  /// Shared ownership of the schema, for callers that may race with the
  /// operator being undefined (plugin unload).
  [[nodiscard]] std::shared_ptr<const FunctionSchema> schema_ptr() const;
  /// The operator's registry entry (opaque outside libwick).
  [[nodiscard]] OperatorEntry* entry() const noexcept { return entry_; }

  /// The typed handle; TypeError when `Sig` differs from the C++ signature
  /// the operator's unboxed kernels were registered with.
  template <typename Sig>
  [[nodiscard]] TypedOperatorHandle<Sig> typed() const;

  /// Boxed call: `stack` holds exactly the schema's arguments, in order (use
  /// `wick::call` for keyword arguments, defaults and Python conventions).
  /// On return it holds the results.
  void call_boxed(Stack& stack) const;
  /// Boxed call below the caller's key: `ks` is used as is (no TLS masks).
  void redispatch_boxed(DispatchKeySet ks, Stack& stack) const;

  // --- hot path ------------------------------------------------------------
  /// The current dispatch table (one acquire load; Note [Dispatch table]).
  [[nodiscard]] const DispatchTable& table() const noexcept {
    return *slot_->table.load(std::memory_order_acquire);
  }
  /// Throws NotImplementedError naming the operator, the keys and the plugin
  /// directories searched.
  [[noreturn]] void report_missing_kernel(DispatchKeySet ks) const;
  /// Equal when both refer to the same operator.
  bool operator==(const OperatorHandle& o) const noexcept { return entry_ == o.entry_; }

 protected:
  /// TypeError when `sig` is not the C++ signature of the operator's unboxed kernels; the first typed handle pins it.
  void check_signature(const std::type_info& sig) const;
  OperatorEntry* entry_; ///< The operator's registry entry.
  const OperatorTableSlot* slot_; ///< Where its current dispatch table is published.
};

/// The keys a kernel at the highest key of `eff` receives: `eff` limited to
/// keys at or below the winner. `next_keys(ks)` is what it redispatches to.
[[nodiscard]] constexpr DispatchKeySet next_keys(DispatchKeySet ks) noexcept {
  return ks.below(ks.highest());
}

namespace detail {
template <typename Ret, typename... Args>
Ret call_boxed_kernel(const KernelFunction& k, const OperatorHandle& op, DispatchKeySet ks, Args... args);
}  // namespace detail

/// A handle for an operator called with the C++ signature `Ret(Args...)`: calls go straight to the unboxed kernels (OperatorHandle::typed makes one).
template <typename Ret, typename... Args>
class TypedOperatorHandle<Ret(Args...)> final : public OperatorHandle {
 public:
  /// Wraps `h` without checking the signature (use OperatorHandle::typed, which does).
  explicit TypedOperatorHandle(OperatorHandle h) noexcept : OperatorHandle(h) {}

  /// Dispatches on the arguments' keys and the thread's include/exclude sets.
  Ret call(Args... args) const {
    const LocalDispatchKeySet& tls = tls_local_dispatch_key_set();
    return redispatch(effective_keys(detail::compute_keys(args...), tls.included, tls.excluded),
                      std::forward<Args>(args)...);
  }

  /// Runs the kernel of the highest key in `ks` (no TLS masks applied).
  Ret redispatch(DispatchKeySet ks, Args... args) const {
    const DispatchTable& t = table();
    const std::uint64_t bits = ks.bits() & t.mask;
    if (__builtin_expect(bits == 0, 0)) report_missing_kernel(ks);
    const int k = 63 - std::countl_zero(bits);
    const KernelFunction& kf = t.kernels[k];
    const DispatchKeySet kernel_ks = DispatchKeySet::from_bits(ks.bits() & (~std::uint64_t{0} >> (63 - k)));
    if (__builtin_expect(kf.unboxed != nullptr, 1)) {
      using Fn = Ret (*)(void*, DispatchKeySet, Args...);
      return reinterpret_cast<Fn>(kf.unboxed)(kf.functor, kernel_ks, std::forward<Args>(args)...);
    }
    return detail::call_boxed_kernel<Ret, Args...>(kf, *this, kernel_ks, std::forward<Args>(args)...);
  }
};

template <typename Sig>
TypedOperatorHandle<Sig> OperatorHandle::typed() const {
  check_signature(typeid(Sig));
  return TypedOperatorHandle<Sig>(*this);
}

/// Looks an operator up by name ("torch.add", "torch.add.out",
/// "torch.Tensor.__add__"); throws ValueError ("unknown operator 'x'").
[[nodiscard]] WICK_API OperatorHandle find_op(std::string_view name);
/// Like find_op, but std::nullopt when absent.
[[nodiscard]] WICK_API std::optional<OperatorHandle> try_find_op(std::string_view name);

/// Keyword arguments of a boxed call, in the order given.
using Kwargs = std::vector<std::pair<std::string, Value>>;
/// A view of keyword arguments (binds to a Kwargs without copying).
using KwargsRef = ArrayRef<std::pair<std::string, Value>>;

/// The boxed call with Python's argument conventions: binds positional and
/// keyword arguments to the schema (defaults filled in), picks the `out`
/// overload when `out=` is given, accepts varargs for a lone int-list
/// parameter (`torch.ones(2, 3)`), wraps Python numbers passed for tensors
/// as wrapped-number tensors, and returns the single result, a tuple for
/// several, or None. Errors are TypeError naming the operator and argument:
///   "add(): argument 'other' (position 2) must be Tensor, not str" (Note [Binding errors]).
WICK_API Value call(std::string_view op, std::vector<Value> args, const Kwargs& kwargs = {});
/// What `call` would pass the operator, without calling it: the schema's
/// arguments in order, defaults filled in and values converted. Throws the
/// same TypeErrors as `call`.
[[nodiscard]] WICK_API Stack bind_call(std::string_view op, std::vector<Value> args, const Kwargs& kwargs = {});

/// Registers a boxed per-key fallback for every operator, e.g. for
/// `Override`; see Library::fallback for the scoped (RAII) form.

}  // namespace wick

#include "wick/boxing.h"
