// wick/cuda.h - CUDA devices, streams and memory, as torch.cuda offers them.
/// \file
/// These functions talk to the CUDA backend plugin through its device
/// runtime (wick/device_runtime.h); an application links only libwick. When
/// no CUDA backend is loaded, or it found no device, `is_available()` is
/// false and everything else but `device_count()` throws RuntimeError.
///
///   if (wick::cuda::is_available()) {
///     wick::Tensor x = wick::randn({1024, 1024}).cuda();
///     wick::Tensor y = wick::mm(x, x);          // queued on the current stream
///     float v = y.sum().item<float>();          // waits for it, then reads
///     wick::DeviceMemoryStats s = wick::cuda::memory_stats();
///   }
///
/// Note [Streams and host reads]
/// Kernels are queued on the calling thread's current stream of their
/// device and return at once. Every read by the host (`item()`, printing,
/// `cpu()` / `to("cpu")`) is a device-to-host copy on that stream that waits
/// for it, so the values read are always the finished ones. Work queued on a
/// stream set with `StreamGuard` is ordered only within that stream: use
/// `synchronize()` before handing results to another stream.
#pragma once

#include <functional>
#include <optional>

#include "wick/device.h"
#include "wick/device_runtime.h"
#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::cuda {

/// True when the CUDA backend is loaded and found at least one device.
[[nodiscard]] WICK_API bool is_available() noexcept;
/// Devices the CUDA backend found (0 without a backend or a device).
[[nodiscard]] WICK_API int device_count() noexcept;
/// The calling thread's current device.
[[nodiscard]] WICK_API int current_device();
/// Makes `index` the calling thread's current device (tensors created on
/// "cuda" without an index go there). RuntimeError for a bad index.
WICK_API void set_device(int index);
/// Waits for all work on `device` (-1: the current one).
WICK_API void synchronize(int device = -1);

/// The calling thread's current stream on `device` (-1: the current one).
[[nodiscard]] WICK_API Stream current_stream(int device = -1);
/// A stream from the backend's pool for `device` (-1: the current one).
[[nodiscard]] WICK_API Stream new_stream(int device = -1);
/// Makes `stream` current on its device for the calling thread.
WICK_API void set_stream(Stream stream);

/// Makes a stream current for a scope (and its device), restoring both.
class WICK_API StreamGuard final {
 public:
  /// Makes `stream` and its device current until destruction; errors as set_device and set_stream (ValueError for a stream that is not a CUDA stream).
  explicit StreamGuard(Stream stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
  int previous_device_;
};

/// Gives the caching allocator's unused blocks back to the driver
/// (torch.cuda.empty_cache).
WICK_API void empty_cache();
/// The caching allocator's figures for `device` (-1: the current one).
[[nodiscard]] WICK_API DeviceMemoryStats memory_stats(int device = -1);
/// Restarts the peak figures of `device` (-1: the current one).
WICK_API void reset_peak_memory_stats(int device = -1);

/// A CUDA event (torch.cuda.Event): a mark in a stream's work, to wait for,
/// to make another stream wait for, or to time the work between two marks.
/// The device event is made on the first `record()`, on the stream's device.
///
///   wick::cuda::Event start(/*enable_timing=*/true), stop(true);
///   start.record();
///   y = wick::mm(a, b);
///   stop.record();
///   stop.synchronize();
///   float ms = start.elapsed_time(stop);
class WICK_API Event final {
 public:
  /// An event not yet recorded; `enable_timing` (default false) allows elapsed_time.
  explicit Event(bool enable_timing = false) noexcept : timing_(enable_timing) {}
  ~Event();
  /// Takes `other`'s event; `other` is left empty.
  Event(Event&& other) noexcept;
  /// Takes `other`'s event, destroying the current one; `other` is left empty.
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  /// Marks the work queued so far on `stream` (default: the current stream).
  void record(std::optional<Stream> stream = std::nullopt);
  /// Makes later work on `stream` (default: the current stream) wait for
  /// the recorded work, on the device: the host does not wait.
  void wait(std::optional<Stream> stream = std::nullopt);
  /// Whether the recorded work has finished (true before any record).
  [[nodiscard]] bool query() const;
  /// Waits on the host for the recorded work (returns at once before any record).
  void synchronize() const;
  /// Milliseconds from this event to `end`; RuntimeError unless both were
  /// made with timing and recorded.
  [[nodiscard]] float elapsed_time(const Event& end) const;

 private:
  bool timing_;
  int device_ = -1;
  void* handle_ = nullptr;
};

/// A CUDA graph (torch.cuda.CUDAGraph): work captured once from a stream and
/// replayed with one launch, for built-in and plugin kernels alike. Memory
/// the captured work allocates comes from the graph's private pool and stays
/// the graph's while it lives: each replay writes the same tensors, so the
/// outputs kept from the capture hold the latest replay's results.
///
///   wick::cuda::Graph g;
///   y = step(x);                              // warm up first (handles, plans)
///   wick::cuda::capture(g, [&] { y = step(x); });
///   x.copy_(next_input);                      // static input, new values
///   g.replay();                               // y now holds step(next_input)
///
/// Capturing needs a stream other than the default one (`capture` makes
/// that so), and no host read, synchronisation or error flag read-back may
/// run while capturing: those end the capture with a RuntimeError.
class WICK_API Graph final {
 public:
  Graph() noexcept = default;
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  /// Starts capturing the current stream of the current device.
  void capture_begin();
  /// Ends the capture and makes the graph ready to replay.
  void capture_end();
  /// Queues the captured work on the current stream.
  void replay();
  /// Frees the captured graph and its pool; the graph may capture again.
  void reset() noexcept;
  /// True after capture_end and until reset: replay() may run.
  [[nodiscard]] bool captured() const noexcept { return handle_ != nullptr && !capturing_; }

 private:
  void* handle_ = nullptr;
  int device_ = -1;
  Stream stream_{};
  bool capturing_ = false;
};

/// Captures `work` into `graph` on a stream from the pool, ordered after the
/// work already queued on the current stream, as `with torch.cuda.graph(g):`
/// does. The capture is ended (and discarded) if `work` throws.
WICK_API void capture(Graph& graph, const std::function<void()>& work);

/// A copy of the CPU tensor `t` in page-locked host memory, from which
/// copies to a device can run asynchronously (`to(device, non_blocking=true)`).
/// RuntimeError for a tensor not on the CPU.
[[nodiscard]] WICK_API Tensor pin_memory(const Tensor& t);

}  // namespace wick::cuda
