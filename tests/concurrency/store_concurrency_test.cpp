// tests/concurrency/store_concurrency_test.cpp - TCPStore's server thread and clients shared by threads (run under ThreadSanitizer too).
/// \file
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>
#include <wick/distributed_store.h>

namespace {

namespace dist = wick::distributed;
using std::chrono::milliseconds;

TEST(StoreConcurrency, ThreadsShareOneClientAndTheServer) {
  dist::TCPStore master("127.0.0.1", 0, {.is_master = true, .timeout = milliseconds(10000)});
  dist::TCPStore shared("127.0.0.1", master.port(), {.timeout = milliseconds(10000)});
  std::vector<std::thread> threads;
  std::atomic<int> waited{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      // One client shared by every thread (calls take turns on it)...
      for (int i = 0; i < 20; ++i) (void)shared.add("count", 1);
      // ...and a client of its own for a blocking get: a ring of waits on the server.
      dist::TCPStore own("127.0.0.1", master.port(), {.timeout = milliseconds(10000)});
      own.set("k" + std::to_string(t), std::to_string(t));
      if (own.get_string("k" + std::to_string((t + 1) % 4)) == std::to_string((t + 1) % 4)) ++waited;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(waited.load(), 4);
  EXPECT_EQ(master.add("count", 0), 80);
}

TEST(StoreConcurrency, HashStoreWaitsWakeOnSet) {
  dist::HashStore store(milliseconds(10000));
  std::vector<std::thread> waiters;
  std::atomic<int> woke{0};
  for (int t = 0; t < 4; ++t) {
    waiters.emplace_back([&] {
      store.wait({"go"});
      ++woke;
    });
  }
  std::this_thread::sleep_for(milliseconds(20));
  store.set("go", "1");
  for (auto& t : waiters) t.join();
  EXPECT_EQ(woke.load(), 4);
}

}  // namespace
