// tests/distributed/distributed_test.cpp - wick::distributed across 2 and 4 processes on localhost: collectives, groups, faults.
/// \file
/// Each test starts `wick_dist_worker SCENARIO` as N ranks (tests/distributed/ranks.h),
/// every one bounded in time; the workers check their own results against
/// values computed locally (tests/distributed/worker.cpp).
#include <gtest/gtest.h>

#include "tests/distributed/ranks.h"
#include "wick/cuda.h"
#include "wick/distributed_backend.h"
#include "wick/loader.h"
#include "tests/support/test_paths.h"

namespace {

/// Skips where the build has no Gloo (no engine, no worker program).
class Distributed : public ::testing::Test {
 protected:
  void SetUp() override {
#ifndef WICK_TEST_HAVE_GLOO
    GTEST_SKIP() << "built without Gloo (libgloo-dev)";
#endif
  }
};
using DistributedFaults = Distributed;

std::string worker() { return wick_test::build_dir() + "/bin/wick_dist_worker"; }

void expect_all_pass(const std::vector<wick_test::RankResult>& results) {
  for (const auto& r : results) {
    EXPECT_EQ(r.exit_code, 0) << wick_test::describe(results);
    if (r.exit_code != 0) return;
  }
}

wick_test::RanksOptions ranks(int n, int timeout_ms = 60000) {
  wick_test::RanksOptions o;
  o.world_size = n;
  o.env["WICK_TEST_TIMEOUT_MS"] = std::to_string(timeout_ms);
  return o;
}

TEST_F(Distributed, EveryCollectiveOfEveryDtypeOnTwoRanks) {
  expect_all_pass(wick_test::run_ranks(worker(), {"collectives"}, ranks(2)));
}

TEST_F(Distributed, EveryCollectiveOfEveryDtypeOnFourRanks) {
  expect_all_pass(wick_test::run_ranks(worker(), {"collectives"}, ranks(4)));
}

TEST_F(Distributed, GroupsOfSomeRanks) { expect_all_pass(wick_test::run_ranks(worker(), {"subgroup"}, ranks(4))); }

TEST_F(Distributed, ArgumentErrorsAreTypedAndLeaveTheGroupWorking) {
  expect_all_pass(wick_test::run_ranks(worker(), {"errors"}, ranks(2)));
}

TEST_F(Distributed, DataParallelGradientsEqualOneProcessOnTwoRanks) {
  expect_all_pass(wick_test::run_ranks(worker(), {"ddp"}, ranks(2)));
}

TEST_F(Distributed, DataParallelGradientsEqualOneProcessOnFourRanks) {
  expect_all_pass(wick_test::run_ranks(worker(), {"ddp"}, ranks(4)));
}

TEST_F(Distributed, DataParallelOnOneRank) { expect_all_pass(wick_test::run_ranks(worker(), {"ddp"}, ranks(1))); }

// On a machine with a GPU and NCCL: one rank per GPU (NCCL refuses two ranks on one device).
TEST_F(Distributed, CudaTensorsThroughNccl) {
  wick::init();
  const auto engines = wick::distributed::registered_engines();
  if (!wick::cuda::is_available() ||
      std::none_of(engines.begin(), engines.end(), [](const std::string& e) { return e.starts_with("nccl:"); }))
    GTEST_SKIP() << "needs a CUDA device and the nccl plugin";
  expect_all_pass(wick_test::run_ranks(worker(), {"cuda"}, ranks(std::max(1, wick::cuda::device_count()))));
}

/// The ranks other than `culprit` failed in time, naming it.
void expect_fault_names(const std::vector<wick_test::RankResult>& results, int culprit, const std::string& what) {
  for (std::size_t r = 0; r < results.size(); ++r) {
    if (static_cast<int>(r) == culprit) continue;
    EXPECT_EQ(results[r].exit_code, 0) << wick_test::describe(results);
    EXPECT_NE(results[r].out.find("FAULT: "), std::string::npos) << wick_test::describe(results);
    EXPECT_NE(results[r].out.find("rank " + std::to_string(culprit)), std::string::npos) << wick_test::describe(results);
    EXPECT_NE(results[r].out.find(what), std::string::npos) << wick_test::describe(results);
  }
}

TEST_F(DistributedFaults, ARankThatDiesIsNamedByTheOthers) {
  const auto results = wick_test::run_ranks(worker(), {"die"}, ranks(3, 5000));
  expect_fault_names(results, 1, "torch.distributed.all_reduce");
  EXPECT_EQ(results[1].exit_code, 9);
}

TEST_F(DistributedFaults, ARankThatHangsIsNamedAfterTheTimeout) {
  auto o = ranks(3, 5000);
  o.kill_when_others_end = {1};
  const auto results = wick_test::run_ranks(worker(), {"hang"}, o);
  expect_fault_names(results, 1, "did not reach this collective");
}

TEST_F(DistributedFaults, MismatchedSizesFailOnEveryRank) {
  const auto results = wick_test::run_ranks(worker(), {"mismatch"}, ranks(2, 5000));
  for (const auto& r : results) {
    EXPECT_EQ(r.exit_code, 0) << wick_test::describe(results);
    EXPECT_NE(r.out.find("FAULT: torch.distributed.all_reduce"), std::string::npos) << wick_test::describe(results);
  }
}

TEST_F(DistributedFaults, AWrongWorldSizeIsNamed) {
  auto o = ranks(2, 8000);
  o.rank_env[1]["WORLD_SIZE"] = "3";
  const auto results = wick_test::run_ranks(worker(), {"init_only"}, o);
  for (const auto& r : results) {
    EXPECT_EQ(r.exit_code, 3) << wick_test::describe(results);
    EXPECT_NE(r.out.find("was started with world_size 3, but rank 0 with world_size 2"), std::string::npos)
        << wick_test::describe(results);
  }
}

TEST_F(DistributedFaults, AMissingRankIsNamedAtInit) {
  // Two ranks of a world of three start: the third never comes.
  auto o = ranks(2, 8000);
  o.env["WORLD_SIZE"] = "3";
  const auto results = wick_test::run_ranks(worker(), {"init_only"}, o);
  for (const auto& r : results) {
    EXPECT_EQ(r.exit_code, 3) << wick_test::describe(results);
    EXPECT_NE(r.out.find("rank 2 of world_size 3 never joined"), std::string::npos) << wick_test::describe(results);
  }
}

TEST_F(DistributedFaults, TwoProcessesClaimingOneRank) {
  auto o = ranks(2, 8000);
  o.rank_env[1]["RANK"] = "0";
  const auto results = wick_test::run_ranks(worker(), {"init_only"}, o);
  int claimed = 0;
  for (const auto& r : results) {
    if (r.out.find("was claimed by another process") != std::string::npos || r.out.find("cannot listen on port") != std::string::npos)
      ++claimed;
    EXPECT_NE(r.exit_code, 0) << wick_test::describe(results);
  }
  EXPECT_GE(claimed, 1) << wick_test::describe(results);
}

}  // namespace
