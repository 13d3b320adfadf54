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

class CpuAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    WICK_CHECK(nbytes <= SIZE_MAX - kCpuAlignment, RuntimeError, "CPU allocator: cannot allocate ", nbytes, " bytes");
    // aligned_alloc wants a multiple of the alignment.
    const std::size_t rounded = (nbytes + kCpuAlignment - 1) / kCpuAlignment * kCpuAlignment;
    void* p = std::aligned_alloc(kCpuAlignment, rounded);
    WICK_CHECK(p != nullptr, RuntimeError, "CPU allocator: out of memory allocating ", nbytes, " bytes");
    return p;
  }
  void deallocate(void* ptr) noexcept override { std::free(ptr); }
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
    allocator_->deallocate(data_);
  } else if (deleter_ != nullptr) {
    deleter_(deleter_ctx_, data_);
  }
}

}  // namespace wick
