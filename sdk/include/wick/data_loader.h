// wick/data_loader.h - DataLoader: batches of a dataset, shuffled, prefetched by worker threads.
/// \file
/// The loader of torch.utils.data.DataLoader (libtorch's make_data_loader),
/// iterated with a range-for; each loop is one epoch:
///
///   auto ds = wick::data::MNIST(root).map(wick::data::Normalize(0.1307, 0.3081));
///   wick::data::DataLoader loader(ds, {.batch_size = 64, .shuffle = true, .num_workers = 2});
///   for (int epoch = 0; epoch < 10; ++epoch) {
///     for (auto& batch : loader) {                    // batch.data [64, 1, 28, 28], batch.target [64]
///       auto loss = wick::nn::functional::cross_entropy(model->forward(batch.data), batch.target);
///       ...
///     }
///   }
///
/// Note [The loader's order]
/// An epoch visits every example once: in order, or, with `shuffle`, in the
/// order PyTorch 1.13's DataLoader(shuffle=True) uses after the same
/// `manual_seed` (two int64 `random_()` draws from the default generator,
/// the second seeding a fresh generator that gives `randperm(size)`), so
/// `wick::manual_seed` makes the epochs reproducible and the same as
/// PyTorch's. Batch b holds entries [b * batch_size, (b + 1) * batch_size)
/// of that order; the last one is shorter, or dropped with `drop_last`.
/// Workers change nothing in what is delivered, nor in what order: with
/// `num_workers > 0`, the workers build whole batches ahead of the
/// consumer, at most `num_workers * prefetch_factor` batches ahead, and the
/// loader hands them out in batch order.
///
/// Note [Worker errors and shutdown]
/// An exception thrown while building batch b (by the dataset, a transform
/// or the collation) is stored and rethrown, with its own type, when the
/// consumer reaches batch b, after the batches before it; a wick::Error gets
/// a note naming the worker and the batch. That ends the epoch. Leaving a
/// loop early (break, an exception of the consumer's own) needs nothing:
/// starting the next epoch, or destroying the loader, stops the workers,
/// which finish at most the batch each is building, and joins them.
#pragma once

#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <type_traits>
#include <vector>

#include "wick/data_dataset.h"
#include "wick/export.h"

namespace wick::data {

/// Turns the examples of one batch into the batch (default: `Stack`).
using Collate = std::function<Example(std::vector<Example>)>;

/// The examples an epoch visits, in order (torch.utils.data.Sampler): the
/// DataLoader asks for them at the start of each epoch.
class WICK_API Sampler {
 public:
  virtual ~Sampler() = default;
  /// The dataset indices of the next epoch, for a dataset of `dataset_size` examples.
  [[nodiscard]] virtual std::vector<std::int64_t> indices(std::int64_t dataset_size) = 0;
  /// How many indices `indices(dataset_size)` returns.
  [[nodiscard]] virtual std::int64_t length(std::int64_t dataset_size) const = 0;
};

/// This process's share of a dataset in data-parallel training
/// (torch.utils.data.distributed.DistributedSampler): the same order on
/// every rank (randperm from a generator seeded with seed + epoch, as
/// PyTorch's, when shuffling), padded by repeating its start to a multiple
/// of num_replicas (or cut, with drop_last), and rank r takes every
/// num_replicas-th index from r. Call `set_epoch` before each epoch for a
/// new order. ValueError for a rank outside [0, num_replicas).
class WICK_API DistributedSampler final : public Sampler {
 public:
  /// num_replicas / rank: -1 takes the default process group's size and rank.
  explicit DistributedSampler(std::int64_t num_replicas = -1, std::int64_t rank = -1, bool shuffle = true,
                              std::uint64_t seed = 0, bool drop_last = false);
  [[nodiscard]] std::vector<std::int64_t> indices(std::int64_t dataset_size) override;
  [[nodiscard]] std::int64_t length(std::int64_t dataset_size) const override;
  /// The epoch whose order the next `indices` gives (PyTorch's set_epoch).
  void set_epoch(std::int64_t epoch) noexcept { epoch_ = epoch; }
  /// The number of shares.
  [[nodiscard]] std::int64_t num_replicas() const noexcept { return num_replicas_; }
  /// This process's share.
  [[nodiscard]] std::int64_t rank() const noexcept { return rank_; }

