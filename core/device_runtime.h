// core/device_runtime.h - private: installing a device type's runtime (for the Registrar).
/// \file
#pragma once

#include "wick/device_runtime.h"

namespace wick::detail {

/// Installs `runtime` and its allocator for `type`; nullptr removes both.
/// PluginError when another runtime is installed for `type`.
void set_device_runtime(DeviceType type, DeviceRuntime* runtime);

}  // namespace wick::detail
