// backends/cuda/cuda_backend.cpp - the CUDA backend plugin's entry point: find devices, then load the kernels.
/// \file
/// Note [Two CUDA libraries]
/// The backend is two shared libraries. `libwick_cuda.so`, the plugin the
/// loader finds in the backend directory, links only the CUDA runtime: it
/// asks how many devices there are and, with none (no GPU, or no driver),
/// logs so and registers nothing, so that the host goes on as if it were
/// absent. With devices, it installs the device runtime (streams and the
/// caching allocator, cuda_runtime.cpp) and loads `cuda/libwick_cuda_kernels.so`
/// beside it, which links cuBLAS and cuDNN and registers the kernels into the
/// same registration transaction. Mapping cuBLAS and cuDNN costs about 0.1 s
/// warm and over a second cold: a host without a GPU never pays it. The
/// kernel library goes through the loader's checks like the plugin itself
/// (wick::check_plugin_library first, on every host; then
/// wick::load_plugin_library), so an allowlist must list it too.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>

#include <wick/device_runtime.h>
#include <wick/loader.h>
#include <wick/log.h>
#include <wick/plugin.h>

#include "cuda_runtime.h"

namespace {

/// The kernel library, beside this one (relative paths are taken from the plugin's directory).
constexpr const char* kKernelLibrary = "cuda/libwick_cuda_kernels.so";

/// The kernel library's one entry point (backends/cuda/cuda_kernels.cpp).
using RegisterKernels = const char*(wick::Registrar*);

void register_kernels(wick::Registrar& registrar) {
  // Through the loader's checks, like every library loaded for a plugin;
  // kept mapped: the CUDA libraries it pulls in do not support unloading.
  const wick::CheckedLibrary& lib = wick::load_plugin_library(registrar, kKernelLibrary, {.keep_mapped = true});
  auto* fn = lib.function<RegisterKernels>("wick_cuda_register_kernels");
  if (const char* error = fn(&registrar)) throw wick::PluginError(error);
}

}  // namespace

WICK_PLUGIN("cuda", "0.1.0", registrar) {
  // The kernel library must pass the loader's checks (ownership, allowlist,
  // ELF) before anything else, so that a refusal shows on every host, with
  // a GPU or without; it is opened only once a device is found.
  wick::check_plugin_library(registrar, kKernelLibrary);
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    wick::logging::info("cuda: found no CUDA device (",
                        err != cudaSuccess ? std::string(cudaGetErrorString(err)) : std::string("0 devices"),
                        "); the CUDA backend registers nothing");
    return;
  }
  // Lives until the plugin is unloaded, after its registrations are gone.
  static const std::unique_ptr<wick::DeviceRuntime> runtime = wick::cuda_backend::make_cuda_runtime(count);
  registrar.register_device_runtime(wick::DeviceType::kCUDA, *runtime);
  register_kernels(registrar);
  wick::logging::info("cuda: ", count, " device(s)");
}
