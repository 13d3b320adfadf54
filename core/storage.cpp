// core/storage.cpp - storages, the aligned CPU allocator and the allocator table.
/// \file
#include "wick/storage.h"

#include <sys/mman.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <vector>

#include "wick/device_runtime.h"
#include "wick/error.h"

namespace wick {
namespace {

// Note [Small-block cache]
// Aligned allocation is slow in glibc (memalign, then a costly free), and a
// small op allocates its output on every call. Blocks up to 1 KiB come in five
// size classes (64..1024 bytes) and freed ones are kept in a per-thread cache
// of at most kMaxCached blocks per class; a thread's cache is released when
// the thread ends. Larger blocks: Note [Large-block cache].
constexpr std::size_t kNumClasses = 5;
constexpr std::size_t kLargestClass = kCpuAlignment << (kNumClasses - 1);  // 1024
constexpr int kMaxCached = 64;

std::size_t size_class(std::size_t nbytes) {
  std::size_t c = 0;
  for (std::size_t size = kCpuAlignment; size < nbytes; size <<= 1) ++c;
  return c;
}

// Set once the thread's cache is destroyed: storages freed later in thread
// exit (static destructors, other thread_locals) bypass it. A trivially
// destructible thread_local stays readable until the thread is gone.
constinit thread_local bool t_cache_gone __attribute__((tls_model("initial-exec"))) = false;

struct SmallBlockCache {
  std::array<std::array<void*, kMaxCached>, kNumClasses> blocks{};
  std::array<int, kNumClasses> count{};
  ~SmallBlockCache() {
    for (std::size_t c = 0; c < kNumClasses; ++c)
      for (int i = 0; i < count[c]; ++i) std::free(blocks[c][i]);
    t_cache_gone = true;
  }
};
thread_local SmallBlockCache t_cache;

void* aligned_or_throw(std::size_t rounded, std::size_t nbytes, std::size_t alignment = kCpuAlignment) {
  void* p = std::aligned_alloc(alignment, rounded);
  WICK_CHECK(p != nullptr, RuntimeError, "CPU allocator: out of memory allocating ", nbytes, " bytes");
  return p;
}

// Note [Large-block cache]
// A block of 128 KiB or more comes from mmap, and each of its 4 KiB pages
// faults on first touch: on the machines wick is measured on a fault costs
// over a microsecond, more than an add of 10^7 floats spends on its
// arithmetic. So freed large blocks are kept, keyed by their size rounded
// up to an eighth of its power of two (at most 12.5% slack), and handed out
// again for the same rounded size: a loop that allocates the same shapes
// every step touches fresh pages only on its first. The cache holds at most
// kMaxCachedBytes (a block that would exceed it is freed) and is shared by
// all threads under one mutex, negligible next to the work on such a block.
// empty_cpu_cache() gives it all back. Blocks of 4 MiB or more are 2 MiB
// aligned and marked for transparent huge pages, so a first touch faults
// once per 2 MiB instead of once per 4 KiB where the kernel allows it.
constexpr std::size_t kLargeBlock = std::size_t{128} << 10;
constexpr std::size_t kHugeBlock = std::size_t{4} << 20;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kMaxCachedBytes = std::size_t{512} << 20;

std::size_t large_class(std::size_t nbytes) {
  const std::size_t step = std::bit_floor(nbytes) / 8;
  return (nbytes + step - 1) / step * step;
}

class LargeBlockCache {
 public:
  void* take(std::size_t rounded) {
    std::lock_guard lock(mutex_);
    auto it = blocks_.find(rounded);
    if (it == blocks_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    cached_ -= rounded;
    return p;
  }
  // False when the block does not fit under the cap: the caller frees it.
  bool put(void* p, std::size_t rounded) {
    std::lock_guard lock(mutex_);
    if (cached_ + rounded > kMaxCachedBytes) return false;
    blocks_[rounded].push_back(p);
    cached_ += rounded;
    return true;
  }
  void release() {
    std::map<std::size_t, std::vector<void*>> blocks;
    {
      std::lock_guard lock(mutex_);
      blocks.swap(blocks_);
      cached_ = 0;
    }
    for (auto& [size, list] : blocks)
      for (void* p : list) std::free(p);
  }
  std::size_t cached() {
    std::lock_guard lock(mutex_);
    return cached_;
  }

 private:
  std::mutex mutex_;
  std::map<std::size_t, std::vector<void*>> blocks_;
  std::size_t cached_ = 0;
};

// Never destroyed: storages may be freed during static destruction.
LargeBlockCache& large_cache() {
  static auto* cache = new LargeBlockCache;
  return *cache;
}

// Note [Allocations larger than the machine]
// Where the kernel overcommits memory (vm.overcommit_memory = 1, common on
// large hosts), malloc of 8 TiB succeeds, and the kernel that fills it runs
// for minutes until the OOM killer ends the process. So a request for more
// than the machine's memory and swap together, which can never be filled,
// is refused at once, as it is where the kernel does not overcommit: the
// outcome does not depend on the host's settings.
std::size_t machine_bytes() {
  static const std::size_t bytes = [] {
    struct sysinfo info {};
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGE_SIZE);
    std::size_t total = pages > 0 && page_size > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size)
                                                   : SIZE_MAX / 4;
    if (::sysinfo(&info) == 0) total += static_cast<std::size_t>(info.totalswap) * info.mem_unit;
    return total;
  }();
  return bytes;
}

void* allocate_large(std::size_t nbytes) {
  WICK_CHECK(nbytes <= SIZE_MAX / 2, RuntimeError, "CPU allocator: cannot allocate ", nbytes, " bytes");
  WICK_CHECK(nbytes <= machine_bytes(), RuntimeError, "CPU allocator: out of memory allocating ", nbytes,
             " bytes: more than this machine's memory and swap (", machine_bytes(), " bytes)");
  const std::size_t rounded = large_class(nbytes);
  if (void* p = large_cache().take(rounded)) return p;
  if (rounded < kHugeBlock) return aligned_or_throw(rounded, nbytes);
  const std::size_t whole_pages = (rounded + kHugePage - 1) / kHugePage * kHugePage;
  void* p = aligned_or_throw(whole_pages, nbytes, kHugePage);
  (void)madvise(p, whole_pages, MADV_HUGEPAGE);  // advice only: without THP the block still works
  return p;
}

class CpuAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    if (nbytes <= kLargestClass && !t_cache_gone) {
      const std::size_t c = size_class(nbytes);
      SmallBlockCache& cache = t_cache;
      if (cache.count[c] > 0) return cache.blocks[c][--cache.count[c]];
    }
    if (nbytes <= kLargestClass) return aligned_or_throw(kCpuAlignment << size_class(nbytes), nbytes);
    if (nbytes >= kLargeBlock) return allocate_large(nbytes);
    // aligned_alloc wants a multiple of the alignment.
    return aligned_or_throw((nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment, nbytes);
  }
  void deallocate(void* ptr, std::size_t nbytes) noexcept override {
    if (ptr != nullptr && nbytes <= kLargestClass && !t_cache_gone) {
      const std::size_t c = size_class(nbytes);
      SmallBlockCache& cache = t_cache;
      if (cache.count[c] < kMaxCached) {
        cache.blocks[c][cache.count[c]++] = ptr;
        return;
      }
    }
    if (ptr != nullptr && nbytes >= kLargeBlock && large_cache().put(ptr, large_class(nbytes))) return;
    std::free(ptr);
  }
};

