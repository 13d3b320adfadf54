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
  Tensor forward(const Tensor& input);
};
WICK_MODULE(Identity);

struct LinearOptions {
  LinearOptions(std::int64_t in_features, std::int64_t out_features)
      : in_features_(in_features), out_features_(out_features) {}
  WICK_ARG(std::int64_t, in_features);
  WICK_ARG(std::int64_t, out_features);
  WICK_ARG(bool, bias) = true;
};

/// input @ weight^T + bias; weight (out_features, in_features), bias (out_features).
class WICK_API LinearImpl : public Callable<LinearImpl> {
 public:
  using Options = LinearOptions;
  explicit LinearImpl(const LinearOptions& options);
  /// weight: kaiming_uniform_(a=sqrt(5)); bias: uniform(-1/sqrt(in_features), 1/sqrt(in_features)).
  void reset_parameters();
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  LinearOptions options;
  Tensor weight, bias;
};
WICK_MODULE(Linear);

struct BilinearOptions {
  BilinearOptions(std::int64_t in1_features, std::int64_t in2_features, std::int64_t out_features)
      : in1_features_(in1_features), in2_features_(in2_features), out_features_(out_features) {}
  WICK_ARG(std::int64_t, in1_features);
  WICK_ARG(std::int64_t, in2_features);
  WICK_ARG(std::int64_t, out_features);
  WICK_ARG(bool, bias) = true;
};

/// x1^T A x2 + b; weight (out, in1, in2), both uniform(-1/sqrt(in1), 1/sqrt(in1)).
class WICK_API BilinearImpl : public Callable<BilinearImpl> {
 public:
  using Options = BilinearOptions;
  explicit BilinearImpl(const BilinearOptions& options);
  void reset_parameters();
  Tensor forward(const Tensor& input1, const Tensor& input2);
  [[nodiscard]] std::string extra_repr() const override;
  BilinearOptions options;
  Tensor weight, bias;
};
WICK_MODULE(Bilinear);

struct FlattenOptions {
  WICK_ARG(std::int64_t, start_dim) = 1;
  WICK_ARG(std::int64_t, end_dim) = -1;
};

/// flatten(input, start_dim, end_dim).
class WICK_API FlattenImpl : public Callable<FlattenImpl> {
 public:
  using Options = FlattenOptions;
  explicit FlattenImpl(const FlattenOptions& options = {});
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  FlattenOptions options;
};
WICK_MODULE(Flatten);

struct UnflattenOptions {
  UnflattenOptions(std::int64_t dim, std::vector<std::int64_t> sizes) : dim_(dim), sizes_(std::move(sizes)) {}
  WICK_ARG(std::int64_t, dim);
  WICK_ARG(std::vector<std::int64_t>, sizes);
};

/// unflatten(input, dim, sizes).
class WICK_API UnflattenImpl : public Callable<UnflattenImpl> {
 public:
  using Options = UnflattenOptions;
  explicit UnflattenImpl(const UnflattenOptions& options);
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  UnflattenOptions options;
};
WICK_MODULE(Unflatten);

