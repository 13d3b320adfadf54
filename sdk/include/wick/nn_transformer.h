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
  /// LinearImpl's constructors: `NonDynamicallyQuantizableLinearImpl(LinearOptions(e, e).bias(b))`.
  using LinearImpl::LinearImpl;
};

/// Options of nn::MultiheadAttention; checked when the module is built.
struct MultiheadAttentionOptions {
  /// The two required sizes; the other options keep their defaults.
  MultiheadAttentionOptions(std::int64_t embed_dim, std::int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads) {}
  /// Features of the query (E) and of the output. AssertionError "embed_dim must be divisible by
  /// num_heads" when num_heads does not divide it.
  WICK_ARG(std::int64_t, embed_dim);
  /// Parallel attention heads, each of embed_dim / num_heads features. AssertionError "embed_dim must
  /// be divisible by num_heads" when <= 0 or not a divisor of embed_dim.
  WICK_ARG(std::int64_t, num_heads);
  /// Dropout probability on the attention weights, in training mode (default 0).
  WICK_ARG(double, dropout) = 0.0;
  /// Whether the input and output projections have biases (default true).
  WICK_ARG(bool, bias) = true;
  /// Adds learned biases bias_k and bias_v as one more key and value position (default false).
  WICK_ARG(bool, add_bias_kv) = false;
  /// Adds a position of zeros to the keys and values (default false).
  WICK_ARG(bool, add_zero_attn) = false;
  /// None: embed_dim.
  WICK_ARG(std::optional<std::int64_t>, kdim);
  /// Features of the value; None: embed_dim.
  WICK_ARG(std::optional<std::int64_t>, vdim);
  /// query, key and value (and the output) are (N, L, E) instead of (L, N, E) (default false).
  WICK_ARG(bool, batch_first) = false;
};

/// nn::MultiheadAttention's module: attention from the query to the key and value over
/// num_heads heads, with input projections and the output projection out_proj.
class WICK_API MultiheadAttentionImpl : public Callable<MultiheadAttentionImpl> {
 public:
  /// The options type the holder nn::MultiheadAttention builds from.
  using Options = MultiheadAttentionOptions;
  /// Registers the projections (and bias_k, bias_v with add_bias_kv) and initialises them.
  /// AssertionError "embed_dim must be divisible by num_heads".
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);
  /// xavier_uniform_ for the input projection weights, zeros for in_proj_bias and
  /// out_proj.bias, xavier_normal_ for bias_k and bias_v.
  void reset_parameters();
  /// (attn_output, attn_weights): weights averaged over heads (per head
  /// without average_attn_weights), undefined without need_weights.
  /// query (L, N, E), key and value (S, N, kdim or vdim), or unbatched (L, E) and (S, E);
  /// key_padding_mask (N, S) and attn_mask (L, S) or (N * num_heads, L, S), bool (true: masked)
  /// or float (added). AssertionError or RuntimeError from F::multi_head_attention_forward for
  /// inconsistent shapes.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const std::optional<Tensor>& key_padding_mask = std::nullopt,
                                     bool need_weights = true, const std::optional<Tensor>& attn_mask = std::nullopt,
                                     bool average_attn_weights = true);
  /// The options it was built with (changing them later does not rebuild the module).
  MultiheadAttentionOptions options;
  /// \var q_proj_weight
  /// (E, E) when kdim or vdim differ from embed_dim; else undefined.
  /// \var k_proj_weight
  /// (E, kdim) when kdim or vdim differ from embed_dim; else undefined.
  /// \var v_proj_weight
  /// (E, vdim) when kdim or vdim differ from embed_dim; else undefined.
  /// \var in_proj_bias
  /// (3 * E) biases of the query, key and value projections; undefined without bias.
  /// \var bias_k
  /// (1, 1, E): the key added with add_bias_kv; else undefined.
  /// \var bias_v
  /// (1, 1, E): the value added with add_bias_kv; else undefined.

  /// (3 * E, E): the query, key and value projections stacked, when kdim and vdim are embed_dim;
  /// else undefined.
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, bias_k, bias_v;
  /// The output projection, a Linear(E, E) registered as "out_proj".
  std::shared_ptr<NonDynamicallyQuantizableLinearImpl> out_proj;
};
/// nn::MultiheadAttention, the holder of a MultiheadAttentionImpl: `nn::MultiheadAttention(64, 8)`.
WICK_MODULE(MultiheadAttention);

