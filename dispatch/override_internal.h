// dispatch/override_internal.h - private: type registration and the boxed-call frame.
/// \file
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "wick/library.h"
#include "wick/override.h"

namespace wick {

/// Registers a type (Library::register_type); PluginError for a taken name.
const TypeInfo& register_type(TypeSpec spec, const std::string& owner, const std::string& where);
/// Removes the name (the TypeInfo itself stays valid).
void unregister_type(const TypeInfo& type) noexcept;
/// Closes (or reopens) a registered type while its plugin is being unloaded:
/// closed, it makes no new instances and its handler is not called.
void set_type_open(const TypeInfo& type, bool open) noexcept;

/// Note [Boxed call frame]
/// `wick::call` records the arguments exactly as its caller gave them
/// (positional and keyword) for the duration of the dispatch, so that the
/// Override kernel hands handlers what the user wrote (PyTorch passes
/// __torch_function__ the original args and kwargs) rather than the bound,
/// default-filled stack. The kernel takes the frame only if it belongs to the
/// operator it is handling, and clears it while handlers run. The frame also
/// carries the schema wick::call holds, so the kernel need not take the
/// registry lock to get it again.
struct BoxedCallFrame {
  const void* op_entry = nullptr;
  const FunctionSchema* schema = nullptr;  ///< held by wick::call for the call
  const std::vector<Value>* args = nullptr;
  const Kwargs* kwargs = nullptr;
};
BoxedCallFrame*& tls_boxed_call_frame() noexcept;

/// Registers the Override fallback (the protocol) with the builtins.
void register_override_protocol(std::vector<std::unique_ptr<Library>>& out);

}  // namespace wick
