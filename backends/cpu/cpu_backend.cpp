// backends/cpu/cpu_backend.cpp - the CPU backend plugin's entry point.
/// \file
/// Loaded at start-up from the install's backend directory like any other
/// plugin; it registers the CPU kernels of the torch catalog. (The CPU
/// allocator itself is part of libwick: tensors exist before any backend.)
///
/// Note [OpenMP outlives the backend]
/// The OpenMP runtime (libgomp, or clang's libomp) is loaded with this
/// backend, and its worker threads wait inside it after every parallel loop.
/// Unloading the backend would unmap the runtime under them (a crash on the
/// next wake-up), so the backend keeps it mapped; the backend itself still
/// unloads.
#include <omp.h>
#include <wick/loader.h>
#include <wick/plugin.h>

#include "cpu_kernels.h"

WICK_PLUGIN("cpu", "0.1.0", registrar) {
  using wick::DispatchKey;
  wick::keep_library_mapped(registrar, reinterpret_cast<const void*>(&omp_get_max_threads));
  auto& torch = registrar.library("torch", DispatchKey::kCPU);
  auto& tensor = registrar.library("torch.Tensor", DispatchKey::kCPU);
  wick::cpu::register_binary_ops(torch, tensor);
  wick::cpu::register_unary_ops(torch);
  wick::cpu::register_reduce_ops(torch);
  wick::cpu::register_minmax_ops(torch);
  wick::cpu::register_stat_ops(torch);
  wick::cpu::register_blas_ops(torch);
  wick::cpu::register_factory_ops(torch);
  wick::cpu::register_nn_ops(torch, registrar.library("torch.nn.functional", DispatchKey::kCPU));
  wick::cpu::register_index_ops(torch);
  wick::cpu::register_norm_ops(registrar.library("torch.nn.functional", DispatchKey::kCPU));
  auto& aten = registrar.library("aten", DispatchKey::kCPU);
  wick::cpu::register_conv_ops(aten);
  wick::cpu::register_pool_ops(aten);
}
