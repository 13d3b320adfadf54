// core/frontend/nn_linear.cpp - Identity, Linear, Bilinear, Flatten, Unflatten, dropouts, Embedding, EmbeddingBag.
/// \file
#include "wick/nn_linear.h"

#include <cmath>

#include "core/frontend/nn_repr.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick::nn {

namespace F = wick::nn::functional;
using detail::py;

namespace {

// uniform(-1/sqrt(fan_in), 1/sqrt(fan_in)) for a bias, fan_in from `weight`.
void init_bias_from_fan_in(const Tensor& weight, const Tensor& bias) {
  if (!bias.defined()) return;
  const std::int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  init::uniform_(bias, -bound, bound);
}

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

}  // namespace

// --- Identity, Linear, Bilinear ----------------------------------------------------

Tensor IdentityImpl::forward(const Tensor& input) { return input; }

LinearImpl::LinearImpl(const LinearOptions& opts) : options(opts) {
  WICK_CHECK(options.in_features() >= 0 && options.out_features() >= 0, ValueError,
             "Linear: in_features and out_features must be non-negative, got ", options.in_features(), " and ",
             options.out_features());
  weight = register_parameter("weight", empty({options.out_features(), options.in_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor());
  reset_parameters();
}

void LinearImpl::reset_parameters() {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  init_bias_from_fan_in(weight, bias);
}

Tensor LinearImpl::forward(const Tensor& input) { return F::linear(input, weight, opt(bias)); }

std::string LinearImpl::extra_repr() const {
  return "in_features=" + py(options.in_features()) + ", out_features=" + py(options.out_features()) +
         ", bias=" + py(bias.defined());
}

BilinearImpl::BilinearImpl(const BilinearOptions& opts) : options(opts) {
  weight = register_parameter(
      "weight", empty({options.out_features(), options.in1_features(), options.in2_features()}));
  bias = register_parameter("bias", options.bias() ? empty({options.out_features()}) : Tensor());
  reset_parameters();
}

void BilinearImpl::reset_parameters() {
  const double bound = 1.0 / std::sqrt(static_cast<double>(weight.size(1)));
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor BilinearImpl::forward(const Tensor& input1, const Tensor& input2) {
  return F::bilinear(input1, input2, weight, opt(bias));
}

std::string BilinearImpl::extra_repr() const {
  return "in1_features=" + py(options.in1_features()) + ", in2_features=" + py(options.in2_features()) +
         ", out_features=" + py(options.out_features()) + ", bias=" + py(bias.defined());
}

// --- Flatten, Unflatten ---------------------------------------------------------------

FlattenImpl::FlattenImpl(const FlattenOptions& opts) : options(opts) {}

Tensor FlattenImpl::forward(const Tensor& input) { return flatten(input, options.start_dim(), options.end_dim()); }

std::string FlattenImpl::extra_repr() const {
  return "start_dim=" + py(options.start_dim()) + ", end_dim=" + py(options.end_dim());
}

UnflattenImpl::UnflattenImpl(const UnflattenOptions& opts) : options(opts) {}

Tensor UnflattenImpl::forward(const Tensor& input) { return unflatten(input, options.dim(), options.sizes()); }

std::string UnflattenImpl::extra_repr() const {
  return "dim=" + py(options.dim()) + ", unflattened_size=" + detail::py_tuple(options.sizes());
}

// --- dropouts ---------------------------------------------------------------------------

#define WICK_NN_DROPOUT_DEFINE(Name, fn)                                                                     \
  Name##Impl::Name##Impl(const DropoutOptions& opts) : options(opts) {                               \
    WICK_CHECK(options.p() >= 0 && options.p() <= 1, ValueError,                                              \
               "dropout probability has to be between 0 and 1, but got ", py(options.p()));                   \
  }                                                                                                          \
  Tensor Name##Impl::forward(const Tensor& input) {                                                          \
    return fn(input, options.p(), is_training(), options.inplace());                                         \
  }                                                                                                          \
  std::string Name##Impl::extra_repr() const { return "p=" + py(options.p()) + ", inplace=" + py(options.inplace()); }

WICK_NN_DROPOUT_DEFINE(Dropout, F::dropout)
WICK_NN_DROPOUT_DEFINE(Dropout1d, F::dropout1d)
WICK_NN_DROPOUT_DEFINE(Dropout2d, F::dropout2d)
WICK_NN_DROPOUT_DEFINE(Dropout3d, F::dropout3d)
WICK_NN_DROPOUT_DEFINE(AlphaDropout, F::alpha_dropout)
WICK_NN_DROPOUT_DEFINE(FeatureAlphaDropout, F::feature_alpha_dropout)
#undef WICK_NN_DROPOUT_DEFINE

// --- Embedding, EmbeddingBag -------------------------------------------------------------

namespace {

// padding_idx made non-negative; AssertionError outside [-n, n).
std::optional<std::int64_t> normalise_padding_idx(std::optional<std::int64_t> idx, std::int64_t n) {
  if (!idx) return idx;
  if (*idx >= 0) {
    WICK_CHECK(*idx < n, AssertionError, "Padding_idx must be within num_embeddings");
    return idx;
  }
  WICK_CHECK(*idx >= -n, AssertionError, "Padding_idx must be within num_embeddings");
  return *idx + n;
}

// The weight an embedding module starts with: `given` (checked) or a new one to initialise.
Tensor embedding_weight(const Tensor& given, std::int64_t n, std::int64_t dim) {
  if (!given.defined()) return empty({n, dim});
  WICK_CHECK(given.dim() == 2 && given.size(0) == n && given.size(1) == dim, AssertionError,
             "Shape of weight does not match num_embeddings and embedding_dim");
  return given;
}

void zero_padding_row(const Tensor& weight, std::optional<std::int64_t> padding_idx) {
  if (!padding_idx) return;
  NoGradGuard no_grad;
  weight.select(0, *padding_idx).fill_(0);
}

}  // namespace

EmbeddingImpl::EmbeddingImpl(const EmbeddingOptions& opts) : options(opts) {
  options.padding_idx(normalise_padding_idx(options.padding_idx(), options.num_embeddings()));
  const bool given = options._weight().defined();
  weight = register_parameter("weight",
                              embedding_weight(options._weight(), options.num_embeddings(), options.embedding_dim()));
  if (!given) reset_parameters();
}

void EmbeddingImpl::reset_parameters() {
  init::normal_(weight);
  zero_padding_row(weight, options.padding_idx());
}

Tensor EmbeddingImpl::forward(const Tensor& input) {
  return F::embedding(input, weight, options.padding_idx(), options.max_norm(), options.norm_type(),
                      options.scale_grad_by_freq(), options.sparse());
}

std::string EmbeddingImpl::extra_repr() const {
  std::string s = py(options.num_embeddings()) + ", " + py(options.embedding_dim());
  if (options.padding_idx()) s += ", padding_idx=" + py(*options.padding_idx());
  if (options.max_norm()) s += ", max_norm=" + py(*options.max_norm());
  if (options.norm_type() != 2.0) s += ", norm_type=" + py(options.norm_type());
  if (options.scale_grad_by_freq()) s += ", scale_grad_by_freq=True";
  if (options.sparse()) s += ", sparse=True";
  return s;
}

std::shared_ptr<EmbeddingImpl> embedding_from_pretrained(const Tensor& embeddings,
                                                         const EmbeddingFromPretrainedOptions& options) {
  WICK_CHECK(embeddings.defined() && embeddings.dim() == 2, AssertionError,
             "Embeddings parameter is expected to be 2-dimensional");
  auto m = std::make_shared<EmbeddingImpl>(EmbeddingOptions(embeddings.size(0), embeddings.size(1))
                                               ._weight(embeddings.detach())
                                               .padding_idx(options.padding_idx())
                                               .max_norm(options.max_norm())
                                               .norm_type(options.norm_type())
                                               .scale_grad_by_freq(options.scale_grad_by_freq())
                                               .sparse(options.sparse()));
  m->weight.requires_grad_(!options.freeze());
  return m;
}

EmbeddingBagImpl::EmbeddingBagImpl(const EmbeddingBagOptions& opts) : options(opts) {
  options.padding_idx(normalise_padding_idx(options.padding_idx(), options.num_embeddings()));
  WICK_CHECK(options.mode() == "sum" || options.mode() == "mean" || options.mode() == "max", ValueError,
             "mode has to be one of sum, mean or max");
  const bool given = options._weight().defined();
  weight = register_parameter("weight",
                              embedding_weight(options._weight(), options.num_embeddings(), options.embedding_dim()));
  if (!given) reset_parameters();
}

void EmbeddingBagImpl::reset_parameters() {
  init::normal_(weight);
  zero_padding_row(weight, options.padding_idx());
}

Tensor EmbeddingBagImpl::forward(const Tensor& input, const std::optional<Tensor>& offsets,
                                 const std::optional<Tensor>& per_sample_weights) {
  return F::embedding_bag(input, weight, offsets, options.max_norm(), options.norm_type(),
                          options.scale_grad_by_freq(), options.mode(), options.sparse(), per_sample_weights,
                          options.include_last_offset(), options.padding_idx());
}

std::string EmbeddingBagImpl::extra_repr() const {
  std::string s = py(options.num_embeddings()) + ", " + py(options.embedding_dim());
  if (options.max_norm()) s += ", max_norm=" + py(*options.max_norm());
  if (options.norm_type() != 2.0) s += ", norm_type=" + py(options.norm_type());
  if (options.scale_grad_by_freq()) s += ", scale_grad_by_freq=True";
  s += ", mode=" + options.mode();
  if (options.padding_idx()) s += ", padding_idx=" + py(*options.padding_idx());
  return s;
}

}  // namespace wick::nn
