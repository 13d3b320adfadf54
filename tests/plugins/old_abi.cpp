// tests/plugins/old_abi.cpp - a descriptor from an older plugin ABI (version 1).
#include <wick/plugin.h>

namespace {
const char* init(wick::Registrar*) { return nullptr; }
}  // namespace

WICK_PLUGIN_EXPORT const wick::PluginDescriptor* wick_plugin_descriptor() {
  static const wick::PluginDescriptor d{1, "test_old_abi", "0.1", WICK_SDK_VERSION, WICK_ABI_FINGERPRINT, &init};
  return &d;
}
