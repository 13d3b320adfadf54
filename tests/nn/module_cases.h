// tests/nn/module_cases.h - the C++ side of tests/nn/make_module_cases.py: each case's module and its call.
/// \file
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "wick/nn_modules.h"

namespace wick::testing {

/// A module built as the generator builds it, and how the case calls it
/// (empty for cases without a forward).
struct ModuleCase {
  std::shared_ptr<nn::Module> module;
  std::function<std::vector<Tensor>(const std::vector<Tensor>&)> run;
};

template <class H>
ModuleCase unary(H h) {
  return {h.ptr(), [h](const std::vector<Tensor>& in) { return std::vector<Tensor>{h(in.at(0))}; }};
}
template <class H>
ModuleCase binary(H h) {
  return {h.ptr(), [h](const std::vector<Tensor>& in) { return std::vector<Tensor>{h(in.at(0), in.at(1))}; }};
}
template <class H>
ModuleCase ternary(H h) {
  return {h.ptr(),
          [h](const std::vector<Tensor>& in) { return std::vector<Tensor>{h(in.at(0), in.at(1), in.at(2))}; }};
}
inline ModuleCase no_forward(std::shared_ptr<nn::Module> m) { return {std::move(m), nullptr}; }

/// Defined in modules_recurrent_cases.cpp: the RNN and attention cases.
void add_recurrent_cases(std::map<std::string, std::function<ModuleCase()>>& cases);

inline const std::map<std::string, std::function<ModuleCase()>>& module_cases() {
  namespace n = wick::nn;
  static const std::map<std::string, std::function<ModuleCase()>> cases = [] {
    std::map<std::string, std::function<ModuleCase()>> c;
    // containers
    c["sequential"] = [] { return unary(n::Sequential(n::Linear(4, 3), n::ReLU(), n::Linear(3, 2))); };
    c["sequential_nested"] = [] {
      return unary(n::Sequential(n::Linear(2, 3), n::Sequential(n::Tanh(), n::Linear(3, 1))));
    };
    c["modulelist"] = [] { return no_forward(n::ModuleList(n::Linear(2, 2), n::ReLU(), n::Conv1d(1, 2, 3)).ptr()); };
    c["moduledict"] = [] {
      return no_forward(n::ModuleDict(std::vector<std::pair<std::string, std::shared_ptr<n::Module>>>{
                                          {"a", n::Linear(2, 2).ptr()}, {"b", n::ReLU().ptr()}})
                            .ptr());
    };
    c["parameterlist"] = [] { return no_forward(n::ParameterList(std::vector<Tensor>{ones({3, 4}), ones({2})}).ptr()); };
    c["parameterdict"] = [] {
      return no_forward(
          n::ParameterDict(std::vector<std::pair<std::string, Tensor>>{{"b", ones({2})}, {"w", ones({3, 4})}}).ptr());
    };
    // linear, flatten, dropout, embedding
    c["linear"] = [] { return unary(n::Linear(4, 3)); };
    c["linear_nobias"] = [] { return unary(n::Linear(n::LinearOptions(4, 3).bias(false))); };
    c["bilinear"] = [] { return binary(n::Bilinear(2, 3, 4)); };
    c["identity"] = [] { return unary(n::Identity()); };
    c["flatten"] = [] { return unary(n::Flatten()); };
    c["flatten_0_1"] = [] { return unary(n::Flatten(n::FlattenOptions().start_dim(0).end_dim(1))); };
    c["unflatten"] = [] { return unary(n::Unflatten(1, std::vector<std::int64_t>{2, 3})); };
    c["dropout_eval"] = [] { return unary(n::Dropout(0.3)); };
    c["dropout2d_eval"] = [] { return unary(n::Dropout2d(n::DropoutOptions().p(0.2))); };
    c["alphadropout_eval"] = [] { return unary(n::AlphaDropout(0.25)); };
    c["embedding"] = [] { return unary(n::Embedding(n::EmbeddingOptions(5, 3).padding_idx(0))); };
    c["embedding_maxnorm"] = [] { return unary(n::Embedding(n::EmbeddingOptions(5, 3).max_norm(1.0).norm_type(1.5))); };
    c["embeddingbag_sum"] = [] { return binary(n::EmbeddingBag(n::EmbeddingBagOptions(6, 2).mode("sum"))); };
    c["embeddingbag_mean"] = [] { return unary(n::EmbeddingBag(n::EmbeddingBagOptions(6, 2).padding_idx(2))); };
    // convolution and pooling
    c["conv1d"] = [] { return unary(n::Conv1d(n::Conv1dOptions(2, 4, 3).stride(2).padding(1))); };
    c["conv1d_same_reflect"] = [] {
      return unary(n::Conv1d(n::Conv1dOptions(2, 4, 3).padding("same").padding_mode("reflect").dilation(2)));
    };
    c["conv2d"] = [] {
      return unary(
          n::Conv2d(n::Conv2dOptions(2, 4, {3, 2}).stride({2, 1}).padding({1, 0}).groups(2).bias(false)));
    };
    c["conv2d_same"] = [] { return unary(n::Conv2d(n::Conv2dOptions(3, 2, 3).padding("same"))); };
    c["conv2d_valid"] = [] { return unary(n::Conv2d(n::Conv2dOptions(1, 2, 2).padding("valid"))); };
    c["conv2d_circular"] = [] {
      return unary(n::Conv2d(n::Conv2dOptions(1, 2, 3).padding(1).padding_mode("circular")));
    };
    c["conv3d"] = [] { return unary(n::Conv3d(n::Conv3dOptions(2, 2, 2).padding(1))); };
    c["convt1d"] = [] {
      return unary(n::ConvTranspose1d(n::ConvTranspose1dOptions(2, 3, 3).stride(2).padding(1).output_padding(1)));
    };
    c["convt2d"] = [] {
      return unary(n::ConvTranspose2d(n::ConvTranspose2dOptions(2, 4, 3).stride(2).groups(2).bias(false)));
    };
    c["convt3d"] = [] { return unary(n::ConvTranspose3d(n::ConvTranspose3dOptions(1, 2, 2).stride(2))); };
    c["maxpool1d"] = [] { return unary(n::MaxPool1d(n::MaxPool1dOptions(3).stride(2).padding(1))); };
    c["maxpool2d"] = [] { return unary(n::MaxPool2d(2)); };
    c["maxpool2d_tuple"] = [] {
      return unary(n::MaxPool2d(n::MaxPool2dOptions({3, 2}).stride(n::ExpandingArray<2>{2, 1}).padding(1).ceil_mode(true)));
    };
    c["avgpool1d"] = [] {
      return unary(n::AvgPool1d(n::AvgPool1dOptions(3).stride(2).padding(1).count_include_pad(false)));
    };
    c["avgpool2d"] = [] { return unary(n::AvgPool2d(n::AvgPool2dOptions({2, 3}).stride(1).padding(1))); };
    c["adaptiveavgpool1d"] = [] { return unary(n::AdaptiveAvgPool1d(3)); };
    c["adaptiveavgpool2d"] = [] { return unary(n::AdaptiveAvgPool2d(n::AdaptiveAvgPool2dOptions({2, std::nullopt}))); };
    c["adaptivemaxpool2d"] = [] { return unary(n::AdaptiveMaxPool2d(2)); };
    // padding, shuffles, fold, distances
    c["zeropad2d"] = [] { return unary(n::ZeroPad2d(n::ZeroPad2dOptions({1, 2, 0, 1}))); };
    c["constantpad1d"] = [] { return unary(n::ConstantPad1d(n::ConstantPad1dOptions(2, 3.5))); };
    c["reflectionpad2d"] = [] { return unary(n::ReflectionPad2d(n::ReflectionPad2dOptions({1, 0, 2, 1}))); };
    c["replicationpad3d"] = [] { return unary(n::ReplicationPad3d(1)); };
    c["pixelshuffle"] = [] { return unary(n::PixelShuffle(2)); };
    c["pixelunshuffle"] = [] { return unary(n::PixelUnshuffle(2)); };
    c["channelshuffle"] = [] { return unary(n::ChannelShuffle(2)); };
    c["unfold"] = [] { return unary(n::Unfold(n::UnfoldOptions(2).padding(1))); };
    c["fold"] = [] { return unary(n::Fold(n::FoldOptions({4, 5}, 2))); };
    c["cosinesimilarity"] = [] { return binary(n::CosineSimilarity(n::CosineSimilarityOptions().dim(0))); };
    c["pairwisedistance"] = [] { return binary(n::PairwiseDistance(n::PairwiseDistanceOptions().p(1.0).keepdim(true))); };
    c["upsample_nearest"] = [] { return unary(n::Upsample(n::UpsampleOptions().scale_factor(std::vector<double>{2}))); };
    c["upsample_bilinear_size"] = [] {
      return unary(n::Upsample(
          n::UpsampleOptions().size(std::vector<std::int64_t>{3, 4}).mode("bilinear").align_corners(true)));
    };
    c["upsample_scale_tuple"] = [] {
      return unary(n::Upsample(n::UpsampleOptions().scale_factor(std::vector<double>{2, 1.5}).mode("bilinear")));
    };
    c["upsamplingnearest2d"] = [] {
      return unary(n::UpsamplingNearest2d(n::UpsamplingOptions().scale_factor(std::vector<double>{2})));
    };
    c["upsamplingbilinear2d"] = [] {
      return unary(n::UpsamplingBilinear2d(n::UpsamplingOptions().size(std::vector<std::int64_t>{4})));
    };
    c["lppool1d"] = [] { return unary(n::LPPool1d(2, 3)); };
    c["lppool2d"] = [] { return unary(n::LPPool2d(n::LPPool2dOptions(1.5, {2, 2}).stride(1))); };
    // normalisation
    c["batchnorm1d_train"] = [] { return unary(n::BatchNorm1d(3)); };
    c["batchnorm1d_eval"] = [] { return unary(n::BatchNorm1d(3)); };
    c["batchnorm2d_cumulative"] = [] { return unary(n::BatchNorm2d(n::BatchNorm2dOptions(2).momentum(std::nullopt))); };
    c["batchnorm3d_noaffine"] = [] {
      return unary(n::BatchNorm3d(n::BatchNorm3dOptions(2).affine(false).track_running_stats(false)));
    };
    c["layernorm"] = [] { return unary(n::LayerNorm(n::LayerNormOptions({3, 4}))); };
    c["layernorm_noaffine"] = [] {
      return unary(n::LayerNorm(n::LayerNormOptions({4}).eps(1e-3).elementwise_affine(false)));
    };
    c["groupnorm"] = [] { return unary(n::GroupNorm(2, 4)); };
    c["instancenorm1d"] = [] { return unary(n::InstanceNorm1d(3)); };
    c["instancenorm2d_track"] = [] {
      return unary(n::InstanceNorm2d(n::InstanceNorm2dOptions(2).affine(true).track_running_stats(true)));
    };
    c["instancenorm1d_unbatched_eval"] = [] {
      return unary(n::InstanceNorm1d(n::InstanceNorm1dOptions(3).track_running_stats(true)));
    };
    c["localresponsenorm"] = [] { return unary(n::LocalResponseNorm(2)); };
    // activations
    c["relu"] = [] { return unary(n::ReLU()); };
    c["relu6"] = [] { return unary(n::ReLU6()); };
    c["selu"] = [] { return unary(n::SELU()); };
    c["silu"] = [] { return unary(n::SiLU()); };
    c["mish"] = [] { return unary(n::Mish()); };
    c["hardswish"] = [] { return unary(n::Hardswish()); };
    c["hardsigmoid"] = [] { return unary(n::Hardsigmoid()); };
    c["leakyrelu"] = [] { return unary(n::LeakyReLU(n::LeakyReLUOptions().negative_slope(0.2))); };
    c["elu"] = [] { return unary(n::ELU(n::ELUOptions().alpha(0.5))); };
    c["celu"] = [] { return unary(n::CELU(n::CELUOptions().alpha(2.0))); };
    c["rrelu_eval"] = [] { return unary(n::RReLU(n::RReLUOptions().lower(0.1).upper(0.3))); };
    c["hardtanh"] = [] { return unary(n::Hardtanh(n::HardtanhOptions().min_val(-0.5).max_val(2.0))); };
    c["gelu"] = [] { return unary(n::GELU()); };
    c["gelu_tanh"] = [] { return unary(n::GELU("tanh")); };
    c["softplus"] = [] { return unary(n::Softplus(n::SoftplusOptions().beta(2).threshold(1))); };
    c["softshrink"] = [] { return unary(n::Softshrink(0.3)); };
    c["hardshrink"] = [] { return unary(n::Hardshrink(0.7)); };
    c["glu"] = [] { return unary(n::GLU(1)); };
    c["softmax"] = [] { return unary(n::Softmax(1)); };
    c["logsoftmax"] = [] { return unary(n::LogSoftmax(0)); };
    c["softmin"] = [] { return unary(n::Softmin(-1)); };
    c["sigmoid"] = [] { return unary(n::Sigmoid()); };
    c["tanh"] = [] { return unary(n::Tanh()); };
    c["softsign"] = [] { return unary(n::Softsign()); };
    c["tanhshrink"] = [] { return unary(n::Tanhshrink()); };
    c["logsigmoid"] = [] { return unary(n::LogSigmoid()); };
    c["softmax2d"] = [] { return unary(n::Softmax2d()); };
    c["threshold"] = [] { return unary(n::Threshold(0.1, 20)); };
    c["prelu"] = [] { return unary(n::PReLU()); };
    c["prelu5"] = [] { return unary(n::PReLU(n::PReLUOptions().num_parameters(5).init(0.1))); };
    // losses
    c["l1loss"] = [] { return binary(n::L1Loss()); };
    c["mseloss_sum"] = [] { return binary(n::MSELoss("sum")); };
    c["huberloss"] = [] { return binary(n::HuberLoss(n::HuberLossOptions().delta(0.5))); };
    c["smoothl1loss_none"] = [] {
      return binary(n::SmoothL1Loss(n::SmoothL1LossOptions().reduction("none").beta(0.5)));
    };
    c["crossentropyloss"] = [] {
      return binary(n::CrossEntropyLoss(n::CrossEntropyLossOptions().weight(ones({3})).label_smoothing(0.1)));
    };
    c["nllloss"] = [] { return binary(n::NLLLoss(n::NLLLossOptions().ignore_index(1))); };
    c["bceloss"] = [] { return binary(n::BCELoss()); };
    c["bcewithlogitsloss"] = [] { return binary(n::BCEWithLogitsLoss(n::BCEWithLogitsLossOptions().pos_weight(ones({2})))); };
    c["kldivloss"] = [] { return binary(n::KLDivLoss(n::KLDivLossOptions().reduction("batchmean"))); };
    c["marginrankingloss"] = [] { return ternary(n::MarginRankingLoss(n::MarginRankingLossOptions().margin(0.1))); };
    c["hingeembeddingloss"] = [] { return binary(n::HingeEmbeddingLoss(n::HingeEmbeddingLossOptions().margin(0.5))); };
    c["cosineembeddingloss"] = [] {
      return ternary(n::CosineEmbeddingLoss(n::CosineEmbeddingLossOptions().margin(0.2)));
    };
    c["softmarginloss"] = [] { return binary(n::SoftMarginLoss()); };
    c["multilabelmarginloss"] = [] { return binary(n::MultiLabelMarginLoss()); };
    c["multilabelsoftmarginloss"] = [] { return binary(n::MultiLabelSoftMarginLoss()); };
    c["multimarginloss"] = [] { return binary(n::MultiMarginLoss(n::MultiMarginLossOptions().p(2).margin(0.5))); };
    c["tripletmarginloss"] = [] {
      return ternary(n::TripletMarginLoss(n::TripletMarginLossOptions().margin(0.5).p(1.0).swap(true)));
    };
    c["poissonnllloss"] = [] { return binary(n::PoissonNLLLoss(n::PoissonNLLLossOptions().full(true))); };
    c["gaussiannllloss"] = [] { return ternary(n::GaussianNLLLoss(n::GaussianNLLLossOptions().full(true))); };
    c["ctcloss"] = [] {
      n::CTCLoss loss;
      return ModuleCase{loss.ptr(), [loss](const std::vector<Tensor>& in) {
                          return std::vector<Tensor>{loss(in.at(0), in.at(1), in.at(2), in.at(3))};
                        }};
    };
    add_recurrent_cases(c);
    return c;
  }();
  return cases;
}

}  // namespace wick::testing
