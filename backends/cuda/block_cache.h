// backends/cuda/block_cache.h - the caching device allocator's bookkeeping, without CUDA.
/// \file
/// Note [Caching device allocator]
/// cudaMalloc and cudaFree are slow (a cudaFree waits for the whole device),
/// so freed blocks are kept and handed out again. A block belongs to the
/// device, the stream it was allocated on and a pool: work on one stream
/// runs in order, so a block freed after the last kernel that used it was
/// queued can be given to the next allocation on that stream without
/// waiting. Sizes are rounded to a class (512 bytes below 4 KiB, else an
/// eighth of the size's power of two: at most 12.5% slack), and a cached
/// block is reused only for its own class. When the driver is out of
/// memory, the cached blocks are freed and the allocation retried once.
///
/// Note [Blocks used on other streams]
/// A tensor used on a stream other than its allocation stream is marked
/// with `record_stream(stream)`, as in PyTorch. When such a block is freed,
/// an event is recorded on each of those streams, and the block is reused
/// only after all of its events have completed: work queued on the other
/// streams before the free can never see its memory overwritten, and no
/// one waits for it. Pending blocks are collected on every allocation;
/// `empty_cache()` waits for them before it gives memory back.
///
/// Note [Private pools of CUDA graphs]
/// A graph replays the kernels it captured with the addresses they had. So
/// while a stream is captured, its allocations come from a pool of the
/// graph's own: blocks freed during the capture are reused only by the same
/// capture, and none of its blocks goes back to the shared cache while the
/// graph lives, so no later allocation can take memory a replay writes.
/// Releasing the graph's pool frees its cached blocks; its blocks still in
/// use (the graph's outputs) join the shared cache when their tensors go.
///
/// This class does the bookkeeping only; a `BlockDriver` does the device
/// calls, so that tests run it over a fake driver on any host
/// (tests/cuda/block_cache_test.cpp). Not thread-safe: the allocator holds
/// its lock around every call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <wick/device_runtime.h>

namespace wick::cuda_backend {

/// The device calls of the block cache. Streams and events are opaque
/// handles (cudaStream_t, cudaEvent_t).
class BlockDriver {
 public:
  virtual ~BlockDriver() = default;
  /// `bytes` of device memory, or nullptr when the device has none left.
  virtual void* malloc(int device, std::size_t bytes) = 0;
  virtual void free(int device, void* block) noexcept = 0;
  /// An event recorded on `stream` now (marks the work queued so far).
  virtual void* record(int device, void* stream) = 0;
  /// Whether the work before `event` has finished.
  virtual bool done(void* event) = 0;
  /// Waits on the host for the work before `event`.
  virtual void wait(void* event) = 0;
  virtual void release(void* event) noexcept = 0;
};

/// Pool 0 is the shared cache; graphs get the others.
using PoolId = std::uint64_t;

/// A block's size class (Note [Caching device allocator]).
std::size_t block_size_class(std::size_t nbytes);

class BlockCache {
 public:
  BlockCache(BlockDriver& driver, int devices);
  ~BlockCache();
  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  /// A block of at least `nbytes` on `device` for work on `stream`, from the
  /// pool the stream is captured into (else the shared one); cached when
  /// one fits, else from the driver. nullptr when the device is out of
  /// memory even after the cache was emptied (the caller reports it).
  void* allocate(int device, std::size_t nbytes, void* stream);
  /// The block goes back to its pool, at once or once the streams it was
  /// recorded on have finished the work queued before this call.
  void free(void* block);
  /// Marks `block` as used on `stream` (Note [Blocks used on other streams]).
  /// False when `block` is not a live block of this cache.
  bool record_stream(void* block, void* stream);

  /// Waits for pending blocks, then gives every cached block of the shared
  /// pool back to the driver (graphs' pools stay while their graphs live).
  void empty_cache();

  /// A new private pool; allocations on `stream` use it until `end_pool`.
  PoolId begin_pool(void* stream);
  void end_pool(void* stream);
  /// The graph that owned `pool` is gone (Note [Private pools of CUDA graphs]).
  void release_pool(PoolId pool);
  /// Whether allocations on `stream` go to a private pool now.
  [[nodiscard]] bool in_private_pool(void* stream) const { return capturing_.contains(stream); }

  [[nodiscard]] DeviceMemoryStats stats(int device) const;
  void reset_peak(int device);
  /// Blocks freed but waiting for other streams (for tests).
  [[nodiscard]] std::size_t pending_blocks() const { return pending_.size(); }

 private:
  struct Live {
    int device;
    PoolId pool;
    void* stream;
    std::size_t size;
    std::vector<void*> used_on;  // other streams (record_stream)
  };
  struct Pending {
    void* block;
    Live live;
    std::vector<void*> events;
  };
  using Key = std::tuple<PoolId, void*, std::size_t>;  // pool, stream, size class
  struct Device {
    std::map<Key, std::vector<void*>> cached;
    DeviceMemoryStats stats;
  };

  void cache(void* block, const Live& l);
  void collect_pending(bool wait);
  void free_cached(int device, PoolId pool);  // the pool's cached blocks on `device`

  BlockDriver& driver_;
  std::vector<Device> devices_;
  std::unordered_map<void*, Live> live_;
  std::vector<Pending> pending_;
  std::unordered_map<void*, PoolId> capturing_;  // stream -> its pool while captured
  std::unordered_set<PoolId> pools_;             // private pools still owned by a graph
  PoolId next_pool_ = 1;
};

}  // namespace wick::cuda_backend
