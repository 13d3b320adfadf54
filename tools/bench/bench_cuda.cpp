// tools/bench/bench_cuda.cpp - the CUDA backend against the device's copy bandwidth, raw cuBLAS and raw cuDNN.
/// \file
/// `wick_cuda_bench` (built with the CUDA backend). Each pair runs in one
/// binary on one device, timed with CUDA events around each iteration
/// (manual time), so the figures are device time; the host-overhead
/// benchmark is wall time per call with the queue kept busy.
///   - copy_2e28 vs neg_2e28 / add_2e28: elementwise on 2^28 floats (1 GiB)
///     against cudaMemcpyAsync device to device; bytes_per_second counts
///     bytes read plus written. Target: wick at least 85% of the copy.
///   - cublas_sgemm vs wick_mm: n x n float32 GEMM. Target: at least 95%.
///   - cublas_gemm_f16 / cublas_gemm_bf16 vs wick_mm_f16 / wick_mm_bf16:
///     n x n float16 and bfloat16 GEMMs on tensor cores (cublasGemmEx with
///     float32 accumulation, called directly: the anchor). Target: at least
///     90% of raw cuBLAS, and PyTorch's speed.
///   - cudnn_conv vs wick_conv2d: 3x3 convolution, NCHW float32 without
///     TF32; cudnn_conv_tf32 vs wick_conv2d_tf32 with it (PyTorch's
///     default, Note [TF32]); wick_conv2d_f16 / _bf16 the same in 16 bits.
///   - tiny_add: the host cost of a 1-element CUDA add (Note [Host cost per
///     call]), and tiny_add_out / tiny_empty / tiny_memset, where it goes.
///   - graph_tiny_add: the host cost per add of 100 1-element adds replayed
///     as one CUDA graph (wick::cuda::Graph), against tiny_add's eager calls.
///   - sort_2e24 / sort_rows_2e24: torch.sort of 2^24 random floats, as one
///     row and as [2^14, 1024] rows (CUB's segmented radix sort); solve_1024:
///     linalg.solve of a 1024 x 1024 system with 64 right-hand sides
///     (cuSOLVER's getrf and getrs).
///   - mlp_step/W/B/graph: one SGD training step of a 4-layer float32 MLP of
///     width W on a batch of B (linear, relu, mse_loss, backward, SGD), wall
///     time per step over 100 steps between synchronisations; graph:1 replays
///     the step captured as one CUDA graph.
/// `tools/gpu/bench.sh` runs these beside their PyTorch twins
/// (`tools/gpu/torch_twin.py`) on the GPU machine and prints the ratios.
/// Without a device every benchmark reports "no CUDA device" and is skipped.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <wick/backends.h>
#include <wick/cuda.h>
#include <wick/loader.h>
#include <wick/nn_functional.h>
#include <wick/ops.h>
#include <wick/optim.h>
#include <wick/random.h>

#include "launch_probe.h"