/// Options of nn::TransformerEncoderLayer and nn::TransformerDecoderLayer.
struct TransformerEncoderLayerOptions {
  /// The two required sizes; the other options keep their defaults.
  TransformerEncoderLayerOptions(std::int64_t d_model, std::int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  /// Features of the input and output (the model width).
  WICK_ARG(std::int64_t, d_model);
  /// Attention heads; AssertionError "embed_dim must be divisible by num_heads" unless it divides d_model.
  WICK_ARG(std::int64_t, nhead);
  /// Hidden features of the feed-forward block (default 2048).
  WICK_ARG(std::int64_t, dim_feedforward) = 2048;
  /// Dropout probability of the attention, feed-forward and residual branches (default 0.1).
  WICK_ARG(double, dropout) = 0.1;
  /// "relu" or "gelu" (RuntimeError "activation should be relu/gelu, not x").
  WICK_ARG(std::string, activation) = "relu";
  /// eps of the layer norms (default 1e-5).
  WICK_ARG(double, layer_norm_eps) = 1e-5;
  /// Inputs and outputs are (N, L, E) instead of (L, N, E) (default false).
  WICK_ARG(bool, batch_first) = false;
  /// Layer norm before each block (pre-norm) instead of after the residual sum (default false).
  WICK_ARG(bool, norm_first) = false;
};
/// Options of nn::TransformerDecoderLayer: the encoder layer's.
using TransformerDecoderLayerOptions = TransformerEncoderLayerOptions;

/// nn::TransformerEncoderLayer's module: self-attention then a feed-forward block
/// (linear1, activation, dropout, linear2), each with a residual sum and a LayerNorm.
class WICK_API TransformerEncoderLayerImpl : public Callable<TransformerEncoderLayerImpl> {
 public:
  /// The options type the holder nn::TransformerEncoderLayer builds from.
  using Options = TransformerEncoderLayerOptions;
  /// Builds the submodules. RuntimeError "activation should be relu/gelu, not x", AssertionError
  /// "embed_dim must be divisible by num_heads".
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  /// Runs the layer on `src` (L, N, E), (N, L, E) with batch_first, or (L, E); masks as in
  /// MultiheadAttentionImpl::forward (src_mask is its attn_mask).
  Tensor forward(const Tensor& src, const std::optional<Tensor>& src_mask = std::nullopt,
                 const std::optional<Tensor>& src_key_padding_mask = std::nullopt);
  /// The options it was built with.
  TransformerEncoderLayerOptions options;
  /// The self-attention ("self_attn").
  MultiheadAttention self_attn{nullptr};
  /// Feed-forward input map d_model -> dim_feedforward.
  Linear linear1{nullptr}, linear2{nullptr};  ///< feed-forward output map dim_feedforward -> d_model
  /// \var dropout1
  /// Dropout on the self-attention branch.

  /// Dropout inside the feed-forward block.
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr};  ///< dropout on the feed-forward branch
  /// LayerNorm of the self-attention block.
  LayerNorm norm1{nullptr}, norm2{nullptr};  ///< LayerNorm of the feed-forward block
};
/// nn::TransformerEncoderLayer, the holder of a TransformerEncoderLayerImpl.
WICK_MODULE(TransformerEncoderLayer);

