// wick/nn_transformer.h - MultiheadAttention, TransformerEncoderLayer and TransformerDecoderLayer.
/// \file
///   nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(64, 8).batch_first(true));
///   auto [out, weights] = mha(q, k, v);          // weights averaged over heads
///   nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(64, 8).norm_first(true));
///
/// Parameter names (in_proj_weight, or q/k/v_proj_weight when kdim or vdim
/// differ from embed_dim; in_proj_bias; out_proj.weight; bias_k, bias_v),
/// initialisation (xavier_uniform_ projections, zero biases) and printing
/// follow PyTorch 1.13; the attention itself is F::multi_head_attention_forward.
/// AssertionError "embed_dim must be divisible by num_heads".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/nn_container.h"
#include "wick/nn_linear.h"
#include "wick/nn_norm.h"
#include "wick/nn_options.h"
#include "wick/tensor.h"

namespace wick::nn {

/// MultiheadAttention's out_proj: a Linear under PyTorch's name for it.
class WICK_API NonDynamicallyQuantizableLinearImpl : public LinearImpl {
 public:
  using LinearImpl::LinearImpl;
};

struct MultiheadAttentionOptions {
  MultiheadAttentionOptions(std::int64_t embed_dim, std::int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads) {}
  WICK_ARG(std::int64_t, embed_dim);
  WICK_ARG(std::int64_t, num_heads);
  WICK_ARG(double, dropout) = 0.0;
  WICK_ARG(bool, bias) = true;
  WICK_ARG(bool, add_bias_kv) = false;
  WICK_ARG(bool, add_zero_attn) = false;
  /// None: embed_dim.
  WICK_ARG(std::optional<std::int64_t>, kdim);
  WICK_ARG(std::optional<std::int64_t>, vdim);
  WICK_ARG(bool, batch_first) = false;
};

class WICK_API MultiheadAttentionImpl : public Callable<MultiheadAttentionImpl> {
 public:
  using Options = MultiheadAttentionOptions;
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  void reset_parameters();
  /// (attn_output, attn_weights): weights averaged over heads (per head
  /// without average_attn_weights), undefined without need_weights.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const std::optional<Tensor>& key_padding_mask = std::nullopt,
                                     bool need_weights = true, const std::optional<Tensor>& attn_mask = std::nullopt,
                                     bool average_attn_weights = true);
  MultiheadAttentionOptions options;
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, bias_k, bias_v;
  std::shared_ptr<NonDynamicallyQuantizableLinearImpl> out_proj;
};
WICK_MODULE(MultiheadAttention);

struct TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(std::int64_t d_model, std::int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  WICK_ARG(std::int64_t, d_model);
  WICK_ARG(std::int64_t, nhead);
  WICK_ARG(std::int64_t, dim_feedforward) = 2048;
  WICK_ARG(double, dropout) = 0.1;
  /// "relu" or "gelu" (RuntimeError "activation should be relu/gelu, not x").
  WICK_ARG(std::string, activation) = "relu";
  WICK_ARG(double, layer_norm_eps) = 1e-5;
  WICK_ARG(bool, batch_first) = false;
  WICK_ARG(bool, norm_first) = false;
};
using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

class WICK_API TransformerEncoderLayerImpl : public Callable<TransformerEncoderLayerImpl> {
 public:
  using Options = TransformerEncoderLayerOptions;
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  Tensor forward(const Tensor& src, const std::optional<Tensor>& src_mask = std::nullopt,
                 const std::optional<Tensor>& src_key_padding_mask = std::nullopt);
  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr};
};
WICK_MODULE(TransformerEncoderLayer);

class WICK_API TransformerDecoderLayerImpl : public Callable<TransformerDecoderLayerImpl> {
 public:
  using Options = TransformerDecoderLayerOptions;
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const std::optional<Tensor>& tgt_mask = std::nullopt,
                 const std::optional<Tensor>& memory_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& memory_key_padding_mask = std::nullopt);
  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};
  Linear linear1{nullptr}, linear2{nullptr};
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};
};
WICK_MODULE(TransformerDecoderLayer);