namespace {

const wick::Device kCuda(wick::DeviceType::kCUDA, 0);

bool have_device(benchmark::State& state) {
  wick::init();
  if (wick::cuda::is_available()) return true;
  state.SkipWithError("no CUDA device");
  return false;
}

void check(bool ok, const char* what) {
  if (!ok) throw std::runtime_error(what);
}

/// Times one iteration's device work with CUDA events on the current stream.
class EventTimer {
 public:
  EventTimer() {
    check(cudaEventCreate(&start_) == cudaSuccess, "cudaEventCreate");
    check(cudaEventCreate(&stop_) == cudaSuccess, "cudaEventCreate");
  }
  ~EventTimer() {
    (void)cudaEventDestroy(start_);
    (void)cudaEventDestroy(stop_);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  void start(cudaStream_t s) { (void)cudaEventRecord(start_, s); }
  double stop_seconds(cudaStream_t s) {
    (void)cudaEventRecord(stop_, s);
    (void)cudaEventSynchronize(stop_);
    float ms = 0;
    (void)cudaEventElapsedTime(&ms, start_, stop_);
    return ms / 1e3;
  }

 private:
  cudaEvent_t start_{};
  cudaEvent_t stop_{};
};

cudaStream_t stream() { return static_cast<cudaStream_t>(wick::cuda::current_stream().handle); }

template <typename Fn>
void timed(benchmark::State& state, Fn&& fn) {
  EventTimer timer;
  fn();  // warm-up: allocator cache, cuBLAS/cuDNN handles and plans
  wick::cuda::synchronize();
  for (auto _ : state) {
    timer.start(stream());
    fn();
    state.SetIterationTime(timer.stop_seconds(stream()));
  }
}

// Captures `work` into `g`; a failed capture skips the benchmark, saying why.
bool captured(benchmark::State& state, wick::cuda::Graph& g, const std::function<void()>& work) {
  try {
    wick::cuda::capture(g, work);
    return true;
  } catch (const wick::Error& e) {
    state.SkipWithError(e.what());
    return false;
  }
}

constexpr std::int64_t kBig = std::int64_t{1} << 28;

void copy_2e28(benchmark::State& state) {
  if (!have_device(state)) return;
  const wick::Tensor a = wick::empty({kBig}, std::nullopt, kCuda);
  const wick::Tensor b = wick::empty({kBig}, std::nullopt, kCuda);
  timed(state,
        [&] { (void)cudaMemcpyAsync(b.data_ptr(), a.data_ptr(), kBig * 4, cudaMemcpyDeviceToDevice, stream()); });
  state.SetBytesProcessed(state.iterations() * kBig * 8);
}
BENCHMARK(copy_2e28)->UseManualTime()->Unit(benchmark::kMillisecond);

void neg_2e28(benchmark::State& state) {
  if (!have_device(state)) return;
  const wick::Tensor a = wick::zeros({kBig}, std::nullopt, kCuda);
  timed(state, [&] { benchmark::DoNotOptimize(wick::neg(a)); });
  state.SetBytesProcessed(state.iterations() * kBig * 8);
}
BENCHMARK(neg_2e28)->UseManualTime()->Unit(benchmark::kMillisecond);

void add_2e28(benchmark::State& state) {
  if (!have_device(state)) return;
  const wick::Tensor a = wick::zeros({kBig}, std::nullopt, kCuda);
  const wick::Tensor b = wick::zeros({kBig}, std::nullopt, kCuda);
  timed(state, [&] { benchmark::DoNotOptimize(wick::add(a, b)); });
  state.SetBytesProcessed(state.iterations() * kBig * 12);
}
BENCHMARK(add_2e28)->UseManualTime()->Unit(benchmark::kMillisecond);

// A row broadcast: [2^14, 2^14] + [2^14] (a bias over a matrix).
void add_rows_2e28(benchmark::State& state) {
  if (!have_device(state)) return;
  constexpr std::int64_t kSide = std::int64_t{1} << 14;
  const wick::Tensor a = wick::zeros({kSide, kSide}, std::nullopt, kCuda);
  const wick::Tensor b = wick::zeros({kSide}, std::nullopt, kCuda);
  timed(state, [&] { benchmark::DoNotOptimize(wick::add(a, b)); });
  state.SetBytesProcessed(state.iterations() * kBig * 8);
}
BENCHMARK(add_rows_2e28)->UseManualTime()->Unit(benchmark::kMillisecond);

void cublas_sgemm(benchmark::State& state) {
  if (!have_device(state)) return;
  const std::int64_t n = state.range(0);
  const wick::Tensor a = wick::randn({n, n}, std::nullopt, kCuda);
  const wick::Tensor b = wick::randn({n, n}, std::nullopt, kCuda);
  const wick::Tensor c = wick::empty({n, n}, std::nullopt, kCuda);
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  (void)cublasSetStream(h, stream());
  const float one = 1;
  const float zero = 0;
  const int ni = static_cast<int>(n);
  timed(state, [&] {
    // Row-major C = A B is column-major C^T = B^T A^T.
    (void)cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, static_cast<const float*>(b.data_ptr()), ni,
                      static_cast<const float*>(a.data_ptr()), ni, &zero, static_cast<float*>(c.data_ptr()), ni);
  });
  (void)cublasDestroy(h);
  state.counters["TFLOPS"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 2.0 * n * n * n / 1e12, benchmark::Counter::kIsRate);
}
BENCHMARK(cublas_sgemm)->Arg(1024)->Arg(4096)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);

