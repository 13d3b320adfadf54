// backends/cuda/cuda_runtime.cpp - CUDA devices, per-thread current streams and the caching allocator.
/// \file
/// The caching allocator's bookkeeping is block_cache.h's (Note [Caching
/// device allocator], Note [Blocks used on other streams], Note [Private
/// pools of CUDA graphs]); this file makes its device calls, and keeps the
/// per-thread current device and streams, events and graphs.
#include "cuda_runtime.h"

#include <cuda_runtime_api.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <wick/error.h>

#include "block_cache.h"

namespace wick::cuda_backend {
namespace {

constexpr int kMaxDevices = 64;
constexpr int kPoolStreams = 8;

void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  (void)cudaGetLastError();  // clear a non-sticky error so later calls are not blamed
  throw RuntimeError(detail::str_cat(what, ": CUDA error: ", cudaGetErrorName(err), ": ", cudaGetErrorString(err)));
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

// Whether the work before `event` has finished (cudaEventQuery; "not ready"
// is an answer, not an error).
bool event_finished(void* event, const char* what) {
  const cudaError_t err = cudaEventQuery(static_cast<cudaEvent_t>(event));
  if (err == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return false;
  }
  check(err, what);
  return true;
}

// The device calls of the block cache. Called with the allocator's lock held.
class CudaBlockDriver final : public BlockDriver {
 public:
  void* malloc(int device, std::size_t bytes) override {
    DeviceGuardLocal guard(device);
    void* p = nullptr;
    const cudaError_t err = cudaMalloc(&p, bytes);
    if (err == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      return nullptr;
    }
    check(err, "cudaMalloc");
    return p;
  }
  // cudaFree waits for the device, so no kernel still uses a block when it goes.
  void free(int device, void* block) noexcept override {
    int previous = 0;
    (void)cudaGetDevice(&previous);
    (void)cudaSetDevice(device);
    (void)cudaFree(block);
    (void)cudaSetDevice(previous);
  }
  void* record(int device, void* stream) override {
    DeviceGuardLocal guard(device);
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "record_stream: cudaEventCreate");
    check(cudaEventRecord(e, static_cast<cudaStream_t>(stream)), "record_stream: cudaEventRecord");
    return e;
  }
  bool done(void* event) override { return event_finished(event, "cudaEventQuery"); }
  void wait(void* event) override {
    check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "cudaEventSynchronize");
  }
  void release(void* event) noexcept override { (void)cudaEventDestroy(static_cast<cudaEvent_t>(event)); }
};

class CachingAllocator final : public Allocator {
 public:
  explicit CachingAllocator(int devices) : devices_(devices), cache_(driver_, devices) {}
  ~CachingAllocator() override = default;  // the driver reclaims device memory at exit
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  void* allocate(std::size_t nbytes) override { return allocate_on(nbytes, Device(DeviceType::kCUDA, t_device)); }

  void* allocate_on(std::size_t nbytes, Device device) override {
    if (nbytes == 0) return nullptr;
    const int index = device.index();
    WICK_CHECK(index >= 0 && index < devices_, RuntimeError, "CUDA error: invalid device ordinal ", index, " (",
               devices_, " device(s) present)");
    WICK_CHECK(nbytes <= SIZE_MAX / 2, RuntimeError, "CUDA out of memory: cannot allocate ", nbytes, " bytes");
    std::lock_guard lock(mutex_);
    void* p = cache_.allocate(index, nbytes, t_streams[static_cast<std::size_t>(index)]);
    if (p == nullptr) out_of_memory(index, block_size_class(nbytes));
    return p;
  }

  void deallocate(void* ptr, std::size_t /*nbytes*/) noexcept override {
    if (ptr == nullptr) return;
    std::lock_guard lock(mutex_);
    try {
      cache_.free(ptr);
    } catch (const Error&) {  // NOLINT(bugprone-empty-catch): an event could not be made; the block is lost, not reused
                              // early
    }
  }

  void record_stream(void* ptr, void* stream) {
    std::lock_guard lock(mutex_);
    WICK_CHECK(cache_.record_stream(ptr, stream), RuntimeError,
               "torch.Tensor.record_stream: the tensor's memory does not come from the CUDA caching allocator");
  }

  void empty_cache() {
    std::lock_guard lock(mutex_);
    cache_.empty_cache();
  }
  DeviceMemoryStats stats(int index) {
    std::lock_guard lock(mutex_);
    return cache_.stats(index);
  }
  void reset_peak(int index) {
    std::lock_guard lock(mutex_);
    cache_.reset_peak(index);
  }
  PoolId begin_pool(void* stream) {
    std::lock_guard lock(mutex_);
    return cache_.begin_pool(stream);
  }
  void end_pool(void* stream) {
    std::lock_guard lock(mutex_);
    cache_.end_pool(stream);
  }
  void release_pool(PoolId pool) {
    std::lock_guard lock(mutex_);
    cache_.release_pool(pool);
  }

 private:
  [[noreturn]] void out_of_memory(int index, std::size_t rounded) {
    const DeviceMemoryStats st = cache_.stats(index);
    std::size_t free_bytes = 0;
    std::size_t total = 0;
    {
      DeviceGuardLocal guard(index);
      (void)cudaMemGetInfo(&free_bytes, &total);
    }
    throw RuntimeError(detail::str_cat("CUDA out of memory. Tried to allocate ", format_bytes(rounded), " (GPU ", index,
                                       "; ", format_bytes(total), " total capacity; ", format_bytes(st.allocated_bytes),
                                       " already allocated; ", format_bytes(free_bytes), " free; ",
                                       format_bytes(st.reserved_bytes), " reserved in total by wick)"));
  }

