// backends/cuda/cuda_kernels.cpp - the kernel library's entry point (Note [Two CUDA libraries]).
/// \file
/// `libwick_cuda.so` calls this, with its own registrar, once it found a
/// device and installed the device runtime. No exception crosses it.
#include <exception>
#include <string>

#include <wick/plugin.h>

#include <wick/gen/torch_kernels.h>

// Looked up by name (cuda_backend.cpp); declared first for -Wmissing-declarations.
extern "C" __attribute__((visibility("default"))) const char* wick_cuda_register_kernels(
    wick::Registrar* registrar) noexcept;
extern "C" __attribute__((visibility("default"))) const char* wick_cuda_register_kernels(
    wick::Registrar* registrar) noexcept {
  static std::string error;  // called once, under the loader's lock; no thread_local (Note [Unloading unmaps])
  try {
    // Every kernel of the `dispatch: CUDA` definitions (dispatch/ops/*.ops).
    wick::cuda_backend::register_torch_kernels(*registrar, wick::DispatchKey::kCUDA);
    return nullptr;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
  return error.c_str();
}