void wick_mm(benchmark::State& state) {
  if (!have_device(state)) return;
  const std::int64_t n = state.range(0);
  const wick::Tensor a = wick::randn({n, n}, std::nullopt, kCuda);
  const wick::Tensor b = wick::randn({n, n}, std::nullopt, kCuda);
  timed(state, [&] { benchmark::DoNotOptimize(wick::mm(a, b)); });
  state.counters["TFLOPS"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 2.0 * n * n * n / 1e12, benchmark::Counter::kIsRate);
}
BENCHMARK(wick_mm)->Arg(1024)->Arg(4096)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);

// 16-bit GEMMs: raw cublasGemmEx (CUBLAS_COMPUTE_32F, float alpha and beta,
// the default algorithm: what wick asks for, Note [16-bit products] in
// backends/cuda/blas_ops.cpp) against wick::mm on the same dtype.
void cublas_gemm_16(benchmark::State& state, wick::ScalarType dtype) {
  if (!have_device(state)) return;
  const std::int64_t n = state.range(0);
  const wick::Tensor a = wick::randn({n, n}, std::nullopt, kCuda).to(dtype);
  const wick::Tensor b = wick::randn({n, n}, std::nullopt, kCuda).to(dtype);
  const wick::Tensor c = wick::empty({n, n}, dtype, kCuda);
  const cudaDataType_t t = dtype == wick::ScalarType::kFloat16 ? CUDA_R_16F : CUDA_R_16BF;
  cublasHandle_t h = nullptr;
  check(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS, "cublasCreate");
  (void)cublasSetStream(h, stream());
  const float one = 1;
  const float zero = 0;
  const int ni = static_cast<int>(n);
  timed(state, [&] {
    // Row-major C = A B is column-major C^T = B^T A^T.
    (void)cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, ni, ni, ni, &one, b.data_ptr(), t, ni, a.data_ptr(), t, ni, &zero,
                       c.data_ptr(), t, ni, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  });
  (void)cublasDestroy(h);
  state.counters["TFLOPS"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 2.0 * n * n * n / 1e12, benchmark::Counter::kIsRate);
}

void wick_mm_16(benchmark::State& state, wick::ScalarType dtype) {
  if (!have_device(state)) return;
  const std::int64_t n = state.range(0);
  const wick::Tensor a = wick::randn({n, n}, std::nullopt, kCuda).to(dtype);
  const wick::Tensor b = wick::randn({n, n}, std::nullopt, kCuda).to(dtype);
  timed(state, [&] { benchmark::DoNotOptimize(wick::mm(a, b)); });
  state.counters["TFLOPS"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * 2.0 * n * n * n / 1e12, benchmark::Counter::kIsRate);
}

void cublas_gemm_f16(benchmark::State& state) { cublas_gemm_16(state, wick::ScalarType::kFloat16); }
void cublas_gemm_bf16(benchmark::State& state) { cublas_gemm_16(state, wick::ScalarType::kBFloat16); }
void wick_mm_f16(benchmark::State& state) { wick_mm_16(state, wick::ScalarType::kFloat16); }
void wick_mm_bf16(benchmark::State& state) { wick_mm_16(state, wick::ScalarType::kBFloat16); }
BENCHMARK(cublas_gemm_f16)->Arg(4096)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(wick_mm_f16)->Arg(4096)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(cublas_gemm_bf16)->Arg(4096)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(wick_mm_bf16)->Arg(4096)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);

