// tests/distributed/launcher_test.cpp - `wick run`: the ranks' environment, a failing rank, forwarded signals.
/// \file
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <thread>

#include "tests/distributed/ranks.h"
#include "tests/support/test_paths.h"

namespace {

/// Runs `wick run ARGS` as the single rank of run_ranks (its own environment is replaced by the launcher's).
wick_test::RankResult run_launcher(const std::vector<std::string>& args, std::chrono::seconds deadline = std::chrono::seconds(60)) {
  wick_test::RanksOptions o;
  o.world_size = 1;
  o.deadline = deadline;
  std::vector<std::string> all = {"run"};
  all.insert(all.end(), args.begin(), args.end());
  return wick_test::run_ranks(wick_test::cli_path(), all, o).front();
}

TEST(Launcher, GivesEachRankTorchrunsEnvironment) {
  const auto r = run_launcher({"--nproc-per-node", "3", "--master-port", "29999", "--master-addr", "10.1.2.3", "sh", "-c",
                               "echo rank=$RANK local=$LOCAL_RANK world=$WORLD_SIZE local_world=$LOCAL_WORLD_SIZE "
                               "master=$MASTER_ADDR:$MASTER_PORT omp=$OMP_NUM_THREADS"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (int i = 0; i < 3; ++i) {
    EXPECT_NE(r.out.find("rank=" + std::to_string(i) + " local=" + std::to_string(i) +
                         " world=3 local_world=3 master=10.1.2.3:29999 omp=1"),
              std::string::npos)
        << r.out;
  }
}

TEST(Launcher, NodesNumberTheirRanksAfterTheNodesBefore) {
  const auto r = run_launcher({"--nproc-per-node", "2", "--nnodes", "3", "--node-rank", "2", "sh", "-c", "echo rank=$RANK world=$WORLD_SIZE"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("rank=4 world=6"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank=5 world=6"), std::string::npos) << r.out;
}

TEST(Launcher, AFailingRankIsNamedAndStopsTheOthers) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_launcher({"--nproc-per-node", "3", "sh", "-c", "if [ $RANK = 1 ]; then exit 3; fi; sleep 60"});
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("rank 1 (local rank 1, pid"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exited with code 3"), std::string::npos) << r.err;
}

TEST(Launcher, ARankKilledByASignalIsNamed) {
  const auto r = run_launcher({"--nproc-per-node", "2", "sh", "-c", "if [ $RANK = 0 ]; then kill -SEGV $$; fi; sleep 60"});
  EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.err;
  EXPECT_NE(r.err.find("rank 0"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("SIGSEGV"), std::string::npos) << r.err;
}

TEST(Launcher, BadArgumentsAreUsageErrors) {
  EXPECT_EQ(run_launcher({"--nproc-per-node", "zero", "true"}).exit_code, 2);
  EXPECT_EQ(run_launcher({"--nproc-per-node", "2"}).exit_code, 2);
  EXPECT_EQ(run_launcher({"--nnodes", "2", "--node-rank", "2", "true"}).exit_code, 2);
  const auto missing = run_launcher({"--nproc-per-node", "2", "/nonexistent/program"});
  EXPECT_EQ(missing.exit_code, 127) << missing.err;
  EXPECT_NE(missing.err.find("cannot start rank 0"), std::string::npos) << missing.err;
}

TEST(Launcher, ForwardsSignalsToTheRanks) {
  // The launcher runs in the background; SIGTERM to it reaches both ranks.
  const auto dir = std::filesystem::temp_directory_path() / ("wick_launcher_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string marker = (dir / "ranks").string();
  const std::string script = "trap 'echo got-term-$RANK >> " + marker + "; exit 0' TERM; echo up >> " + marker +
                             "; while true; do sleep 0.1; done";
  std::vector<std::string> args = {wick_test::cli_path(), "run", "--nproc-per-node", "2", "sh", "-c", script};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  for (int i = 0; i < 200 && wick_test::slurp(marker).size() < 6; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ::kill(pid, SIGTERM);
  int status = 0;
  for (int i = 0; i < 300 && ::waitpid(pid, &status, WNOHANG) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::string seen = wick_test::slurp(marker);
  if (::waitpid(pid, &status, WNOHANG) == 0) ::kill(pid, SIGKILL);
  std::filesystem::remove_all(dir);
  EXPECT_NE(seen.find("got-term-0"), std::string::npos) << seen;
  EXPECT_NE(seen.find("got-term-1"), std::string::npos) << seen;
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
