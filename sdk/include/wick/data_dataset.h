// wick/data_dataset.h - datasets, examples and transforms for the data loader (torch.utils.data's Dataset).
/// \file
/// A dataset is anything with a size and a `get(index)` that returns one
/// `Example` (a data tensor and, optionally, a target tensor):
///
///   struct Squares : wick::data::DatasetBase<Squares> {
///     std::int64_t size() const override { return 100; }
///     wick::data::Example get(std::int64_t i) const override {
///       return {wick::full({1}, double(i)), wick::full({1}, double(i * i))};
///     }
///   };
///   auto ds = wick::data::TensorDataset(x, y);                        // rows of x and y
///   auto mnist = wick::data::MNIST(root).map(wick::data::Normalize(0.1307, 0.3081));
///
/// Deriving from `DatasetBase<Self>` (rather than the bare `Dataset`
/// interface) gives a dataset `map(transform)`, which returns a
/// `TransformDataset` holding a copy of it. Copies are cheap: tensors are
/// shared, not duplicated.
///
/// Note [Datasets are read from several threads]
/// A `DataLoader` with `num_workers > 0` calls `get` from its worker threads
/// at the same time, so `get` (and any transform) must be safe to call
/// concurrently: it is `const`, and the built-in datasets and transforms only
/// read their members.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::data {

/// One example, or a batch of them stacked along a new first dim. `target`
/// is undefined for a dataset without targets.
struct Example {
  Tensor data;    ///< the input (a batch: stacked along dim 0)
  Tensor target;  ///< the label or target; undefined when the dataset has none
};

/// The interface the loader reads: `size()` examples, numbered from 0.
class WICK_API Dataset {
 public:
  Dataset() = default;
  /// Datasets are values: copying one shares its tensors.
  Dataset(const Dataset&) = default;
  /// Moves a dataset.
  Dataset(Dataset&&) = default;
  /// Copy assignment; tensors are shared, not duplicated.
  Dataset& operator=(const Dataset&) = default;
  /// Move assignment.
  Dataset& operator=(Dataset&&) = default;
  virtual ~Dataset() = default;
  /// The number of examples.
  [[nodiscard]] virtual std::int64_t size() const = 0;
  /// Example `index` (0 <= index < size()); an IndexError or the dataset's
  /// own error otherwise. Called concurrently by the loader's workers (Note
  /// [Datasets are read from several threads]).
  [[nodiscard]] virtual Example get(std::int64_t index) const = 0;
};

/// A function applied to each example: either to the whole `Example`, or,
/// for a callable that takes and returns a `Tensor`, to `data` alone
/// (torchvision's transforms). `Normalize` is one.
class WICK_API Transform {
 public:
  /// Wraps `f`: a callable Example(Example), or Tensor(Tensor) applied to `data` alone. Other callables do
  /// not compile.
  template <class F>
    requires(!std::same_as<std::remove_cvref_t<F>, Transform> &&
             (std::is_invocable_r_v<Example, const F&, Example> || std::is_invocable_r_v<Tensor, const F&, Tensor>))
  Transform(F f) {  // NOLINT(google-explicit-constructor): any callable is a transform
    if constexpr (std::is_invocable_r_v<Example, const F&, Example>) {
      fn_ = std::move(f);
    } else {
      fn_ = [g = std::move(f)](Example e) {
        e.data = g(std::move(e.data));
        return e;
      };
    }
  }
  /// Applies the transform; its errors propagate.
  Example operator()(Example e) const { return fn_(std::move(e)); }

 private:
  std::function<Example(Example)> fn_;
};

class TransformDataset;

/// A dataset with `map`: derive from `DatasetBase<YourDataset>`.
template <class Self>
class DatasetBase : public Dataset {
 public:
  /// A dataset whose example i is `transform(get(i))`, holding a copy of
  /// this one (or this one itself, moved, for a temporary).
  [[nodiscard]] TransformDataset map(Transform transform) const&;
  /// As above, moving this temporary dataset into the result instead of copying it.
  [[nodiscard]] TransformDataset map(Transform transform) &&;
};

