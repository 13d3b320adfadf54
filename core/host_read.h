// core/host_read.h - private: reading a device tensor's values on the host.
/// \file
/// Note [Host reads]
/// `item()` and printing read elements through host memory. The data model
/// cannot copy a device tensor itself: the copy is the device backend's
/// `copy_` kernel, reached through the dispatcher, which sits above this
/// layer. So the start-up (plugins/loader/startup.cpp) installs the copy
/// function here, and the data model calls it without knowing the layers
/// above it.
#pragma once

#include "wick/tensor.h"

namespace wick {

/// Makes a CPU tensor with `t`'s values, waiting for the device's work.
using HostCopyFn = Tensor (*)(const Tensor& t);
/// Installs the host copy (the start-up does, once).
void set_host_copy(HostCopyFn fn) noexcept;
/// `t`'s values in a CPU tensor; RuntimeError before wick::init() has run.
[[nodiscard]] Tensor host_copy(const Tensor& t);

}  // namespace wick
