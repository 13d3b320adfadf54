// backends/cpu/cpu_backend.cpp - the CPU backend plugin's entry point.
/// \file
/// Loaded at start-up from the install's backend directory like any other
/// plugin; it registers the CPU kernels of the torch catalog, which its
/// files define as declared in wick/gen/torch_kernels.h. (The CPU
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

#include <wick/gen/torch_kernels.h>

WICK_PLUGIN("cpu", "0.1.0", registrar) {
  using wick::DispatchKey;
  wick::keep_library_mapped(registrar, reinterpret_cast<const void*>(&omp_get_max_threads));
  // Every kernel of the `dispatch: CPU` definitions (dispatch/ops/*.ops).
  wick::cpu::register_torch_kernels(registrar, DispatchKey::kCPU);
}
