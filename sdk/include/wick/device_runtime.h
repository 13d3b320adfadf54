// wick/device_runtime.h - what a backend implements for devices that own their memory.
/// \file
/// A backend plugin whose tensors live outside host memory (CUDA, or a
/// device type a plugin registers) hands the host one `DeviceRuntime` for
/// its device type, through `Registrar::register_device_runtime`. The host
/// reaches the devices only through it: how many there are, which one is
/// current, streams, synchronisation, the allocator and its cache. Users see
/// it through friendlier free functions (wick/cuda.h for CUDA).
///
///   class MyRuntime final : public wick::DeviceRuntime { ... };
///   WICK_PLUGIN("mydev", "1.0", registrar) {
///     static MyRuntime runtime;
///     registrar.register_device_runtime(registrar.register_backend("mydev"), runtime);
///     ...
///   }
///
/// Note [Device runtime lifetime]
/// Registration installs the runtime's allocator for the device type;
/// unloading the plugin (or rolling back its `init`) removes both. Storages
/// allocated on the device must be gone by then: the allocator has to
/// outlive every storage it made (wick/storage.h).
#pragma once

#include <cstddef>
#include <cstdint>

#include "wick/device.h"
#include "wick/export.h"
#include "wick/storage.h"

namespace wick {

/// Memory a device's caching allocator accounts for (bytes and counts).
struct DeviceMemoryStats {
  std::size_t allocated_bytes = 0;       ///< in live storages
  std::size_t reserved_bytes = 0;        ///< held from the driver: allocated + cached
  std::size_t peak_allocated_bytes = 0;  ///< since start or the last reset
  std::size_t peak_reserved_bytes = 0;   ///< highest reserved_bytes since start or the last reset
  std::uint64_t allocations = 0;         ///< allocate calls
  std::uint64_t cache_hits = 0;          ///< of those, served from the cache
  std::uint64_t device_allocations = 0;  ///< calls to the driver's allocator
  std::uint64_t device_frees = 0;        ///< blocks given back to the driver
};

/// A queue of work on one device: work on one stream runs in order. `handle`
/// is the backend's native stream (a `cudaStream_t` for CUDA); nullptr is
/// the device's default stream.
struct Stream final {
  Device device;           ///< the device the stream belongs to
  void* handle = nullptr;  ///< the backend's native stream; nullptr for the default stream
  /// Equal when device and handle are.
  constexpr bool operator==(const Stream&) const noexcept = default;
};

/// What a device backend (CUDA, a plugin's device) provides beyond kernels: devices, streams, events, its caching
/// allocator and memory statistics. Installed with Registrar::register_device_runtime.
class WICK_API DeviceRuntime {
 public:
  virtual ~DeviceRuntime();

  /// The allocator of this device type's storages (installed on registration).
  [[nodiscard]] virtual Allocator& allocator() noexcept = 0;
  /// Devices present (0 is allowed: the backend loaded, nothing to run on).
  [[nodiscard]] virtual int device_count() const noexcept = 0;
  /// The calling thread's current device index (0 until set).
  [[nodiscard]] virtual int current_device() const = 0;
  /// Makes `index` current for the calling thread; RuntimeError for an index
  /// that is not a device ("invalid device ordinal").
  virtual void set_current_device(int index) = 0;

  /// The calling thread's current stream on device `index` (-1: the current
  /// device): the default stream unless set.
  [[nodiscard]] virtual Stream current_stream(int index) = 0;
  /// Makes `stream` current on its device for the calling thread.
  virtual void set_current_stream(Stream stream) = 0;
  /// A stream of device `index` from the backend's pool (streams live as
  /// long as the runtime; the pool is shared round-robin).
  [[nodiscard]] virtual Stream stream_from_pool(int index) = 0;
  /// Waits until all work queued on `stream` has finished.
  virtual void synchronize_stream(Stream stream) = 0;
  /// Waits until all work on device `index` (-1: the current one) has finished.
  virtual void synchronize(int index) = 0;

  /// Gives cached, unused device memory back to the driver.
  virtual void empty_cache() = 0;
  /// Device `index`'s allocator statistics (-1: the current device).
  [[nodiscard]] virtual DeviceMemoryStats memory_stats(int index) = 0;
  /// Restarts the peak figures of device `index` at the current ones.
  virtual void reset_peak_memory_stats(int index) = 0;
  /// Page-locked host memory the device copies to and from asynchronously
  /// (optional; default none).
  [[nodiscard]] virtual Allocator* pinned_host_allocator() noexcept { return nullptr; }
  /// True when host address `ptr` is page-locked memory the device can
  /// reach (torch.Tensor.is_pinned: CUDA's answer for any pinned memory, not
  /// only pinned_host_allocator's); default false.
  [[nodiscard]] virtual bool is_pinned(const void* ptr) noexcept {
    (void)ptr;
    return false;
  }

  // --- optional: a runtime without them throws NotImplementedError ----------

  /// Marks the allocator's block at `data` (a storage's data pointer) as used
  /// by work queued on `stream`: when the storage is freed, the block is not
  /// reused before that work has finished (Tensor::record_stream).
  virtual void record_stream(void* data, Stream stream);

  /// An event of device `index` (-1: the current one); `timing` lets two
  /// recorded events measure the time between them.
  [[nodiscard]] virtual void* create_event(int index, bool timing);
  /// Destroys an event from create_event (optional; the default does nothing).
  virtual void destroy_event(void* event) noexcept;
  /// Marks the work queued on `stream` so far.
  virtual void record_event(void* event, Stream stream);
  /// Makes later work on `stream` wait (on the device) for the event's work.
  virtual void stream_wait_event(Stream stream, void* event);
  /// Whether the event's work has finished (true for an event never recorded).
  [[nodiscard]] virtual bool query_event(void* event);
  /// Waits on the host for the event's work.
  virtual void synchronize_event(void* event);
  /// Milliseconds from `start` to `end`, both recorded timing events.
  [[nodiscard]] virtual float event_elapsed_ms(void* start, void* end);

  /// Starts capturing the work queued on `stream` (not the default stream)
  /// into a graph whose allocations come from a private memory pool, and
  /// returns the graph's handle.
  [[nodiscard]] virtual void* begin_capture(Stream stream);
  /// Ends the capture of `graph` (on the thread that began it) and makes it
  /// ready to replay.
  virtual void end_capture(void* graph);
  /// Queues the captured work on `stream` again, with the same memory.
  virtual void replay_graph(void* graph, Stream stream);
  /// Frees the graph and its pool (blocks still in tensors go when they do).
  virtual void destroy_graph(void* graph) noexcept;
};

/// The runtime registered for `type`, or nullptr when none is (no backend,
/// or a backend without one, such as the CPU's).
[[nodiscard]] WICK_API DeviceRuntime* device_runtime(DeviceType type) noexcept;

/// `device` with its index filled in: a device type's "current" index (-1)
/// becomes the runtime's current device (0 without a runtime). CPU devices
/// are returned as they are.
[[nodiscard]] WICK_API Device resolve_device(Device device);

}  // namespace wick