/// nn::TransformerDecoderLayer's module: self-attention, attention over the encoder's output
/// (memory), then a feed-forward block, each with a residual sum and a LayerNorm.
class WICK_API TransformerDecoderLayerImpl : public Callable<TransformerDecoderLayerImpl> {
 public:
  /// The options type the holder nn::TransformerDecoderLayer builds from.
  using Options = TransformerDecoderLayerOptions;
  /// Builds the submodules. RuntimeError "activation should be relu/gelu, not x", AssertionError
  /// "embed_dim must be divisible by num_heads".
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  /// Runs the layer on `tgt` with the encoder's output `memory`; tgt_mask and memory_mask are the
  /// attn_masks, the key padding masks mask tgt and memory positions (see MultiheadAttentionImpl::forward).
  Tensor forward(const Tensor& tgt, const Tensor& memory, const std::optional<Tensor>& tgt_mask = std::nullopt,
                 const std::optional<Tensor>& memory_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& memory_key_padding_mask = std::nullopt);
  /// The options it was built with.
  TransformerDecoderLayerOptions options;
  /// The self-attention ("self_attn").
  MultiheadAttention self_attn{nullptr}, multihead_attn{nullptr};  ///< attention over memory
  /// Feed-forward input map d_model -> dim_feedforward.
  Linear linear1{nullptr}, linear2{nullptr};  ///< feed-forward output map dim_feedforward -> d_model
  /// \var dropout1
  /// Dropout on the self-attention branch.
  /// \var dropout2
  /// Dropout on the memory-attention branch.
  /// \var dropout3
  /// Dropout on the feed-forward branch.

  /// Dropout inside the feed-forward block.
  Dropout dropout{nullptr}, dropout1{nullptr}, dropout2{nullptr}, dropout3{nullptr};
  /// \var norm2
  /// LayerNorm of the memory-attention block.

  /// LayerNorm of the self-attention block.
  LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};  ///< LayerNorm of the feed-forward block
};
/// nn::TransformerDecoderLayer, the holder of a TransformerDecoderLayerImpl.
WICK_MODULE(TransformerDecoderLayer);

/// Options of nn::TransformerEncoder.
struct TransformerEncoderOptions {
  /// The layers are copies of `encoder_layer` (same options and state), as PyTorch's deep copies are.
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, std::int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  /// Builds one layer from `encoder_layer`; the encoder copies it, as with the constructor above.
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer, std::int64_t num_layers)
      : encoder_layer_(TransformerEncoderLayer(encoder_layer)), num_layers_(num_layers) {}
  /// The layer that every layer of the encoder copies.
  WICK_ARG(TransformerEncoderLayer, encoder_layer);
  /// Number of layers. ValueError "TransformerEncoder: num_layers must be positive, got 0" when <= 0.
  WICK_ARG(std::int64_t, num_layers);
  /// Applied after the last layer when given.
  WICK_ARG(LayerNorm, norm) = nullptr;
};

/// num_layers encoder layers in turn ("layers.0", ...), then `norm`.
class WICK_API TransformerEncoderImpl : public Callable<TransformerEncoderImpl> {
 public:
  /// The options type the holder nn::TransformerEncoder builds from.
  using Options = TransformerEncoderOptions;
  /// Copies the layer num_layers times and registers the norm when given. ValueError
  /// "TransformerEncoder: num_layers must be positive, got 0", "Transformer: the layer to copy is empty".
  explicit TransformerEncoderImpl(const TransformerEncoderOptions& options);
  /// Runs `src` through every layer (with `mask` and src_key_padding_mask), then norm when set.
  Tensor forward(const Tensor& src, const std::optional<Tensor>& mask = std::nullopt,
                 const std::optional<Tensor>& src_key_padding_mask = std::nullopt);
  /// The options it was built with.
  TransformerEncoderOptions options;
  /// The copies of the layer ("layers.0", "layers.1", ...).
  ModuleList layers{nullptr};
  /// The final LayerNorm; empty when none was given.
  LayerNorm norm{nullptr};
};
/// nn::TransformerEncoder, the holder of a TransformerEncoderImpl.
WICK_MODULE(TransformerEncoder);

/// Options of nn::TransformerDecoder.
struct TransformerDecoderOptions {
  /// The layers are copies of `decoder_layer` (same options and state).
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, std::int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  /// Builds one layer from `decoder_layer`; the decoder copies it, as with the constructor above.
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer, std::int64_t num_layers)
      : decoder_layer_(TransformerDecoderLayer(decoder_layer)), num_layers_(num_layers) {}
  /// The layer that every layer of the decoder copies.
  WICK_ARG(TransformerDecoderLayer, decoder_layer);
  /// Number of layers. ValueError "TransformerDecoder: num_layers must be positive, got 0" when <= 0.
  WICK_ARG(std::int64_t, num_layers);
  /// Applied after the last layer when given.
  WICK_ARG(LayerNorm, norm) = nullptr;
};

