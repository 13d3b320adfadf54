// tests/plugins/keeps_helper.cpp - a plugin that opens a library of its own and keeps it mapped, as the CUDA backend
// does.
/// \file
/// Opens `helper/libwick_test_kept_helper.so` with `keep_mapped`: unloading
/// the plugin unmaps the plugin but not the helper, and is not reported as
/// a failure (Loader.KeptLibrariesStayMappedWithoutFailingTheUnload).
#include <wick/loader.h>
#include <wick/ops.h>
#include <wick/plugin.h>

namespace {

int (*g_factor)() = nullptr;

wick::Tensor scale(const wick::Tensor& self) {
  return wick::mul(self, wick::wrap_scalar(static_cast<std::int64_t>(g_factor())));
}

}  // namespace

WICK_PLUGIN("test_keeps_helper", "1.0.0", registrar) {
  const wick::CheckedLibrary& helper =
      wick::load_plugin_library(registrar, "helper/libwick_test_kept_helper.so", {.keep_mapped = true});
  g_factor = helper.function<int()>("wick_test_helper_factor");
  registrar.library("testkeeps").def("scale(Tensor self) -> Tensor");
  registrar.library("testkeeps", wick::DispatchKey::kCPU).impl("scale", &scale);
}
