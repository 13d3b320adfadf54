// core/frontend/nn_transformer.cpp - MultiheadAttention and the Transformer encoder and decoder layers.
/// \file
#include "wick/nn_transformer.h"

#include <limits>

#include "wick/nn_functional.h"
#include "wick/ops.h"

namespace wick::nn {

namespace F = wick::nn::functional;

namespace {

std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

}  // namespace

// --- MultiheadAttention -----------------------------------------------------------------------

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& opts) : options(opts) {
  const std::int64_t e = options.embed_dim();
  const std::int64_t kdim = options.kdim().value_or(e);
  const std::int64_t vdim = options.vdim().value_or(e);
  WICK_CHECK(options.num_heads() > 0 && e % options.num_heads() == 0, AssertionError,
             "embed_dim must be divisible by num_heads");
  const bool same = kdim == e && vdim == e;
  if (same) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * e, e}));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({e, e}));
    k_proj_weight = register_parameter("k_proj_weight", empty({e, kdim}));
    v_proj_weight = register_parameter("v_proj_weight", empty({e, vdim}));
  }
  in_proj_bias = register_parameter("in_proj_bias", options.bias() ? empty({3 * e}) : Tensor());
  out_proj = register_module("out_proj",
                             std::make_shared<NonDynamicallyQuantizableLinearImpl>(LinearOptions(e, e).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", empty({1, 1, e}));
    bias_v = register_parameter("bias_v", empty({1, 1, e}));
  }
  reset_parameters();
}

void MultiheadAttentionImpl::reset_parameters() {
  if (in_proj_weight.defined()) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) {
    init::xavier_normal_(bias_k);
    init::xavier_normal_(bias_v);
  }
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                           const std::optional<Tensor>& key_padding_mask,
                                                           bool need_weights, const std::optional<Tensor>& attn_mask,
                                                           bool average_attn_weights) {
  const bool batched = query.dim() == 3;
  const bool transpose = options.batch_first() && batched;
  const Tensor q = transpose ? query.transpose(1, 0) : query;
  const Tensor k = transpose ? key.transpose(1, 0) : key;
  const Tensor v = transpose ? value.transpose(1, 0) : value;
  const bool separate = !in_proj_weight.defined();
  const Value result = F::multi_head_attention_forward(
      q, k, v, options.embed_dim(), options.num_heads(), opt(in_proj_weight), opt(in_proj_bias), opt(bias_k),
      opt(bias_v), options.add_zero_attn(), options.dropout(), out_proj->weight, opt(out_proj->bias), is_training(),
      key_padding_mask, need_weights, attn_mask, separate, opt(q_proj_weight), opt(k_proj_weight), opt(v_proj_weight),
      std::nullopt, std::nullopt, average_attn_weights);
  const std::vector<Value>& items = result.items();
  Tensor out = items.at(0).to_tensor();
  Tensor weights = items.at(1).is_none() ? Tensor() : items.at(1).to_tensor();
  if (transpose) out = out.transpose(1, 0);
  return {out, weights};
}

// --- Transformer layers ---------------------------------------------------------------------------

namespace {

Tensor activate(const std::string& activation, const Tensor& x) {
  return activation == "gelu" ? F::gelu(x) : F::relu(x);
}

void check_activation(const std::string& activation) {
  WICK_CHECK(activation == "relu" || activation == "gelu", RuntimeError, "activation should be relu/gelu, not ",
             activation);
}

MultiheadAttention make_attention(const TransformerEncoderLayerOptions& o) {
  return MultiheadAttention(
      MultiheadAttentionOptions(o.d_model(), o.nhead()).dropout(o.dropout()).batch_first(o.batch_first()));
}

LayerNorm make_norm(const TransformerEncoderLayerOptions& o) {
  return LayerNorm(LayerNormOptions({o.d_model()}).eps(o.layer_norm_eps()));
}

}  // namespace

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& opts)
    : options(opts) {
  check_activation(options.activation());
  self_attn = register_module("self_attn", make_attention(options));
  linear1 = register_module("linear1", Linear(options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), options.d_model()));
  norm1 = register_module("norm1", make_norm(options));
  norm2 = register_module("norm2", make_norm(options));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const std::optional<Tensor>& src_mask,
                                            const std::optional<Tensor>& src_key_padding_mask) {
  auto sa = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, src_key_padding_mask, false, src_mask)));
  };
  auto ff = [&](const Tensor& x) {
    return dropout2(linear2(dropout(activate(options.activation(), linear1(x)))));
  };
  Tensor x = src;
  if (options.norm_first()) {
    x = x + sa(norm1(x));
    x = x + ff(norm2(x));
  } else {
    x = norm1(x + sa(x));
    x = norm2(x + ff(x));
  }
  return x;
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& opts)
    : options(opts) {
  check_activation(options.activation());
  self_attn = register_module("self_attn", make_attention(options));
  multihead_attn = register_module("multihead_attn", make_attention(options));
  linear1 = register_module("linear1", Linear(options.d_model(), options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), options.d_model()));
  norm1 = register_module("norm1", make_norm(options));
  norm2 = register_module("norm2", make_norm(options));
  norm3 = register_module("norm3", make_norm(options));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
  dropout3 = register_module("dropout3", Dropout(options.dropout()));
}