 private:
  std::int64_t num_replicas_;
  std::int64_t rank_;
  bool shuffle_;
  std::uint64_t seed_;
  bool drop_last_;
  std::int64_t epoch_ = 0;
};

/// A DataLoader's settings, in PyTorch's order; designated initializers read well:
/// `{.batch_size = 64, .shuffle = true, .num_workers = 2}`.
struct DataLoaderOptions {
  /// Examples per batch (ValueError when not positive).
  std::int64_t batch_size = 1;
  /// A new random order each epoch (Note [The loader's order]).
  bool shuffle = false;
  /// Threads that build batches ahead of the consumer; 0 builds each batch
  /// on the consumer's thread when it is asked for (ValueError when negative).
  std::int64_t num_workers = 0;
  /// Makes a batch of examples (ValueError when empty).
  Collate collate = Stack();
  /// Drops the last batch when it is short.
  bool drop_last = false;
  /// Batches each worker may build ahead (ValueError when not positive).
  std::int64_t prefetch_factor = 2;
  /// Chooses each epoch's examples instead of `shuffle` (ValueError when
  /// both are set, as PyTorch's "sampler option is mutually exclusive with shuffle").
  std::shared_ptr<Sampler> sampler = nullptr;
};

/// Batches of a dataset (Note [The loader's order], Note [Worker errors and shutdown]).
/// Not copyable; one epoch runs at a time: `begin()` ends the one before.
class WICK_API DataLoader final {
  struct Epoch;

 public:
  /// Reads a copy of `dataset` (or `dataset` itself, moved); ValueError for
  /// bad options (PyTorch's texts: "batch_size should be a positive integer
  /// value, but got batch_size=0").
  template <class D>
    requires std::is_base_of_v<Dataset, std::remove_cvref_t<D>>
  DataLoader(D&& dataset, DataLoaderOptions options = {})
      : DataLoader(std::shared_ptr<const Dataset>(std::make_shared<std::remove_cvref_t<D>>(std::forward<D>(dataset))),
                   std::move(options)) {}
  /// Reads a shared dataset; RuntimeError when it is null.
  DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options = {});
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  /// The batches of one epoch (len(loader)): ceil(size / batch_size), or
  /// floor with drop_last.
  [[nodiscard]] std::int64_t size() const noexcept { return num_batches_; }
  /// The dataset the loader reads (its own copy, or the shared one it was given).
  [[nodiscard]] const Dataset& dataset() const noexcept { return *dataset_; }
  /// The options given to the constructor.
  [[nodiscard]] const DataLoaderOptions& options() const noexcept { return options_; }

  /// An input iterator over the batches of the current epoch.
  class WICK_API Iterator {
   public:
    // NOLINTBEGIN(readability-identifier-naming): the names std::iterator_traits reads
    using iterator_category = std::input_iterator_tag;  ///< a single-pass input iterator
    using value_type = Example;                         ///< a batch
    using difference_type = std::ptrdiff_t;             ///< required by std::iterator_traits
    using pointer = Example*;                           ///< what operator-> returns
    using reference = Example&;                         ///< what operator* returns
    // NOLINTEND(readability-identifier-naming)

    Iterator() = default;
    /// The current batch (the iterator must not be at the end: not checked).
    [[nodiscard]] Example& operator*() const noexcept { return *current_; }
    /// The current batch's address (null at the end).
    [[nodiscard]] Example* operator->() const noexcept { return current_.get(); }
    /// Moves to the next batch; rethrows a worker's exception (Note [Worker
    /// errors and shutdown]).
    Iterator& operator++();
    /// Moves to the next batch, as the prefix form (returns nothing: an input iterator).
    void operator++(int) { ++*this; }
    /// Whether the epoch has no more batches (after the last one, or after a rethrown error).
    [[nodiscard]] friend bool operator==(const Iterator& it, std::default_sentinel_t) noexcept {
      return it.current_ == nullptr;
    }

   private:
    friend class DataLoader;
    explicit Iterator(Epoch* epoch);
    Epoch* epoch_ = nullptr;
    std::shared_ptr<Example> current_;
  };

  /// Starts an epoch (ending any earlier one: its iterators must not be used
  /// again) and returns its first batch; rethrows a failure building it.
  [[nodiscard]] Iterator begin();
  /// The end of an epoch, compared with an Iterator.
  [[nodiscard]] std::default_sentinel_t end() const noexcept { return {}; }

 private:
  std::shared_ptr<const Dataset> dataset_;
  DataLoaderOptions options_;
  std::int64_t num_batches_ = 0;
  std::unique_ptr<Epoch> epoch_;
};

}  // namespace wick::data
