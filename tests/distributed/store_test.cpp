// tests/distributed/store_test.cpp - TCPStore, HashStore and PrefixStore in one process: values, counters, waits, timeouts.
/// \file
#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <wick/distributed_store.h>

#include "tests/distributed/ranks.h"

namespace {

namespace dist = wick::distributed;
using std::chrono::milliseconds;

TEST(TCPStore, ClientsShareValuesCountersAndWaits) {
  dist::TCPStore master("127.0.0.1", 0, {.is_master = true, .timeout = milliseconds(5000)});
  ASSERT_GT(master.port(), 0);
  dist::TCPStore a("127.0.0.1", master.port(), {.timeout = milliseconds(5000)});
  dist::TCPStore b("localhost", master.port(), {.timeout = milliseconds(5000)});
  a.set("k", "v1");
  EXPECT_EQ(b.get_string("k"), "v1");
  EXPECT_EQ(master.get_string("k"), "v1");
  EXPECT_EQ(a.add("n", 5), 5);
  EXPECT_EQ(b.add("n", -2), 3);
  EXPECT_EQ(master.add("n", 0), 3);
  EXPECT_TRUE(b.check({"k", "n"}));
  EXPECT_FALSE(b.check({"k", "absent"}));
  // A get waits for the key to be set.
  std::thread later([&] {
    std::this_thread::sleep_for(milliseconds(100));
    a.set("late", std::vector<std::uint8_t>{1, 2, 3});
  });
  EXPECT_EQ(b.get("late"), (std::vector<std::uint8_t>{1, 2, 3}));
  later.join();
  b.wait({"k", "late"});
  EXPECT_TRUE(a.delete_key("k"));
  EXPECT_FALSE(a.delete_key("k"));
  EXPECT_FALSE(b.check({"k"}));
  EXPECT_GE(master.num_keys(), 2);
  // Large values pass whole.
  std::vector<std::uint8_t> big(3 << 20);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 7);
  a.set("big", big);
  EXPECT_EQ(b.get("big"), big);
}

TEST(TCPStore, BlockingCallsEndAtTheTimeoutNamingTheKeys) {
  dist::TCPStore master("127.0.0.1", 0, {.is_master = true, .timeout = milliseconds(300)});
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)master.get("never");
    FAIL() << "no timeout";
  } catch (const wick::DistributedError& e) {
    EXPECT_NE(std::string(e.what()).find("'never'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("300 ms"), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  master.set("here", "1");
  try {
    master.wait({"here", "missing"}, milliseconds(200));
    FAIL() << "no timeout";
  } catch (const wick::DistributedError& e) {
    EXPECT_NE(std::string(e.what()).find("'missing'"), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).find("'here'"), std::string::npos) << e.what();
  }
  // The connection stays in step after a timeout.
  EXPECT_EQ(master.get_string("here"), "1");
}

TEST(TCPStore, NoServerIsAnErrorNamingTheAddress) {
  const int port = wick_test::free_port();
  const auto start = std::chrono::steady_clock::now();
  try {
    dist::TCPStore client("127.0.0.1", port, {.timeout = milliseconds(300)});
    FAIL() << "connected to nothing";
  } catch (const wick::DistributedError& e) {
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(port)), std::string::npos) << e.what();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(TCPStore, ATakenPortAndALostServerAreErrors) {
  auto master = std::make_unique<dist::TCPStore>("127.0.0.1", 0, dist::TCPStoreOptions{.is_master = true, .timeout = milliseconds(2000)});
  const int port = master->port();
  try {
    dist::TCPStore second("127.0.0.1", port, {.is_master = true, .timeout = milliseconds(300)});
    FAIL() << "two servers on one port";
  } catch (const wick::DistributedError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on port " + std::to_string(port)), std::string::npos) << e.what();
  }
  dist::TCPStore client("127.0.0.1", port, {.timeout = milliseconds(2000)});
  client.set("a", "1");
  std::thread stop([&] { master.reset(); });  // the master lingers while the client is connected
  std::this_thread::sleep_for(milliseconds(50));
  try {
    (void)client.get("never-set");
  } catch (const wick::DistributedError& e) {
    EXPECT_TRUE(std::string(e.what()).find("lost the connection") != std::string::npos ||
                std::string(e.what()).find("timed out") != std::string::npos)
        << e.what();
  }
  stop.join();
  EXPECT_THROW(client.set("b", "2"), wick::DistributedError);
}

TEST(TCPStore, ManyThreadsCountTogether) {
  dist::TCPStore master("127.0.0.1", 0, {.is_master = true, .timeout = milliseconds(5000)});
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      dist::TCPStore c("127.0.0.1", master.port(), {.timeout = milliseconds(5000)});
      for (int i = 0; i < 50; ++i) (void)c.add("count", 1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(master.add("count", 0), 200);
}

TEST(Stores, HashAndPrefixStores) {
  auto hash = std::make_shared<dist::HashStore>(milliseconds(200));
  dist::PrefixStore p("group_1", hash);
  p.set("x", "1");
  EXPECT_TRUE(hash->check({"group_1/x"}));
  EXPECT_FALSE(hash->check({"x"}));
  EXPECT_EQ(p.get_string("x"), "1");
  EXPECT_EQ(p.add("c", 2), 2);
  EXPECT_EQ(hash->add("group_1/c", 1), 3);
  EXPECT_THROW(p.wait({"y"}, milliseconds(50)), wick::DistributedError);
  EXPECT_THROW((void)hash->get("missing"), wick::DistributedError);
  hash->set("text", "abc");
  EXPECT_THROW(hash->add("text", 1), wick::ValueError);
  EXPECT_THROW(dist::PrefixStore("p", nullptr), wick::ValueError);
}

}  // namespace
