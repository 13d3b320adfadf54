// core/frontend/nn_misc.cpp - padding, shuffles, Fold/Unfold and the distance modules.
/// \file
#include "wick/nn_misc.h"

#include "core/frontend/nn_repr.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick::nn {

namespace F = wick::nn::functional;
using detail::py;
using detail::py_given;
using detail::py_tuple;

#define WICK_NN_PAD_DEFINE(Name, call, repr)                                \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {}      \
  Tensor Name##Impl::forward(const Tensor& input) { return call; }          \
  std::string Name##Impl::extra_repr() const { return repr; }

#define WICK_NN_PAD_MODE(mode) F::pad(input, options.padding(), mode)
#define WICK_NN_PAD_CONSTANT F::pad(input, options.padding(), "constant", options.value())
#define WICK_NN_PAD_REPR py_tuple(options.padding())
#define WICK_NN_PAD_CONSTANT_REPR "padding=" + py_tuple(options.padding()) + ", value=" + py(options.value())

WICK_NN_PAD_DEFINE(ZeroPad2d, WICK_NN_PAD_MODE("constant"), WICK_NN_PAD_REPR)
WICK_NN_PAD_DEFINE(ConstantPad1d, WICK_NN_PAD_CONSTANT, WICK_NN_PAD_CONSTANT_REPR)
WICK_NN_PAD_DEFINE(ConstantPad2d, WICK_NN_PAD_CONSTANT, WICK_NN_PAD_CONSTANT_REPR)
WICK_NN_PAD_DEFINE(ConstantPad3d, WICK_NN_PAD_CONSTANT, WICK_NN_PAD_CONSTANT_REPR)
WICK_NN_PAD_DEFINE(ReflectionPad1d, WICK_NN_PAD_MODE("reflect"), WICK_NN_PAD_REPR)
WICK_NN_PAD_DEFINE(ReflectionPad2d, WICK_NN_PAD_MODE("reflect"), WICK_NN_PAD_REPR)
WICK_NN_PAD_DEFINE(ReflectionPad3d, WICK_NN_PAD_MODE("reflect"), WICK_NN_PAD_REPR)
WICK_NN_PAD_DEFINE(ReplicationPad1d, WICK_NN_PAD_MODE("replicate"), WICK_NN_PAD_REPR)
WICK_NN_PAD_DEFINE(ReplicationPad2d, WICK_NN_PAD_MODE("replicate"), WICK_NN_PAD_REPR)
WICK_NN_PAD_DEFINE(ReplicationPad3d, WICK_NN_PAD_MODE("replicate"), WICK_NN_PAD_REPR)
#undef WICK_NN_PAD_CONSTANT_REPR
#undef WICK_NN_PAD_REPR
#undef WICK_NN_PAD_CONSTANT
#undef WICK_NN_PAD_MODE
#undef WICK_NN_PAD_DEFINE

PixelShuffleImpl::PixelShuffleImpl(const PixelShuffleOptions& opts) : options(opts) {}
Tensor PixelShuffleImpl::forward(const Tensor& input) { return F::pixel_shuffle(input, options.upscale_factor()); }
std::string PixelShuffleImpl::extra_repr() const { return "upscale_factor=" + py(options.upscale_factor()); }

PixelUnshuffleImpl::PixelUnshuffleImpl(const PixelUnshuffleOptions& opts) : options(opts) {}
Tensor PixelUnshuffleImpl::forward(const Tensor& input) {
  return F::pixel_unshuffle(input, options.downscale_factor());
}
std::string PixelUnshuffleImpl::extra_repr() const { return "downscale_factor=" + py(options.downscale_factor()); }

ChannelShuffleImpl::ChannelShuffleImpl(const ChannelShuffleOptions& opts) : options(opts) {}
Tensor ChannelShuffleImpl::forward(const Tensor& input) { return F::channel_shuffle(input, options.groups()); }
std::string ChannelShuffleImpl::extra_repr() const { return "groups=" + py(options.groups()); }

UnfoldImpl::UnfoldImpl(const UnfoldOptions& opts) : options(opts) {}
Tensor UnfoldImpl::forward(const Tensor& input) {
  return F::unfold(input, options.kernel_size(), options.dilation(), options.padding(), options.stride());
}
std::string UnfoldImpl::extra_repr() const {
  return "kernel_size=" + py_given(options.kernel_size()) + ", dilation=" + py_given(options.dilation()) +
         ", padding=" + py_given(options.padding()) + ", stride=" + py_given(options.stride());
}

FoldImpl::FoldImpl(const FoldOptions& opts) : options(opts) {}
Tensor FoldImpl::forward(const Tensor& input) {
  return F::fold(input, options.output_size(), options.kernel_size(), options.dilation(), options.padding(),
                 options.stride());
}
std::string FoldImpl::extra_repr() const {
  return "output_size=" + py_given(options.output_size()) + ", kernel_size=" + py_given(options.kernel_size()) +
         ", dilation=" + py_given(options.dilation()) + ", padding=" + py_given(options.padding()) +
         ", stride=" + py_given(options.stride());
}

CosineSimilarityImpl::CosineSimilarityImpl(const CosineSimilarityOptions& opts) : options(opts) {}
Tensor CosineSimilarityImpl::forward(const Tensor& x1, const Tensor& x2) {
  return F::cosine_similarity(x1, x2, options.dim(), options.eps());
}

PairwiseDistanceImpl::PairwiseDistanceImpl(const PairwiseDistanceOptions& opts) : options(opts) {}
Tensor PairwiseDistanceImpl::forward(const Tensor& x1, const Tensor& x2) {
  return F::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

}  // namespace wick::nn
