// wick/dispatch_key.h - dispatch keys, 64-bit key sets and the TLS guards.
/// \file
/// Note [Dispatch key priority]
/// A key's priority is its bit position in a 64-bit set: the dispatcher runs
/// the kernel of the highest set bit of
///   (union of the arguments' key sets | TLS included) & ~TLS excluded
///     & (the keys this operator has a kernel or fallback for).
/// Backends occupy the low bits (CPU = 0, CUDA = 1, plugin backends 2..14,
/// Meta = 15),
/// `Override` (tensor subclasses and tensor-likes) sits above them,
/// `Autograd` above that and `Autocast` (wick/autocast.h) on top. Gaps are reserved so keys can be added without
/// renumbering across the plugin ABI.
///
///   {
///     wick::ExcludeDispatchKeyGuard g(wick::DispatchKey::kAutograd);
///     y = wick::mul(x, x);   // runs below Autograd
///   }
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>

#include "wick/device.h"
#include "wick/export.h"

namespace wick {

/// The dispatch keys; a key's value is its bit, and so its priority (Note [Dispatch key priority]). Values are stable across the plugin ABI.
enum class DispatchKey : std::uint8_t {
  kCPU = 0,
  kCUDA = 1,
  kFirstPluginBackend = 2,  // 2..14: backends registered by plugins
  kLastPluginBackend = 14,
  /// Tensors without storage: every operator through its meta function. The
  /// highest backend, so that mixing meta with another device reaches the
  /// meta kernels (which raise the device-mismatch error).
  kMeta = 15,
  // 16..31 reserved for backend-like keys
  kOverride = 32,  // __torch_function__-style handlers
  // 33..47 reserved
  kAutograd = 48,
  // 49..55 reserved
  /// Casts the inputs of the operators autocast covers, above Autograd so
  /// that the casts are recorded (wick/autocast.h).
  kAutocast = 56,
  // 57..62 reserved
  /// Alias key: a kernel registered here fills every backend slot (0..15)
  /// that has no kernel of its own (like c10's CompositeImplicitAutograd).
  kCompositeImplicit = 63,
};
/// Bits in a DispatchKeySet.
inline constexpr int kNumDispatchKeys = 64;
/// Keys 0 .. kNumBackendKeys - 1 are backend keys (one per device type).
inline constexpr int kNumBackendKeys = 16;

/// "CPU", "CUDA", "Override", "Autograd", "CompositeImplicit", or the name of
/// the plugin backend's device type.
[[nodiscard]] WICK_API std::string dispatch_key_name(DispatchKey k);
/// Inverse of dispatch_key_name; throws ValueError.
[[nodiscard]] WICK_API DispatchKey parse_dispatch_key(std::string_view name);
/// True for a backend key (CPU, CUDA, a plugin backend, Meta).
[[nodiscard]] constexpr bool is_backend_key(DispatchKey k) noexcept {
  return static_cast<int>(k) < kNumBackendKeys;
}
/// The backend key of device type `t` (same number).
[[nodiscard]] constexpr DispatchKey backend_key(DeviceType t) noexcept {
  return static_cast<DispatchKey>(static_cast<int>(t));
}
/// The device type of backend key `k` (same number; meaningless for a non-backend key).
[[nodiscard]] constexpr DeviceType device_type_of(DispatchKey k) noexcept {
  return static_cast<DeviceType>(static_cast<int>(k));
}

/// A set of dispatch keys as a 64-bit mask (bit i is key i); a value type, each operation returns a new set.
class DispatchKeySet final {
 public:
  constexpr DispatchKeySet() noexcept = default;
  /// The set holding only `k`.
  constexpr explicit DispatchKeySet(DispatchKey k) noexcept
      : bits_(std::uint64_t{1} << static_cast<int>(k)) {}
  /// The set whose mask is `bits`.
  static constexpr DispatchKeySet from_bits(std::uint64_t bits) noexcept {
    DispatchKeySet s;
    s.bits_ = bits;
    return s;
  }
  /// Every backend key (bits 0 .. 15).
  static constexpr DispatchKeySet all_backends() noexcept {
    return from_bits((std::uint64_t{1} << kNumBackendKeys) - 1);
  }

  /// The 64-bit mask.
  [[nodiscard]] constexpr std::uint64_t bits() const noexcept { return bits_; }
  /// True when no key is in the set.
  [[nodiscard]] constexpr bool empty() const noexcept { return bits_ == 0; }
  /// True when `k` is in the set.
  [[nodiscard]] constexpr bool has(DispatchKey k) const noexcept {
    return (bits_ >> static_cast<int>(k)) & 1U;
  }
  /// True when some backend key is in the set.
  [[nodiscard]] constexpr bool has_backend() const noexcept {
    return (bits_ & all_backends().bits_) != 0;
  }
  /// This set plus `k`.
  [[nodiscard]] constexpr DispatchKeySet add(DispatchKey k) const noexcept {
    return from_bits(bits_ | DispatchKeySet(k).bits_);
  }
  /// This set without `k`.
  [[nodiscard]] constexpr DispatchKeySet remove(DispatchKey k) const noexcept {
    return from_bits(bits_ & ~DispatchKeySet(k).bits_);
  }
  /// Highest-priority key; the set must not be empty.
  [[nodiscard]] constexpr DispatchKey highest() const noexcept {
    return static_cast<DispatchKey>(63 - std::countl_zero(bits_));
  }
  /// The keys strictly below `k`: what a kernel at `k` redispatches to.
  [[nodiscard]] constexpr DispatchKeySet below(DispatchKey k) const noexcept {
    return from_bits(bits_ & ((std::uint64_t{1} << static_cast<int>(k)) - 1));
  }
  /// Union.
  constexpr DispatchKeySet operator|(DispatchKeySet o) const noexcept { return from_bits(bits_ | o.bits_); }
  /// Intersection.
  constexpr DispatchKeySet operator&(DispatchKeySet o) const noexcept { return from_bits(bits_ & o.bits_); }
  /// Difference: the keys of this set that are not in `o`.
  constexpr DispatchKeySet operator-(DispatchKeySet o) const noexcept { return from_bits(bits_ & ~o.bits_); }
  /// Equal when the masks are.
  constexpr bool operator==(const DispatchKeySet&) const noexcept = default;

