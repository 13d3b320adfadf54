// core/backend_flags.cpp - the TF32 and cuDNN benchmark switches (Note [TF32] in wick/backends.h).
/// \file
#include <atomic>

#include "wick/backends.h"
#include "wick/error.h"

namespace wick {
namespace {

std::atomic<bool> g_matmul_tf32{false};
std::atomic<bool> g_cudnn_tf32{true};
std::atomic<bool> g_cudnn_benchmark{false};
// "highest", "high" or "medium": an index into kPrecisions.
std::atomic<int> g_precision{0};
constexpr const char* kPrecisions[] = {"highest", "high", "medium"};

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

}  // namespace wick