// Convolution: N=32, C=K=128, 56x56, 3x3, padding 1.
constexpr int kN = 32;
constexpr int kC = 128;
constexpr int kHw = 56;

// Raw cuDNN: full float32 (tf32 false) or TF32 tensor-op math, the _v7
// heuristics' first choice (what wick asks for without benchmark mode).
void cudnn_conv_with(benchmark::State& state, bool tf32) {
  if (!have_device(state)) return;
  const wick::Tensor x = wick::randn({kN, kC, kHw, kHw}, std::nullopt, kCuda);
  const wick::Tensor w = wick::randn({kC, kC, 3, 3}, std::nullopt, kCuda);
  const wick::Tensor y = wick::empty({kN, kC, kHw, kHw}, std::nullopt, kCuda);
  cudnnHandle_t h = nullptr;
  check(cudnnCreate(&h) == CUDNN_STATUS_SUCCESS, "cudnnCreate");
  (void)cudnnSetStream(h, stream());
  cudnnTensorDescriptor_t xd = nullptr;
  cudnnTensorDescriptor_t yd = nullptr;
  cudnnFilterDescriptor_t wd = nullptr;
  cudnnConvolutionDescriptor_t cd = nullptr;
  (void)cudnnCreateTensorDescriptor(&xd);
  (void)cudnnCreateTensorDescriptor(&yd);
  (void)cudnnCreateFilterDescriptor(&wd);
  (void)cudnnCreateConvolutionDescriptor(&cd);
  (void)cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, kN, kC, kHw, kHw);
  (void)cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, kN, kC, kHw, kHw);
  (void)cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, kC, kC, 3, 3);
  (void)cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  // The same math as wick's, the heuristics' first choice.
  (void)cudnnSetConvolutionMathType(cd, tf32 ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH);
  cudnnConvolutionFwdAlgoPerf_t perf[8];
  int found = 0;
  (void)cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cd, yd, 8, &found, perf);
  const cudnnConvolutionFwdAlgo_t algo = found > 0 ? perf[0].algo : CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  std::size_t ws_bytes = 0;
  (void)cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws_bytes);
  const wick::Tensor ws = wick::empty({static_cast<std::int64_t>(ws_bytes / 4 + 1)}, std::nullopt, kCuda);
  const float one = 1;
  const float zero = 0;
  timed(state, [&] {
    (void)cudnnConvolutionForward(h, &one, xd, x.data_ptr(), wd, w.data_ptr(), cd, algo, ws.data_ptr(), ws_bytes, &zero,
                                  yd, y.data_ptr());
  });
  (void)cudnnDestroyConvolutionDescriptor(cd);
  (void)cudnnDestroyFilterDescriptor(wd);
  (void)cudnnDestroyTensorDescriptor(yd);
  (void)cudnnDestroyTensorDescriptor(xd);
  (void)cudnnDestroy(h);
}
void cudnn_conv(benchmark::State& state) { cudnn_conv_with(state, false); }
void cudnn_conv_tf32(benchmark::State& state) { cudnn_conv_with(state, true); }
BENCHMARK(cudnn_conv)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(cudnn_conv_tf32)->UseManualTime()->Unit(benchmark::kMillisecond);

