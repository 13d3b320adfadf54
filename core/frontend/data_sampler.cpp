// core/frontend/data_sampler.cpp - DistributedSampler: each rank's share of a dataset, in PyTorch's order.
/// \file
#include <algorithm>

#include "wick/checked.h"
#include "wick/data_loader.h"
#include "wick/distributed.h"
#include "wick/random.h"

namespace wick::data {

DistributedSampler::DistributedSampler(std::int64_t num_replicas, std::int64_t rank, bool shuffle, std::uint64_t seed,
                                       bool drop_last)
    : num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), seed_(seed), drop_last_(drop_last) {
  if (num_replicas_ < 0) num_replicas_ = distributed::get_world_size();
  if (rank_ < 0) rank_ = distributed::get_rank();
  WICK_CHECK(num_replicas_ > 0, ValueError, "DistributedSampler: num_replicas must be positive, got ", num_replicas_);
  WICK_CHECK(rank_ < num_replicas_, ValueError, "Invalid rank ", rank_, ", rank should be in the interval [0, ",
             num_replicas_ - 1, "]");
}

std::int64_t DistributedSampler::length(std::int64_t n) const {
  // PyTorch's num_samples: drop_last cuts the tail that does not divide evenly.
  if (drop_last_ && n % num_replicas_ != 0) return std::max<std::int64_t>(0, ceil_div(n - num_replicas_, num_replicas_, "DistributedSampler"));
  return ceil_div(n, num_replicas_, "DistributedSampler");
}

std::vector<std::int64_t> DistributedSampler::indices(std::int64_t n) {
  std::vector<std::int64_t> all(static_cast<std::size_t>(n));
  if (shuffle_) {
    Generator generator(seed_ + static_cast<std::uint64_t>(epoch_));
    generator.permutation(all.data(), n);
  } else {
    for (std::int64_t i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  }
  const std::int64_t total = checked_mul(length(n), num_replicas_, "DistributedSampler");
  if (!drop_last_ && n > 0) {
    // Pad by repeating the start until the total divides evenly.
    for (std::int64_t i = 0; static_cast<std::int64_t>(all.size()) < total; ++i) all.push_back(all[static_cast<std::size_t>(i % n)]);
  }
  all.resize(static_cast<std::size_t>(std::min<std::int64_t>(total, static_cast<std::int64_t>(all.size()))));
  std::vector<std::int64_t> mine;
  for (std::int64_t i = rank_; i < static_cast<std::int64_t>(all.size()); i += num_replicas_) mine.push_back(all[static_cast<std::size_t>(i)]);
  return mine;
}

}  // namespace wick::data
