// tests/cuda/block_cache_test.cpp - the CUDA caching allocator's bookkeeping over a fake driver, on any host.
/// \file
/// Note [Blocks used on other streams] and Note [Private pools of CUDA
/// graphs] (backends/cuda/block_cache.h): the rules that keep a block from
/// being reused while another stream or a graph may still use it. The fake
/// driver hands out distinct addresses and events that finish only when the
/// test says so, so every ordering can be checked without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "backends/cuda/block_cache.h"

namespace wick::cuda_backend {
namespace {

class FakeDriver final : public BlockDriver {
 public:
  void* malloc(int /*device*/, std::size_t bytes) override {
    if (limit_ != 0 && in_use_ + bytes > limit_) return nullptr;
    in_use_ += bytes;
    ++mallocs;
    next_ += 1 << 20;
    sizes_[next_] = bytes;
    return reinterpret_cast<void*>(next_);
  }
  void free(int /*device*/, void* block) noexcept override {
    in_use_ -= sizes_[reinterpret_cast<std::uintptr_t>(block)];
    ++frees;
  }
  void* record(int /*device*/, void* stream) override {
    events_.push_back({stream, false});
    return reinterpret_cast<void*>(events_.size());  // 1-based: never null
  }
  bool done(void* event) override { return at(event).finished; }
  void wait(void* event) override {
    at(event).finished = true;
    ++waits;
  }
  void release(void* event) noexcept override { released.insert(event); }

  /// Work queued on `stream` so far has finished: its events complete.
  void finish(void* stream) {
    for (Event& e : events_)
      if (e.stream == stream) e.finished = true;
  }
  void set_limit(std::size_t bytes) { limit_ = bytes; }

  int mallocs = 0;
  int frees = 0;
  int waits = 0;
  std::set<void*> released;

