// wick/wick.h - the whole user API in one include, as <torch/torch.h> is for libtorch.
/// \file
/// What an application needs to build, train, save and run models:
///
///   #include <wick/wick.h>
///
///   int main() {
///     wick::init();                                   // loads the CPU (and CUDA) backends
///     auto x = wick::tensor({{1., 2.}, {3., 4.}}, wick::dtype(wick::kFloat64).requires_grad(true));
///     auto y = (x * x).sum();
///     y.backward();
///     std::cout << x.grad() << "\n";                  // tensor([[2., 4.], [6., 8.]], dtype=torch.float64)
///   }
///
/// Writing a plugin (kernels, operators, backends) takes wick/plugin.h and
/// wick/library.h instead; the meta and structured-kernel headers are for
/// backend authors.
#pragma once

#include "wick/autocast.h"            // IWYU pragma: export
#include "wick/autograd.h"            // IWYU pragma: export
#include "wick/autograd_function.h"   // IWYU pragma: export
#include "wick/backends.h"            // IWYU pragma: export
#include "wick/callable.h"            // IWYU pragma: export
#include "wick/catalog.h"             // IWYU pragma: export
#include "wick/cuda.h"                // IWYU pragma: export
#include "wick/data.h"                // IWYU pragma: export
#include "wick/device.h"              // IWYU pragma: export
#include "wick/distributed.h"         // IWYU pragma: export
#include "wick/dlpack.h"              // IWYU pragma: export
#include "wick/dtype.h"               // IWYU pragma: export
#include "wick/error.h"               // IWYU pragma: export
#include "wick/forward_ad.h"          // IWYU pragma: export
#include "wick/grad_scaler.h"         // IWYU pragma: export
#include "wick/gradcheck.h"           // IWYU pragma: export
#include "wick/indexing.h"            // IWYU pragma: export
#include "wick/loader.h"              // IWYU pragma: export
#include "wick/nn.h"                  // IWYU pragma: export
#include "wick/nn_functional.h"       // IWYU pragma: export
#include "wick/nn_modules.h"          // IWYU pragma: export
#include "wick/nn_parallel.h"         // IWYU pragma: export
#include "wick/nn_rnn_utils.h"        // IWYU pragma: export
#include "wick/nn_utils.h"            // IWYU pragma: export
#include "wick/ops.h"                 // IWYU pragma: export
#include "wick/optim.h"               // IWYU pragma: export
#include "wick/optim_schedulers.h"    // IWYU pragma: export
#include "wick/override.h"            // IWYU pragma: export
#include "wick/random.h"              // IWYU pragma: export
#include "wick/scalar.h"              // IWYU pragma: export
#include "wick/serialize.h"           // IWYU pragma: export
#include "wick/tensor.h"              // IWYU pragma: export
#include "wick/tensor_options.h"      // IWYU pragma: export
#include "wick/value.h"               // IWYU pragma: export
#include "wick/version.h"             // IWYU pragma: export