 private:
  std::uint64_t bits_ = 0;
};

/// The keys a call dispatches on: the arguments' keys with the thread's
/// includes added and excludes removed, and exactly one backend key, the
/// highest present (CPU when none is: factory functions). A call never falls
/// back to a lower backend: a CUDA tensor meeting a wrapped Python number
/// (a CPU 0-dim tensor) runs the CUDA kernel or fails.
[[nodiscard]] constexpr DispatchKeySet effective_keys(DispatchKeySet args, DispatchKeySet included,
                                                      DispatchKeySet excluded) noexcept {
  constexpr std::uint64_t kBackendMask = (std::uint64_t{1} << kNumBackendKeys) - 1;
  const std::uint64_t bits = ((args | included) - excluded).bits();
  const std::uint64_t backends = bits & kBackendMask;
  const std::uint64_t top = backends != 0 ? std::uint64_t{1} << (63 - std::countl_zero(backends)) : 1;
  return DispatchKeySet::from_bits((bits & ~kBackendMask) | top);
}

/// Thread-local included/excluded keys, applied to every dispatch.
struct LocalDispatchKeySet {
  DispatchKeySet included; ///< Keys added to every dispatch of this thread.
  DispatchKeySet excluded; ///< Keys removed from every dispatch of this thread.
};
/// Note [TLS dispatch keys]
/// The include/exclude sets live in one exported thread_local with constant
/// initialisation and the initial-exec model, so reading them on the hot path
/// is a single %fs-relative load: no call, no lazy-init wrapper. libwick is
/// always loaded with its host, where static TLS is available.
namespace detail {
extern WICK_API constinit thread_local LocalDispatchKeySet tls_dispatch_keys
    __attribute__((tls_model("initial-exec")));
}  // namespace detail

/// The calling thread's include/exclude sets.
[[nodiscard]] inline LocalDispatchKeySet& tls_local_dispatch_key_set() noexcept {
  return detail::tls_dispatch_keys;
}

/// Excludes keys for a scope (the general exclude guard). Nestable.
class WICK_API ExcludeDispatchKeyGuard final {
 public:
  /// Adds `keys` to the thread's excluded set until destruction, which restores the previous set.
  explicit ExcludeDispatchKeyGuard(DispatchKeySet keys) noexcept;
  /// Excludes the single key `key` (see the DispatchKeySet overload).
  explicit ExcludeDispatchKeyGuard(DispatchKey key) noexcept
      : ExcludeDispatchKeyGuard(DispatchKeySet(key)) {}
  ~ExcludeDispatchKeyGuard();
  ExcludeDispatchKeyGuard(const ExcludeDispatchKeyGuard&) = delete;
  ExcludeDispatchKeyGuard& operator=(const ExcludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

/// Forces keys into every dispatch for a scope. Nestable.
class WICK_API IncludeDispatchKeyGuard final {
 public:
  /// Adds `keys` to the thread's included set until destruction, which restores the previous set.
  explicit IncludeDispatchKeyGuard(DispatchKeySet keys) noexcept;
  /// Includes the single key `key` (see the DispatchKeySet overload).
  explicit IncludeDispatchKeyGuard(DispatchKey key) noexcept
      : IncludeDispatchKeyGuard(DispatchKeySet(key)) {}
  ~IncludeDispatchKeyGuard();
  IncludeDispatchKeyGuard(const IncludeDispatchKeyGuard&) = delete;
  IncludeDispatchKeyGuard& operator=(const IncludeDispatchKeyGuard&) = delete;

 private:
  DispatchKeySet saved_;
};

/// Turns gradient recording off for a scope (excludes `Autograd`).
class WICK_API NoGradGuard final {
 public:
  NoGradGuard() noexcept : guard_(DispatchKey::kAutograd) {}

 private:
  ExcludeDispatchKeyGuard guard_;
};

/// torch::InferenceMode: for a scope, no operation records the graph or
/// tracks forward-mode tangents (the `Autograd` key is excluded, as under
/// NoGradGuard), so inference pays nothing for autograd.
/// `InferenceMode guard(false)` turns recording back on inside one. Nestable.
/// wick has no separate "inference tensors": what is made inside is an
/// ordinary tensor that does not require grad, usable anywhere afterwards.
class WICK_API InferenceMode final {
 public:
  /// Enters inference mode (`enabled`, the default) or leaves it (false) until destruction, which restores the previous state.
  explicit InferenceMode(bool enabled = true) noexcept;
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  /// Whether the calling thread is inside an enabled InferenceMode scope.
  [[nodiscard]] static bool is_enabled() noexcept;

 private:
  DispatchKeySet saved_excluded_;
  bool was_enabled_;
};

/// Turns the override protocol off for a scope (excludes `Override`).
class WICK_API DisableOverrideGuard final {
 public:
  DisableOverrideGuard() noexcept : guard_(DispatchKey::kOverride) {}

 private:
  ExcludeDispatchKeyGuard guard_;
};

}  // namespace wick
