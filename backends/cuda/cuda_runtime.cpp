// backends/cuda/cuda_runtime.cpp - CUDA devices, per-thread current streams and the caching allocator.
/// \file
/// Note [Caching device allocator]
/// cudaMalloc and cudaFree are slow (a cudaFree waits for the whole device),
/// so freed blocks are kept and handed out again. A block belongs to the
/// device and the stream it was allocated on: work on one stream runs in
/// order, so a block freed after the last kernel that used it was queued
/// can be given to the next allocation on that stream without waiting.
/// (Using a tensor on another stream than the one it was allocated on needs
/// a `synchronize()` before its memory is freed, as wick/cuda.h says.)
/// Sizes are rounded to a class: 512 bytes below 4 KiB, else an eighth of
/// the size's power of two (at most 12.5% slack), and a cached block is
/// reused only for its own class. When cudaMalloc fails, the device's cached
/// blocks are freed and the allocation retried once before "CUDA out of
/// memory" is raised. `empty_cache()` frees every cached block.
#include "cuda_runtime.h"

#include <cuda_runtime_api.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <wick/error.h>

namespace wick::cuda_backend {
namespace {

constexpr int kMaxDevices = 64;
constexpr int kPoolStreams = 8;
constexpr std::size_t kMinBlock = 512;

void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();  // clear a non-sticky error so later calls are not blamed
  throw RuntimeError(detail::str_cat(what, ": CUDA error: ", cudaGetErrorName(err), ": ", cudaGetErrorString(err)));
}

std::size_t size_class(std::size_t nbytes) {
  if (nbytes < 4096) return (nbytes + kMinBlock - 1) / kMinBlock * kMinBlock;
  const std::size_t step = std::bit_floor(nbytes) / 8;
  return (nbytes + step - 1) / step * step;
}

std::string format_bytes(std::size_t n) {
  constexpr std::array<const char*, 4> kUnits = {"bytes", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(n);
  std::size_t u = 0;
  while (v >= 1024.0 && u + 1 < kUnits.size()) {
    v /= 1024.0;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, kUnits[u]);
  return buf;
}

// Each thread's current device and current stream per device (nullptr: the
// device's default stream).
thread_local int t_device = 0;
thread_local std::array<cudaStream_t, kMaxDevices> t_streams{};

class DeviceGuardLocal final {
 public:
  explicit DeviceGuardLocal(int index) {
    check(cudaGetDevice(&previous_), "cudaGetDevice");
    if (previous_ != index) check(cudaSetDevice(index), "cudaSetDevice");
  }
  ~DeviceGuardLocal() { (void)cudaSetDevice(previous_); }
  DeviceGuardLocal(const DeviceGuardLocal&) = delete;
  DeviceGuardLocal& operator=(const DeviceGuardLocal&) = delete;

 private:
  int previous_ = 0;
};

class CachingAllocator final : public Allocator {
 public:
  explicit CachingAllocator(int devices) : pools_(static_cast<std::size_t>(devices)) {}
  ~CachingAllocator() override = default;  // the driver reclaims device memory at exit
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  void* allocate(std::size_t nbytes) override { return allocate_on(nbytes, Device(DeviceType::kCUDA, t_device)); }

  void* allocate_on(std::size_t nbytes, Device device) override {
    if (nbytes == 0) return nullptr;
    const int index = device.index();
    WICK_CHECK(index >= 0 && index < static_cast<int>(pools_.size()), RuntimeError, "CUDA error: invalid device ordinal ",
               index, " (", pools_.size(), " device(s) present)");
    WICK_CHECK(nbytes <= SIZE_MAX / 2, RuntimeError, "CUDA out of memory: cannot allocate ", nbytes, " bytes");
    const std::size_t rounded = size_class(nbytes);
    cudaStream_t stream = t_streams[static_cast<std::size_t>(index)];
    std::lock_guard lock(mutex_);
    Pool& pool = pools_[static_cast<std::size_t>(index)];
    ++pool.stats.allocations;
    void* p = nullptr;
    auto it = pool.cached.find({stream, rounded});
    if (it != pool.cached.end() && !it->second.empty()) {
      p = it->second.back();
      it->second.pop_back();
      ++pool.stats.cache_hits;
    } else {
      p = device_malloc(index, pool, rounded);
    }
    live_.emplace(p, Live{index, stream, rounded});
    pool.stats.allocated_bytes += rounded;
    pool.stats.peak_allocated_bytes = std::max(pool.stats.peak_allocated_bytes, pool.stats.allocated_bytes);
    return p;
  }

  void deallocate(void* ptr, std::size_t /*nbytes*/) noexcept override {
    if (ptr == nullptr) return;
    std::lock_guard lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) return;  // not ours: never happens for storages made by this allocator
    const Live l = it->second;
    live_.erase(it);
    Pool& pool = pools_[static_cast<std::size_t>(l.device)];
    pool.stats.allocated_bytes -= l.size;
    pool.cached[{l.stream, l.size}].push_back(ptr);
  }

  void empty_cache() {
    std::lock_guard lock(mutex_);
    for (std::size_t d = 0; d < pools_.size(); ++d) release_cached(static_cast<int>(d), pools_[d]);
  }

  DeviceMemoryStats stats(int index) {
    std::lock_guard lock(mutex_);
    return pools_.at(static_cast<std::size_t>(index)).stats;
  }

  void reset_peak(int index) {
    std::lock_guard lock(mutex_);
    DeviceMemoryStats& s = pools_.at(static_cast<std::size_t>(index)).stats;
    s.peak_allocated_bytes = s.allocated_bytes;
    s.peak_reserved_bytes = s.reserved_bytes;
  }

 private:
  struct Live {
    int device;
    cudaStream_t stream;
    std::size_t size;
  };
  struct Pool {
    std::map<std::pair<cudaStream_t, std::size_t>, std::vector<void*>> cached;
    DeviceMemoryStats stats;
  };

  // Called with mutex_ held.
  void* device_malloc(int index, Pool& pool, std::size_t rounded) {
    DeviceGuardLocal guard(index);
    void* p = nullptr;
    cudaError_t err = cudaMalloc(&p, rounded);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      release_cached(index, pool);
      err = cudaMalloc(&p, rounded);
    }
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      std::size_t free_bytes = 0;
      std::size_t total = 0;
      (void)cudaMemGetInfo(&free_bytes, &total);
      throw RuntimeError(detail::str_cat("CUDA out of memory. Tried to allocate ", format_bytes(rounded), " (GPU ",
                                         index, "; ", format_bytes(total), " total capacity; ",
                                         format_bytes(pool.stats.allocated_bytes), " already allocated; ",
                                         format_bytes(free_bytes), " free; ", format_bytes(pool.stats.reserved_bytes),
                                         " reserved in total by wick)"));
    }
    check(err, "cudaMalloc");
    ++pool.stats.device_allocations;
    pool.stats.reserved_bytes += rounded;
    pool.stats.peak_reserved_bytes = std::max(pool.stats.peak_reserved_bytes, pool.stats.reserved_bytes);
    return p;
  }

  // Called with mutex_ held. cudaFree waits for the device, so no kernel
  // still uses a block when it goes.
  static void release_cached(int index, Pool& pool) {
    DeviceGuardLocal guard(index);
    for (auto& [key, blocks] : pool.cached) {
      for (void* p : blocks) {
        (void)cudaFree(p);
        ++pool.stats.device_frees;
        pool.stats.reserved_bytes -= key.second;
      }
    }
    pool.cached.clear();
  }

  std::mutex mutex_;
  std::vector<Pool> pools_;
  std::unordered_map<void*, Live> live_;
};

