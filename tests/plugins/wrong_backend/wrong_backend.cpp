// tests/plugins/wrong_backend/wrong_backend.cpp - a backend with one deliberately wrong kernel, for wick test-backend.
/// \file
/// The plugin registers a device type `testdev` whose memory is host memory,
/// and impls of copy_, add, neg and mul for it, computed by the CPU backend
/// through CPU views of that memory. mul is wrong on purpose: it adds.
/// `wick test-backend` must report torch.mul (and torch.mul.out) and pass the
/// others (tests/cli/check_commands_test.cpp).
#include <cstdlib>

#include <wick/device_runtime.h>
#include <wick/meta.h>
#include <wick/ops.h>
#include <wick/plugin.h>

namespace {

using wick::Tensor;

class HostAllocator final : public wick::Allocator {
 public:
  void* allocate(std::size_t nbytes) override { return nbytes == 0 ? nullptr : std::malloc(nbytes); }
  void deallocate(void* p, std::size_t /*nbytes*/) noexcept override { std::free(p); }
};

// One device, one stream, host memory.
class TestRuntime final : public wick::DeviceRuntime {
 public:
  explicit TestRuntime(wick::DeviceType type) : type_(type) {}
  wick::Allocator& allocator() noexcept override { return alloc_; }
  [[nodiscard]] int device_count() const noexcept override { return 1; }
  [[nodiscard]] int current_device() const override { return 0; }
  void set_current_device(int /*index*/) override {}
  wick::Stream current_stream(int /*index*/) override { return {wick::Device(type_, 0), nullptr}; }
  void set_current_stream(wick::Stream /*stream*/) override {}
  wick::Stream stream_from_pool(int index) override { return current_stream(index); }
  void synchronize_stream(wick::Stream /*stream*/) override {}
  void synchronize(int /*index*/) override {}
  void empty_cache() override {}
  wick::DeviceMemoryStats memory_stats(int /*index*/) override { return {}; }
  void reset_peak_memory_stats(int /*index*/) override {}

 private:
  wick::DeviceType type_;
  HostAllocator alloc_;
};

TestRuntime* g_runtime = nullptr;

// The device's memory seen as a CPU tensor (the same bytes).
Tensor host_view(const Tensor& t) {
  if (!t.defined() || t.device().is_cpu()) return t;
  wick::Storage s = wick::Storage::make(t.storage()->data(), t.storage()->nbytes(), wick::Device(), nullptr, nullptr);
  return Tensor(
      wick::IntrusivePtr<wick::TensorImpl>::make(std::move(s), t.dtype(), t.sizes(), t.strides(), t.storage_offset()));
}

void copy_impl(const wick::InplaceMeta&, const Tensor& self, const Tensor& src, bool non_blocking) {
  Tensor dst = host_view(self);
  dst.copy_(host_view(src), non_blocking);
}

void add_impl(const wick::ElementwiseMeta&, const Tensor& out, const Tensor& a, const Tensor& b,
              const wick::Scalar& alpha) {
  Tensor o = host_view(out);
  wick::add_out(o, host_view(a), host_view(b), alpha);
}

void neg_impl(const wick::ElementwiseMeta&, const Tensor& out, const Tensor& a) {
  Tensor o = host_view(out);
  o.copy_(wick::neg(host_view(a)));
}

// Deliberately wrong: a + b instead of a * b.
void mul_impl(const wick::ElementwiseMeta&, const Tensor& out, const Tensor& a, const Tensor& b) {
  Tensor o = host_view(out);
  wick::add_out(o, host_view(a), host_view(b));
}

}  // namespace

WICK_PLUGIN("test_wrong_backend", "0.0.1", registrar) {
  const wick::DispatchKey key = registrar.register_backend("testdev");
  static TestRuntime runtime(wick::device_type_of(key));
  g_runtime = &runtime;
  registrar.register_device_runtime(wick::device_type_of(key), runtime);
  registrar.library("torch.Tensor", key).impl_structured("copy_", &copy_impl);
  registrar.library("torch", key)
      .impl_structured("add", &add_impl)
      .impl_structured("neg", &neg_impl)
      .impl_structured("mul", &mul_impl);
}
