// tests/core/device_runtime_test.cpp - device runtimes, wick::cuda, and to(device) over a fake CUDA device.
/// \file
/// A fake runtime stands in for the CUDA backend: its "device memory" is host
/// memory, and a CUDA copy_ kernel that copies through CPU views of it is
/// registered beside it. That exercises everything between the user and a
/// backend's transfers (registration and rollback, index resolution,
/// to/cuda/cpu, autograd across devices, item and printing of device
/// tensors, streams, pinned memory) on machines without a GPU. Skipped where
/// the real CUDA backend found a device: the type's runtime slot is taken.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "wick/autograd.h"
#include "wick/backends.h"
#include "wick/cuda.h"
#include "wick/device_runtime.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/plugin.h"
#include "wick/tensor.h"

namespace wick {
namespace {

const Device kCuda0(DeviceType::kCUDA, 0);
const Device kCuda1(DeviceType::kCUDA, 1);

class CountingAllocator final : public Allocator {
 public:
  void* allocate(std::size_t nbytes) override {
    ++calls;
    void* p = std::malloc(nbytes == 0 ? 1 : nbytes);
    const std::lock_guard<std::mutex> lock(mutex);
    live.insert(p);
    return p;
  }
  void deallocate(void* ptr, std::size_t) noexcept override {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      live.erase(ptr);
    }
    std::free(ptr);
  }
  bool owns(const void* ptr) {
    const std::lock_guard<std::mutex> lock(mutex);
    return live.count(const_cast<void*>(ptr)) != 0;
  }
  void* allocate_on(std::size_t nbytes, Device device) override {
    last_device = device;
    return allocate(nbytes);
  }
  std::atomic<int> calls{0};
  Device last_device;
  std::mutex mutex;
  std::set<void*> live;  // blocks handed out and not yet returned
};

thread_local int t_device = 0;
thread_local void* t_stream = nullptr;

class FakeRuntime final : public DeviceRuntime {
 public:
  Allocator& allocator() noexcept override { return alloc; }
  int device_count() const noexcept override { return 2; }
  int current_device() const override { return t_device; }
  void set_current_device(int index) override {
    WICK_CHECK(index >= 0 && index < 2, RuntimeError, "invalid device ordinal ", index);
    t_device = index;
  }
  Stream current_stream(int index) override {
    return {Device(DeviceType::kCUDA, static_cast<std::int16_t>(index < 0 ? t_device : index)), t_stream};
  }
  void set_current_stream(Stream s) override { t_stream = s.handle; }
  Stream stream_from_pool(int index) override {
    return {Device(DeviceType::kCUDA, static_cast<std::int16_t>(index < 0 ? t_device : index)), &pool_stream_};
  }
  void synchronize_stream(Stream) override { ++syncs; }
  void synchronize(int) override { ++syncs; }
  void empty_cache() override { ++cache_empties; }
  DeviceMemoryStats memory_stats(int) override {
    DeviceMemoryStats s;
    s.allocations = static_cast<std::uint64_t>(alloc.calls.load());
    return s;
  }
  void reset_peak_memory_stats(int) override {}
  Allocator* pinned_host_allocator() noexcept override { return &pinned; }
  bool is_pinned(const void* ptr) noexcept override { return pinned.owns(ptr); }

  CountingAllocator alloc;
  CountingAllocator pinned;
  int syncs = 0;
  int cache_empties = 0;

 private:
  int pool_stream_ = 0;
};

// The fake device's memory is host memory: copy through CPU views of it.
Tensor host_view(const Tensor& t) {
  if (t.device().is_cpu()) return t;
  Storage s = Storage::make(t.storage()->data(), t.storage()->nbytes(), Device(), nullptr, nullptr);
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(s), t.dtype(), t.sizes(), t.strides(), t.storage_offset()));
}

Tensor fake_copy(const Tensor& self, const Tensor& src, bool non_blocking) {
  Tensor dst = host_view(self);
  dst.copy_(host_view(src), non_blocking);
  self.bump_version();
  return self;
}

Tensor vec(std::vector<double> v) { return tensor(Value(std::move(v))); }

// Elements as doubles, read on the host.
std::vector<double> values(const Tensor& t) {
  const Tensor h = t.cpu().to(ScalarType::kFloat64).contiguous();
  const double* p = h.data_ptr<double>();
  return {p, p + h.numel()};
}

bool same_values(const Tensor& a, const Tensor& b) { return a.sizes().equals(b.sizes()) && values(a) == values(b); }

class FakeCuda : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    if (device_runtime(DeviceType::kCUDA) != nullptr) GTEST_SKIP() << "a real CUDA runtime is registered";
    registrar_.register_device_runtime(DeviceType::kCUDA, runtime_);
    registrar_.library("torch.Tensor", DispatchKey::kCUDA).impl("copy_", &fake_copy);
  }
  void TearDown() override {
    registrar_.clear();
    t_device = 0;
    t_stream = nullptr;
  }
  FakeRuntime runtime_;
  Registrar registrar_{"fake_cuda"};
};