struct TransformerEncoderOptions {
  /// The layers are copies of `encoder_layer` (same options and state), as PyTorch's deep copies are.
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, std::int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer, std::int64_t num_layers)
      : encoder_layer_(TransformerEncoderLayer(encoder_layer)), num_layers_(num_layers) {}
  WICK_ARG(TransformerEncoderLayer, encoder_layer);
  WICK_ARG(std::int64_t, num_layers);
  /// Applied after the last layer when given.
  WICK_ARG(LayerNorm, norm) = nullptr;
};

/// num_layers encoder layers in turn ("layers.0", ...), then `norm`.
class WICK_API TransformerEncoderImpl : public Callable<TransformerEncoderImpl> {
 public:
  using Options = TransformerEncoderOptions;
  explicit TransformerEncoderImpl(const TransformerEncoderOptions& options);
  Tensor forward(const Tensor& src, const std::optional<Tensor>& mask = std::nullopt,
                 const std::optional<Tensor>& src_key_padding_mask = std::nullopt);
  TransformerEncoderOptions options;
  ModuleList layers{nullptr};
  LayerNorm norm{nullptr};
};
WICK_MODULE(TransformerEncoder);

struct TransformerDecoderOptions {
  /// The layers are copies of `decoder_layer` (same options and state).
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, std::int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer, std::int64_t num_layers)
      : decoder_layer_(TransformerDecoderLayer(decoder_layer)), num_layers_(num_layers) {}
  WICK_ARG(TransformerDecoderLayer, decoder_layer);
  WICK_ARG(std::int64_t, num_layers);
  WICK_ARG(LayerNorm, norm) = nullptr;
};

class WICK_API TransformerDecoderImpl : public Callable<TransformerDecoderImpl> {
 public:
  using Options = TransformerDecoderOptions;
  explicit TransformerDecoderImpl(const TransformerDecoderOptions& options);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const std::optional<Tensor>& tgt_mask = std::nullopt,
                 const std::optional<Tensor>& memory_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& memory_key_padding_mask = std::nullopt);
  TransformerDecoderOptions options;
  ModuleList layers{nullptr};
  LayerNorm norm{nullptr};
};
WICK_MODULE(TransformerDecoder);

struct TransformerOptions {
  TransformerOptions(std::int64_t d_model = 512, std::int64_t nhead = 8, std::int64_t num_encoder_layers = 6,
                     std::int64_t num_decoder_layers = 6)
      : d_model_(d_model), nhead_(nhead), num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  WICK_ARG(std::int64_t, d_model);
  WICK_ARG(std::int64_t, nhead);
  WICK_ARG(std::int64_t, num_encoder_layers);
  WICK_ARG(std::int64_t, num_decoder_layers);
  WICK_ARG(std::int64_t, dim_feedforward) = 2048;
  WICK_ARG(double, dropout) = 0.1;
  WICK_ARG(std::string, activation) = "relu";
  WICK_ARG(double, layer_norm_eps) = 1e-5;
  WICK_ARG(bool, batch_first) = false;
  WICK_ARG(bool, norm_first) = false;
};

/// An encoder and a decoder, each ending in a LayerNorm; every parameter
/// with more than one dim starts xavier_uniform_, as in PyTorch.
class WICK_API TransformerImpl : public Callable<TransformerImpl> {
 public:
  using Options = TransformerOptions;
  explicit TransformerImpl(const TransformerOptions& options = {});
  /// RuntimeError "the batch number of src and tgt must be equal" or "the
  /// feature number of src and tgt must be equal to d_model".
  Tensor forward(const Tensor& src, const Tensor& tgt, const std::optional<Tensor>& src_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_mask = std::nullopt,
                 const std::optional<Tensor>& memory_mask = std::nullopt,
                 const std::optional<Tensor>& src_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& memory_key_padding_mask = std::nullopt);
  /// (sz, sz) float32: -inf above the diagonal, 0 elsewhere.
  [[nodiscard]] static Tensor generate_square_subsequent_mask(std::int64_t sz);
  TransformerOptions options;
  TransformerEncoder encoder{nullptr};
  TransformerDecoder decoder{nullptr};
};
WICK_MODULE(Transformer);

}  // namespace wick::nn
