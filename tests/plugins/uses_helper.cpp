// tests/plugins/uses_helper.cpp - a plugin that opens a library of its own through the loader's checks.
/// \file
/// Checks `helper/libwick_test_helper.so` (beside this file) first, then
/// opens it with `wick::load_plugin_library` and registers
/// `testhelper.scale(Tensor self) -> Tensor`, which multiplies by the
/// helper's factor (7). The loader closes the helper when this plugin goes.
#include <wick/loader.h>
#include <wick/ops.h>
#include <wick/plugin.h>

namespace {

int (*g_factor)() = nullptr;

wick::Tensor scale(const wick::Tensor& self) {
  return wick::mul(self, wick::wrap_scalar(static_cast<std::int64_t>(g_factor())));
}

}  // namespace

WICK_PLUGIN("test_uses_helper", "1.0.0", registrar) {
  wick::check_plugin_library(registrar, "helper/libwick_test_helper.so");
  const wick::CheckedLibrary& helper = wick::load_plugin_library(registrar, "helper/libwick_test_helper.so");
  g_factor = helper.function<int()>("wick_test_helper_factor");
  (void)helper.symbol("wick_test_helper_factor");
  registrar.library("testhelper").def("scale(Tensor self) -> Tensor");
  registrar.library("testhelper", wick::DispatchKey::kCPU).impl("scale", &scale);
}
