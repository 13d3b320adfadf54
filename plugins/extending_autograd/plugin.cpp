// plugins/extending_autograd/plugin.cpp - the bundled plugin's entry point.
/// \file
#include <wick/plugin.h>

#include "extending_autograd.h"

WICK_PLUGIN("extending_autograd", "0.1.0", registrar) {
  using wick::DispatchKey;
  extending_autograd::register_operators(registrar.library("extending_autograd"),
                                         registrar.library("extending_autograd", DispatchKey::kCompositeImplicit),
                                         registrar.library("extending_autograd", DispatchKey::kCPU),
                                         registrar.library("extending_autograd", DispatchKey::kMeta),
                                         registrar.library("extending_autograd", DispatchKey::kAutograd));
}