 private:
  struct Event {
    void* stream;
    bool finished;
  };
  Event& at(void* event) { return events_.at(reinterpret_cast<std::size_t>(event) - 1); }
  std::vector<Event> events_;
  std::uintptr_t next_ = 0;
  std::map<std::uintptr_t, std::size_t> sizes_;
  std::size_t in_use_ = 0;
  std::size_t limit_ = 0;
};

void* const kStreamA = reinterpret_cast<void*>(0xa0);
void* const kStreamB = reinterpret_cast<void*>(0xb0);
void* const kStreamC = reinterpret_cast<void*>(0xc0);
constexpr std::size_t kMiB = std::size_t{1} << 20;

TEST(BlockCache, AFreedBlockIsReusedOnItsOwnStreamAtOnce) {
  FakeDriver driver;
  BlockCache cache(driver, 1);
  void* a = cache.allocate(0, kMiB, kStreamA);
  cache.free(a);
  EXPECT_EQ(cache.allocate(0, kMiB, kStreamA), a);
  EXPECT_EQ(driver.mallocs, 1);
  // Another stream never gets it: its work is not ordered after the free.
  EXPECT_NE(cache.allocate(0, kMiB, kStreamB), a);
  EXPECT_EQ(cache.stats(0).cache_hits, 1u);
}

TEST(BlockCache, ABlockUsedOnAnotherStreamWaitsForThatStream) {
  FakeDriver driver;
  BlockCache cache(driver, 1);
  void* a = cache.allocate(0, kMiB, kStreamA);
  EXPECT_TRUE(cache.record_stream(a, kStreamB));
  EXPECT_TRUE(cache.record_stream(a, kStreamB));  // twice: one event
  EXPECT_TRUE(cache.record_stream(a, kStreamA));  // its own stream: nothing to wait for
  cache.free(a);
  EXPECT_EQ(cache.pending_blocks(), 1u);
  void* b = cache.allocate(0, kMiB, kStreamA);
  EXPECT_NE(b, a) << "reused while stream B may still read it";
  driver.finish(kStreamB);
  cache.free(b);
  void* c = cache.allocate(0, kMiB, kStreamA);
  void* d = cache.allocate(0, kMiB, kStreamA);
  EXPECT_EQ(cache.pending_blocks(), 0u);
  EXPECT_EQ(std::set<void*>({c, d}), std::set<void*>({a, b})) << "both reused once B finished";
  EXPECT_EQ(driver.released.size(), 1u) << "the event is released with the block";
}

TEST(BlockCache, EveryStreamTheBlockWasUsedOnMustFinish) {
  FakeDriver driver;
  BlockCache cache(driver, 1);
  void* a = cache.allocate(0, kMiB, kStreamA);
  (void)cache.record_stream(a, kStreamB);
  (void)cache.record_stream(a, kStreamC);
  cache.free(a);
  driver.finish(kStreamB);
  EXPECT_NE(cache.allocate(0, kMiB, kStreamA), a) << "stream C has not finished";
  driver.finish(kStreamC);
  EXPECT_EQ(cache.allocate(0, kMiB, kStreamA), a);
}

TEST(BlockCache, EmptyCacheWaitsForPendingBlocksThenFreesThem) {
  FakeDriver driver;
  BlockCache cache(driver, 1);
  void* a = cache.allocate(0, kMiB, kStreamA);
  (void)cache.record_stream(a, kStreamB);
  cache.free(a);
  cache.empty_cache();
  EXPECT_EQ(driver.waits, 1);
  EXPECT_EQ(driver.frees, 1);
  EXPECT_EQ(cache.pending_blocks(), 0u);
  EXPECT_EQ(cache.stats(0).reserved_bytes, 0u);
}

TEST(BlockCache, RecordStreamOfAForeignAddressIsRefused) {
  FakeDriver driver;
  BlockCache cache(driver, 1);
  int x = 0;
  EXPECT_FALSE(cache.record_stream(&x, kStreamB));
}

TEST(BlockCache, OutOfMemoryFreesTheCacheAndRetriesOnce) {
  FakeDriver driver;
  driver.set_limit(3 * kMiB);
  BlockCache cache(driver, 1);
  void* a = cache.allocate(0, 2 * kMiB, kStreamA);
  cache.free(a);  // cached, still held from the driver
  void* b = cache.allocate(0, 3 * kMiB, kStreamA);
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(driver.frees, 1);
  EXPECT_EQ(cache.allocate(0, 3 * kMiB, kStreamA), nullptr) << "nothing cached to free: the caller reports it";
}

TEST(BlockCache, AGraphsPoolIsItsOwnUntilTheGraphIsReleased) {
  FakeDriver driver;
  BlockCache cache(driver, 1);
  void* shared = cache.allocate(0, kMiB, kStreamA);
  cache.free(shared);
  const PoolId pool = cache.begin_pool(kStreamA);
  EXPECT_TRUE(cache.in_private_pool(kStreamA));
  void* in_graph = cache.allocate(0, kMiB, kStreamA);
  EXPECT_NE(in_graph, shared) << "a capture does not take shared blocks";
  cache.free(in_graph);  // freed during the capture
  void* again = cache.allocate(0, kMiB, kStreamA);
  EXPECT_EQ(again, in_graph) << "reused within the same capture";
  void* output = cache.allocate(0, kMiB, kStreamA);  // kept by the caller: the graph's output
  cache.free(again);
  cache.end_pool(kStreamA);
  EXPECT_FALSE(cache.in_private_pool(kStreamA));
  // After the capture, the graph's freed blocks are not handed out: a replay writes them.
  void* after = cache.allocate(0, kMiB, kStreamA);
  EXPECT_EQ(after, shared);
  void* fresh = cache.allocate(0, kMiB, kStreamA);
  EXPECT_NE(fresh, in_graph);
  cache.empty_cache();
  EXPECT_EQ(driver.frees, 0) << "empty_cache keeps a live graph's pool";
  cache.release_pool(pool);
  EXPECT_EQ(driver.frees, 1) << "the pool's cached block goes with the graph";
  cache.free(output);  // an output freed after its graph joins the shared cache
  cache.free(after);
  cache.free(fresh);
  cache.empty_cache();
  EXPECT_EQ(driver.frees, 4);
  EXPECT_EQ(cache.stats(0).reserved_bytes, 0u);
  EXPECT_EQ(cache.stats(0).allocated_bytes, 0u);
}

TEST(BlockCache, SizesAreRoundedToTheirClass) {
  EXPECT_EQ(block_size_class(1), 512u);
  EXPECT_EQ(block_size_class(4095), 4096u);
  EXPECT_EQ(block_size_class(5000), 5120u);  // an eighth of 4096
  EXPECT_EQ(block_size_class(kMiB + 1), kMiB + kMiB / 8);
}

}  // namespace
}  // namespace wick::cuda_backend
