// plugins/extending_torch/plugin.cpp - the bundled plugin's entry point.
/// \file
#include <wick/plugin.h>

#include "extending_torch.h"

WICK_PLUGIN("extending_torch", "0.1.0", registrar) {
  wick::Library& lib = registrar.library("extending_torch");
  extending_torch::register_scalar_tensor(lib);
  extending_torch::register_metadata_tensor(lib);
  extending_torch::register_subclasses(lib);
}
