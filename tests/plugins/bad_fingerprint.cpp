// tests/plugins/bad_fingerprint.cpp - built "with another compiler".
#include <wick/plugin.h>

namespace {
const char* init(wick::Registrar*) { return nullptr; }
}  // namespace

WICK_PLUGIN_EXPORT const wick::PluginDescriptor* wick_plugin_descriptor() {
  static const wick::PluginDescriptor d{WICK_PLUGIN_ABI_VERSION, "test_bad_fingerprint", "1.0", WICK_SDK_VERSION,
                                        "msvc-19;msvcprt;cxx201703", &init};
  return &d;
}