CpuAllocator g_cpu_allocator;

// Meta tensors have a storage of the right size without memory: their data
// pointer is null (Note [Meta tensors] in wick/meta.h).
class MetaAllocator final : public Allocator {
 public:
  void* allocate(std::size_t /*nbytes*/) override { return nullptr; }
  void deallocate(void* /*ptr*/, std::size_t /*nbytes*/) noexcept override {}
};
MetaAllocator g_meta_allocator;

// By device type: CPU (0), CUDA and the plugin types (1..14, installed by
// their backends), Meta (15).
static_assert(static_cast<int>(DeviceType::kMeta) == kMaxDeviceTypes - 1);
std::array<std::atomic<Allocator*>, kMaxDeviceTypes> g_allocators{
    &g_cpu_allocator, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
    nullptr,          nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &g_meta_allocator};

}  // namespace

void empty_cpu_cache() { large_cache().release(); }

std::size_t cpu_cached_bytes() { return large_cache().cached(); }

void set_allocator(DeviceType type, Allocator* allocator) {
  const int i = static_cast<int>(type);
  WICK_CHECK(i >= 0 && i < kMaxDeviceTypes, ValueError, "set_allocator: bad device type ", i);
  WICK_CHECK(type != DeviceType::kMeta, ValueError, "set_allocator: the meta device's allocator is built in");
  g_allocators[i].store(allocator != nullptr || i != 0 ? allocator : &g_cpu_allocator);
}

Allocator& get_allocator(DeviceType type) {
  const int i = static_cast<int>(type);
  Allocator* a = (i >= 0 && i < kMaxDeviceTypes) ? g_allocators[i].load(std::memory_order_acquire) : nullptr;
  WICK_CHECK(a != nullptr, RuntimeError, "no allocator for device type '", device_type_name(type),
             "' (is its backend plugin loaded?)");
  return *a;
}

StorageImpl::StorageImpl(std::size_t nbytes, Device device)
    : data_(nullptr), nbytes_(nbytes), device_(device), allocator_(&get_allocator(device.type())) {
  if (device.is_cpu() || device.is_meta()) {
    data_ = allocator_->allocate(nbytes);
  } else {
    device_ = resolve_device(device);
    data_ = allocator_->allocate_on(nbytes, device_);
  }
}

StorageImpl::StorageImpl(void* data, std::size_t nbytes, Device device, void (*deleter)(void*, void*),
                         void* ctx)
    : data_(data), nbytes_(nbytes), device_(device), allocator_(nullptr), deleter_(deleter), deleter_ctx_(ctx) {}

StorageImpl::~StorageImpl() {
  if (allocator_ != nullptr) {
    allocator_->deallocate(data_, nbytes_);
  } else if (deleter_ != nullptr) {
    deleter_(deleter_ctx_, data_);
  }
}

}  // namespace wick
