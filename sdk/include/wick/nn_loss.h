// wick/nn_loss.h - every loss of torch.nn with a functional: L1Loss ... CTCLoss.
/// \file
///   nn::CrossEntropyLoss loss(nn::CrossEntropyLossOptions().label_smoothing(0.1));
///   Tensor l = loss(logits, target);
///
/// `reduction` is "mean" (default), "sum" or "none"; a bad one is the
/// functional's ValueError at the call. Class weights given in the options
/// are registered as the buffer "weight" (and "pos_weight"), as PyTorch
/// does, so they follow `to()` and appear in state_dict. Losses print
/// with empty parentheses, as in PyTorch: CrossEntropyLoss().
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/nn_options.h"
#include "wick/tensor.h"

namespace wick::nn {

/// The losses that take only `reduction`.
struct ReductionOptions {
  /// `reduction`: "mean" (default), "sum" or "none"; checked by the functional at the call (ValueError).
  ReductionOptions(std::string reduction = "mean") : reduction_(std::move(reduction)) {}  // NOLINT(implicit)
  /// `reduction` given as a string literal.
  ReductionOptions(const char* reduction) : reduction_(reduction) {}                     // NOLINT(implicit)
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction);
};
/// L1Loss's options (reduction).
using L1LossOptions = ReductionOptions;
/// MSELoss's options (reduction).
using MSELossOptions = ReductionOptions;
/// SoftMarginLoss's options (reduction).
using SoftMarginLossOptions = ReductionOptions;
/// MultiLabelMarginLoss's options (reduction).
using MultiLabelMarginLossOptions = ReductionOptions;