// wick_conv2d: full float32 (torch.backends.cudnn.allow_tf32 = False), as
// cudnn_conv; wick_conv2d_tf32: TF32 allowed, PyTorch's default. The
// _benchmark twins with torch.backends.cudnn.benchmark = True (Note [cuDNN
// benchmark mode]).
void conv2d_with(benchmark::State& state, bool tf32, bool find) {
  if (!have_device(state)) return;
  const bool was = wick::backends::cudnn_allow_tf32();
  const bool was_benchmark = wick::backends::cudnn_benchmark();
  wick::backends::set_cudnn_allow_tf32(tf32);
  wick::backends::set_cudnn_benchmark(find);
  const wick::Tensor x = wick::randn({kN, kC, kHw, kHw}, std::nullopt, kCuda);
  const wick::Tensor w = wick::randn({kC, kC, 3, 3}, std::nullopt, kCuda);
  timed(state, [&] { benchmark::DoNotOptimize(wick::conv2d(x, w, std::nullopt, 1, 1)); });
  wick::backends::set_cudnn_allow_tf32(was);
  wick::backends::set_cudnn_benchmark(was_benchmark);
}
void wick_conv2d(benchmark::State& state) { conv2d_with(state, false, false); }
void wick_conv2d_tf32(benchmark::State& state) { conv2d_with(state, true, false); }
void wick_conv2d_benchmark(benchmark::State& state) { conv2d_with(state, false, true); }
void wick_conv2d_tf32_benchmark(benchmark::State& state) { conv2d_with(state, true, true); }
BENCHMARK(wick_conv2d)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(wick_conv2d_tf32)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(wick_conv2d_benchmark)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(wick_conv2d_tf32_benchmark)->UseManualTime()->Unit(benchmark::kMillisecond);

// The same convolution in float16 and bfloat16 (cuDNN, float32 compute,
// tensor ops: Note [16-bit convolutions] in backends/cuda/dnn_ops.cpp).
void conv2d_16(benchmark::State& state, wick::ScalarType dtype) {
  if (!have_device(state)) return;
  const wick::Tensor x = wick::randn({kN, kC, kHw, kHw}, std::nullopt, kCuda).to(dtype);
  const wick::Tensor w = wick::randn({kC, kC, 3, 3}, std::nullopt, kCuda).to(dtype);
  timed(state, [&] { benchmark::DoNotOptimize(wick::conv2d(x, w, std::nullopt, 1, 1)); });
}
void wick_conv2d_f16(benchmark::State& state) { conv2d_16(state, wick::ScalarType::kFloat16); }
void wick_conv2d_bf16(benchmark::State& state) { conv2d_16(state, wick::ScalarType::kBFloat16); }
BENCHMARK(wick_conv2d_f16)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(wick_conv2d_bf16)->UseManualTime()->Unit(benchmark::kMillisecond);

// Sorting (CUB) and a linear solve (cuSOLVER).
void sort_with(benchmark::State& state, std::int64_t rows) {
  if (!have_device(state)) return;
  const wick::Tensor x = wick::randn({rows, (std::int64_t{1} << 24) / rows}, std::nullopt, kCuda);
  timed(state, [&] { benchmark::DoNotOptimize(wick::sort(x)); });
}
void sort_2e24(benchmark::State& state) { sort_with(state, 1); }
void sort_rows_2e24(benchmark::State& state) { sort_with(state, std::int64_t{1} << 14); }
BENCHMARK(sort_2e24)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(sort_rows_2e24)->UseManualTime()->Unit(benchmark::kMillisecond);

void solve_1024(benchmark::State& state) {
  if (!have_device(state)) return;
  constexpr std::int64_t kN = 1024;
  const wick::Tensor a =
      wick::add(wick::randn({kN, kN}, std::nullopt, kCuda),
                wick::mul(wick::eye(kN, std::nullopt, std::nullopt, kCuda), wick::wrap_scalar(64.0)));
  const wick::Tensor b = wick::randn({kN, 64}, std::nullopt, kCuda);
  timed(state, [&] { benchmark::DoNotOptimize(wick::linalg::solve(a, b)); });
}
BENCHMARK(solve_1024)->UseManualTime()->Unit(benchmark::kMillisecond);

// Note [Host cost per call]
// A 1-element kernel takes the device a few microseconds, so a loop of
// calls soon fills the launch queue and then runs at the device's pace:
// that measures the GPU, not the host. Here each iteration times only the
// host thread issuing a batch of 64 calls (far from filling the queue),
// then synchronises outside the timing: the figure is what one call costs
// the host. tools/gpu/torch_twin.py times PyTorch's calls the same way.
template <typename Fn>
void host_cost(benchmark::State& state, Fn&& fn, int ops_per_call = 1) {
  constexpr int kBatch = 64;
  fn();
  wick::cuda::synchronize();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) fn();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    wick::cuda::synchronize();
    state.SetIterationTime(took.count() / (kBatch * ops_per_call));
  }
}

