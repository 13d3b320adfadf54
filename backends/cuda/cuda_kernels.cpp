// backends/cuda/cuda_kernels.cpp - the kernel library's entry point (Note [Two CUDA libraries]).
/// \file
/// `libwick_cuda.so` calls this, with its own registrar, once it found a
/// device and installed the device runtime. No exception crosses it.
#include <exception>
#include <string>

#include <wick/plugin.h>

#include "cuda_ops.h"

extern "C" __attribute__((visibility("default"))) const char* wick_cuda_register_kernels(
    wick::Registrar* registrar) noexcept {
  static std::string error;  // called once, under the loader's lock; no thread_local (Note [Unloading unmaps])
  try {
    using wick::DispatchKey;
    namespace cb = wick::cuda_backend;
    auto& torch = registrar->library("torch", DispatchKey::kCUDA);
    auto& tensor = registrar->library("torch.Tensor", DispatchKey::kCUDA);
    auto& functional = registrar->library("torch.nn.functional", DispatchKey::kCUDA);
    auto& aten = registrar->library("aten", DispatchKey::kCUDA);
    cb::register_copy_ops(tensor);
    cb::register_elementwise_ops(torch, tensor);
    cb::register_reduce_ops(torch);
    cb::register_blas_ops(torch);
    cb::register_dnn_ops(torch, aten);
    cb::register_nn_ops(functional);
    cb::register_index_ops(torch);
    cb::register_factory_ops(torch);
    return nullptr;
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "unknown exception";
  }
  return error.c_str();
}
