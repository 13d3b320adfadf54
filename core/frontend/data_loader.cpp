// core/frontend/data_loader.cpp - DataLoader: the epoch's order, batch building, and the prefetching workers.
/// \file
#include "wick/data_loader.h"

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick::data {

namespace {

// A batch a worker has built, or the exception that building it threw.
struct Built {
  std::shared_ptr<Example> batch;
  std::exception_ptr error;
};

// The example order of one epoch (Note [The loader's order]): PyTorch's
// DataLoader draws its workers' base seed, then its RandomSampler draws the
// seed of a fresh generator for randperm; both are random_() on an int64
// scalar from the default generator.
std::vector<std::int64_t> shuffled_order(std::int64_t n) {
  Tensor draw = empty({}, ScalarType::kInt64);
  draw.random_();  // the base seed of PyTorch's workers (unused here)
  draw.random_();
  Generator generator(static_cast<std::uint64_t>(draw.item<std::int64_t>()));
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  generator.permutation(order.data(), n);
  return order;
}

}  // namespace

struct DataLoader::Epoch {
  Epoch(const DataLoader& loader, std::vector<std::int64_t> order)
      : dataset(*loader.dataset_), options(loader.options_), num_batches(loader.num_batches_),
        order(std::move(order)) {
    if (options.num_workers == 0) return;
    window = checked_mul(options.num_workers, options.prefetch_factor, "DataLoader: num_workers * prefetch_factor");
    const std::int64_t threads = std::min(options.num_workers, num_batches);
    try {
      for (std::int64_t w = 0; w < threads; ++w) workers.emplace_back([this, w] { work(w); });
    } catch (...) {
      shut_down();
      throw;
    }
  }
  Epoch(const Epoch&) = delete;
  Epoch& operator=(const Epoch&) = delete;
  ~Epoch() { shut_down(); }

  void shut_down() noexcept {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      stop = true;
    }
    cv.notify_all();
    for (std::thread& t : workers) t.join();
    workers.clear();
  }

  // The examples of batch b, collated.
  [[nodiscard]] Example build(std::int64_t b) const {
    const std::int64_t n = order.empty() ? dataset.size() : static_cast<std::int64_t>(order.size());
    const std::int64_t start = checked_mul(b, options.batch_size, "DataLoader: batch start");
    const std::int64_t count = std::min(options.batch_size, n - start);
    std::vector<Example> examples;
    examples.reserve(static_cast<std::size_t>(std::min(count, kMaxListLength)));
    for (std::int64_t i = 0; i < count; ++i) {
      const auto k = static_cast<std::size_t>(start + i);  // < n: b < num_batches
      examples.push_back(dataset.get(order.empty() ? start + i : order[k]));
    }
    return options.collate(std::move(examples));
  }

  // A worker: claims the next unclaimed batch while it is within `window` of
  // the consumer, builds it, files it under its number.
  void work(std::int64_t worker) {
    for (;;) {
      std::int64_t b = 0;
      {
        std::unique_lock<std::mutex> lock(mutex);
        cv.wait(lock, [&] { return stop || next_claim >= num_batches || next_claim - next_yield < window; });
        if (stop || next_claim >= num_batches) return;
        b = next_claim++;
      }
      Built built;
      try {
        built.batch = std::make_shared<Example>(build(b));
      } catch (Error& e) {
        e.add_note("  in DataLoader worker " + std::to_string(worker) + ", building batch " + std::to_string(b));
        built.error = std::current_exception();
      } catch (...) {
        built.error = std::current_exception();
      }
      {
        const std::lock_guard<std::mutex> lock(mutex);
        ready.emplace(b, std::move(built));
      }
      cv.notify_all();
    }
  }

  // The next batch in order, null after the last; rethrows a failure to
  // build it, which ends the epoch.
  std::shared_ptr<Example> next() {
    if (next_yield >= num_batches) return nullptr;
    if (workers.empty()) {
      const std::int64_t b = next_yield;
      next_yield = num_batches;  // a failure ends the epoch
      auto batch = std::make_shared<Example>(build(b));
      next_yield = b + 1;
      return batch;
    }
    std::unique_lock<std::mutex> lock(mutex);
    cv.wait(lock, [&] { return ready.count(next_yield) != 0; });
    auto it = ready.find(next_yield);
    Built built = std::move(it->second);
    ready.erase(it);
    ++next_yield;
    if (built.error) {
      stop = true;
      next_yield = num_batches;
    }
    lock.unlock();
    cv.notify_all();
    if (built.error) std::rethrow_exception(built.error);
    return std::move(built.batch);
  }

  const Dataset& dataset;
  const DataLoaderOptions& options;
  const std::int64_t num_batches;
  const std::vector<std::int64_t> order;  // empty: 0, 1, 2, ...
  std::int64_t window = 0;

  std::mutex mutex;
  std::condition_variable cv;
  std::map<std::int64_t, Built> ready;  // guarded by mutex, as are the three below
  std::int64_t next_claim = 0;
  std::int64_t next_yield = 0;  // written by the consumer only
  bool stop = false;
  std::vector<std::thread> workers;
};

DataLoader::DataLoader(std::shared_ptr<const Dataset> dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  WICK_CHECK(dataset_ != nullptr, RuntimeError, "DataLoader: the dataset is null");
  WICK_CHECK(options_.batch_size > 0, ValueError, "batch_size should be a positive integer value, but got batch_size=",
             options_.batch_size);
  WICK_CHECK(options_.num_workers >= 0, ValueError,
             "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  WICK_CHECK(options_.prefetch_factor > 0, ValueError,
             "prefetch_factor should be a positive integer value, but got prefetch_factor=", options_.prefetch_factor);
  WICK_CHECK(static_cast<bool>(options_.collate), ValueError, "DataLoader: collate is empty");
  WICK_CHECK(!(options_.shuffle && options_.sampler != nullptr), ValueError, "sampler option is mutually exclusive with shuffle");
  WICK_CHECK(dataset_->size() >= 0, ValueError, "DataLoader: the dataset's size is negative (", dataset_->size(), ")");
  const std::int64_t n = options_.sampler != nullptr ? options_.sampler->length(dataset_->size()) : dataset_->size();
  num_batches_ = options_.drop_last ? n / options_.batch_size : ceil_div(n, options_.batch_size, "DataLoader");
}

DataLoader::~DataLoader() = default;

DataLoader::Iterator DataLoader::begin() {
  epoch_.reset();
  std::vector<std::int64_t> order;
  if (options_.shuffle) order = shuffled_order(dataset_->size());
  if (options_.sampler != nullptr) {
    order = options_.sampler->indices(dataset_->size());
    WICK_CHECK(static_cast<std::int64_t>(order.size()) == options_.sampler->length(dataset_->size()), RuntimeError,
               "DataLoader: the sampler returned ", order.size(), " indices, but its length is ",
               options_.sampler->length(dataset_->size()));
    for (const std::int64_t i : order) {
      WICK_CHECK(i >= 0 && i < dataset_->size(), IndexError, "DataLoader: the sampler's index ", i,
                 " is out of range for a dataset of ", dataset_->size(), " examples");
    }
  }
  epoch_ = std::make_unique<Epoch>(*this, std::move(order));
  return Iterator(epoch_.get());
}

DataLoader::Iterator::Iterator(Epoch* epoch) : epoch_(epoch) { current_ = epoch_->next(); }

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  current_.reset();
  if (epoch_ != nullptr) current_ = epoch_->next();
  return *this;
}

}  // namespace wick::data
