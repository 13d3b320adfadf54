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

// --- Upsample, LPPool -----------------------------------------------------------------------------

namespace {

// One value as itself, several as a tuple: how Upsample prints size and scale_factor.
template <class T, class Fmt>
std::string one_or_tuple(const std::vector<T>& v, Fmt fmt) {
  if (v.size() == 1) return fmt(v[0]);
  std::string out = "(";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i > 0 ? ", " : "") + fmt(v[i]);
  return out + ")";
}

template <class T>
Value one_or_list(const std::optional<std::vector<T>>& v) {
  if (!v) return Value();
  if (v->size() == 1) return Value((*v)[0]);
  std::vector<Value> items;
  for (T x : *v) items.emplace_back(x);
  return Value::list(std::move(items));
}

// PyTorch prints an int-valued norm_type as an int (its usual spelling: LPPool1d(2, 3)).
std::string py_number(double v) {
  if (v == static_cast<double>(static_cast<long long>(v))) return std::to_string(static_cast<long long>(v));
  return py(v);
}

}  // namespace

UpsampleImpl::UpsampleImpl(const UpsampleOptions& opts) : options(opts) {
  WICK_CHECK(options.size().has_value() != options.scale_factor().has_value(), ValueError,
             "Upsample: give exactly one of size and scale_factor");
}

Tensor UpsampleImpl::forward(const Tensor& input) {
  return F::interpolate(input, one_or_list(options.size()), one_or_list(options.scale_factor()), options.mode(),
                        options.align_corners());
}

std::string UpsampleImpl::extra_repr() const {
  std::string s = options.scale_factor()
                      ? "scale_factor=" + one_or_tuple(*options.scale_factor(), [](double v) { return py(v); })
                      : "size=" + one_or_tuple(*options.size(), [](std::int64_t v) { return std::to_string(v); });
  return s + ", mode=" + options.mode();
}

UpsamplingNearest2dImpl::UpsamplingNearest2dImpl(const UpsamplingOptions& opts)
    : UpsampleImpl(UpsampleOptions().size(opts.size()).scale_factor(opts.scale_factor()).mode("nearest")) {}

UpsamplingBilinear2dImpl::UpsamplingBilinear2dImpl(const UpsamplingOptions& opts)
    : UpsampleImpl(
          UpsampleOptions().size(opts.size()).scale_factor(opts.scale_factor()).mode("bilinear").align_corners(true)) {}

#define WICK_NN_LP_POOL_DEFINE(Name, fn)                                                                        \
  Name##Impl::Name##Impl(const Name##Options& opts) : options(opts) {}                                          \
  Tensor Name##Impl::forward(const Tensor& input) {                                                             \
    return F::fn(input, options.norm_type(), options.kernel_size(),                                             \
                 options.stride() ? OptionalIntArrayRef(options.stride()->ref()) : OptionalIntArrayRef(),       \
                 options.ceil_mode());                                                                           \
  }                                                                                                              \
  std::string Name##Impl::extra_repr() const {                                                                  \
    return "norm_type=" + py_number(options.norm_type()) + ", kernel_size=" + py_given(options.kernel_size()) + \
           ", stride=" + (options.stride() ? py_given(*options.stride()) : std::string("None")) +              \
           ", ceil_mode=" + py(options.ceil_mode());                                                            \
  }

WICK_NN_LP_POOL_DEFINE(LPPool1d, lp_pool1d)
WICK_NN_LP_POOL_DEFINE(LPPool2d, lp_pool2d)
#undef WICK_NN_LP_POOL_DEFINE

}  // namespace wick::nn
