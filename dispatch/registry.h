// dispatch/registry.h - private: operator entries and the process-wide registry.
/// \file
/// The registration record (what is registered, by whom, where) is kept apart
/// from the hot `DispatchTable` that calls go through; see Note [Dispatch
/// table] in wick/dispatcher.h. Everything here is guarded by
/// `Registry::mutex`, except reading `OperatorEntry::table`.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <vector>

#include "core/demangle.h"
#include "wick/catalog.h"
#include "wick/dispatcher.h"
#include "wick/library.h"
#include "wick/schema.h"

namespace wick {

/// One registered kernel or fallback.
struct KernelRecord {
  KernelFunction kernel;
  std::shared_ptr<BoxedFunctor> keep;  // owns a boxed functor, if any
  std::string owner;                   // plugin name or "host"
  std::string where;                   // file:line
  std::uint64_t id = 0;
};

class OperatorEntry final : public OperatorTableSlot {
 public:
  OperatorEntry(std::string full_name, std::string qualified, std::string ns, std::string base,
                std::string overload);

  const std::string full_name;  // "torch.add.out"
  const std::string qualified;  // "torch.add"
  const std::string ns;         // "torch"
  const std::string base;       // "add"
  const std::string overload;   // "out" or ""

  // Guarded by Registry::mutex.
  std::shared_ptr<const FunctionSchema> schema;
  std::string def_owner;
  std::string def_where;
  bool ignored = false;
  bool property = false;  ///< a Tensor property (DefOptions::property)
  OperatorEntry* alias_target = nullptr;
  /// The meta function glue of a structured operator (wick/structured.h).
  const StructuredGlue* structured = nullptr;
  /// From the definition: sample calls (one per line) and tags.
  std::string samples;
  std::string tags;
  std::vector<OperatorEntry*> aliases;
  std::array<std::vector<KernelRecord>, kNumDispatchKeys> kernels;
  /// Mangled name of the C++ signature of the typed kernels (empty: none
  /// yet). Pinned once a typed handle exists: it never changes after that.
  std::string cpp_signature;
  bool signature_pinned = false;

  [[nodiscard]] bool defined() const noexcept { return schema != nullptr; }
  /// Python spells a function's `self` parameter `input` (torch.add(input,
  /// other)); methods keep `self`. Signatures print it so and keyword
  /// arguments bind by it.
  [[nodiscard]] bool self_is_input() const noexcept { return !is_method_namespace(ns); }
  [[nodiscard]] const DispatchTable& current_table() const noexcept { return *table.load(std::memory_order_acquire); }
  /// Recomputes and publishes the table (caller holds the registry lock).
  void rebuild();

  /// The kernel key `k` runs and where it comes from; nullptr when none.
  struct Resolved {
    const KernelRecord* record = nullptr;
    const char* source = "";
  };
  [[nodiscard]] Resolved resolve(int k) const;

 private:
  std::vector<std::unique_ptr<DispatchTable>> tables_;  // current and retired
};

class Registry final {
 public:
  static Registry& get();

  std::shared_mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<OperatorEntry>> ops;  // by full name
  std::array<std::vector<KernelRecord>, kNumDispatchKeys> fallbacks;
  std::uint64_t next_id = 1;
  /// Boxed functors of removed kernels: retired tables may still point at
  /// them, so they live as long as those tables (until exit).
  std::vector<std::shared_ptr<BoxedFunctor>> retired_functors;
  /// The core's own registration blocks (Note [Start-up]).
  std::vector<std::unique_ptr<Library>> builtins;
  /// Set once wick::init() has registered the builtins.
  std::atomic<bool> started{false};
  /// Appended to "no kernel for dispatch key K" errors: what the start-up
  /// layer knows about the backend of K (directories searched, plugins
  /// refused). Installed by wick::init(); a lower layer cannot ask for it.
  using MissingKernelHint = std::string (*)(DispatchKey wanted);
  std::atomic<MissingKernelHint> missing_kernel_hint{nullptr};

  /// Caller holds the lock (shared is enough).
  OperatorEntry* find(std::string_view full_name) const;
  /// Caller holds the exclusive lock. Splits "ns.name[.overload]" using the
  /// given namespace.
  OperatorEntry& find_or_create(const std::string& ns, const std::string& base, const std::string& overload);
  /// Rebuilds `e` and every alias of it (exclusive lock held).
  void rebuild(OperatorEntry& e);
  void rebuild_all();
  /// Re-derives `root`'s C++ signature from its remaining typed kernels
  /// (and its aliases'), unless pinned.
  void recompute_signature(OperatorEntry& root);

 private:
  Registry();
};


}  // namespace wick
