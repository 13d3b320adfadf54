// wick/nn_utils.h - gradient clipping (torch.nn.utils.clip_grad_norm_ and clip_grad_value_).
/// \file
/// Called between backward() and the optimizer's step:
///
///   loss.backward();
///   wick::Tensor norm = wick::nn::utils::clip_grad_norm_(net->parameters(), /*max_norm=*/1.0);
///   opt.step();
#pragma once

#include <vector>

#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::nn::utils {

/// Scales the gradients of `params` in place so that their total norm (of
/// order `norm_type`, over all gradients as one vector; infinity for the max
/// norm) is at most about `max_norm`: each is multiplied by
/// min(1, max_norm / (total_norm + 1e-6)). Parameters without a gradient are
/// skipped. Returns the total norm before clipping (a 0-dim tensor; a float32
/// zero when no parameter has a gradient). RuntimeError, with PyTorch's text,
/// when error_if_nonfinite and the norm is NaN or infinite (the gradients are
/// left as they were).
WICK_API Tensor clip_grad_norm_(const std::vector<Tensor>& params, double max_norm, double norm_type = 2.0,
                                bool error_if_nonfinite = false);

/// Clamps every gradient of `params` into [-clip_value, clip_value], in place.
WICK_API void clip_grad_value_(const std::vector<Tensor>& params, double clip_value);

}  // namespace wick::nn::utils