TEST_F(FakeCuda, RegistrationInstallsTheRuntimeAndItsAllocator) {
  EXPECT_EQ(device_runtime(DeviceType::kCUDA), &runtime_);
  EXPECT_TRUE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 2);
  const Tensor t = make_empty({3}, ScalarType::kFloat32, Device(DeviceType::kCUDA));
  EXPECT_EQ(t.device(), kCuda0) << "a device without an index is the current one";
  EXPECT_EQ(runtime_.alloc.last_device, kCuda0);
  cuda::set_device(1);
  EXPECT_EQ(make_empty({3}, ScalarType::kFloat32, Device(DeviceType::kCUDA)).device(), kCuda1);
  EXPECT_EQ(resolve_device(Device(DeviceType::kCUDA)), kCuda1);
  EXPECT_THROW(cuda::set_device(2), RuntimeError);
  FakeRuntime other;
  Registrar second("second_fake");
  EXPECT_THROW(second.register_device_runtime(DeviceType::kCUDA, other), PluginError);
  EXPECT_EQ(device_runtime(DeviceType::kCUDA), &runtime_) << "a refused registration changes nothing";
}

TEST_F(FakeCuda, ClearingTheRegistrarRemovesRuntimeAndAllocator) {
  registrar_.clear();
  EXPECT_EQ(device_runtime(DeviceType::kCUDA), nullptr);
  EXPECT_FALSE(cuda::is_available());
  EXPECT_EQ(cuda::device_count(), 0);
  EXPECT_THROW((void)make_empty({3}, ScalarType::kFloat32, kCuda0), RuntimeError);
  try {
    (void)cuda::memory_stats();
    ADD_FAILURE() << "memory_stats without a CUDA backend";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA is not available"), std::string::npos) << e.what();
  }
}

TEST_F(FakeCuda, ToCudaAndBackKeepsValuesShapeAndDtype) {
  const Tensor x = arange(Scalar(6.0)).reshape({2, 3});
  const Tensor y = x.to(kCuda0);
  EXPECT_EQ(y.device(), kCuda0);
  EXPECT_EQ(y.sizes().vec(), x.sizes().vec());
  EXPECT_TRUE(same_values(y.cpu(), x));
  EXPECT_EQ(x.cuda().device(), kCuda0);
  EXPECT_EQ(x.cuda(kCuda1).device(), kCuda1);
  EXPECT_THROW((void)x.cuda(Device()), RuntimeError);
  const Tensor d = x.t().to(kCuda0, ScalarType::kFloat64);
  EXPECT_EQ(d.dtype(), ScalarType::kFloat64);
  EXPECT_TRUE(same_values(d.cpu(), x.t().to(ScalarType::kFloat64)));
  // Already there: the same tensor, unless a copy is asked for.
  EXPECT_EQ(y.to(kCuda0).impl(), y.impl());
  EXPECT_NE(y.to(kCuda0, std::nullopt, false, true).impl(), y.impl());
  EXPECT_EQ(x.to(Device()).impl(), x.impl());
}

TEST_F(FakeCuda, DeviceValuesAreReadThroughAHostCopy) {
  const Tensor y = vec({1.5, -2.0}).to(kCuda0);
  EXPECT_EQ(y.select(0, 1).item<double>(), -2.0);
  EXPECT_EQ(y.repr(), "tensor([ 1.5000, -2.0000], device='cuda:0')");
  EXPECT_EQ(make_empty({0}, ScalarType::kFloat32, kCuda1).repr(), "tensor([], device='cuda:1')");
}

TEST_F(FakeCuda, GradientsFlowBackAcrossDevices) {
  Tensor x = vec({1.0, 2.0, 3.0});
  x.requires_grad_();
  const Tensor y = x.to(kCuda0);
  EXPECT_EQ(y.grad_fn()->name(), "ToCopyBackward0");
  const Tensor z = mul(y.cpu(), vec({2.0}));
  z.sum().backward();
  ASSERT_TRUE(x.grad().defined());
  EXPECT_TRUE(x.grad().device().is_cpu());
  EXPECT_TRUE(same_values(x.grad(), vec({2.0, 2.0, 2.0})));
  // copy_ from another device sends the source's gradient back to it.
  Tensor w = vec({1.0, 1.0});
  w.requires_grad_();
  Tensor dst = vec({0.0, 0.0}).to(kCuda0);
  dst.copy_(w);
  dst.cpu().sum().backward();
  ASSERT_TRUE(w.grad().defined());
  EXPECT_TRUE(w.grad().device().is_cpu());
  EXPECT_TRUE(same_values(w.grad(), vec({1.0, 1.0})));
}

