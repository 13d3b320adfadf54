// tests/plugins/bad_sdk.cpp - built against another SDK version.
#include <wick/plugin.h>

namespace {
const char* init(wick::Registrar*) { return nullptr; }
}  // namespace

WICK_PLUGIN_EXPORT const wick::PluginDescriptor* wick_plugin_descriptor() {
  static const wick::PluginDescriptor d{WICK_PLUGIN_ABI_VERSION, "test_bad_sdk", "1.0", "0.0.9",
                                        WICK_ABI_FINGERPRINT,    &init};
  return &d;
}
