// core/frontend/nn_norm.cpp - BatchNorm, InstanceNorm, LayerNorm, GroupNorm and LocalResponseNorm modules.
/// \file
#include "wick/nn_norm.h"

#include "core/frontend/nn_repr.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick::nn {

namespace F = wick::nn::functional;
using detail::py;

namespace {

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

template <class O>
std::string norm_repr(const O& o) {
  return py(o.num_features()) + ", eps=" + py(o.eps()) + ", momentum=" + py(o.momentum()) +
         ", affine=" + py(o.affine()) + ", track_running_stats=" + py(o.track_running_stats());
}

// ValueError "expected 4D input (got 3D input)" unless input.dim() is `a` or `b`.
void check_dim(const Tensor& input, std::int64_t a, std::int64_t b) {
  const std::int64_t d = input.dim();
  if (a == b) {
    WICK_CHECK(d == a, ValueError, "expected ", a, "D input (got ", d, "D input)");
  } else {
    WICK_CHECK(d == a || d == b, ValueError, "expected ", a, "D or ", b, "D input (got ", d, "D input)");
  }
}

}  // namespace

// --- NormBase ---------------------------------------------------------------------------

void NormBase::register_norm(Module& m, std::int64_t num_features, bool affine, bool track_running_stats) {
  weight = m.register_parameter("weight", affine ? empty({num_features}) : Tensor());
  bias = m.register_parameter("bias", affine ? empty({num_features}) : Tensor());
  running_mean = m.register_buffer("running_mean", track_running_stats ? zeros({num_features}) : Tensor());
  running_var = m.register_buffer("running_var", track_running_stats ? ones({num_features}) : Tensor());
  num_batches_tracked = m.register_buffer(
      "num_batches_tracked", track_running_stats ? zeros(IntArrayRef(), ScalarType::kInt64) : Tensor());
}

void NormBase::reset_running_stats() {
  if (!running_mean.defined()) return;
  NoGradGuard no_grad;
  running_mean.fill_(0);
  running_var.fill_(1);
  num_batches_tracked.fill_(0);
}

void NormBase::reset_norm_parameters() {
  reset_running_stats();
  if (weight.defined()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

// --- BatchNorm ----------------------------------------------------------------------------

namespace {

// PyTorch's _BatchNorm.forward, after the rank check.
Tensor batch_norm_forward(Module& m, NormBase& n, const BatchNormOptions& o, const Tensor& input) {
  double factor = o.momentum().value_or(0.0);
  const bool training = m.is_training();
  if (training && o.track_running_stats() && n.num_batches_tracked.defined()) {
    const auto count = n.num_batches_tracked.item<std::int64_t>() + 1;
    {
      NoGradGuard no_grad;
      n.num_batches_tracked.fill_(count);
    }
    factor = o.momentum() ? *o.momentum() : 1.0 / static_cast<double>(count);
  }
  const bool bn_training = training || (!n.running_mean.defined() && !n.running_var.defined());
  const bool use_running = !training || o.track_running_stats();
  return F::batch_norm(input, use_running ? opt(n.running_mean) : std::nullopt,
                       use_running ? opt(n.running_var) : std::nullopt, opt(n.weight), opt(n.bias), bn_training,
                       factor, o.eps());
}

}  // namespace

#define WICK_NN_BATCH_NORM_DEFINE(Name, a, b)                                                       \
  Name##Impl::Name##Impl(const BatchNormOptions& opts) : options(opts) {                    \
    register_norm(*this, options.num_features(), options.affine(), options.track_running_stats()); \
    reset_parameters();                                                                             \
  }                                                                                                 \
  void Name##Impl::reset_parameters() { reset_norm_parameters(); }                                  \
  Tensor Name##Impl::forward(const Tensor& input) {                                                 \
    check_dim(input, a, b);                                                                         \
    return batch_norm_forward(*this, *this, options, input);                                        \
  }                                                                                                 \
  std::string Name##Impl::extra_repr() const { return norm_repr(options); }

WICK_NN_BATCH_NORM_DEFINE(BatchNorm1d, 2, 3)
WICK_NN_BATCH_NORM_DEFINE(BatchNorm2d, 4, 4)
WICK_NN_BATCH_NORM_DEFINE(BatchNorm3d, 5, 5)
#undef WICK_NN_BATCH_NORM_DEFINE

// --- InstanceNorm ---------------------------------------------------------------------------

