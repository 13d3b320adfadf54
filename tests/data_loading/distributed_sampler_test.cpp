// tests/data_loading/distributed_sampler_test.cpp - DistributedSampler: PyTorch 1.13's orders, and its use in a DataLoader.
/// \file
#include <gtest/gtest.h>

#include <wick/data.h>
#include <wick/ops.h>

namespace {

struct Case {
  std::int64_t n, replicas, rank;
  bool shuffle;
  std::uint64_t seed;
  bool drop_last;
  std::int64_t epoch;
  std::vector<std::int64_t> order;
};

// PyTorch 1.13's orders (tests/data_loading/make_sampler_cases.py).
const std::vector<Case> kCases = {
    {10, 3, 0, true, 0, false, 0, {4, 5, 0, 2}},
    {10, 3, 1, true, 0, false, 0, {1, 3, 8, 4}},
    {10, 3, 2, true, 0, false, 0, {7, 9, 6, 1}},
    {10, 3, 0, true, 0, false, 1, {5, 2, 9, 4}},
    {10, 3, 1, true, 0, false, 1, {6, 0, 3, 5}},
    {10, 3, 2, true, 0, false, 1, {1, 8, 7, 6}},
    {10, 3, 0, true, 7, true, 2, {0, 7, 9}},
    {10, 3, 1, true, 7, true, 2, {5, 6, 1}},
    {10, 3, 2, true, 7, true, 2, {8, 2, 4}},
    {10, 3, 0, false, 0, false, 0, {0, 3, 6, 9}},
    {10, 3, 1, false, 0, false, 0, {1, 4, 7, 0}},
    {10, 3, 2, false, 0, false, 0, {2, 5, 8, 1}},
    {10, 3, 0, false, 0, true, 0, {0, 3, 6}},
    {10, 3, 1, false, 0, true, 0, {1, 4, 7}},
    {10, 3, 2, false, 0, true, 0, {2, 5, 8}},
    {2, 4, 0, true, 0, false, 0, {0}},
    {2, 4, 1, true, 0, false, 0, {1}},
    {2, 4, 2, true, 0, false, 0, {0}},
    {2, 4, 3, true, 0, false, 0, {1}},
    {25, 4, 0, true, 3, false, 5, {23, 17, 4, 7, 15, 12, 21}},
    {25, 4, 1, true, 3, false, 5, {5, 2, 24, 8, 14, 19, 23}},
    {25, 4, 2, true, 3, false, 5, {11, 13, 18, 20, 1, 0, 5}},
    {25, 4, 3, true, 3, false, 5, {16, 22, 10, 9, 6, 3, 11}},
};

TEST(DistributedSampler, OrdersArePyTorchs) {
  for (const Case& c : kCases) {
    wick::data::DistributedSampler s(c.replicas, c.rank, c.shuffle, c.seed, c.drop_last);
    s.set_epoch(c.epoch);
    EXPECT_EQ(s.indices(c.n), c.order) << "n=" << c.n << " replicas=" << c.replicas << " rank=" << c.rank
                                       << " epoch=" << c.epoch;
    EXPECT_EQ(s.length(c.n), static_cast<std::int64_t>(c.order.size()));
  }
}

TEST(DistributedSampler, FeedsADataLoaderItsShare) {
  auto ds = std::make_shared<wick::data::TensorDataset>(wick::arange(10, wick::ScalarType::kInt64));
  auto sampler = std::make_shared<wick::data::DistributedSampler>(3, 1, /*shuffle=*/false);
  wick::data::DataLoader loader(ds, {.batch_size = 3, .sampler = sampler});
  EXPECT_EQ(loader.size(), 2);
  std::vector<std::int64_t> seen;
  for (auto& batch : loader) {
    for (std::int64_t i = 0; i < batch.data.size(0); ++i) seen.push_back(batch.data[i].item<std::int64_t>());
  }
  EXPECT_EQ(seen, (std::vector<std::int64_t>{1, 4, 7, 0}));
}

TEST(DistributedSampler, BadArgumentsAreErrors) {
  EXPECT_THROW(wick::data::DistributedSampler(3, 3), wick::ValueError);
  EXPECT_THROW(wick::data::DistributedSampler(0, 0), wick::ValueError);
  // Without explicit sizes it asks the default process group, which does not exist here.
  EXPECT_THROW(wick::data::DistributedSampler(), wick::RuntimeError);
  auto ds = std::make_shared<wick::data::TensorDataset>(wick::arange(4));
  try {
    wick::data::DataLoader loader(ds, {.shuffle = true, .sampler = std::make_shared<wick::data::DistributedSampler>(2, 0)});
    FAIL() << "shuffle and sampler together";
  } catch (const wick::ValueError& e) {
    EXPECT_STREQ(e.what(), "sampler option is mutually exclusive with shuffle");
  }
}

}  // namespace
