// plugins/extending_torch/extending_torch.h - the PyTorch note's tensor-like and subclass examples.
/// \file
/// Built only against the SDK. Each example registers a type that `wick eval`
/// (or `wick::new_instance`) constructs by name:
///
///   ScalarTensor(5, 2)            a tensor-like: value * eye(N), never stored;
///                                 handles torch.mean and torch.add, declines the rest
///   ScalarTensorFallback(2, 2)    the same, converting to a tensor for every
///                                 operator it does not handle
///   MetadataTensor(data, {...})   a tensor-like wrapping a tensor and a string-keyed
///                                 metadata dict that every operator's result keeps
///   LoggingTensor([1., 2.])       a subclass that logs each call and defers to super
///   SubTensor([0]), SubTensor2([0]) (child of SubTensor), OtherSubTensor([0])
///                                 plain subclasses with the default behaviour
#pragma once

#include <wick/library.h>

namespace extending_torch {

/// Registers ScalarTensor and ScalarTensorFallback in `lib`.
void register_scalar_tensor(wick::Library& lib);
/// Registers MetadataTensor in `lib`.
void register_metadata_tensor(wick::Library& lib);
/// Registers LoggingTensor, SubTensor, SubTensor2 and OtherSubTensor in `lib`.
void register_subclasses(wick::Library& lib);

}  // namespace extending_torch
