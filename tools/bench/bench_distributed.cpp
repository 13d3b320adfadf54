// tools/bench/bench_distributed.cpp - all_reduce latency and bandwidth, and one DDP step of the MLP, across processes.
/// \file
/// Run through the launcher: `wick run --nproc-per-node N wick_bench_distributed`.
/// Its PyTorch twin, bench_distributed_torch.py, does the same through
/// torch.distributed on Gloo; distributed_compare.sh runs both and prints
/// the ratios. Each line is "allreduce BYTES MICROSECONDS" (the slowest
/// rank's time per call) or "ddp_mlp MILLISECONDS" (per training step).
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <wick/wick.h>

namespace dist = wick::distributed;
namespace nn = wick::nn;

namespace {

using Clock = std::chrono::steady_clock;

/// The slowest rank's seconds.
double slowest(double seconds) {
  wick::Tensor t = wick::full({1}, seconds, wick::kFloat64);
  dist::all_reduce(t, {.op = dist::ReduceOp::kMax});
  return t.item<double>();
}

/// Calls per size: enough to take a few tenths of a second at a few GB/s.
int iterations(std::int64_t bytes) { return static_cast<int>(std::clamp<std::int64_t>((std::int64_t{1} << 29) / bytes, 3, 2000)); }

}  // namespace

int main(int argc, char** argv) {
  std::int64_t max_bytes = std::int64_t{256} << 20;
  bool ddp_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc) max_bytes = std::atoll(argv[++i]);
    if (std::strcmp(argv[i], "--ddp-only") == 0) ddp_only = true;
  }
  wick::init();
  dist::init_process_group("gloo");
  const int rank = dist::get_rank();
  for (std::int64_t bytes = 4; bytes <= max_bytes && !ddp_only; bytes *= 4) {
    wick::Tensor x = wick::ones({bytes / 4});
    for (int i = 0; i < 3; ++i) dist::all_reduce(x);
    const int n = iterations(bytes);
    dist::barrier();
    const auto start = Clock::now();
    for (int i = 0; i < n; ++i) dist::all_reduce(x);
    const double s = slowest(std::chrono::duration<double>(Clock::now() - start).count());
    if (rank == 0) std::cout << "allreduce " << bytes << " " << s / n * 1e6 << std::endl;
  }
  // One DDP step of the MLP of bench_training.cpp, batch 64 on each rank.
  wick::manual_seed(0);
  nn::Sequential net(nn::Linear(784, 64), nn::ReLU(), nn::Linear(64, 32), nn::ReLU(), nn::Linear(32, 10), nn::LogSoftmax(1));
  nn::DistributedDataParallel ddp(net);
  wick::optim::SGD optimizer(net->parameters(), {.lr = 0.01});
  const wick::Tensor x = wick::randn({64, 784});
  const wick::Tensor y = wick::randint(0, 10, {64});
  const auto step = [&] {
    optimizer.zero_grad();
    wick::Tensor loss = nn::functional::nll_loss(ddp(x), y);
    loss.backward();
    optimizer.step();
  };
  for (int i = 0; i < 20; ++i) step();
  const int steps = 300;
  dist::barrier();
  const auto start = Clock::now();
  for (int i = 0; i < steps; ++i) step();
  const double s = slowest(std::chrono::duration<double>(Clock::now() - start).count());
  if (rank == 0) std::cout << "ddp_mlp " << s / steps * 1e3 << std::endl;
  dist::destroy_process_group();
  return 0;
}