/// nn::TransformerDecoder's module: num_decoder_layers decoder layers in turn ("layers.0", ...), then `norm`.
class WICK_API TransformerDecoderImpl : public Callable<TransformerDecoderImpl> {
 public:
  /// The options type the holder nn::TransformerDecoder builds from.
  using Options = TransformerDecoderOptions;
  /// Copies the layer num_layers times and registers the norm when given. ValueError
  /// "TransformerDecoder: num_layers must be positive, got 0", "Transformer: the layer to copy is empty".
  explicit TransformerDecoderImpl(const TransformerDecoderOptions& options);
  /// Runs `tgt` through every layer with `memory` and the masks, then norm when set.
  Tensor forward(const Tensor& tgt, const Tensor& memory, const std::optional<Tensor>& tgt_mask = std::nullopt,
                 const std::optional<Tensor>& memory_mask = std::nullopt,
                 const std::optional<Tensor>& tgt_key_padding_mask = std::nullopt,
                 const std::optional<Tensor>& memory_key_padding_mask = std::nullopt);
  /// The options it was built with.
  TransformerDecoderOptions options;
  /// The copies of the layer ("layers.0", "layers.1", ...).
  ModuleList layers{nullptr};
  /// The final LayerNorm; empty when none was given.
  LayerNorm norm{nullptr};
};
/// nn::TransformerDecoder, the holder of a TransformerDecoderImpl.
WICK_MODULE(TransformerDecoder);

/// Options of nn::Transformer; its layers are built from them.
struct TransformerOptions {
  /// The sizes, with PyTorch's defaults (512, 8, 6, 6).
  TransformerOptions(std::int64_t d_model = 512, std::int64_t nhead = 8, std::int64_t num_encoder_layers = 6,
                     std::int64_t num_decoder_layers = 6)
      : d_model_(d_model), nhead_(nhead), num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  /// Features of the model (default 512).
  WICK_ARG(std::int64_t, d_model);
  /// Attention heads (default 8); AssertionError "embed_dim must be divisible by num_heads"
  /// unless it divides d_model.
  WICK_ARG(std::int64_t, nhead);
  /// Encoder layers (default 6); ValueError when <= 0.
  WICK_ARG(std::int64_t, num_encoder_layers);
  /// Decoder layers (default 6); ValueError when <= 0.
  WICK_ARG(std::int64_t, num_decoder_layers);
  /// Hidden features of each feed-forward block (default 2048).
  WICK_ARG(std::int64_t, dim_feedforward) = 2048;
  /// Dropout probability in every layer (default 0.1).
  WICK_ARG(double, dropout) = 0.1;
  /// "relu" (default) or "gelu"; RuntimeError "activation should be relu/gelu, not x" otherwise.
  WICK_ARG(std::string, activation) = "relu";
  /// eps of every layer norm (default 1e-5).
  WICK_ARG(double, layer_norm_eps) = 1e-5;
  /// src, tgt and the output are (N, L, E) instead of (L, N, E) (default false).
  WICK_ARG(bool, batch_first) = false;
  /// Pre-norm layers (default false).
  WICK_ARG(bool, norm_first) = false;
};

/// An encoder and a decoder, each ending in a LayerNorm; every parameter
/// with more than one dim starts xavier_uniform_, as in PyTorch.
class WICK_API TransformerImpl : public Callable<TransformerImpl> {
 public:
  /// The options type the holder nn::Transformer builds from.
  using Options = TransformerOptions;
  /// Builds the encoder and decoder, then refills every parameter of more than one dim with
  /// xavier_uniform_. Errors as TransformerEncoderLayerImpl's and TransformerEncoderImpl's.
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
  /// The options it was built with.
  TransformerOptions options;
  /// The encoder ("encoder"), ending in a LayerNorm.
  TransformerEncoder encoder{nullptr};
  /// The decoder ("decoder"), ending in a LayerNorm.
  TransformerDecoder decoder{nullptr};
};
/// nn::Transformer, the holder of a TransformerImpl: `nn::Transformer()` for PyTorch's defaults.
WICK_MODULE(Transformer);

}  // namespace wick::nn
