// tools/bench/launch_probe.h - the launch floor of wick_cuda_bench (launch_probe.cu).
#pragma once

#include <cuda_runtime_api.h>

namespace wick_bench {

/// An empty kernel, one thread, `<<<>>>`.
void launch_empty(cudaStream_t stream);
/// The same kernel through cudaLaunchKernel.
cudaError_t launch_empty_api(cudaStream_t stream);
/// A do-nothing kernel of one block of 256 threads, with 40 bytes of
/// parameters (as wick's flat elementwise kernel).
void launch_with_params(cudaStream_t stream);

}  // namespace wick_bench
