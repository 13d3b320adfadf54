// tests/plugins/conflict.cpp - registers a second CPU kernel for torch.neg.
#include <wick/plugin.h>

namespace {
wick::Tensor my_neg(const wick::Tensor& x) { return x; }
}  // namespace

WICK_PLUGIN("test_conflict", "0.0.1", registrar) {
  registrar.library("testconflict").def("g(Tensor self) -> Tensor");
  registrar.library("torch", wick::DispatchKey::kCPU).impl("neg", &my_neg);
}
