// core/storage.cpp - storages, the aligned CPU allocator and the allocator table.
/// \file
#include "wick/storage.h"

#include <array>
#include <cstdint>
#include <atomic>
#include <cstdlib>
#include <new>

#include "wick/error.h"

namespace wick {
namespace {

// Note [Small-block cache]
// Aligned allocation is slow in glibc (memalign, then a costly free), and a
// small op allocates its output on every call. Blocks up to 1 KiB come in five
// size classes (64..1024 bytes) and freed ones are kept in a per-thread cache
// of at most kMaxCached blocks per class; a thread's cache is released when
// the thread ends. Larger blocks go straight to aligned_alloc/free.
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

void* aligned_or_throw(std::size_t rounded, std::size_t nbytes) {
  void* p = std::aligned_alloc(kCpuAlignment, rounded);
  WICK_CHECK(p != nullptr, RuntimeError, "CPU allocator: out of memory allocating ", nbytes, " bytes");
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
    WICK_CHECK(nbytes <= SIZE_MAX - kCpuAlignment, RuntimeError, "CPU allocator: cannot allocate ", nbytes, " bytes");
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
    std::free(ptr);
  }
};

CpuAllocator g_cpu_allocator;
std::array<std::atomic<Allocator*>, kMaxDeviceTypes> g_allocators{&g_cpu_allocator};

}  // namespace

void set_allocator(DeviceType type, Allocator* allocator) {
  const int i = static_cast<int>(type);
  WICK_CHECK(i >= 0 && i < kMaxDeviceTypes, ValueError, "set_allocator: bad device type ", i);
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
  data_ = allocator_->allocate(nbytes);
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