// Page-locked host memory for asynchronous transfers (wick::cuda::pin_memory).
class PinnedAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    if (nbytes == 0) return nullptr;
    void* p = nullptr;
    check(cudaHostAlloc(&p, nbytes, cudaHostAllocDefault), "pin_memory: cudaHostAlloc");
    return p;
  }
  void deallocate(void* ptr, std::size_t /*nbytes*/) noexcept override {
    if (ptr != nullptr) (void)cudaFreeHost(ptr);
  }
};

class CudaRuntime final : public DeviceRuntime {
 public:
  explicit CudaRuntime(int devices)
      : devices_(std::min(devices, kMaxDevices)), allocator_(devices_), pools_(static_cast<std::size_t>(devices_)) {}

  Allocator& allocator() noexcept override { return allocator_; }
  int device_count() const noexcept override { return devices_; }
  int current_device() const override { return t_device; }

  void set_current_device(int index) override {
    check_index(index);
    check(cudaSetDevice(index), "set_device");
    t_device = index;
  }

  Stream current_stream(int index) override {
    const int d = resolve(index);
    return {Device(DeviceType::kCUDA, static_cast<std::int16_t>(d)), t_streams[static_cast<std::size_t>(d)]};
  }

  void set_current_stream(Stream stream) override {
    const int d = resolve(stream.device.index());
    t_streams[static_cast<std::size_t>(d)] = static_cast<cudaStream_t>(stream.handle);
  }

  Stream stream_from_pool(int index) override {
    const int d = resolve(index);
    std::lock_guard lock(mutex_);
    StreamPool& pool = pools_[static_cast<std::size_t>(d)];
    const std::size_t slot = pool.next++ % kPoolStreams;
    if (pool.streams[slot] == nullptr) {
      DeviceGuardLocal guard(d);
      check(cudaStreamCreateWithFlags(&pool.streams[slot], cudaStreamNonBlocking), "new_stream");
    }
    return {Device(DeviceType::kCUDA, static_cast<std::int16_t>(d)), pool.streams[slot]};
  }

  void synchronize_stream(Stream stream) override {
    DeviceGuardLocal guard(resolve(stream.device.index()));
    check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream.handle)), "synchronize");
  }

  void synchronize(int index) override {
    DeviceGuardLocal guard(resolve(index));
    check(cudaDeviceSynchronize(), "synchronize");
  }

  void empty_cache() override { allocator_.empty_cache(); }
  DeviceMemoryStats memory_stats(int index) override { return allocator_.stats(resolve(index)); }
  void reset_peak_memory_stats(int index) override { allocator_.reset_peak(resolve(index)); }
  Allocator* pinned_host_allocator() noexcept override { return &pinned_; }

 private:
  struct StreamPool {
    std::array<cudaStream_t, kPoolStreams> streams{};
    std::size_t next = 0;
  };

  void check_index(int index) const {
    WICK_CHECK(index >= 0 && index < devices_, RuntimeError, "CUDA error: invalid device ordinal ", index, " (",
               devices_, " device(s) present)");
  }
  int resolve(int index) const {
    const int d = index < 0 ? t_device : index;
    check_index(d);
    return d;
  }

  int devices_;
  CachingAllocator allocator_;
  PinnedAllocator pinned_;
  std::mutex mutex_;
  std::vector<StreamPool> pools_;
};

}  // namespace

std::unique_ptr<DeviceRuntime> make_cuda_runtime(int device_count) {
  return std::make_unique<CudaRuntime>(device_count);
}

}  // namespace wick::cuda_backend
