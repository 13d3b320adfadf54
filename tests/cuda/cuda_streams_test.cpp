// tests/cuda/cuda_streams_test.cpp - events, record_stream and CUDA graphs, on a GPU.
/// \file
/// What block_cache_test.cpp checks over a fake driver, checked here on a
/// device with real kernels: an event orders two streams and times work; a
/// tensor read on a second stream and freed at once is not overwritten
/// while that stream still reads it (record_stream); a graph replays
/// built-in and plugin kernels with its own memory. Skipped without a GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "wick/cuda.h"
#include "wick/library.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

const Device kCuda(DeviceType::kCUDA, 0);

class CudaStreams : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    if (!cuda::is_available()) GTEST_SKIP() << "no CUDA device";
  }
};

std::vector<float> host(const Tensor& t) {
  const Tensor h = t.cpu().contiguous();
  const float* p = h.data_ptr<float>();
  return {p, p + h.numel()};
}

bool all_equal(const Tensor& t, float v) {
  for (float x : host(t))
    if (x != v) return false;
  return true;
}

TEST_F(CudaStreams, EventsOrderStreamsAndTimeWork) {
  const Tensor a = randn({2048, 2048}).cuda();
  cuda::Event start(/*enable_timing=*/true);
  cuda::Event stop(true);
  EXPECT_TRUE(stop.query()) << "an event never recorded has nothing to wait for";
  start.record();
  const Tensor c = mm(a, a);
  stop.record();
  stop.synchronize();
  EXPECT_TRUE(stop.query());
  EXPECT_GT(start.elapsed_time(stop), 0.0F);
  // A second stream that waits for the event sees c finished.
  cuda::Event produced;
  const Tensor big = randn({4096, 4096}).cuda();
  Tensor late = mm(big, big);  // keeps the current stream busy
  Tensor c2 = add(c, c);
  produced.record();
  Tensor d;
  {
    const cuda::StreamGuard side(cuda::new_stream());
    produced.wait();
    d = sub(c2, c);
  }
  cuda::synchronize();
  const std::vector<float> want = host(c);
  const std::vector<float> got = host(d);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); i += 4099) EXPECT_FLOAT_EQ(got[i], want[i]) << i;
  cuda::Event untimed;
  untimed.record();
  EXPECT_THROW((void)untimed.elapsed_time(stop), RuntimeError);
  cuda::Event never(true);
  EXPECT_THROW((void)start.elapsed_time(never), RuntimeError);
}

// The hazard record_stream exists for: x is allocated on the default
// stream, read on a side stream behind long work, and freed at once. The
// next allocation of its size on the default stream would take its block
// and overwrite it before the side stream reads it.
TEST_F(CudaStreams, RecordStreamKeepsAFreedBlockFromEarlyReuse) {
  constexpr std::int64_t kN = std::int64_t{1} << 22;
  const Tensor big = randn({4096, 4096}).cuda();
  const Stream side = cuda::new_stream();
  auto read_late_and_free = [&](bool record) {
    Tensor x = ones({kN}, std::nullopt, kCuda);
    void* block = x.data_ptr();
    Tensor y;
    {
      cuda::Event made;
      made.record();
      const cuda::StreamGuard guard(side);
      made.wait();
      for (int i = 0; i < 4; ++i) (void)mm(big, big);  // tens of milliseconds of work first
      y = x.clone();                                    // then the read
    }
    if (record) x.record_stream(side);
    x = Tensor();  // freed now, on the host, while the side stream still has the read queued
    const Tensor z = full({kN}, Scalar(2.0), std::nullopt, kCuda);
    const bool reused = z.data_ptr() == block;
    cuda::synchronize();
    return std::pair{reused, y};
  };
  // Without record_stream the block is handed out again at once (the test
  // would see a corrupted read if the fill ran first)...
  EXPECT_TRUE(read_late_and_free(false).first);
  // ...with it, never while the side stream may read it, and the read is intact.
  const auto [reused, y] = read_late_and_free(true);
  EXPECT_FALSE(reused);
  EXPECT_TRUE(all_equal(y, 1.0F));
  // The block comes back once the side stream has finished.
  cuda::synchronize();
  const DeviceMemoryStats before = cuda::memory_stats();
  const Tensor again = empty({kN}, std::nullopt, kCuda);
  EXPECT_EQ(cuda::memory_stats().cache_hits, before.cache_hits + 1);
  EXPECT_THROW(ones({2}).record_stream(side), RuntimeError);
}

// A plugin's operator with a CUDA kernel of its own, captured with built-in ones.
Tensor scale_add(const Tensor& x, const Tensor& y) { return add(mul(x, wrap_scalar(3.0)), y); }

TEST_F(CudaStreams, GraphsReplayBuiltInAndPluginKernelsWithTheirOwnMemory) {
  Library defs("graphtest");
  defs.def("scale_add(Tensor x, Tensor y) -> Tensor");
  Library kernels("graphtest", DispatchKey::kCUDA);
  kernels.impl("scale_add", &scale_add);
  auto step = [](const Tensor& x, const Tensor& y) {
    return relu(call("graphtest.scale_add", {x, y}).to_tensor()).sum(std::vector<std::int64_t>{1});
  };
  manual_seed(3);
  const Tensor xh = randn({64, 256});
  const Tensor yh = randn({64, 256});
  Tensor x = xh.cuda();
  Tensor y = yh.cuda();
  (void)step(x, y);  // warm up: handles and plans are made outside the capture
  cuda::synchronize();
  cuda::Graph g;
  Tensor out;
  cuda::capture(g, [&] { out = step(x, y); });
  EXPECT_TRUE(g.captured());
  // New values in the static inputs; each replay recomputes `out`, allocating nothing.
  for (int round = 0; round < 3; ++round) {
    const Tensor xn = randn({64, 256});
    x.copy_(xn.cuda());
    const DeviceMemoryStats before = cuda::memory_stats();
    g.replay();
    cuda::synchronize();
    EXPECT_EQ(cuda::memory_stats().allocations, before.allocations) << "a replay allocates nothing";
    const std::vector<float> want = host(relu(add(mul(xn, wrap_scalar(3.0)), yh)).sum(std::vector<std::int64_t>{1}));
    const std::vector<float> got = host(out);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-3F + 1e-4F * std::abs(want[i]));
  }
  // Replay on another stream, then free the graph with its output still held.
  {
    const cuda::StreamGuard other(cuda::new_stream());
    g.replay();
  }
  cuda::synchronize();
  g.reset();
  EXPECT_FALSE(g.captured());
  EXPECT_EQ(host(out).size(), 64U) << "the output outlives its graph";
}

TEST_F(CudaStreams, CaptureErrorsAreClearAndLeaveTheDeviceUsable) {
  cuda::Graph g;
  try {
    g.capture_begin();  // the default stream
    ADD_FAILURE() << "a capture on the default stream";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("non-default stream"), std::string::npos) << e.what();
  }
  const Tensor x = ones({8}).cuda();
  (void)add(x, x);
  try {
    cuda::capture(g, [&] { (void)add(x, x).sum().item<float>(); });  // a host read while capturing
    ADD_FAILURE() << "a host read inside a capture";
  } catch (const Error& e) {
    EXPECT_FALSE(g.captured()) << e.what();
  }
  EXPECT_THROW(g.replay(), RuntimeError);
  EXPECT_EQ(add(x, x).sum().item<float>(), 16.0F) << "the device works after a failed capture";
}

}  // namespace
}  // namespace wick
