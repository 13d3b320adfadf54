// wick/nn_functional.h - the typed API of torch.nn.functional, and how losses read `reduction`.
/// \file
/// Typed calls of the catalog entries (no boxing), generated from the
/// operator definitions like the rest of wick/ops.h, with PyTorch 1.13's
/// argument names and defaults:
///
///   namespace F = wick::nn::functional;
///   Tensor h = F::gelu(F::linear(x, w, b), "tanh");
///   Tensor loss = F::cross_entropy(h, target, std::nullopt, -100, "mean", /*label_smoothing=*/0.1);
///   Tensor p = wick::softmax(h, 1);                     // torch.softmax
///
/// Losses take `reduction` "mean", "sum" or "none" (ValueError naming any
/// other string). The deprecated size_average / reduce arguments exist in
/// the boxed API only.
#pragma once

#include <string_view>

#include "wick/export.h"
#include "wick/gen/torch_ops.h"
#include "wick/value.h"

namespace wick::nn::functional {

/// The reduction a loss applies.
enum class Reduction { kNone, kMean, kSum };

/// The reduction named by `reduction` ("none", "mean", "sum"), or, when
/// `size_average` or `reduce` is given (not None), PyTorch's legacy rule:
/// reduce=False -> none, else size_average (default true) -> mean, else sum.
/// ValueError "<op>: foo is not a valid value for reduction".
[[nodiscard]] WICK_API Reduction resolve_reduction(const char* op, std::optional<bool> size_average, std::optional<bool> reduce,
                                                   std::string_view reduction);

}  // namespace wick::nn::functional
