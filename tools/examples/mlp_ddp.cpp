// tools/examples/mlp_ddp.cpp - the MLP example trained data-parallel: `wick run --nproc-per-node N wick_example_mlp_ddp`.
/// \file
/// Each step draws one global batch of 96 points (the same on every rank),
/// and each of the N processes trains on its 96 / N rows. DistributedDataParallel
/// averages the gradients, so every step is the step of the whole batch, and
/// the loss after training is the one a single process reaches (up to the
/// order of float additions): the printed "final loss" is the same for 1, 2,
/// 3 or 4 processes. Without RANK in the environment it runs alone.
#include <cstdlib>
#include <iostream>
#include <wick/wick.h>

struct Net : wick::nn::Callable<Net> {
  Net() {
    fc1 = register_module("fc1", wick::nn::Linear(2, 64));
    fc2 = register_module("fc2", wick::nn::Linear(64, 32));
    fc3 = register_module("fc3", wick::nn::Linear(32, 2));
  }
  wick::Tensor forward(wick::Tensor x) {
    x = wick::relu(fc1->forward(x));
    x = wick::relu(fc2->forward(x));
    return wick::log_softmax(fc3->forward(x), /*dim=*/1);
  }
  wick::nn::Linear fc1{nullptr}, fc2{nullptr}, fc3{nullptr};
};

namespace dist = wick::distributed;

int main() {
  wick::init();
  const bool distributed = std::getenv("RANK") != nullptr;
  if (distributed) dist::init_process_group("gloo");
  const int rank = distributed ? dist::get_rank() : 0;
  const int world = distributed ? dist::get_world_size() : 1;
  const std::int64_t global_batch = 96;
  if (global_batch % world != 0) {
    std::cerr << "the global batch of " << global_batch << " does not divide among " << world << " processes\n";
    return 2;
  }
  const std::int64_t local = global_batch / world;

  wick::manual_seed(0);
  auto net = std::make_shared<Net>();
  // With one process there is nothing to average; the wrapper costs nothing then either.
  std::unique_ptr<wick::nn::DistributedDataParallel<Net>> ddp;
  if (distributed) ddp = std::make_unique<wick::nn::DistributedDataParallel<Net>>(net);
  wick::optim::SGD optimizer(net->parameters(), {.lr = 0.1, .momentum = 0.9});

  wick::Tensor loss;
  for (int step = 1; step <= 200; ++step) {
    wick::manual_seed(static_cast<std::uint64_t>(1000 + step));  // the same global batch on every rank
    const wick::Tensor x = wick::rand({global_batch, 2}) * 3 - 1.5;
    const wick::Tensor y = (x.pow(2).sum(1) < 1).to(wick::kLong);
    const wick::Tensor my_x = x.narrow(0, rank * local, local);
    const wick::Tensor my_y = y.narrow(0, rank * local, local);
    optimizer.zero_grad();
    const wick::Tensor prediction = ddp != nullptr ? (*ddp)(my_x) : (*net)(my_x);
    loss = wick::nn::functional::nll_loss(prediction, my_y);
    loss.backward();
    optimizer.step();
  }
  // The loss over the whole last batch: the mean of the ranks' means.
  wick::Tensor total = loss.detach().clone();
  if (distributed) dist::all_reduce(total, {.op = dist::ReduceOp::kAvg});
  if (rank == 0) std::cout << "processes: " << world << " final loss: " << total.item<double>() << "\n";
  if (distributed) dist::destroy_process_group();
  return 0;
}