TEST_F(FakeCuda, StreamsAreCurrentPerThreadAndGuarded) {
  EXPECT_EQ(cuda::current_stream().handle, nullptr);
  const Stream s = cuda::new_stream(1);
  EXPECT_EQ(s.device, kCuda1);
  {
    const cuda::StreamGuard guard(s);
    EXPECT_EQ(cuda::current_stream(1), s);
    EXPECT_EQ(cuda::current_device(), 1);
  }
  EXPECT_EQ(cuda::current_stream(1).handle, nullptr);
  EXPECT_EQ(cuda::current_device(), 0);
  cuda::synchronize();
  EXPECT_EQ(runtime_.syncs, 1);
  cuda::empty_cache();
  EXPECT_EQ(runtime_.cache_empties, 1);
  EXPECT_THROW(cuda::set_stream(Stream{Device(), nullptr}), ValueError);
}

TEST_F(FakeCuda, PinnedCopiesComeFromThePinnedAllocator) {
  const Tensor x = arange(Scalar(4.0));
  const Tensor p = cuda::pin_memory(x);
  EXPECT_TRUE(p.device().is_cpu());
  EXPECT_EQ(runtime_.pinned.calls.load(), 1);
  EXPECT_TRUE(same_values(p, x));
  EXPECT_TRUE(same_values(p.to(kCuda0, std::nullopt, /*non_blocking=*/true).cpu(), x));
  EXPECT_THROW((void)cuda::pin_memory(x.to(kCuda0)), RuntimeError);
}

// torch.Tensor.is_pinned asks the runtime about the tensor's memory; pin_memory
// copies into pinned memory once, and returns a pinned tensor as it is.
TEST_F(FakeCuda, IsPinnedAndPinMemoryAsOperators) {
  const Tensor x = arange(Scalar(6.0)).reshape({2, 3});
  EXPECT_FALSE(call("torch.Tensor.is_pinned", {x}).to_bool());
  const Tensor p = call("torch.Tensor.pin_memory", {x}).to_tensor();
  EXPECT_EQ(runtime_.pinned.calls.load(), 1);
  EXPECT_TRUE(same_values(p, x));
  EXPECT_TRUE(call("torch.Tensor.is_pinned", {p}).to_bool());
  EXPECT_TRUE(call("torch.Tensor.is_pinned", {p.select(0, 1)}).to_bool());  // a view of pinned memory
  EXPECT_FALSE(call("torch.Tensor.is_pinned", {x}).to_bool());
  const Tensor again = call("torch.Tensor.pin_memory", {p}).to_tensor();
  EXPECT_EQ(again.impl(), p.impl());
  EXPECT_EQ(runtime_.pinned.calls.load(), 1);
  EXPECT_FALSE(call("torch.Tensor.is_pinned", {x.to(kCuda0)}).to_bool());
  try {
    (void)call("torch.Tensor.pin_memory", {x.to(kCuda0)});
    FAIL() << "pinned a CUDA tensor";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("only dense CPU tensors can be pinned"), std::string::npos) << e.what();
  }
}

TEST(DeviceRuntime, NoneForTheCpu) {
  EXPECT_EQ(device_runtime(DeviceType::kCPU), nullptr);
  EXPECT_EQ(resolve_device(Device()), Device());
}

}  // namespace
}  // namespace wick

namespace wick {
namespace {

// Note [TF32] (wick/backends.h): PyTorch's defaults and switches.
TEST(Tf32Switches, DefaultsAndPrecisionStringsAreTorchs) {
  EXPECT_FALSE(backends::cuda_matmul_allow_tf32());
  EXPECT_TRUE(backends::cudnn_allow_tf32());
  EXPECT_EQ(get_float32_matmul_precision(), "highest");
  set_float32_matmul_precision("high");
  EXPECT_TRUE(backends::cuda_matmul_allow_tf32());
  EXPECT_EQ(get_float32_matmul_precision(), "high");
  set_float32_matmul_precision("medium");
  EXPECT_TRUE(backends::cuda_matmul_allow_tf32());
  EXPECT_EQ(get_float32_matmul_precision(), "medium");
  backends::set_cuda_matmul_allow_tf32(false);
  EXPECT_EQ(get_float32_matmul_precision(), "highest");
  try {
    set_float32_matmul_precision("low");
    ADD_FAILURE() << "an unknown precision";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("invalid precision 'low'"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(backends::cuda_matmul_allow_tf32()) << "a refused precision changes nothing";
  backends::set_cudnn_allow_tf32(false);
  EXPECT_FALSE(backends::cudnn_allow_tf32());
  backends::set_cudnn_allow_tf32(true);
  EXPECT_FALSE(backends::cudnn_benchmark()) << "torch.backends.cudnn.benchmark is off by default";
  backends::set_cudnn_benchmark(true);
  EXPECT_TRUE(backends::cudnn_benchmark());
  backends::set_cudnn_benchmark(false);
}

}  // namespace
}  // namespace wick
