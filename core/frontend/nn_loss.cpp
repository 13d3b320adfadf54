// core/frontend/nn_loss.cpp - the loss modules: options kept, class weights registered as buffers, one functional each.
/// \file
#include "wick/nn_loss.h"

#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick::nn {

namespace F = wick::nn::functional;

namespace {

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

}  // namespace

// Constructors: the ones without tensors in their options only keep them;
// weighted losses register "weight" (and "pos_weight") as buffers when given.
#define WICK_NN_LOSS_PLAIN(Name) \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {}
#define WICK_NN_LOSS_WEIGHTED(Name)                                                   \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {         \
    if (options.weight().defined()) weight = register_buffer("weight", options.weight()); \
  }

WICK_NN_LOSS_PLAIN(L1Loss)
WICK_NN_LOSS_PLAIN(MSELoss)
WICK_NN_LOSS_PLAIN(SoftMarginLoss)
WICK_NN_LOSS_PLAIN(MultiLabelMarginLoss)
WICK_NN_LOSS_PLAIN(HuberLoss)
WICK_NN_LOSS_PLAIN(SmoothL1Loss)
WICK_NN_LOSS_PLAIN(KLDivLoss)
WICK_NN_LOSS_PLAIN(HingeEmbeddingLoss)
WICK_NN_LOSS_PLAIN(PoissonNLLLoss)
WICK_NN_LOSS_PLAIN(MarginRankingLoss)
WICK_NN_LOSS_PLAIN(CosineEmbeddingLoss)
WICK_NN_LOSS_PLAIN(TripletMarginLoss)
WICK_NN_LOSS_PLAIN(GaussianNLLLoss)
WICK_NN_LOSS_PLAIN(CTCLoss)
WICK_NN_LOSS_WEIGHTED(CrossEntropyLoss)
WICK_NN_LOSS_WEIGHTED(NLLLoss)
WICK_NN_LOSS_WEIGHTED(BCELoss)
WICK_NN_LOSS_WEIGHTED(MultiLabelSoftMarginLoss)
#undef WICK_NN_LOSS_WEIGHTED
#undef WICK_NN_LOSS_PLAIN

BCEWithLogitsLossImpl::BCEWithLogitsLossImpl(const BCEWithLogitsLossOptions& opts) : options(opts) {
  if (options.weight().defined()) weight = register_buffer("weight", options.weight());
  if (options.pos_weight().defined()) pos_weight = register_buffer("pos_weight", options.pos_weight());
}

MultiMarginLossImpl::MultiMarginLossImpl(const MultiMarginLossOptions& opts) : options(opts) {
  WICK_CHECK(options.p() == 1 || options.p() == 2, ValueError, "only p == 1 and p == 2 supported");
  if (options.weight().defined()) weight = register_buffer("weight", options.weight());
}

Tensor L1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::l1_loss(input, target, options.reduction());
}
Tensor MSELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::mse_loss(input, target, options.reduction());
}
Tensor SoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::soft_margin_loss(input, target, options.reduction());
}
Tensor MultiLabelMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_margin_loss(input, target, options.reduction());
}
Tensor CrossEntropyLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::cross_entropy(input, target, opt(weight), options.ignore_index(), options.reduction(),
                          options.label_smoothing());
}
Tensor NLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::nll_loss(input, target, opt(weight), options.ignore_index(), options.reduction());
}
Tensor BCELossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy(input, target, opt(weight), options.reduction());
}
Tensor BCEWithLogitsLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::binary_cross_entropy_with_logits(input, target, opt(weight), options.reduction(), opt(pos_weight));
}
Tensor MultiLabelSoftMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multilabel_soft_margin_loss(input, target, opt(weight), options.reduction());
}
Tensor HuberLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::huber_loss(input, target, options.reduction(), options.delta());
}
Tensor SmoothL1LossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::smooth_l1_loss(input, target, options.reduction(), options.beta());
}
Tensor KLDivLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::kl_div(input, target, options.reduction(), options.log_target());
}
Tensor HingeEmbeddingLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::hinge_embedding_loss(input, target, options.margin(), options.reduction());
}
Tensor MultiMarginLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::multi_margin_loss(input, target, options.p(), options.margin(), opt(weight), options.reduction());
}
Tensor PoissonNLLLossImpl::forward(const Tensor& input, const Tensor& target) {
  return F::poisson_nll_loss(input, target, options.log_input(), options.full(), options.eps(), options.reduction());
}
Tensor MarginRankingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::margin_ranking_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor CosineEmbeddingLossImpl::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  return F::cosine_embedding_loss(input1, input2, target, options.margin(), options.reduction());
}
Tensor TripletMarginLossImpl::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  return F::triplet_margin_loss(anchor, positive, negative, options.margin(), options.p(), options.eps(),
                                options.swap(), options.reduction());
}
Tensor GaussianNLLLossImpl::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  return F::gaussian_nll_loss(input, target, var, options.full(), options.eps(), options.reduction());
}
Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                            const Tensor& target_lengths) {
  return F::ctc_loss(log_probs, targets, Value(input_lengths), target_lengths, options.blank(), options.reduction(),
                     options.zero_infinity());
}

}  // namespace wick::nn
