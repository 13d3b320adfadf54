// wick/ops.h - the typed operator API: free functions over the dispatcher.
/// \file
/// Each function is a typed call of one catalog entry (no boxing). They are
/// generated from the operator definitions (dispatch/ops/*.ops, by
/// sdk/opgen/wick_opgen.py) into wick/gen/torch_ops.h: one function per
/// entry, in the C++ namespace of the entry's namespace (torch -> wick,
/// torch.nn.functional -> wick::nn::functional, torch.linalg ->
/// wick::linalg), with the schema's argument names and defaults, out=
/// variants as `X_out(out, ...)`, and the methods of `Tensor` for every
/// torch.Tensor entry (wick/tensor.h).
///
///   Tensor z = wick::add(x, y, /*alpha=*/2);     // torch.add
///   wick::add_out(out, x, y);                    // torch.add.out
///   Tensor s = wick::sum(x, {0}, /*keepdim=*/true);
///   Tensor p = x.softmax(1);                     // torch.Tensor.softmax
///
/// Creation functions take an optional dtype and device (default float32, cpu).
/// Errors are those of the kernels: TypeError / RuntimeError / IndexError
/// naming the operator.
#pragma once

#include "wick/gen/torch_ops.h"
