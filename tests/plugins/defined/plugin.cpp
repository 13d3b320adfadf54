// tests/plugins/defined/plugin.cpp - a plugin whose operators come from its one definition file.
/// \file
/// defined.ops declares the operators; the build generates their catalog
/// table, the typed API (test_defined_ops.h) and the meta function
/// declarations (test_defined_meta.h), and declares scale's CPU kernel with
/// the function that registers it (test_defined_kernels.h, `dispatch: CPU`).
/// This file writes scale's meta function and CPU kernel, and offset's plain
/// CPU kernel; the out= variant and the Meta backend of scale come from the
/// definition.
#include <wick/ops.h>
#include <wick/plugin.h>

#include "test_defined_kernels.h"
#include "test_defined_meta.h"
#include "test_defined_ops.h"

namespace testdefined::meta {

wick::ElementwiseMeta scale(const wick::Tensor& self, double /*factor*/) {
  return wick::meta::unary_op("testdefined.scale", self, wick::meta::UnaryKind::kFloat);
}

}  // namespace testdefined::meta

// The computation only: out has the meta function's shape and dtype.
void testdefined::cpu::scale(const wick::ElementwiseMeta& m, const wick::Tensor& out, const wick::Tensor& self,
                             double factor) {
  const wick::Tensor x = self.contiguous().to(m.compute);
  wick::Tensor result = out;
  if (m.compute == wick::ScalarType::kFloat32) {
    const float* in = x.data_ptr<float>();
    float* dst = result.data_ptr<float>();
    for (std::int64_t i = 0; i < x.numel(); ++i) dst[i] = in[i] * static_cast<float>(factor);
  } else {
    const double* in = x.data_ptr<double>();
    double* dst = result.data_ptr<double>();
    for (std::int64_t i = 0; i < x.numel(); ++i) dst[i] = in[i] * factor;
  }
}

namespace {

wick::Tensor offset_cpu(const wick::Tensor& self, const wick::Tensor& other, const wick::Scalar& alpha) {
  return wick::add(self, other, alpha);
}

}  // namespace

WICK_PLUGIN("test_defined", "0.0.1", registrar) {
  registrar.define(test_defined_catalog());
  testdefined::cpu::register_test_defined_kernels(registrar, wick::DispatchKey::kCPU);
  registrar.library("testdefined", wick::DispatchKey::kCPU).impl("offset", &offset_cpu);
}
