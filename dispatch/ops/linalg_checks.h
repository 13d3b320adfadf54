// dispatch/ops/linalg_checks.h - private: the argument checks of the torch.linalg operators, with PyTorch's messages.
/// \file
/// Shared by the meta functions of the LAPACK operators
/// (dispatch/ops/meta_linalg.cpp, where they are defined) and the linalg
/// composites (dispatch/composite/linalg_ops.cpp), so that each message has
/// one home.
#pragma once

#include "wick/dtype.h"
#include "wick/tensor.h"

namespace wick::linalg_checks {

/// "<op>: The input tensor <name> must have at least 2 dimensions."
void check_matrix(const char* op, const char* name, const Tensor& t);
/// "<op>: A must be batches of square matrices, but they are m by n matrices"
void check_square(const char* op, const Tensor& a);
/// "<op>: Expected a floating point or complex tensor as input. Got <type>"
void check_floating(const char* op, ScalarType t);
/// LAPACK has single, double and their complex types only:
/// "\"<kernel>\" not implemented for '<type>'".
void check_lapack_type(const char* kernel, ScalarType t);

}  // namespace wick::linalg_checks
