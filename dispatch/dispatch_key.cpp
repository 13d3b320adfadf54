// dispatch/dispatch_key.cpp - key names and the thread-local include/exclude sets.
/// \file
#include "wick/dispatch_key.h"

#include <string>

#include "wick/error.h"

namespace wick {

std::string dispatch_key_name(DispatchKey k) {
  switch (k) {
    case DispatchKey::kCPU: return "CPU";
    case DispatchKey::kCUDA: return "CUDA";
    case DispatchKey::kMeta: return "Meta";
    case DispatchKey::kOverride: return "Override";
    case DispatchKey::kAutograd: return "Autograd";
    case DispatchKey::kAutocast: return "Autocast";
    case DispatchKey::kCompositeImplicit: return "CompositeImplicit";
    default: break;
  }
  if (is_backend_key(k)) {
    std::string name = device_type_name(device_type_of(k));
    if (name != "unknown") return name;
  }
  return "Key" + std::to_string(static_cast<int>(k));
}

DispatchKey parse_dispatch_key(std::string_view name) {
  for (int i = 0; i < kNumDispatchKeys; ++i) {
    auto k = static_cast<DispatchKey>(i);
    if (dispatch_key_name(k) == name) return k;
  }
  throw ValueError(detail::str_cat("unknown dispatch key '", name, "'"));
}

namespace detail {
constinit thread_local LocalDispatchKeySet tls_dispatch_keys __attribute__((tls_model("initial-exec")));
}  // namespace detail

ExcludeDispatchKeyGuard::ExcludeDispatchKeyGuard(DispatchKeySet keys) noexcept
    : saved_(tls_local_dispatch_key_set().excluded) {
  tls_local_dispatch_key_set().excluded = saved_ | keys;
}
ExcludeDispatchKeyGuard::~ExcludeDispatchKeyGuard() { tls_local_dispatch_key_set().excluded = saved_; }

IncludeDispatchKeyGuard::IncludeDispatchKeyGuard(DispatchKeySet keys) noexcept
    : saved_(tls_local_dispatch_key_set().included) {
  tls_local_dispatch_key_set().included = saved_ | keys;
}
IncludeDispatchKeyGuard::~IncludeDispatchKeyGuard() { tls_local_dispatch_key_set().included = saved_; }

namespace {
constinit thread_local bool tls_inference_mode = false;
}  // namespace

InferenceMode::InferenceMode(bool enabled) noexcept
    : saved_excluded_(tls_local_dispatch_key_set().excluded), was_enabled_(tls_inference_mode) {
  tls_local_dispatch_key_set().excluded = enabled ? saved_excluded_.add(DispatchKey::kAutograd)
                                                  : saved_excluded_.remove(DispatchKey::kAutograd);
  tls_inference_mode = enabled;
}
InferenceMode::~InferenceMode() {
  tls_local_dispatch_key_set().excluded = saved_excluded_;
  tls_inference_mode = was_enabled_;
}
bool InferenceMode::is_enabled() noexcept { return tls_inference_mode; }

}  // namespace wick
