// dispatch/autocast_internal.h - private: registering the built-in Autocast kernels at start-up.
/// \file
#pragma once

#include <memory>
#include <vector>

#include "wick/library.h"

namespace wick {

/// PyTorch 1.13's autocast lists as Autocast kernels (dispatch/autocast.cpp).
void register_autocast_kernels(std::vector<std::unique_ptr<Library>>& out);

}  // namespace wick
