// tests/plugins/pinned.cpp - a plugin that glibc cannot unmap: a thread_local with a destructor on a live thread.
/// \file
/// Its init uses a `thread_local std::string` on the calling thread, which
/// lives on after the unload: glibc must keep the library mapped for the
/// destructor to run when that thread exits. The loader reports it and
/// guards the path (Loader.PinnedPluginIsReportedAndItsPathGuarded).
#include <string>

#include <wick/ops.h>
#include <wick/plugin.h>

namespace {

wick::Tensor ident(const wick::Tensor& self) { return self; }

}  // namespace

WICK_PLUGIN("test_pinned", "1.0.0", registrar) {
  thread_local std::string t_last_loaded;
  t_last_loaded = "test_pinned";
  registrar.library("testpinned").def("ident(Tensor self) -> Tensor");
  registrar.library("testpinned", wick::DispatchKey::kCPU).impl("ident", &ident);
}
