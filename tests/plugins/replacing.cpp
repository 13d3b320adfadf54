// tests/plugins/replacing.cpp - replaces the CPU kernel of torch.neg on purpose (replace = true).
#include <wick/ops.h>
#include <wick/plugin.h>

namespace {
wick::Tensor neg_twice(const wick::Tensor& x) { return wick::mul(x, wick::wrap_scalar(-2)); }
}  // namespace

WICK_PLUGIN("test_replacing", "0.0.1", registrar) {
  registrar.library("torch", wick::DispatchKey::kCPU).impl("neg", &neg_twice, /*replace=*/true);
}
