// core/backend_flags.cpp - the TF32, cuDNN benchmark and oneDNN switches (Note [TF32] in wick/backends.h), threads.
/// \file
#include <sched.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "wick/backends.h"
#include "wick/error.h"

namespace wick {
namespace {

std::atomic<bool> g_matmul_tf32{false};
std::atomic<bool> g_cudnn_tf32{true};
std::atomic<bool> g_cudnn_benchmark{false};
std::atomic<bool> g_mkldnn{true};
std::atomic<bool> g_mkldnn_winograd{true};
std::atomic<bool> g_mkldnn_small_on_im2col{true};
// "highest", "high" or "medium": an index into kPrecisions.
std::atomic<int> g_precision{0};
constexpr const char* kPrecisions[] = {"highest", "high", "medium"};
// 0 until set or first read.
std::atomic<int> g_num_threads{0};

// What OpenMP would start with: OMP_NUM_THREADS's first entry, else the CPUs
// of this process's affinity mask.
int default_num_threads() noexcept {
  if (const char* env = std::getenv("OMP_NUM_THREADS"); env != nullptr) {
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (end != env && n > 0 && n < (1L << 16)) return static_cast<int>(n);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  return 1;
}

}  // namespace

namespace backends {

bool cuda_matmul_allow_tf32() noexcept { return g_matmul_tf32.load(std::memory_order_relaxed); }
void set_cuda_matmul_allow_tf32(bool allow) noexcept {
  g_matmul_tf32.store(allow, std::memory_order_relaxed);
  // PyTorch reports the switch through the precision too.
  g_precision.store(allow ? 1 : 0, std::memory_order_relaxed);
}
bool cudnn_allow_tf32() noexcept { return g_cudnn_tf32.load(std::memory_order_relaxed); }
void set_cudnn_allow_tf32(bool allow) noexcept { g_cudnn_tf32.store(allow, std::memory_order_relaxed); }
bool cudnn_benchmark() noexcept { return g_cudnn_benchmark.load(std::memory_order_relaxed); }
void set_cudnn_benchmark(bool benchmark) noexcept { g_cudnn_benchmark.store(benchmark, std::memory_order_relaxed); }
bool mkldnn_enabled() noexcept { return g_mkldnn.load(std::memory_order_relaxed); }
void set_mkldnn_enabled(bool enabled) noexcept { g_mkldnn.store(enabled, std::memory_order_relaxed); }
bool mkldnn_winograd() noexcept { return g_mkldnn_winograd.load(std::memory_order_relaxed); }
void set_mkldnn_winograd(bool allowed) noexcept { g_mkldnn_winograd.store(allowed, std::memory_order_relaxed); }
bool mkldnn_small_on_im2col() noexcept { return g_mkldnn_small_on_im2col.load(std::memory_order_relaxed); }
void set_mkldnn_small_on_im2col(bool allowed) noexcept {
  g_mkldnn_small_on_im2col.store(allowed, std::memory_order_relaxed);
}

}  // namespace backends

void set_float32_matmul_precision(std::string_view precision) {
  for (int i = 0; i < 3; ++i) {
    if (precision != kPrecisions[i]) continue;
    g_matmul_tf32.store(i != 0, std::memory_order_relaxed);
    g_precision.store(i, std::memory_order_relaxed);
    return;
  }
  throw ValueError(detail::str_cat("set_float32_matmul_precision: invalid precision '", precision,
                                   "': expected one of 'highest', 'high', 'medium'"));
}

std::string get_float32_matmul_precision() { return kPrecisions[g_precision.load(std::memory_order_relaxed)]; }

void set_num_threads(int threads) {
  WICK_CHECK(threads > 0, ValueError, "set_num_threads: expected a positive number of threads, got ", threads);
  g_num_threads.store(threads, std::memory_order_relaxed);
}

int get_num_threads() noexcept {
  int n = g_num_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    int expected = 0;
    n = default_num_threads();
    if (!g_num_threads.compare_exchange_strong(expected, n, std::memory_order_relaxed)) n = expected;
  }
  return n;
}

}  // namespace wick
