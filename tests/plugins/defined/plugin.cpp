// tests/plugins/defined/plugin.cpp - a plugin whose operators come from its one definition file.
/// \file
/// defined.ops declares the operators; the build generates their catalog
/// table and typed API (defined_ops.h). This file only registers the table
/// and the CPU kernels, which call other operators through the typed API.
#include <wick/ops.h>
#include <wick/plugin.h>

#include "test_defined_ops.h"

namespace {

wick::Tensor scale_cpu(const wick::Tensor& self, double factor) { return wick::mul(self, factor); }
wick::Tensor offset_cpu(const wick::Tensor& self, const wick::Tensor& other, const wick::Scalar& alpha) {
  return wick::add(self, other, alpha);
}

}  // namespace

WICK_PLUGIN("test_defined", "0.0.1", registrar) {
  registrar.define(test_defined_catalog());
  registrar.library("testdefined", wick::DispatchKey::kCPU).impl("scale", &scale_cpu).impl("offset", &offset_cpu);
}