/// `transform` applied to each example of another dataset (what `map`
/// returns); `map` on it chains another transform.
class WICK_API TransformDataset final : public DatasetBase<TransformDataset> {
 public:
  /// RuntimeError when `dataset` is null.
  TransformDataset(std::shared_ptr<const Dataset> dataset, Transform transform);
  [[nodiscard]] std::int64_t size() const override { return dataset_->size(); }
  [[nodiscard]] Example get(std::int64_t index) const override;
  /// The dataset underneath.
  [[nodiscard]] const Dataset& base() const noexcept { return *dataset_; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  Transform transform_;
};

template <class Self>
TransformDataset DatasetBase<Self>::map(Transform transform) const& {
  return TransformDataset(std::make_shared<Self>(static_cast<const Self&>(*this)), std::move(transform));
}
template <class Self>
TransformDataset DatasetBase<Self>::map(Transform transform) && {
  return TransformDataset(std::make_shared<Self>(static_cast<Self&&>(*this)), std::move(transform));
}

/// Rows of one or two tensors: example i is {data[i], target[i]}
/// (torch.utils.data.TensorDataset). ValueError "Size mismatch between
/// tensors" when their first dims differ; IndexError for a 0-dim tensor.
class WICK_API TensorDataset final : public DatasetBase<TensorDataset> {
 public:
  /// Rows of `data` and, when defined, of `target` (default: none). ValueError for an undefined `data`
  /// or first dims that differ; IndexError for a 0-dim tensor.
  explicit TensorDataset(Tensor data, Tensor target = {});
  [[nodiscard]] std::int64_t size() const override { return size_; }
  /// Views of row `index` (negative indices count from the end, as in
  /// PyTorch); IndexError "index 5 is out of bounds for dimension 0 with size 5".
  [[nodiscard]] Example get(std::int64_t index) const override;
  /// The data tensor, all rows.
  [[nodiscard]] const Tensor& data() const noexcept { return data_; }
  /// The target tensor, all rows (undefined when there is none).
  [[nodiscard]] const Tensor& target() const noexcept { return target_; }

 private:
  Tensor data_;
  Tensor target_;
  std::int64_t size_ = 0;
};

/// Collation that stacks the examples' data (and targets) along a new first
/// dim with `wick::stack` (libtorch's transforms::Stack, PyTorch's
/// default_collate for tensors). ValueError for an empty list or when some
/// examples have a target and others not; stack's RuntimeError when shapes
/// differ ("stack expects each tensor to be equal size, ...").
struct WICK_API Stack {
  /// One batch from `examples`; the errors above.
  [[nodiscard]] Example operator()(std::vector<Example> examples) const;
};

/// Per-channel `(x - mean[c]) / std[c]` of a floating image tensor shaped
/// [..., C, H, W] (torchvision.transforms.Normalize); one mean and std apply
/// to every channel. Computed in the image's dtype, a new tensor.
/// TypeError "Input tensor should be a float tensor. Got torch.uint8." for
/// an integer tensor; ValueError "Expected tensor to be a tensor image of
/// size (..., C, H, W). Got tensor.size() = torch.Size([3, 4])" below 3
/// dims; ValueError "std evaluated to zero after conversion to torch.float32,
/// leading to division by zero." for a zero std; sub's RuntimeError when C
/// is neither the number of means nor 1.
class WICK_API Normalize {
 public:
  /// ValueError when mean and std are empty or differ in length.
  Normalize(std::vector<double> mean, std::vector<double> std);
  /// One mean and std for every channel.
  Normalize(double mean, double std) : Normalize(std::vector<double>{mean}, std::vector<double>{std}) {}
  /// Normalizes `image`, returning a new tensor; the errors above.
  [[nodiscard]] Tensor operator()(const Tensor& image) const;
  /// Normalizes `example.data`, leaving the target.
  [[nodiscard]] Example operator()(Example example) const;

 private:
  std::vector<double> mean_;
  std::vector<double> std_;
};

}  // namespace wick::data
