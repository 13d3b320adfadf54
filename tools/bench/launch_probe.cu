// tools/bench/launch_probe.cu - the launch floor of wick_cuda_bench's host-cost breakdown.
/// \file
/// An empty kernel launched with `<<<>>>` and with cudaLaunchKernel, so the
/// host cost of a bare launch can be told apart from what wick's kernel
/// library and dispatch add (Note [Host cost per call] in bench_cuda.cpp).
#include <cuda_runtime.h>

#include "launch_probe.h"

namespace wick_bench {
namespace {

__global__ void empty_kernel() {}

struct Params {
  char* data[4];
  long long n;
};
__global__ void params_kernel(Params p) {
  if (p.n < 0) p.data[0][0] = 0;
}

}  // namespace

void launch_empty(cudaStream_t stream) { empty_kernel<<<1, 1, 0, stream>>>(); }

cudaError_t launch_empty_api(cudaStream_t stream) {
  return cudaLaunchKernel(reinterpret_cast<const void*>(&empty_kernel), dim3(1), dim3(1), nullptr, 0, stream);
}

void launch_with_params(cudaStream_t stream) { params_kernel<<<1, 256, 0, stream>>>(Params{{}, 1}); }

}  // namespace wick_bench
