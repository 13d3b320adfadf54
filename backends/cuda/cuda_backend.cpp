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
/// warm and over a second cold: a host without a GPU never pays it.
#include <cuda_runtime_api.h>
#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <string>

#include <wick/device_runtime.h>
#include <wick/log.h>
#include <wick/plugin.h>

#include "cuda_runtime.h"

namespace {

/// The kernel library's one entry point (backends/cuda/cuda_kernels.cpp).
using RegisterKernels = const char* (*)(wick::Registrar*);

std::filesystem::path this_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&this_library), &info) == 0 || info.dli_fname == nullptr) return {};
  return info.dli_fname;
}

void register_kernels(wick::Registrar& registrar) {
  const std::filesystem::path lib = this_library().parent_path() / "cuda" / "libwick_cuda_kernels.so";
  // Never closed: the CUDA libraries it pulls in do not support unloading.
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  WICK_CHECK(handle != nullptr, PluginError, "cuda: cannot load its kernel library ", lib.string(), ": ",
             dlerror());
  auto fn = reinterpret_cast<RegisterKernels>(dlsym(handle, "wick_cuda_register_kernels"));
  WICK_CHECK(fn != nullptr, PluginError, "cuda: ", lib.string(), " has no wick_cuda_register_kernels");
  if (const char* error = fn(&registrar)) throw wick::PluginError(error);
}

}  // namespace

WICK_PLUGIN("cuda", "0.1.0", registrar) {
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