/// CrossEntropyLoss's options: weight, ignore_index (default -100), reduction, label_smoothing (default 0).
struct CrossEntropyLossOptions {
  /// A manual weight per class (C values; undefined: all 1), registered as the buffer "weight".
  WICK_ARG(Tensor, weight);
  /// Targets equal to this class index add nothing to the loss or to the mean's divisor (default -100).
  WICK_ARG(std::int64_t, ignore_index) = -100;
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
  /// Amount in [0, 1] of the target mass spread evenly over the classes (default 0); outside that range a RuntimeError
  /// from F::cross_entropy.
  WICK_ARG(double, label_smoothing) = 0.0;
};
/// NLLLoss's options: weight, ignore_index (default -100) and reduction.
struct NLLLossOptions {
  /// A manual weight per class (C values; undefined: all 1), registered as the buffer "weight".
  WICK_ARG(Tensor, weight);
  /// Targets equal to this class index add nothing to the loss or to the mean's divisor (default -100).
  WICK_ARG(std::int64_t, ignore_index) = -100;
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// The options of losses with an optional element weight and a reduction (BCELoss, MultiLabelSoftMarginLoss).
struct WeightedLossOptions {
  /// A manual rescaling weight (undefined: none), registered as the buffer "weight".
  WICK_ARG(Tensor, weight);
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// BCELoss's options (weight, reduction).
using BCELossOptions = WeightedLossOptions;
/// MultiLabelSoftMarginLoss's options (weight, reduction).
using MultiLabelSoftMarginLossOptions = WeightedLossOptions;
/// BCEWithLogitsLoss's options: weight, reduction and pos_weight.
struct BCEWithLogitsLossOptions {
  /// A manual rescaling weight of each element's loss (undefined: none), registered as the buffer "weight".
  WICK_ARG(Tensor, weight);
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
  /// A weight of the positive examples, one per class (undefined: none), registered as the buffer "pos_weight".
  WICK_ARG(Tensor, pos_weight);
};
/// HuberLoss's options: reduction and delta (default 1).
struct HuberLossOptions {
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
  /// Where the loss turns from quadratic to linear (default 1).
  WICK_ARG(double, delta) = 1.0;
};
/// SmoothL1Loss's options: reduction and beta (default 1).
struct SmoothL1LossOptions {
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
  /// Where the loss turns from quadratic to linear (default 1; 0 gives L1 loss).
  WICK_ARG(double, beta) = 1.0;
};
/// KLDivLoss's options: reduction and log_target (default false).
struct KLDivLossOptions {
  /// "mean" (default), "sum", "none" or "batchmean" (the sum divided by the batch size); another is the functional's
  /// ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
  /// Whether the target is given as log-probabilities (default false).
  WICK_ARG(bool, log_target) = false;
};
/// MarginRankingLoss's options: margin (default 0) and reduction.
struct MarginRankingLossOptions {
  /// The margin (default 0).
  WICK_ARG(double, margin) = 0.0;
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// CosineEmbeddingLoss's options: margin (default 0) and reduction.
struct CosineEmbeddingLossOptions {
  /// The margin below which dissimilar pairs add nothing (default 0; meaningful in [-1, 1]).
  WICK_ARG(double, margin) = 0.0;
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// HingeEmbeddingLoss's options: margin (default 1) and reduction.
struct HingeEmbeddingLossOptions {
  /// The margin for targets of -1 (default 1).
  WICK_ARG(double, margin) = 1.0;
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// MultiMarginLoss's options: p (default 1), margin (default 1), weight and reduction.
struct MultiMarginLossOptions {
  /// 1 or 2 (ValueError "only p == 1 and p == 2 supported").
  WICK_ARG(std::int64_t, p) = 1;
  /// The margin (default 1).
  WICK_ARG(double, margin) = 1.0;
  /// A manual weight per class (C values; undefined: all 1), registered as the buffer "weight".
  WICK_ARG(Tensor, weight);
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// TripletMarginLoss's options: margin (default 1), p (default 2), eps (default 1e-6), swap (default false), reduction.
struct TripletMarginLossOptions {
  /// The margin between the positive and the negative distance (default 1).
  WICK_ARG(double, margin) = 1.0;
  /// The order of the pairwise distance's norm (default 2).
  WICK_ARG(double, p) = 2.0;
  /// Added to the difference in the pairwise distance (default 1e-6).
  WICK_ARG(double, eps) = 1e-6;
  /// Use the smaller of d(anchor, negative) and d(positive, negative) (default false).
  WICK_ARG(bool, swap) = false;
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// PoissonNLLLoss's options: log_input (default true), full (default false), eps (default 1e-8), reduction.
struct PoissonNLLLossOptions {
  /// Whether the input is the log of the rate: exp(input) - target * input (default true); else input - target *
  /// log(input + eps).
  WICK_ARG(bool, log_input) = true;
  /// Add the Stirling approximation term target * log(target) - target + 0.5 * log(2 * pi * target) (default false).
  WICK_ARG(bool, full) = false;
  /// Added to the input inside the log when log_input is false (default 1e-8).
  WICK_ARG(double, eps) = 1e-8;
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// GaussianNLLLoss's options: full (default false), eps (default 1e-6) and reduction.
struct GaussianNLLLossOptions {
  /// Add the constant 0.5 * log(2 * pi) (default false).
  WICK_ARG(bool, full) = false;
  /// The variance is clamped below at eps (default 1e-6).
  WICK_ARG(double, eps) = 1e-6;
  /// "mean" (default), "sum" or "none"; another is the functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
};
/// CTCLoss's options: blank (default 0), reduction and zero_infinity (default false).
struct CTCLossOptions {
  /// The index of the blank label (default 0).
  WICK_ARG(std::int64_t, blank) = 0;
  /// "mean" (default: each loss divided by its target length, then averaged), "sum" or "none"; another is the
  /// functional's ValueError at the call.
  WICK_ARG(std::string, reduction) = "mean";
  /// Replace infinite losses (and their gradients) by zero (default false).
  WICK_ARG(bool, zero_infinity) = false;
};

/// Declares loss `Name`; Params is forward's parameter list.
#define WICK_NN_LOSS(Name, Params)                          \
  class WICK_API Name##Impl : public Callable<Name##Impl> { \
   public:                                                  \
    using Options = Name##Options;                          \
    explicit Name##Impl(const Name##Options& options = {}); \
    Tensor forward Params;                                  \
    Name##Options options;                                  \
    Tensor weight, pos_weight;                              \
  };                                                        \
  WICK_MODULE(Name)

/// forward's parameter list of the two-tensor losses: (input, target).
#define WICK_NN_LOSS2 (const Tensor& input, const Tensor& target)
/// forward's parameter list of the three-tensor losses: (input1, input2, target).
#define WICK_NN_LOSS3 (const Tensor& input1, const Tensor& input2, const Tensor& target)
/// L1Loss: the mean (or sum, or each) of |input - target|; F::l1_loss's errors for shapes that do not broadcast.
WICK_NN_LOSS(L1Loss, WICK_NN_LOSS2);
/// MSELoss: the mean (or sum, or each) of (input - target)^2 (F::mse_loss).
WICK_NN_LOSS(MSELoss, WICK_NN_LOSS2);
/// SoftMarginLoss: log(1 + exp(-target * input)) with targets of 1 or -1 (F::soft_margin_loss).
WICK_NN_LOSS(SoftMarginLoss, WICK_NN_LOSS2);
/// MultiLabelMarginLoss: multi-class hinge loss over the target class indices, ended by the first -1
/// (F::multilabel_margin_loss).
WICK_NN_LOSS(MultiLabelMarginLoss, WICK_NN_LOSS2);
/// CrossEntropyLoss: F::cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing), log_softmax
/// over dim 1 then NLL; targets are class indices or probabilities.
WICK_NN_LOSS(CrossEntropyLoss, WICK_NN_LOSS2);
/// NLLLoss: F::nll_loss(input, target, weight, ignore_index, reduction) over log-probabilities; a target out of range
/// is an error from F::nll_loss.
WICK_NN_LOSS(NLLLoss, WICK_NN_LOSS2);
/// BCELoss: F::binary_cross_entropy over probabilities in [0, 1]; inputs outside it are an error from the functional.
WICK_NN_LOSS(BCELoss, WICK_NN_LOSS2);
/// BCEWithLogitsLoss: F::binary_cross_entropy_with_logits, a sigmoid then BCE in one stable step, with pos_weight.
WICK_NN_LOSS(BCEWithLogitsLoss, WICK_NN_LOSS2);
/// MultiLabelSoftMarginLoss: the per-class logistic loss averaged over the C classes (F::multilabel_soft_margin_loss).
WICK_NN_LOSS(MultiLabelSoftMarginLoss, WICK_NN_LOSS2);
/// HuberLoss: squared error below delta, delta-scaled L1 above (F::huber_loss).
WICK_NN_LOSS(HuberLoss, WICK_NN_LOSS2);
/// SmoothL1Loss: squared error / beta below beta, L1 above (F::smooth_l1_loss).
WICK_NN_LOSS(SmoothL1Loss, WICK_NN_LOSS2);
/// KLDivLoss: F::kl_div(input, target, reduction, log_target) with `input` log-probabilities.
WICK_NN_LOSS(KLDivLoss, WICK_NN_LOSS2);
/// HingeEmbeddingLoss: x where the target is 1, max(0, margin - x) where it is -1 (F::hinge_embedding_loss).
WICK_NN_LOSS(HingeEmbeddingLoss, WICK_NN_LOSS2);
/// MultiMarginLoss: multi-class hinge loss (F::multi_margin_loss); its constructor raises ValueError "only p == 1 and p
/// == 2 supported" for another p.
WICK_NN_LOSS(MultiMarginLoss, WICK_NN_LOSS2);
/// PoissonNLLLoss: negative log likelihood of a Poisson target (F::poisson_nll_loss).
WICK_NN_LOSS(PoissonNLLLoss, WICK_NN_LOSS2);
/// MarginRankingLoss: max(0, -target * (input1 - input2) + margin) (F::margin_ranking_loss).
WICK_NN_LOSS(MarginRankingLoss, WICK_NN_LOSS3);
/// CosineEmbeddingLoss: 1 - cos(input1, input2) for target 1, max(0, cos - margin) for -1 (F::cosine_embedding_loss).
WICK_NN_LOSS(CosineEmbeddingLoss, WICK_NN_LOSS3);
/// TripletMarginLoss: max(d(anchor, positive) - d(anchor, negative) + margin, 0) (F::triplet_margin_loss).
WICK_NN_LOSS(TripletMarginLoss, (const Tensor& anchor, const Tensor& positive, const Tensor& negative));
/// GaussianNLLLoss: 0.5 * (log(var) + (input - target)^2 / var), var clamped at eps (F::gaussian_nll_loss); ValueError
/// from it for a var of the wrong shape or a negative var.
WICK_NN_LOSS(GaussianNLLLoss, (const Tensor& input, const Tensor& target, const Tensor& var));
/// CTCLoss: connectionist temporal classification of (T, N, C) log-probabilities (F::ctc_loss); lengths and targets
/// that do not match are errors from it.
WICK_NN_LOSS(CTCLoss, (const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                       const Tensor& target_lengths));
#undef WICK_NN_LOSS3
#undef WICK_NN_LOSS2
#undef WICK_NN_LOSS

}  // namespace wick::nn
