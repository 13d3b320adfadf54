// tests/data_loading/data_loader_test.cpp - DataLoader: batching, shuffling, drop_last, workers, errors, shutdown.
/// \file
/// The shuffled orders are PyTorch 1.13's: torch.manual_seed(0), then
/// [b.tolist() for b in DataLoader(list(range(10)), batch_size=4, shuffle=True)], twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/data.h"

namespace wick::testing {
namespace {

using data::DataLoader;
using data::Example;

std::vector<std::int64_t> ints(const Tensor& t) {
  Tensor c = t.contiguous().to(ScalarType::kInt64);
  const std::int64_t* p = c.data_ptr<std::int64_t>();
  return {p, p + c.numel()};
}

// Example i is {[i] int64, [2 * i] int64}; get(throw_at) throws, and get
// sleeps `delay_us` microseconds on every third index, so that workers
// finish out of order.
struct Numbers : data::DatasetBase<Numbers> {
  explicit Numbers(std::int64_t n) : n(n) {}
  std::int64_t n;
  std::int64_t throw_at = -1;
  bool throw_std = false;
  int delay_us = 0;
  [[nodiscard]] std::int64_t size() const override { return n; }
  [[nodiscard]] Example get(std::int64_t i) const override {
    if (i == throw_at) {
      if (throw_std) throw std::logic_error("plain exception at " + std::to_string(i));
      WICK_CHECK(false, IndexError, "no example ", i);
    }
    if (delay_us > 0 && i % 3 == 0) std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
    return {full({1}, i, ScalarType::kInt64), full({}, 2 * i, ScalarType::kInt64)};
  }
};

// The batches of one epoch as lists of example numbers (and checks the targets).
std::vector<std::vector<std::int64_t>> epoch(DataLoader& loader) {
  std::vector<std::vector<std::int64_t>> out;
  for (auto& batch : loader) {
    std::vector<std::int64_t> ids = ints(batch.data);
    EXPECT_EQ(batch.data.dim(), 2);
    std::vector<std::int64_t> want;
    for (std::int64_t i : ids) want.push_back(2 * i);
    EXPECT_EQ(ints(batch.target), want);
    out.push_back(std::move(ids));
  }
  return out;
}

using Batches = std::vector<std::vector<std::int64_t>>;

class DataLoaderTest : public AutogradTest {};

TEST_F(DataLoaderTest, BatchesInOrderWithShortLastBatch) {
  DataLoader loader(Numbers(10), {.batch_size = 4});
  EXPECT_EQ(loader.size(), 3);
  EXPECT_EQ(epoch(loader), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));
  EXPECT_EQ(epoch(loader), (Batches{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9}}));  // each loop is an epoch
  auto it = loader.begin();
  EXPECT_EQ(it->data.sizes(), (std::vector<std::int64_t>{4, 1}));
  EXPECT_EQ(it->target.sizes(), (std::vector<std::int64_t>{4}));
}

TEST_F(DataLoaderTest, DropLastCounts) {
  for (auto [n, bs, drop, batches] : std::vector<std::array<std::int64_t, 4>>{
           {10, 4, 1, 2}, {10, 4, 0, 3}, {8, 4, 1, 2}, {8, 4, 0, 2}, {3, 4, 1, 0}, {3, 4, 0, 1}, {0, 4, 0, 0}}) {
    DataLoader loader(Numbers(n), {.batch_size = bs, .drop_last = drop != 0});
    EXPECT_EQ(loader.size(), batches) << n << " " << bs << " " << drop;
    const Batches got = epoch(loader);
    EXPECT_EQ(static_cast<std::int64_t>(got.size()), batches);
    for (const auto& b : got) {
      if (drop != 0) {
        EXPECT_EQ(static_cast<std::int64_t>(b.size()), bs);
      }
    }
  }
}

TEST_F(DataLoaderTest, ShuffleIsPyTorchsOrder) {
  manual_seed(0);
  DataLoader loader(Numbers(10), {.batch_size = 4, .shuffle = true});
  EXPECT_EQ(epoch(loader), (Batches{{6, 7, 1, 4}, {2, 0, 9, 8}, {3, 5}}));
  EXPECT_EQ(epoch(loader), (Batches{{2, 4, 7, 0}, {8, 9, 5, 3}, {6, 1}}));
}

TEST_F(DataLoaderTest, ShuffleIsReproducibleAndVisitsEachIndexOnce) {
  DataLoader loader(Numbers(37), {.batch_size = 5, .shuffle = true});
  manual_seed(3);
  const Batches a1 = epoch(loader);
  const Batches a2 = epoch(loader);
  manual_seed(3);
  EXPECT_EQ(epoch(loader), a1);
  EXPECT_EQ(epoch(loader), a2);
  EXPECT_NE(a1, a2);
  for (const Batches& e : {a1, a2}) {
    std::vector<std::int64_t> seen;
    for (const auto& b : e) seen.insert(seen.end(), b.begin(), b.end());
    std::sort(seen.begin(), seen.end());
    std::vector<std::int64_t> all(37);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(seen, all);
  }
}

