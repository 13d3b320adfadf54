// tests/plugins/good.cpp - a well-formed plugin: one operator with a CPU kernel.
#include <wick/ops.h>
#include <wick/plugin.h>

namespace {
wick::Tensor twice(const wick::Tensor& x) { return wick::add(x, x); }
}  // namespace

WICK_PLUGIN("test_good", "1.2.3", registrar) {
  registrar.library("testplug").def("twice(Tensor self) -> Tensor");
  registrar.library("testplug", wick::DispatchKey::kCPU).impl("twice", &twice);
}