/// Options of every dropout module. ValueError "dropout probability has to
/// be between 0 and 1, but got 1.5" from the module's constructor.
struct DropoutOptions {
  DropoutOptions(double p = 0.5) : p_(p) {}  // NOLINT(implicit)
  WICK_ARG(double, p);
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

WICK_NN_DROPOUT(Dropout);
WICK_NN_DROPOUT(Dropout1d);
WICK_NN_DROPOUT(Dropout2d);
WICK_NN_DROPOUT(Dropout3d);
WICK_NN_DROPOUT(AlphaDropout);
WICK_NN_DROPOUT(FeatureAlphaDropout);
#undef WICK_NN_DROPOUT

struct EmbeddingOptions {
  EmbeddingOptions(std::int64_t num_embeddings, std::int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  WICK_ARG(std::int64_t, num_embeddings);
  WICK_ARG(std::int64_t, embedding_dim);
  WICK_ARG(std::optional<std::int64_t>, padding_idx);
  WICK_ARG(std::optional<double>, max_norm);
  WICK_ARG(double, norm_type) = 2.0;
  WICK_ARG(bool, scale_grad_by_freq) = false;
  WICK_ARG(bool, sparse) = false;
  /// Initial weight (num_embeddings, embedding_dim), used as given.
  WICK_ARG(Tensor, _weight);
};

/// Rows of weight (num_embeddings, embedding_dim), initialised normal_ with
/// the padding_idx row zeroed. AssertionError "Padding_idx must be within
/// num_embeddings" for a padding_idx outside [-num_embeddings, num_embeddings).
class WICK_API EmbeddingImpl : public Callable<EmbeddingImpl> {
 public:
  using Options = EmbeddingOptions;
  explicit EmbeddingImpl(const EmbeddingOptions& options);
  void reset_parameters();
  Tensor forward(const Tensor& input);
  [[nodiscard]] std::string extra_repr() const override;
  EmbeddingOptions options;
  Tensor weight;
};

/// Embedding::from_pretrained's options (the sizes come from the tensor).
struct EmbeddingFromPretrainedOptions {
  WICK_ARG(bool, freeze) = true;
  WICK_ARG(std::optional<std::int64_t>, padding_idx);
  WICK_ARG(std::optional<double>, max_norm);
  WICK_ARG(double, norm_type) = 2.0;
  WICK_ARG(bool, scale_grad_by_freq) = false;
  WICK_ARG(bool, sparse) = false;
};

/// An Embedding holding `embeddings` (2-D; ValueError "Embeddings parameter
/// is expected to be 2-dimensional" otherwise), frozen unless told.
[[nodiscard]] WICK_API std::shared_ptr<EmbeddingImpl> embedding_from_pretrained(
    const Tensor& embeddings, const EmbeddingFromPretrainedOptions& options = {});

/// The holder of EmbeddingImpl, with libtorch's `Embedding::from_pretrained`.
class Embedding : public ModuleHolder<EmbeddingImpl> {
 public:
  using ModuleHolder<EmbeddingImpl>::ModuleHolder;
  [[nodiscard]] static Embedding from_pretrained(const Tensor& embeddings,
                                                 const EmbeddingFromPretrainedOptions& options = {}) {
    return Embedding(embedding_from_pretrained(embeddings, options));
  }
};

struct EmbeddingBagOptions {
  EmbeddingBagOptions(std::int64_t num_embeddings, std::int64_t embedding_dim)
      : num_embeddings_(num_embeddings), embedding_dim_(embedding_dim) {}
  WICK_ARG(std::int64_t, num_embeddings);
  WICK_ARG(std::int64_t, embedding_dim);
  WICK_ARG(std::optional<double>, max_norm);
  WICK_ARG(double, norm_type) = 2.0;
  WICK_ARG(bool, scale_grad_by_freq) = false;
  /// "sum", "mean" or "max".
  WICK_ARG(std::string, mode) = "mean";
  WICK_ARG(bool, sparse) = false;
  WICK_ARG(bool, include_last_offset) = false;
  WICK_ARG(std::optional<std::int64_t>, padding_idx);
  WICK_ARG(Tensor, _weight);
};

/// The sum, mean or max of each bag of rows (F::embedding_bag).
class WICK_API EmbeddingBagImpl : public Callable<EmbeddingBagImpl> {
 public:
  using Options = EmbeddingBagOptions;
  explicit EmbeddingBagImpl(const EmbeddingBagOptions& options);
  void reset_parameters();
  Tensor forward(const Tensor& input, const std::optional<Tensor>& offsets = std::nullopt,
                 const std::optional<Tensor>& per_sample_weights = std::nullopt);
  [[nodiscard]] std::string extra_repr() const override;
  EmbeddingBagOptions options;
  Tensor weight;
};
WICK_MODULE(EmbeddingBag);

}  // namespace wick::nn
