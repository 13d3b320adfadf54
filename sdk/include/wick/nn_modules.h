// wick/nn_modules.h - every built-in module: containers, layers, activations, losses, recurrent and attention.
/// \file
/// One include for the modules of torch.nn as libtorch spells them
/// (Note [Module holders] in wick/nn.h):
///
///   #include "wick/nn_modules.h"
///   namespace nn = wick::nn;
///   struct NetImpl : nn::Callable<NetImpl> {
///     NetImpl() {
///       fc1 = register_module("fc1", nn::Linear(784, 64));
///       fc2 = register_module("fc2", nn::Linear(64, 10));
///     }
///     wick::Tensor forward(const wick::Tensor& x) { return fc2(wick::relu(fc1(x))); }
///     nn::Linear fc1{nullptr}, fc2{nullptr};
///   };
///   WICK_MODULE(Net);
#pragma once

#include "wick/nn.h"
#include "wick/nn_activation.h"
#include "wick/nn_container.h"
#include "wick/nn_conv.h"
#include "wick/nn_linear.h"
#include "wick/nn_loss.h"
#include "wick/nn_misc.h"
#include "wick/nn_norm.h"
#include "wick/nn_options.h"
#include "wick/nn_rnn.h"
#include "wick/nn_transformer.h"
