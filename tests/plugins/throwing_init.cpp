// tests/plugins/throwing_init.cpp - init registers, then throws: all rolled back.
#include <stdexcept>

#include <wick/plugin.h>

namespace {
wick::Tensor ident(const wick::Tensor& x) { return x; }
}  // namespace

WICK_PLUGIN("test_throwing", "0.0.1", registrar) {
  registrar.library("testthrow").def("f(Tensor self) -> Tensor");
  registrar.library("testthrow", wick::DispatchKey::kCPU).impl("f", &ident);
  throw std::runtime_error("deliberate failure in init");
}
