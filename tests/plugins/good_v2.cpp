// tests/plugins/good_v2.cpp - test_good "rebuilt": version 2.0.0, another kernel, and a formula.
#include <wick/ops.h>
#include <wick/plugin.h>

namespace {
wick::Tensor thrice(const wick::Tensor& x) { return wick::add(wick::add(x, x), x); }
// A formula that records nothing (as a non-differentiable op would), enough to
// see that it comes and goes with the plugin.
wick::Tensor thrice_autograd(const wick::Tensor& x) {
  wick::ExcludeDispatchKeyGuard below(wick::DispatchKey::kAutograd);
  return thrice(x.detach());
}
}  // namespace

WICK_PLUGIN("test_good", "2.0.0", registrar) {
  registrar.library("testplug").def("twice(Tensor self) -> Tensor");
  registrar.library("testplug", wick::DispatchKey::kCPU).impl("twice", &thrice);
  registrar.library("testplug", wick::DispatchKey::kAutograd).impl("twice", &thrice_autograd);
}
