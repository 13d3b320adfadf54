// tests/nn/memory_test.cpp - resident memory stays flat over 10^5 training steps.
/// \file
/// Issue 7's memory-over-time check: the note's Linear module (a custom
/// Function) trained with SGD and momentum, a hook on an intermediate
/// tensor each step, for 10^5 steps. Every step builds a graph, saves
/// tensors for backward, runs a hook and frees them all: after a warm-up,
/// the process's resident set must not grow by more than kAllowedGrowth.
/// Skipped under AddressSanitizer, whose quarantine keeps freed memory
/// resident on purpose (LeakSanitizer checks that build for leaks instead).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <memory>

#include "plugins/extending_autograd/extending_autograd.h"
#include "tests/autograd/test_util.h"
#include "wick/optim.h"
#include "wick/random.h"

namespace wick {
namespace {

constexpr long kSteps = 100000;
constexpr long kWarmup = 2000;
constexpr long kAllowedGrowth = 1L << 20;  // 1 MiB

// Resident set size of this process, in bytes (/proc/self/statm).
long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long size = 0;
  long resident = 0;
  statm >> size >> resident;
  return resident * sysconf(_SC_PAGESIZE);
}

class Memory : public testing::AutogradTest {};

// GCC says __SANITIZE_ADDRESS__, clang 14 only __has_feature(address_sanitizer).
#if defined(__SANITIZE_ADDRESS__)
#define WICK_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WICK_TEST_UNDER_ASAN 1
#endif
#endif

TEST_F(Memory, TrainingStepsKeepResidentMemoryFlat) {
#if defined(WICK_TEST_UNDER_ASAN)
  GTEST_SKIP() << "AddressSanitizer's quarantine keeps freed memory resident; LeakSanitizer covers this build";
#endif
  manual_seed(0);
  const Tensor x = randn({64, 4});
  const Tensor y = add(x.mm(randn({3, 4}).t()), randn({3}));
  auto model = std::make_shared<extending_autograd::Linear>(4, 3);
  optim::SGD opt(model->parameters(), {.lr = 0.05, .momentum = 0.9});
  long hooks_run = 0;
  long after_warmup = 0;
  long peak = 0;
  double loss_value = 0;
  for (long step = 0; step < kSteps; ++step) {
    Tensor diff = (*model)(x) - y;
    diff.register_hook([&hooks_run](const Tensor& g) {
      ++hooks_run;
      return g;
    });
    Tensor loss = (diff * diff).mean();
    opt.zero_grad();
    loss.backward();
    opt.step();
    if (step == kWarmup) after_warmup = resident_bytes();
    if (step > kWarmup && step % 1000 == 0) peak = std::max(peak, resident_bytes());
    if (step == kSteps - 1) loss_value = loss.item<double>();
  }
  const long end = resident_bytes();
  peak = std::max(peak, end);
  std::printf("resident memory after %ld warm-up steps: %.2f MiB; highest over %ld steps: %.2f MiB (+%ld KiB)\n",
              kWarmup, static_cast<double>(after_warmup) / (1 << 20), kSteps, static_cast<double>(peak) / (1 << 20),
              (peak - after_warmup) / 1024);
  EXPECT_EQ(hooks_run, kSteps);
  EXPECT_LT(loss_value, 1e-6);  // it did train
  EXPECT_LE(peak - after_warmup, kAllowedGrowth);
}

}  // namespace
}  // namespace wick
