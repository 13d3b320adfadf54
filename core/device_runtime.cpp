// core/device_runtime.cpp - the device runtime table and the wick::cuda functions over it.
/// \file
#include "wick/device_runtime.h"

#include <array>
#include <atomic>
#include <functional>
#include <optional>
#include <utility>

#include "core/device_runtime.h"
#include "wick/cuda.h"
#include "wick/error.h"
#include "wick/tensor.h"

namespace wick {
namespace {

std::array<std::atomic<DeviceRuntime*>, kMaxDeviceTypes> g_runtimes{};

DeviceRuntime& cuda_runtime() {
  DeviceRuntime* rt = device_runtime(DeviceType::kCUDA);
  WICK_CHECK(rt != nullptr, RuntimeError, "CUDA is not available: no CUDA backend is loaded");
  WICK_CHECK(rt->device_count() > 0, RuntimeError, "CUDA is not available: the CUDA backend found no device");
  return *rt;
}

}  // namespace

DeviceRuntime::~DeviceRuntime() = default;

namespace {
[[noreturn]] void no_support(const char* what) {
  throw NotImplementedError(detail::str_cat("this device runtime has no ", what));
}
}  // namespace

void DeviceRuntime::record_stream(void* /*data*/, Stream /*stream*/) { no_support("record_stream"); }
void* DeviceRuntime::create_event(int /*index*/, bool /*timing*/) { no_support("events"); }
void DeviceRuntime::destroy_event(void* /*event*/) noexcept {}
void DeviceRuntime::record_event(void* /*event*/, Stream /*stream*/) { no_support("events"); }
void DeviceRuntime::stream_wait_event(Stream /*stream*/, void* /*event*/) { no_support("events"); }
bool DeviceRuntime::query_event(void* /*event*/) { no_support("events"); }
void DeviceRuntime::synchronize_event(void* /*event*/) { no_support("events"); }
float DeviceRuntime::event_elapsed_ms(void* /*start*/, void* /*end*/) { no_support("events"); }
void* DeviceRuntime::begin_capture(Stream /*stream*/) { no_support("graphs"); }
void DeviceRuntime::end_capture(void* /*graph*/) { no_support("graphs"); }
void DeviceRuntime::replay_graph(void* /*graph*/, Stream /*stream*/) { no_support("graphs"); }
void DeviceRuntime::destroy_graph(void* /*graph*/) noexcept {}

DeviceRuntime* device_runtime(DeviceType type) noexcept {
  const int i = static_cast<int>(type);
  return i >= 0 && i < kMaxDeviceTypes ? g_runtimes[i].load(std::memory_order_acquire) : nullptr;
}

Device resolve_device(Device device) {
  if (device.is_cpu() || device.is_meta() || device.index() >= 0) return device;
  DeviceRuntime* rt = device_runtime(device.type());
  return {device.type(), static_cast<std::int16_t>(rt != nullptr ? rt->current_device() : 0)};
}

void detail::set_device_runtime(DeviceType type, DeviceRuntime* runtime) {
  const int i = static_cast<int>(type);
  WICK_CHECK(i > 0 && i < kMaxDeviceTypes, ValueError, "register_device_runtime: bad device type ", i);
  if (runtime == nullptr) {
    set_allocator(type, nullptr);
    g_runtimes[i].store(nullptr, std::memory_order_release);
    return;
  }
  DeviceRuntime* expected = nullptr;
  WICK_CHECK(g_runtimes[i].compare_exchange_strong(expected, runtime, std::memory_order_acq_rel), PluginError,
             "a device runtime for '", device_type_name(type), "' is already registered");
  set_allocator(type, &runtime->allocator());
}

void Tensor::record_stream(Stream stream) const {
  const Device d = device();
  WICK_CHECK(!d.is_cpu() && !d.is_meta(), RuntimeError, "torch.Tensor.record_stream: expected a device tensor, got a ",
             d.str(), " tensor");
  WICK_CHECK(stream.device.type() == d.type() && stream.device.index() == d.index(), RuntimeError,
             "torch.Tensor.record_stream: the tensor is on ", d.str(), " and the stream on ", stream.device.str());
  DeviceRuntime* rt = device_runtime(d.type());
  WICK_CHECK(rt != nullptr, RuntimeError, "torch.Tensor.record_stream: no device runtime for ", d.str());
  if (storage()->data() != nullptr) rt->record_stream(storage()->data(), stream);  // empty: nothing to keep
}

namespace cuda {

bool is_available() noexcept { return device_count() > 0; }

int device_count() noexcept {
  DeviceRuntime* rt = device_runtime(DeviceType::kCUDA);
  return rt != nullptr ? rt->device_count() : 0;
}

int current_device() { return cuda_runtime().current_device(); }
void set_device(int index) { cuda_runtime().set_current_device(index); }
void synchronize(int device) { cuda_runtime().synchronize(device); }
Stream current_stream(int device) { return cuda_runtime().current_stream(device); }
Stream new_stream(int device) { return cuda_runtime().stream_from_pool(device); }
void set_stream(Stream stream) {
  WICK_CHECK(stream.device.type() == DeviceType::kCUDA, ValueError, "set_stream: a stream of ",
             stream.device.str(), " is not a CUDA stream");
  cuda_runtime().set_current_stream(stream);
}

StreamGuard::StreamGuard(Stream stream)
    : previous_(current_stream(stream.device.index())), previous_device_(current_device()) {
  set_device(stream.device.index());
  set_stream(stream);
}

StreamGuard::~StreamGuard() {
  // Restoring what was current before cannot fail: both were valid then.
  DeviceRuntime& rt = *device_runtime(DeviceType::kCUDA);
  rt.set_current_stream(previous_);
  rt.set_current_device(previous_device_);
}

// --- events ----------------------------------------------------------------------------------

Event::~Event() {
  if (handle_ != nullptr) {
    if (DeviceRuntime* rt = device_runtime(DeviceType::kCUDA)) rt->destroy_event(handle_);
  }
}

Event::Event(Event&& other) noexcept
    : timing_(other.timing_), device_(std::exchange(other.device_, -1)), handle_(std::exchange(other.handle_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Event gone(std::move(*this));
    timing_ = other.timing_;
    device_ = std::exchange(other.device_, -1);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

void Event::record(std::optional<Stream> stream) {
  DeviceRuntime& rt = cuda_runtime();
  const Stream s = stream ? *stream : rt.current_stream(-1);
  WICK_CHECK(s.device.type() == DeviceType::kCUDA, ValueError, "Event.record: a stream of ", s.device.str(),
             " is not a CUDA stream");
  if (handle_ == nullptr) {
    handle_ = rt.create_event(s.device.index(), timing_);
    device_ = s.device.index();
  }
  WICK_CHECK(s.device.index() == device_, ValueError, "Event.record: the event is on cuda:", device_,
             " and the stream on ", s.device.str());
  rt.record_event(handle_, s);
}

void Event::wait(std::optional<Stream> stream) {
  if (handle_ == nullptr) return;  // nothing recorded: nothing to wait for
  DeviceRuntime& rt = cuda_runtime();
  rt.stream_wait_event(stream ? *stream : rt.current_stream(-1), handle_);
}

bool Event::query() const { return handle_ == nullptr || cuda_runtime().query_event(handle_); }

void Event::synchronize() const {
  if (handle_ != nullptr) cuda_runtime().synchronize_event(handle_);
}

float Event::elapsed_time(const Event& end) const {
  WICK_CHECK(timing_ && end.timing_, RuntimeError,
             "Event.elapsed_time: both events must be created with enable_timing=true");
  WICK_CHECK(handle_ != nullptr && end.handle_ != nullptr, RuntimeError,
             "Event.elapsed_time: both events must be recorded before calculating elapsed time");
  return cuda_runtime().event_elapsed_ms(handle_, end.handle_);
}

// --- graphs ----------------------------------------------------------------------------------

Graph::~Graph() { reset(); }

void Graph::capture_begin() {
  WICK_CHECK(!capturing_, RuntimeError, "Graph.capture_begin: this graph is already capturing");
  WICK_CHECK(handle_ == nullptr, RuntimeError,
             "Graph.capture_begin: this graph holds a capture already; reset() it before capturing again");
  DeviceRuntime& rt = cuda_runtime();
  const Stream s = rt.current_stream(-1);
  WICK_CHECK(s.handle != nullptr, RuntimeError,
             "Graph.capture_begin: CUDA graphs must be captured on a non-default stream (a StreamGuard over "
             "cuda::new_stream(), or cuda::capture); after capture they may be replayed on any stream");
  handle_ = rt.begin_capture(s);
  device_ = s.device.index();
  stream_ = s;
  capturing_ = true;
}

void Graph::capture_end() {
  WICK_CHECK(capturing_, RuntimeError, "Graph.capture_end: capture_begin() was not called");
  capturing_ = false;
  try {
    cuda_runtime().end_capture(handle_);
  } catch (...) {
    reset();
    throw;
  }
}

void Graph::replay() {
  WICK_CHECK(captured(), RuntimeError, "Graph.replay: nothing has been captured");
  DeviceRuntime& rt = cuda_runtime();
  rt.replay_graph(handle_, rt.current_stream(device_));
}

void Graph::reset() noexcept {
  if (handle_ == nullptr) return;
  if (capturing_) {
    capturing_ = false;
    try {
      cuda_runtime().end_capture(handle_);
    } catch (const Error&) {  // NOLINT(bugprone-empty-catch): the capture is being discarded
    }
  }
  if (DeviceRuntime* rt = device_runtime(DeviceType::kCUDA)) rt->destroy_graph(handle_);
  handle_ = nullptr;
}

void capture(Graph& graph, const std::function<void()>& work) {
  DeviceRuntime& rt = cuda_runtime();
  const Stream outer = rt.current_stream(-1);
  const Stream side = rt.stream_from_pool(outer.device.index());
  // The side stream starts after the work already queued on the outer one.
  Event ready;
  ready.record(outer);
  ready.wait(side);
  const StreamGuard guard(side);
  graph.capture_begin();
  try {
    work();
  } catch (...) {
    graph.reset();
    throw;
  }
  graph.capture_end();
}

void empty_cache() { cuda_runtime().empty_cache(); }
DeviceMemoryStats memory_stats(int device) { return cuda_runtime().memory_stats(device); }
void reset_peak_memory_stats(int device) { cuda_runtime().reset_peak_memory_stats(device); }

}  // namespace cuda
}  // namespace wick
