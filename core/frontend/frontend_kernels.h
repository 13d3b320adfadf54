// core/frontend/frontend_kernels.h - private: the operator kernels the frontend layer registers.
/// \file
/// Kernels that need the frontend (printing: Tensor.__repr__ and __format__
/// print a tensor), registered by `wick::init()` (plugins/loader/startup.cpp)
/// with the composite kernels below them.
#pragma once

#include <memory>
#include <vector>

#include "wick/library.h"

namespace wick {

/// Tensor.__format__ and __repr__ (core/frontend/printing.cpp).
void register_printing_kernels(std::vector<std::unique_ptr<Library>>& out);

}  // namespace wick
