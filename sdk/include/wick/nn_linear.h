// wick/nn_linear.h - Identity, Linear, Bilinear, Flatten, Unflatten, the Dropouts, Embedding and EmbeddingBag.
/// \file
/// Built-in modules as libtorch spells them (Note [Module holders]):
///
///   nn::Linear fc(nn::LinearOptions(784, 64).bias(false));
///   Tensor y = fc(x);                       // or fc->forward(x)
///   fc->weight;                             // (64, 784), kaiming_uniform_(a=sqrt(5))
///
/// Each module prints as PyTorch 1.13 prints it, registers its tensors
/// under PyTorch's names (state_dict keys), and initialises them in
/// `reset_parameters()` as PyTorch does. Bad options are ValueErrors with
/// PyTorch's text where it has one, raised by the constructor.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "wick/export.h"
#include "wick/nn.h"
#include "wick/nn_options.h"
#include "wick/tensor.h"

namespace wick::nn {

/// The input, unchanged (torch.nn.Identity).
class WICK_API IdentityImpl : public Callable<IdentityImpl> {
 public:
  /// Returns `input` itself (the same tensor, not a copy).
  Tensor forward(const Tensor& input);
};
/// The holder of IdentityImpl: nn::Identity().
WICK_MODULE(Identity);

/// Linear's options: in_features, out_features and bias (default true).
struct LinearOptions {
  /// The sizes of the last dim of the input and of the output.
  LinearOptions(std::int64_t in_features, std::int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  /// Size of the input's last dim; negative is a ValueError from LinearImpl's constructor.
  WICK_ARG(std::int64_t, in_features);
  /// Size of the output's last dim; negative is a ValueError from LinearImpl's constructor.
  WICK_ARG(std::int64_t, out_features);
  /// Whether to learn an additive bias (default true); false leaves `bias` undefined.
  WICK_ARG(bool, bias) = true;
};

/// input @ weight^T + bias; weight (out_features, in_features), bias (out_features).
class WICK_API LinearImpl : public Callable<LinearImpl> {
 public:
  /// The options type, LinearOptions.
  using Options = LinearOptions;
  /// Registers weight and bias and initialises them (reset_parameters); ValueError when in_features or out_features is
  /// negative.
  explicit LinearImpl(const LinearOptions& options);
  /// weight: kaiming_uniform_(a=sqrt(5)); bias: uniform(-1/sqrt(in_features), 1/sqrt(in_features)).
  void reset_parameters();
  /// F::linear(input, weight, bias): input (*, in_features) to (*, out_features); a last dim that is not in_features is
  /// an error from the matmul.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  LinearOptions options;
  /// The learnable (out_features, in_features) weight.
  Tensor weight, bias;  ///< The learnable (out_features) bias; undefined when options.bias() is false.
};
/// The holder of LinearImpl: nn::Linear(nn::LinearOptions(4, 3)).
WICK_MODULE(Linear);

/// Bilinear's options: in1_features, in2_features, out_features and bias (default true).
struct BilinearOptions {
  /// The last-dim sizes of the two inputs and of the output.
  BilinearOptions(std::int64_t in1_features, std::int64_t in2_features, std::int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  /// Size of input1's last dim.
  WICK_ARG(std::int64_t, in1_features);
  /// Size of input2's last dim.
  WICK_ARG(std::int64_t, in2_features);
  /// Size of the output's last dim.
  WICK_ARG(std::int64_t, out_features);
  /// Whether to learn an additive bias (default true); false leaves `bias` undefined.
  WICK_ARG(bool, bias) = true;
};

/// x1^T A x2 + b; weight (out, in1, in2), both uniform(-1/sqrt(in1), 1/sqrt(in1)).
class WICK_API BilinearImpl : public Callable<BilinearImpl> {
 public:
  /// The options type, BilinearOptions.
  using Options = BilinearOptions;
  /// Registers weight (out, in1, in2) and bias (out) and initialises them (reset_parameters).
  explicit BilinearImpl(const BilinearOptions& options);
  /// weight and bias drawn from uniform(-1/sqrt(in1_features), 1/sqrt(in1_features)).
  void reset_parameters();
  /// F::bilinear(input1, input2, weight, bias); mismatched sizes are errors from F::bilinear.
  Tensor forward(const Tensor& input1, const Tensor& input2);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  BilinearOptions options;
  /// The learnable (out, in1, in2) weight and the (out) bias (undefined without bias).
  Tensor weight, bias;  ///< bias: the learnable (out_features) bias; undefined when options.bias() is false.
};
/// The holder of BilinearImpl: nn::Bilinear(nn::BilinearOptions(2, 3, 4)).
WICK_MODULE(Bilinear);

/// Flatten's options: the dims start_dim..end_dim (default 1 and -1) become one.
struct FlattenOptions {
  /// First dim to flatten (default 1; negative counts from the end).
  WICK_ARG(std::int64_t, start_dim) = 1;
  /// Last dim to flatten (default -1, the last).
  WICK_ARG(std::int64_t, end_dim) = -1;
};

/// flatten(input, start_dim, end_dim).
class WICK_API FlattenImpl : public Callable<FlattenImpl> {
 public:
  /// The options type, FlattenOptions.
  using Options = FlattenOptions;
  /// Keeps the options; nothing is checked until forward.
  explicit FlattenImpl(const FlattenOptions& options = {});
  /// flatten(input, start_dim, end_dim); IndexError for a dim out of range, RuntimeError when start_dim comes after
  /// end_dim.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  FlattenOptions options;
};
/// The holder of FlattenImpl: nn::Flatten().
WICK_MODULE(Flatten);

/// Unflatten's options: the dim to split and the sizes it becomes.
struct UnflattenOptions {
  /// Split `dim` into `sizes` (their product must be the dim's size; one may be -1).
  UnflattenOptions(std::int64_t dim, std::vector<std::int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  /// The dim to split (negative counts from the end).
  WICK_ARG(std::int64_t, dim);
  /// The sizes it becomes; their product must equal the dim's size (one -1 is inferred).
  WICK_ARG(std::vector<std::int64_t>, sizes);
};

/// unflatten(input, dim, sizes).
class WICK_API UnflattenImpl : public Callable<UnflattenImpl> {
 public:
  /// The options type, UnflattenOptions.
  using Options = UnflattenOptions;
  /// Keeps the options; nothing is checked until forward.
  explicit UnflattenImpl(const UnflattenOptions& options);
  /// unflatten(input, dim, sizes); a bad dim or sizes whose product does not match is an error from unflatten.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with.
  UnflattenOptions options;
};
/// The holder of UnflattenImpl: nn::Unflatten(nn::UnflattenOptions(1, {2, 3})).
WICK_MODULE(Unflatten);

/// Options of every dropout module. ValueError "dropout probability has to
/// be between 0 and 1, but got 1.5" from the module's constructor.
struct DropoutOptions {
  /// `p`, the probability of zeroing an element (default 0.5).
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT(implicit)
  /// The probability of zeroing an element (or channel); must be in [0, 1].
  WICK_ARG(double, p);
  /// Whether to write the result into the input (default false).
  WICK_ARG(bool, inplace) = false;
};

/// Declares a dropout module: in training mode its functional, else the input.
#define WICK_NN_DROPOUT(Name)                                     \
  class WICK_API Name##Impl : public Callable<Name##Impl> {       \
   public:                                                        \
    using Options = DropoutOptions;                               \
    explicit Name##Impl(const DropoutOptions& options = {});      \
    Tensor forward(const Tensor& input);                          \
    [[nodiscard]] std::string extra_repr() const override;        \
    DropoutOptions options;                                       \
  };                                                              \
  WICK_MODULE(Name)

/// Dropout: zeroes each element with probability p and scales the rest by 1/(1-p) while training.
WICK_NN_DROPOUT(Dropout);
/// Dropout1d: zeroes whole channels of (N, C, L) or (C, L) inputs while training.
WICK_NN_DROPOUT(Dropout1d);
/// Dropout2d: zeroes whole channels of (N, C, H, W) inputs while training.
WICK_NN_DROPOUT(Dropout2d);
/// Dropout3d: zeroes whole channels of (N, C, D, H, W) inputs while training.
WICK_NN_DROPOUT(Dropout3d);
/// AlphaDropout: dropout that keeps a SELU network's mean and variance, while training.
WICK_NN_DROPOUT(AlphaDropout);
/// FeatureAlphaDropout: AlphaDropout over whole channels, while training.
WICK_NN_DROPOUT(FeatureAlphaDropout);
#undef WICK_NN_DROPOUT

/// Embedding's options: num_embeddings, embedding_dim and the lookup settings of F::embedding.
struct EmbeddingOptions {
  /// A table of `num_embeddings` rows of `embedding_dim` values.
  EmbeddingOptions(std::int64_t num_embeddings, std::int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  /// Number of rows in the table.
  WICK_ARG(std::int64_t, num_embeddings);
  /// Size of each row.
  WICK_ARG(std::int64_t, embedding_dim);
  /// Row whose gradient is always zero and that starts zeroed (None: none; negative counts from the end);
  /// AssertionError outside [-num_embeddings, num_embeddings).
  WICK_ARG(std::optional<std::int64_t>, padding_idx);
  /// Rows looked up are renormalised in place to at most this norm (None: never).
  WICK_ARG(std::optional<double>, max_norm);
  /// The p of the max_norm norm (default 2).
  WICK_ARG(double, norm_type) = 2.0;
  /// Scale gradients by the inverse frequency of the indices in the batch (default false).
  WICK_ARG(bool, scale_grad_by_freq) = false;
  /// Make the weight's gradient sparse (default false).
  WICK_ARG(bool, sparse) = false;
  /// Initial weight (num_embeddings, embedding_dim), used as given.
  WICK_ARG(Tensor, _weight);
};

/// Rows of weight (num_embeddings, embedding_dim), initialised normal_ with
/// the padding_idx row zeroed. AssertionError "Padding_idx must be within
/// num_embeddings" for a padding_idx outside [-num_embeddings, num_embeddings).
class WICK_API EmbeddingImpl : public Callable<EmbeddingImpl> {
 public:
  /// The options type, EmbeddingOptions.
  using Options = EmbeddingOptions;
  /// Registers weight (options._weight when given, else initialised by reset_parameters); AssertionError for a bad
  /// padding_idx or a _weight of the wrong shape.
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  /// weight drawn from normal(0, 1), with the padding_idx row zeroed.
  void reset_parameters();
  /// F::embedding(input, weight, ...): the rows of weight at the integer indices `input`; an index out of range is an
  /// IndexError from F::embedding.
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with (padding_idx made non-negative).
  EmbeddingOptions options;
  /// The learnable (num_embeddings, embedding_dim) table.
  Tensor weight;
};

/// Embedding::from_pretrained's options (the sizes come from the tensor).
struct EmbeddingFromPretrainedOptions {
  /// Whether the weight stays fixed (requires_grad false; default true).
  WICK_ARG(bool, freeze) = true;
  /// Row whose gradient is always zero (None: none; negative counts from the end).
  WICK_ARG(std::optional<std::int64_t>, padding_idx);
  /// Rows looked up are renormalised in place to at most this norm (None: never).
  WICK_ARG(std::optional<double>, max_norm);
  /// The p of the max_norm norm (default 2).
  WICK_ARG(double, norm_type) = 2.0;
  /// Scale gradients by the inverse frequency of the indices in the batch (default false).
  WICK_ARG(bool, scale_grad_by_freq) = false;
  /// Make the weight's gradient sparse (default false).
  WICK_ARG(bool, sparse) = false;
};

/// An Embedding holding `embeddings` (2-D; AssertionError "Embeddings parameter
/// is expected to be 2-dimensional" otherwise), frozen unless told.
[[nodiscard]] WICK_API std::shared_ptr<EmbeddingImpl> embedding_from_pretrained(
    const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});

/// The holder of EmbeddingImpl, with libtorch's `Embedding::from_pretrained`.
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  /// nn::Embedding::from_pretrained(embeddings, options): embedding_from_pretrained wrapped in a holder; AssertionError
  /// when `embeddings` is not 2-D.
  [[nodiscard]] static Embedding from_pretrained(const Tensor& embeddings,
                                                 const EmbeddingFromPretrainedOptions& options = {}) {
    return Embedding(embedding_from_pretrained(embeddings, options));
  }
};

/// EmbeddingBag's options: the table's sizes, the reduction mode and the bag settings of F::embedding_bag.
struct EmbeddingBagOptions {
  /// A table of `num_embeddings` rows of `embedding_dim` values.
  EmbeddingBagOptions(std::int64_t num_embeddings, std::int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  /// Number of rows in the table.
  WICK_ARG(std::int64_t, num_embeddings);
  /// Size of each row.
  WICK_ARG(std::int64_t, embedding_dim);
  /// Rows looked up are renormalised in place to at most this norm (None: never).
  WICK_ARG(std::optional<double>, max_norm);
  /// The p of the max_norm norm (default 2).
  WICK_ARG(double, norm_type) = 2.0;
  /// Scale gradients by the inverse frequency of the indices in the batch (default false).
  WICK_ARG(bool, scale_grad_by_freq) = false;
  /// "sum", "mean" or "max".
  WICK_ARG(std::string, mode) = "mean";
  /// Make the weight's gradient sparse (default false).
  WICK_ARG(bool, sparse) = false;
  /// Whether `offsets` has one more entry, the end of the last bag (default false).
  WICK_ARG(bool, include_last_offset) = false;
  /// Row left out of every bag (None: none; negative counts from the end); AssertionError outside [-num_embeddings,
  /// num_embeddings).
  WICK_ARG(std::optional<std::int64_t>, padding_idx);
  /// Initial weight (num_embeddings, embedding_dim), used as given; AssertionError for another shape.
  WICK_ARG(Tensor, _weight);
};

/// The sum, mean or max of each bag of rows (F::embedding_bag).
class WICK_API EmbeddingBagImpl : public Callable<EmbeddingBagImpl> {
 public:
  /// The options type, EmbeddingBagOptions.
  using Options = EmbeddingBagOptions;
  /// Registers weight (options._weight when given, else initialised by reset_parameters); ValueError "mode has to be
  /// one of sum, mean or max", AssertionError for a bad padding_idx or _weight.
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);
  /// weight drawn from normal(0, 1), with the padding_idx row zeroed.
  void reset_parameters();
  /// F::embedding_bag: `input` 2-D (each row a bag) without offsets, or 1-D with `offsets` giving where each bag
  /// starts; per_sample_weights only with mode "sum". Bad shapes are errors from F::embedding_bag.
  Tensor forward(const Tensor& input, const std::optional<Tensor>& offsets = std::nullopt,
                 const std::optional<Tensor>& per_sample_weights = std::nullopt);
  [[nodiscard]] std::string extra_repr() const override;
  /// The options the module was built with (padding_idx made non-negative).
  EmbeddingBagOptions options;
  /// The learnable (num_embeddings, embedding_dim) table.
  Tensor weight;
};
/// The holder of EmbeddingBagImpl: nn::EmbeddingBag(nn::EmbeddingBagOptions(10, 3)).
WICK_MODULE(EmbeddingBag);

}  // namespace wick::nn