  int devices_;
  std::mutex mutex_;
  CudaBlockDriver driver_;
  BlockCache cache_;
};

// A captured graph (Note [Private pools of CUDA graphs]).
struct CapturedGraph {
  int device = 0;
  cudaStream_t stream = nullptr;
  PoolId pool = 0;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
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
  bool is_pinned(const void* ptr) noexcept override {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, ptr) != cudaSuccess) {
      (void)cudaGetLastError();  // an address CUDA does not know: not pinned, and no sticky error
      return false;
    }
    return attributes.type == cudaMemoryTypeHost;
  }

  void record_stream(void* data, Stream stream) override {
    (void)resolve(stream.device.index());
    allocator_.record_stream(data, stream.handle);
  }

  // --- events ---
  void* create_event(int index, bool timing) override {
    DeviceGuardLocal guard(resolve(index));
    cudaEvent_t e = nullptr;
    check(cudaEventCreateWithFlags(&e, timing ? cudaEventDefault : cudaEventDisableTiming), "Event: cudaEventCreate");
    return e;
  }
  void destroy_event(void* event) noexcept override { (void)cudaEventDestroy(static_cast<cudaEvent_t>(event)); }
  void record_event(void* event, Stream stream) override {
    DeviceGuardLocal guard(resolve(stream.device.index()));
    check(cudaEventRecord(static_cast<cudaEvent_t>(event), static_cast<cudaStream_t>(stream.handle)),
          "Event.record: cudaEventRecord");
  }
  void stream_wait_event(Stream stream, void* event) override {
    DeviceGuardLocal guard(resolve(stream.device.index()));
    check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream.handle), static_cast<cudaEvent_t>(event), 0),
          "Event.wait: cudaStreamWaitEvent");
  }
  bool query_event(void* event) override { return event_finished(event, "Event.query: cudaEventQuery"); }
  void synchronize_event(void* event) override {
    check(cudaEventSynchronize(static_cast<cudaEvent_t>(event)), "Event.synchronize: cudaEventSynchronize");
  }
  float event_elapsed_ms(void* start, void* end) override {
    float ms = 0;
    check(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start), static_cast<cudaEvent_t>(end)),
          "Event.elapsed_time: cudaEventElapsedTime");
    return ms;
  }

  // --- graphs (Note [Private pools of CUDA graphs]) ---
  // Relaxed capture: libraries (cuBLAS's workspace, the allocator's own
  // cudaMalloc for the private pool) may allocate while a capture runs;
  // their memory outlives the graph, so the graph stays valid.
  void* begin_capture(Stream stream) override {
    const int d = resolve(stream.device.index());
    auto g = std::make_unique<CapturedGraph>();
    g->device = d;
    g->stream = static_cast<cudaStream_t>(stream.handle);
    g->pool = allocator_.begin_pool(g->stream);
    DeviceGuardLocal guard(d);
    const cudaError_t err = cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeRelaxed);
    if (err != cudaSuccess) {
      allocator_.end_pool(g->stream);
      allocator_.release_pool(g->pool);
      check(err, "Graph.capture_begin: cudaStreamBeginCapture");
    }
    return g.release();
  }
  void end_capture(void* graph) override {
    auto* g = static_cast<CapturedGraph*>(graph);
    DeviceGuardLocal guard(g->device);
    const cudaError_t err = cudaStreamEndCapture(g->stream, &g->graph);
    allocator_.end_pool(g->stream);
    if (err != cudaSuccess || g->graph == nullptr) {
      (void)cudaGetLastError();
      throw RuntimeError(
          detail::str_cat("Graph.capture_end: the capture failed (", cudaGetErrorName(err),
                          "): an operation that synchronises or reads results on the host (item(), printing, cpu(), "
                          "synchronize(), an integer division's error check) ran while capturing"));
    }
    check(cudaGraphInstantiate(&g->exec, g->graph, 0), "Graph.capture_end: cudaGraphInstantiate");
  }
  void replay_graph(void* graph, Stream stream) override {
    auto* g = static_cast<CapturedGraph*>(graph);
    DeviceGuardLocal guard(g->device);
    check(cudaGraphLaunch(g->exec, static_cast<cudaStream_t>(stream.handle)), "Graph.replay: cudaGraphLaunch");
  }
  void destroy_graph(void* graph) noexcept override {
    std::unique_ptr<CapturedGraph> g(static_cast<CapturedGraph*>(graph));
    if (g->exec != nullptr) (void)cudaGraphExecDestroy(g->exec);
    if (g->graph != nullptr) (void)cudaGraphDestroy(g->graph);
    // A replay still queued uses the pool's blocks: wait for the device
    // before they can go to another allocation.
    int previous = 0;
    (void)cudaGetDevice(&previous);
    (void)cudaSetDevice(g->device);
    (void)cudaDeviceSynchronize();
    (void)cudaSetDevice(previous);
    try {
      allocator_.end_pool(g->stream);
      allocator_.release_pool(g->pool);
    } catch (...) {  // NOLINT(bugprone-empty-catch): the pool's memory stays cached; nothing else is lost
    }
  }

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