Tensor TransformerDecoderLayerImpl::forward(const Tensor& tgt, const Tensor& memory,
                                            const std::optional<Tensor>& tgt_mask,
                                            const std::optional<Tensor>& memory_mask,
                                            const std::optional<Tensor>& tgt_key_padding_mask,
                                            const std::optional<Tensor>& memory_key_padding_mask) {
  auto sa = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, tgt_key_padding_mask, false, tgt_mask)));
  };
  auto mha = [&](const Tensor& x) {
    return dropout2(std::get<0>(multihead_attn(x, memory, memory, memory_key_padding_mask, false, memory_mask)));
  };
  auto ff = [&](const Tensor& x) {
    return dropout3(linear2(dropout(activate(options.activation(), linear1(x)))));
  };
  Tensor x = tgt;
  if (options.norm_first()) {
    x = x + sa(norm1(x));
    x = x + mha(norm2(x));
    x = x + ff(norm3(x));
  } else {
    x = norm1(x + sa(x));
    x = norm2(x + mha(x));
    x = norm3(x + ff(x));
  }
  return x;
}

// --- TransformerEncoder, TransformerDecoder, Transformer --------------------------------------------

namespace {

// A new layer with `prototype`'s options and a copy of its state: PyTorch's deepcopy.
template <class Layer>
Layer copy_layer(const Layer& prototype) {
  WICK_CHECK(!prototype.is_empty(), ValueError, "Transformer: the layer to copy is empty");
  Layer layer(prototype->options);
  layer->load_state_dict(prototype->state_dict());
  layer->train(prototype->is_training());
  return layer;
}

}  // namespace

TransformerEncoderImpl::TransformerEncoderImpl(const TransformerEncoderOptions& opts) : options(opts) {
  WICK_CHECK(options.num_layers() > 0, ValueError, "TransformerEncoder: num_layers must be positive, got ",
             options.num_layers());
  layers = register_module("layers", ModuleList());
  for (std::int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(copy_layer(options.encoder_layer()));
  if (!options.norm().is_empty()) norm = register_module("norm", options.norm());
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const std::optional<Tensor>& mask,
                                       const std::optional<Tensor>& src_key_padding_mask) {
  Tensor x = src;
  for (const auto& m : *layers) {
    x = static_cast<TransformerEncoderLayerImpl&>(*m)(x, mask, src_key_padding_mask);
  }
  return norm.is_empty() ? x : norm(x);
}

TransformerDecoderImpl::TransformerDecoderImpl(const TransformerDecoderOptions& opts) : options(opts) {
  WICK_CHECK(options.num_layers() > 0, ValueError, "TransformerDecoder: num_layers must be positive, got ",
             options.num_layers());
  layers = register_module("layers", ModuleList());
  for (std::int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(copy_layer(options.decoder_layer()));
  if (!options.norm().is_empty()) norm = register_module("norm", options.norm());
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory, const std::optional<Tensor>& tgt_mask,
                                       const std::optional<Tensor>& memory_mask,
                                       const std::optional<Tensor>& tgt_key_padding_mask,
                                       const std::optional<Tensor>& memory_key_padding_mask) {
  Tensor x = tgt;
  for (const auto& m : *layers) {
    x = static_cast<TransformerDecoderLayerImpl&>(*m)(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                                      memory_key_padding_mask);
  }
  return norm.is_empty() ? x : norm(x);
}

TransformerImpl::TransformerImpl(const TransformerOptions& opts) : options(opts) {
  const auto layer = TransformerEncoderLayerOptions(options.d_model(), options.nhead())
                         .dim_feedforward(options.dim_feedforward())
                         .dropout(options.dropout())
                         .activation(options.activation())
                         .layer_norm_eps(options.layer_norm_eps())
                         .batch_first(options.batch_first())
                         .norm_first(options.norm_first());
  auto norm_of = [&] { return LayerNorm(LayerNormOptions({options.d_model()}).eps(options.layer_norm_eps())); };
  encoder = register_module(
      "encoder", TransformerEncoder(TransformerEncoderOptions(layer, options.num_encoder_layers()).norm(norm_of())));
  decoder = register_module(
      "decoder", TransformerDecoder(TransformerDecoderOptions(layer, options.num_decoder_layers()).norm(norm_of())));
  for (const Tensor& p : parameters()) {
    if (p.dim() > 1) init::xavier_uniform_(p);
  }
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const std::optional<Tensor>& src_mask,
                                const std::optional<Tensor>& tgt_mask, const std::optional<Tensor>& memory_mask,
                                const std::optional<Tensor>& src_key_padding_mask,
                                const std::optional<Tensor>& tgt_key_padding_mask,
                                const std::optional<Tensor>& memory_key_padding_mask) {
  if (src.dim() == 3) {
    const std::int64_t batch_dim = options.batch_first() ? 0 : 1;
    WICK_CHECK(src.size(batch_dim) == tgt.size(batch_dim), RuntimeError,
               "the batch number of src and tgt must be equal");
  }
  WICK_CHECK(src.size(-1) == options.d_model() && tgt.size(-1) == options.d_model(), RuntimeError,
             "the feature number of src and tgt must be equal to d_model");
  const Tensor memory = encoder(src, src_mask, src_key_padding_mask);
  return decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(std::int64_t sz) {
  return triu(full({sz, sz}, -std::numeric_limits<double>::infinity()), 1);
}

}  // namespace wick::nn
