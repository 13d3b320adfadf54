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
  ReductionOptions(std::string reduction = "mean") : reduction_(std::move(reduction)) {}  // NOLINT(implicit)
  ReductionOptions(const char* reduction) : reduction_(reduction) {}                     // NOLINT(implicit)
  WICK_ARG(std::string, reduction);
};
using L1LossOptions = ReductionOptions;
using MSELossOptions = ReductionOptions;
using SoftMarginLossOptions = ReductionOptions;
using MultiLabelMarginLossOptions = ReductionOptions;

struct CrossEntropyLossOptions {
  WICK_ARG(Tensor, weight);
  WICK_ARG(std::int64_t, ignore_index) = -100;
  WICK_ARG(std::string, reduction) = "mean";
  WICK_ARG(double, label_smoothing) = 0.0;
};
struct NLLLossOptions {
  WICK_ARG(Tensor, weight);
  WICK_ARG(std::int64_t, ignore_index) = -100;
  WICK_ARG(std::string, reduction) = "mean";
};
struct WeightedLossOptions {
  WICK_ARG(Tensor, weight);
  WICK_ARG(std::string, reduction) = "mean";
};
using BCELossOptions = WeightedLossOptions;
using MultiLabelSoftMarginLossOptions = WeightedLossOptions;
struct BCEWithLogitsLossOptions {
  WICK_ARG(Tensor, weight);
  WICK_ARG(std::string, reduction) = "mean";
  WICK_ARG(Tensor, pos_weight);
};
struct HuberLossOptions {
  WICK_ARG(std::string, reduction) = "mean";
  WICK_ARG(double, delta) = 1.0;
};
struct SmoothL1LossOptions {
  WICK_ARG(std::string, reduction) = "mean";
  WICK_ARG(double, beta) = 1.0;
};
struct KLDivLossOptions {
  WICK_ARG(std::string, reduction) = "mean";
  WICK_ARG(bool, log_target) = false;
};
struct MarginRankingLossOptions {
  WICK_ARG(double, margin) = 0.0;
  WICK_ARG(std::string, reduction) = "mean";
};
struct CosineEmbeddingLossOptions {
  WICK_ARG(double, margin) = 0.0;
  WICK_ARG(std::string, reduction) = "mean";
};
struct HingeEmbeddingLossOptions {
  WICK_ARG(double, margin) = 1.0;
  WICK_ARG(std::string, reduction) = "mean";
};
struct MultiMarginLossOptions {
  /// 1 or 2 (ValueError "only p == 1 and p == 2 supported").
  WICK_ARG(std::int64_t, p) = 1;
  WICK_ARG(double, margin) = 1.0;
  WICK_ARG(Tensor, weight);
  WICK_ARG(std::string, reduction) = "mean";
};
struct TripletMarginLossOptions {
  WICK_ARG(double, margin) = 1.0;
  WICK_ARG(double, p) = 2.0;
  WICK_ARG(double, eps) = 1e-6;
  WICK_ARG(bool, swap) = false;
  WICK_ARG(std::string, reduction) = "mean";
};
struct PoissonNLLLossOptions {
  WICK_ARG(bool, log_input) = true;
  WICK_ARG(bool, full) = false;
  WICK_ARG(double, eps) = 1e-8;
  WICK_ARG(std::string, reduction) = "mean";
};
struct GaussianNLLLossOptions {
  WICK_ARG(bool, full) = false;
  WICK_ARG(double, eps) = 1e-6;
  WICK_ARG(std::string, reduction) = "mean";
};
struct CTCLossOptions {
  WICK_ARG(std::int64_t, blank) = 0;
  WICK_ARG(std::string, reduction) = "mean";
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

#define WICK_NN_LOSS2 (const Tensor& input, const Tensor& target)
#define WICK_NN_LOSS3 (const Tensor& input1, const Tensor& input2, const Tensor& target)
WICK_NN_LOSS(L1Loss, WICK_NN_LOSS2);
WICK_NN_LOSS(MSELoss, WICK_NN_LOSS2);
WICK_NN_LOSS(SoftMarginLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(MultiLabelMarginLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(CrossEntropyLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(NLLLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(BCELoss, WICK_NN_LOSS2);
WICK_NN_LOSS(BCEWithLogitsLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(MultiLabelSoftMarginLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(HuberLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(SmoothL1Loss, WICK_NN_LOSS2);
WICK_NN_LOSS(KLDivLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(HingeEmbeddingLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(MultiMarginLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(PoissonNLLLoss, WICK_NN_LOSS2);
WICK_NN_LOSS(MarginRankingLoss, WICK_NN_LOSS3);
WICK_NN_LOSS(CosineEmbeddingLoss, WICK_NN_LOSS3);
WICK_NN_LOSS(TripletMarginLoss, (const Tensor& anchor, const Tensor& positive, const Tensor& negative));
WICK_NN_LOSS(GaussianNLLLoss, (const Tensor& input, const Tensor& target, const Tensor& var));
WICK_NN_LOSS(CTCLoss, (const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                       const Tensor& target_lengths));
#undef WICK_NN_LOSS3
#undef WICK_NN_LOSS2
#undef WICK_NN_LOSS

}  // namespace wick::nn
