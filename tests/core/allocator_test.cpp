// tests/core/allocator_test.cpp - the CPU allocator: alignment, the small- and large-block caches.
/// \file
/// Note [Large-block cache] (core/storage.cpp): freed blocks of 128 KiB or
/// more are kept, reused for allocations of the same rounded size, capped,
/// and given back by empty_cpu_cache().
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "wick/error.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/storage.h"

namespace wick {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

class CpuAllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override { empty_cpu_cache(); }
  void TearDown() override { empty_cpu_cache(); }
  Allocator& cpu_ = get_allocator(DeviceType::kCPU);
};

TEST_F(CpuAllocatorTest, EveryBlockIsAlignedAndWritable) {
  for (std::size_t n : {std::size_t{1}, std::size_t{100}, std::size_t{5000}, 200 * std::size_t{1024}, 5 * kMiB}) {
    void* p = cpu_.allocate(n);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kCpuAlignment, 0u) << n;
    std::memset(p, 0xab, n);
    cpu_.deallocate(p, n);
  }
  EXPECT_EQ(cpu_.allocate(0), nullptr);
}

TEST_F(CpuAllocatorTest, FreedLargeBlocksAreReusedForTheSameRoundedSize) {
  EXPECT_EQ(cpu_cached_bytes(), 0u);
  void* a = cpu_.allocate(3 * kMiB);
  cpu_.deallocate(a, 3 * kMiB);
  EXPECT_EQ(cpu_cached_bytes(), 3 * kMiB);
  // 3 MiB less 1000 bytes rounds up to the same class (steps of an eighth of 2 MiB).
  void* b = cpu_.allocate(3 * kMiB - 1000);
  EXPECT_EQ(b, a);
  EXPECT_EQ(cpu_cached_bytes(), 0u);
  // A different class does not take it.
  cpu_.deallocate(b, 3 * kMiB - 1000);
  void* c = cpu_.allocate(6 * kMiB);
  EXPECT_NE(c, a);
  EXPECT_EQ(cpu_cached_bytes(), 3 * kMiB);
  cpu_.deallocate(c, 6 * kMiB);
  EXPECT_EQ(cpu_cached_bytes(), 9 * kMiB);
  empty_cpu_cache();
  EXPECT_EQ(cpu_cached_bytes(), 0u);
}

TEST_F(CpuAllocatorTest, SmallBlocksAreNotInTheLargeCache) {
  void* p = cpu_.allocate(64 * 1024);
  cpu_.deallocate(p, 64 * 1024);
  EXPECT_EQ(cpu_cached_bytes(), 0u);
}

TEST_F(CpuAllocatorTest, TheCacheIsCapped) {
  // 40 blocks of 16 MiB: 640 MiB freed, at most 512 MiB kept.
  std::vector<void*> blocks;
  for (int i = 0; i < 40; ++i) blocks.push_back(cpu_.allocate(16 * kMiB));
  for (void* p : blocks) cpu_.deallocate(p, 16 * kMiB);
  EXPECT_EQ(cpu_cached_bytes(), 512 * kMiB);
}

TEST_F(CpuAllocatorTest, BlocksMoveBetweenThreads) {
  // Freed on one thread, reused on another: the cache is shared.
  void* p = nullptr;
  std::thread([&] { p = cpu_.allocate(kMiB); }).join();
  std::thread([&] { cpu_.deallocate(p, kMiB); }).join();
  EXPECT_EQ(cpu_cached_bytes(), kMiB);
  void* q = nullptr;
  std::thread([&] { q = cpu_.allocate(kMiB); }).join();
  EXPECT_EQ(q, p);
  cpu_.deallocate(q, kMiB);
}

// Issue 22, failure 4: on a host that overcommits memory, malloc of 8 TiB
// succeeded and the kernel filling it ran until a watchdog killed the
// process. A request larger than the machine's memory and swap is refused
// at once, whatever the host's overcommit setting (Note [Allocations larger
// than the machine]).
TEST_F(CpuAllocatorTest, MoreThanTheMachineHasIsRefusedAtOnce) {
  for (std::size_t n : {std::size_t{1} << 50, std::size_t{1} << 43}) {  // 1 PiB, 8 TiB
    try {
      (void)cpu_.allocate(n);
      ADD_FAILURE() << n << " bytes allocated";
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("out of memory allocating " + std::to_string(n) +
                                           " bytes: more than this machine's memory and swap"),
                std::string::npos)
          << e.what();
    }
  }
  // Through an operator: the error names it.
  init();
  try {
    (void)empty({std::int64_t{1} << 41});
    ADD_FAILURE() << "an 8 TiB tensor";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("more than this machine's memory"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wick