namespace {

// PyTorch's _InstanceNorm.forward: `no_batch` is the rank of an unbatched input.
Tensor instance_norm_forward(Module& m, NormBase& n, const InstanceNormOptions& o, const Tensor& input,
                             std::int64_t no_batch) {
  check_dim(input, no_batch, no_batch + 1);
  const std::int64_t feature_dim = input.dim() - no_batch;
  WICK_CHECK(!o.affine() || input.size(feature_dim) == o.num_features(), ValueError,
             "expected input's size at dim=", feature_dim, " to match num_features (", o.num_features(),
             "), but got: ", input.size(feature_dim), ".");
  const bool unbatched = input.dim() == no_batch;
  const Tensor x = unbatched ? unsqueeze(input, 0) : input;
  Tensor out = F::instance_norm(x, opt(n.running_mean), opt(n.running_var), opt(n.weight), opt(n.bias),
                                m.is_training() || !o.track_running_stats(), o.momentum(), o.eps());
  return unbatched ? squeeze(out, 0) : out;
}

}  // namespace

#define WICK_NN_INSTANCE_NORM_DEFINE(Name, no_batch)                                                 \
  Name##Impl::Name##Impl(const InstanceNormOptions& opts) : options(opts) {                 \
    register_norm(*this, options.num_features(), options.affine(), options.track_running_stats()); \
    reset_parameters();                                                                             \
  }                                                                                                 \
  void Name##Impl::reset_parameters() { reset_norm_parameters(); }                                  \
  Tensor Name##Impl::forward(const Tensor& input) {                                                 \
    return instance_norm_forward(*this, *this, options, input, no_batch);                           \
  }                                                                                                 \
  std::string Name##Impl::extra_repr() const { return norm_repr(options); }

WICK_NN_INSTANCE_NORM_DEFINE(InstanceNorm1d, 2)
WICK_NN_INSTANCE_NORM_DEFINE(InstanceNorm2d, 3)
WICK_NN_INSTANCE_NORM_DEFINE(InstanceNorm3d, 4)
#undef WICK_NN_INSTANCE_NORM_DEFINE

// --- LayerNorm, GroupNorm, LocalResponseNorm ----------------------------------------------------

LayerNormImpl::LayerNormImpl(const LayerNormOptions& opts) : options(opts) {
  const bool affine = options.elementwise_affine();
  weight = register_parameter("weight", affine ? wick::empty(IntArrayRef(options.normalized_shape())) : Tensor());
  bias = register_parameter("bias", affine ? wick::empty(IntArrayRef(options.normalized_shape())) : Tensor());
  reset_parameters();
}

void LayerNormImpl::reset_parameters() {
  if (!weight.defined()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNormImpl::forward(const Tensor& input) {
  return F::layer_norm(input, options.normalized_shape(), opt(weight), opt(bias), options.eps());
}

std::string LayerNormImpl::extra_repr() const {
  return detail::py_tuple(options.normalized_shape()) + ", eps=" + py(options.eps()) +
         ", elementwise_affine=" + py(options.elementwise_affine());
}

GroupNormImpl::GroupNormImpl(const GroupNormOptions& opts) : options(opts) {
  WICK_CHECK(options.num_groups() > 0 && options.num_channels() % options.num_groups() == 0, ValueError,
             "num_channels must be divisible by num_groups");
  weight = register_parameter("weight", options.affine() ? empty({options.num_channels()}) : Tensor());
  bias = register_parameter("bias", options.affine() ? empty({options.num_channels()}) : Tensor());
  reset_parameters();
}

void GroupNormImpl::reset_parameters() {
  if (!weight.defined()) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNormImpl::forward(const Tensor& input) {
  return F::group_norm(input, options.num_groups(), opt(weight), opt(bias), options.eps());
}

std::string GroupNormImpl::extra_repr() const {
  return py(options.num_groups()) + ", " + py(options.num_channels()) + ", eps=" + py(options.eps()) +
         ", affine=" + py(options.affine());
}

LocalResponseNormImpl::LocalResponseNormImpl(const LocalResponseNormOptions& opts) : options(opts) {}

Tensor LocalResponseNormImpl::forward(const Tensor& input) {
  return F::local_response_norm(input, options.size(), options.alpha(), options.beta(), options.k());
}

std::string LocalResponseNormImpl::extra_repr() const {
  return py(options.size()) + ", alpha=" + py(options.alpha()) + ", beta=" + py(options.beta()) +
         ", k=" + py(options.k());
}

}  // namespace wick::nn