TEST_F(DataLoaderTest, WorkersGiveTheSameBatchesInTheSameOrder) {
  Numbers ds(103);
  ds.delay_us = 50;
  DataLoader serial(ds, {.batch_size = 7, .shuffle = true});
  manual_seed(5);
  const Batches want = epoch(serial);
  ASSERT_EQ(want.size(), 15U);
  for (std::int64_t workers : {1, 2, 4}) {
    for (std::int64_t prefetch : {1, 3}) {
      DataLoader loader(ds, {.batch_size = 7, .shuffle = true, .num_workers = workers, .prefetch_factor = prefetch});
      manual_seed(5);
      EXPECT_EQ(epoch(loader), want) << workers << " workers, prefetch " << prefetch;
    }
  }
}

TEST_F(DataLoaderTest, WorkerErrorsSurfaceInOrderWithTheirType) {
  Numbers ds(40);
  ds.throw_at = 13;
  for (std::int64_t workers : {0, 1, 3}) {
    DataLoader loader(ds, {.batch_size = 4, .num_workers = workers});
    std::vector<std::int64_t> delivered;
    try {
      for (auto& batch : loader) {
        for (std::int64_t i : ints(batch.data)) delivered.push_back(i);
      }
      ADD_FAILURE() << "no error";
    } catch (const IndexError& e) {
      EXPECT_EQ(std::string(e.message()), "no example 13");
      if (workers > 0) {
        EXPECT_NE(std::string(e.what()).find("in DataLoader worker"), std::string::npos) << e.what();
      }
    }
    EXPECT_EQ(delivered.size(), 12U) << workers;  // batches 0-2, before the failing one
    // The loader is usable again: a new epoch fails at the same place.
    EXPECT_THROW(for (auto& b : loader) (void)b, IndexError);
  }
  ds.throw_std = true;
  DataLoader plain(ds, {.batch_size = 4, .num_workers = 2});
  EXPECT_THROW(for (auto& b : plain) (void)b, std::logic_error);
}

TEST_F(DataLoaderTest, BreakingOutEarlyThenDestroyingDoesNotHang) {
  Numbers ds(3000);
  ds.delay_us = 200;
  const auto start = std::chrono::steady_clock::now();
  {
    DataLoader loader(ds, {.batch_size = 4, .shuffle = true, .num_workers = 3});
    int seen = 0;
    for (auto& batch : loader) {
      EXPECT_EQ(batch.data.size(0), 4);
      if (++seen == 2) break;
    }
    // A new epoch after a break starts from its first batch.
    seen = 0;
    for (auto& batch : loader) {
      (void)batch;
      if (++seen == 3) break;
    }
    EXPECT_EQ(seen, 3);
  }  // destroyed mid-epoch: joins the workers
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST_F(DataLoaderTest, CustomCollate) {
  DataLoader loader(Numbers(5), {.batch_size = 2, .collate = [](std::vector<Example> examples) {
                                   std::vector<Tensor> parts;
                                   for (auto& e : examples) parts.push_back(e.data);
                                   return Example{cat(parts).sum(), Tensor()};
                                 }});
  std::vector<std::int64_t> sums;
  for (auto& batch : loader) {
    EXPECT_FALSE(batch.target.defined());
    sums.push_back(batch.data.item<std::int64_t>());
  }
  EXPECT_EQ(sums, (std::vector<std::int64_t>{1, 5, 4}));
}

TEST_F(DataLoaderTest, BadOptionsAreValueErrors) {
  EXPECT_EQ(error_of([] { DataLoader l(Numbers(3), {.batch_size = 0}); }),
            "batch_size should be a positive integer value, but got batch_size=0");
  EXPECT_EQ(error_of([] { DataLoader l(Numbers(3), {.num_workers = -1}); }),
            "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  EXPECT_THROW(DataLoader(Numbers(3), {.prefetch_factor = 0}), ValueError);
  EXPECT_THROW(DataLoader(Numbers(3), {.collate = nullptr}), ValueError);
}

TEST_F(DataLoaderTest, TensorDatasetRowsAndSizeMismatch) {
  const Tensor x = arange(12, std::nullopt, 1, ScalarType::kFloat32).reshape({6, 2});
  const Tensor y = arange(6, ScalarType::kInt64);
  data::TensorDataset ds(x, y);
  EXPECT_EQ(ds.size(), 6);
  EXPECT_EQ(ints(ds.get(2).data), (std::vector<std::int64_t>{4, 5}));
  EXPECT_EQ(ds.get(-1).target.item<std::int64_t>(), 5);
  EXPECT_THROW((void)ds.get(6), IndexError);
  DataLoader loader(ds, {.batch_size = 4});
  auto it = loader.begin();
  EXPECT_EQ(it->data.sizes(), (std::vector<std::int64_t>{4, 2}));
  EXPECT_EQ(ints(it->target), (std::vector<std::int64_t>{0, 1, 2, 3}));
  EXPECT_FALSE(data::TensorDataset(x).get(0).target.defined());
  try {
    data::TensorDataset bad(x, arange(5, ScalarType::kInt64));
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_STREQ(e.what(), "Size mismatch between tensors");
  }
}

}  // namespace
}  // namespace wick::testing