// A 1-element add allocating its output: dispatch, checks, allocation, launch.
void tiny_add(benchmark::State& state) {
  if (!have_device(state)) return;
  const wick::Tensor a = wick::ones({1}).cuda();
  const wick::Tensor b = wick::ones({1}).cuda();
  host_cost(state, [&] { benchmark::DoNotOptimize(wick::add(a, b)); });
}
BENCHMARK(tiny_add)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

// Where tiny_add's time goes: the add into an existing output (no
// allocation), the allocation alone (empty + free), and the launch floor
// (one cudaMemsetAsync of 4 bytes: a bare driver call, no wick).
void tiny_add_out(benchmark::State& state) {
  if (!have_device(state)) return;
  const wick::Tensor a = wick::ones({1}).cuda();
  const wick::Tensor b = wick::ones({1}).cuda();
  wick::Tensor out = wick::empty({1}, std::nullopt, kCuda);
  host_cost(state, [&] { wick::add_out(out, a, b); });
}
BENCHMARK(tiny_add_out)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_empty(benchmark::State& state) {
  if (!have_device(state)) return;
  host_cost(state, [&] { benchmark::DoNotOptimize(wick::empty({1}, std::nullopt, kCuda)); });
}
BENCHMARK(tiny_empty)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_memset(benchmark::State& state) {
  if (!have_device(state)) return;
  const wick::Tensor a = wick::ones({1}).cuda();
  host_cost(state, [&] { (void)cudaMemsetAsync(a.data_ptr(), 0, 4, stream()); });
}
BENCHMARK(tiny_memset)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

// More of the breakdown: a fill_ (one launch, no inputs), the runtime's
// per-call lookups (current device and stream), and the same add_out on
// CPU tensors (wick's dispatch and checks without CUDA).
void tiny_fill(benchmark::State& state) {
  if (!have_device(state)) return;
  wick::Tensor a = wick::ones({1}).cuda();
  host_cost(state, [&] { a.fill_(1.0); });
}
BENCHMARK(tiny_fill)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

// The launch floor: an empty kernel through `<<<>>>` and cudaLaunchKernel,
// on the current stream and on a stream of wick's pool (created
// non-blocking); a kernel with a block and parameters like the flat
// elementwise kernel's; and fill_ on a pool stream.
void tiny_launch_empty(benchmark::State& state) {
  if (!have_device(state)) return;
  host_cost(state, [&] { wick_bench::launch_empty(stream()); });
}
BENCHMARK(tiny_launch_empty)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_launch_empty_api(benchmark::State& state) {
  if (!have_device(state)) return;
  host_cost(state, [&] { (void)wick_bench::launch_empty_api(stream()); });
}
BENCHMARK(tiny_launch_empty_api)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_launch_params(benchmark::State& state) {
  if (!have_device(state)) return;
  host_cost(state, [&] { wick_bench::launch_with_params(stream()); });
}
BENCHMARK(tiny_launch_params)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_launch_empty_pool_stream(benchmark::State& state) {
  if (!have_device(state)) return;
  wick::cuda::StreamGuard guard(wick::cuda::new_stream());
  host_cost(state, [&] { wick_bench::launch_empty(stream()); });
}
BENCHMARK(tiny_launch_empty_pool_stream)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_fill_pool_stream(benchmark::State& state) {
  if (!have_device(state)) return;
  wick::Tensor a = wick::ones({1}).cuda();
  wick::cuda::StreamGuard guard(wick::cuda::new_stream());
  host_cost(state, [&] { a.fill_(1.0); });
}
BENCHMARK(tiny_fill_pool_stream)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_get_last_error(benchmark::State& state) {
  if (!have_device(state)) return;
  host_cost(state, [&] { benchmark::DoNotOptimize(cudaGetLastError()); });
}
BENCHMARK(tiny_get_last_error)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_runtime_lookups(benchmark::State& state) {
  if (!have_device(state)) return;
  host_cost(state, [&] {
    benchmark::DoNotOptimize(wick::cuda::current_device());
    benchmark::DoNotOptimize(wick::cuda::current_stream());
  });
}
BENCHMARK(tiny_runtime_lookups)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

