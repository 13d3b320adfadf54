// plugins/loader/startup.h - private: registering libwick's own operators and kernels.
/// \file
#pragma once

namespace wick {

/// Registers the builtins once per process (thread-safe): the torch catalog,
/// the composite kernels, the override protocol and the autograd formulas,
/// then marks the registry started. See Note [Start-up].
void register_builtins();

}  // namespace wick
