// tests/plugins/bad_abi.cpp - a descriptor from a future plugin ABI (version 99).
#include <wick/plugin.h>

namespace {
const char* init(wick::Registrar*) { return nullptr; }
}  // namespace

WICK_PLUGIN_EXPORT const wick::PluginDescriptor* wick_plugin_descriptor() {
  static const wick::PluginDescriptor d{99, "test_bad_abi", "9.9", WICK_SDK_VERSION,
                                        WICK_ABI_FINGERPRINT, &init};
  return &d;
}