void tiny_add_out_cpu(benchmark::State& state) {
  if (!have_device(state)) return;
  const wick::Tensor a = wick::ones({1});
  const wick::Tensor b = wick::ones({1});
  wick::Tensor out = wick::empty({1});
  host_cost(state, [&] { wick::add_out(out, a, b); });
}
BENCHMARK(tiny_add_out_cpu)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

// The same 1-element adds inside a replayed CUDA graph: 100 adds captured
// once; the host cost per add of a replay.
void graph_tiny_add(benchmark::State& state) {
  if (!have_device(state)) return;
  constexpr int kOps = 100;
  const wick::Tensor a = wick::ones({1}).cuda();
  wick::Tensor b = wick::ones({1}).cuda();
  (void)wick::add(a, b);
  wick::cuda::synchronize();
  wick::cuda::Graph g;
  if (!captured(state, g, [&] {
        for (int i = 0; i < kOps; ++i) b = wick::add(a, b);
      }))
    return;
  host_cost(
      state, [&] { g.replay(); }, kOps);
}
BENCHMARK(graph_tiny_add)->UseManualTime()->Iterations(3000)->Unit(benchmark::kMicrosecond);

// One SGD step of a 4-layer MLP: the same model, loss, optimiser and timing
// as mlp_step in tools/gpu/torch_twin.py.
void mlp_step(benchmark::State& state) {
  if (!have_device(state)) return;
  const std::int64_t width = state.range(0);
  const std::int64_t batch = state.range(1);
  constexpr int kLayers = 4;
  constexpr int kSteps = 100;
  wick::manual_seed(0);
  std::vector<wick::Tensor> params;
  for (int i = 0; i < kLayers; ++i) {
    params.push_back(wick::mul(wick::randn({width, width}), wick::wrap_scalar(0.03)).cuda().requires_grad_());
    params.push_back(wick::zeros({width}).cuda().requires_grad_());
  }
  const wick::Tensor x = wick::randn({batch, width}, std::nullopt, kCuda);
  const wick::Tensor target = wick::randn({batch, width}, std::nullopt, kCuda);
  wick::optim::SGD opt(params, {.lr = 0.01});
  auto step = [&] {
    opt.zero_grad(/*set_to_none=*/true);
    wick::Tensor h = x;
    for (int i = 0; i < kLayers; ++i) {
      h = wick::nn::functional::linear(h, params[2 * i], params[2 * i + 1]);
      if (i + 1 < kLayers) h = wick::relu(h);
    }
    wick::nn::functional::mse_loss(h, target).backward();
    opt.step();
  };
  for (int i = 0; i < 20; ++i) step();
  wick::cuda::synchronize();
  // mlp_step_graph: the whole step (zero_grad, forward, backward, SGD)
  // captured once and replayed, as torch.cuda.graphs' whole-network capture.
  wick::cuda::Graph graph;
  const bool replayed = state.range(2) != 0;
  if (replayed && !captured(state, graph, step)) return;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kSteps; ++i) replayed ? graph.replay() : step();
    wick::cuda::synchronize();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(took.count() / kSteps);
  }
}
BENCHMARK(mlp_step)
    ->ArgNames({"W", "B", "graph"})
    ->Args({256, 64, 0})
    ->Args({1024, 256, 0})
    ->Args({4096, 512, 0})
    ->Args({256, 64, 1})
    ->Args({1024, 256, 1})
    ->Args({4096, 512, 1})
    ->Iterations(5)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
