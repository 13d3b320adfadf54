// core/distributed/collectives.h - private: registering the torch.distributed operators' kernels.
/// \file
#pragma once

#include <memory>
#include <vector>

#include "wick/library.h"

namespace wick::distributed {

/// Adds the composite kernels of torch.distributed.* (core/distributed/collectives.cpp) to `out`.
void register_distributed_kernels(std::vector<std::unique_ptr<Library>>& out);

}  // namespace wick::distributed
