// tools/bench/bench_training.cpp - one training step of the ported libtorch examples (MLP, DCGAN) and of a 2-layer LSTM.
/// \file
/// Each step is what the example's loop does: zero the gradients, forward,
/// loss, backward, optimizer step. bench_training_libtorch.cpp runs the same
/// steps through libtorch's C++ frontend (torch_train_*); tools/bench/README.md,
/// "Benchmarks", compares them each in its own process.
#include <benchmark/benchmark.h>

#include <wick/wick.h>

#include "tools/examples/dcgan_model.h"

namespace {

namespace nn = wick::nn;
namespace F = wick::nn::functional;

void wick_train_mlp(benchmark::State& state) {
  wick::init();
  wick::manual_seed(0);
  nn::Sequential net(nn::Linear(784, 64), nn::ReLU(), nn::Linear(64, 32), nn::ReLU(), nn::Linear(32, 10),
                     nn::LogSoftmax(1));
  wick::optim::SGD optimizer(net->parameters(), {.lr = 0.01});
  const wick::Tensor x = wick::randn({64, 784});
  const wick::Tensor y = wick::randint(0, 10, {64});
  for (auto _ : state) {
    optimizer.zero_grad();
    wick::Tensor loss = F::nll_loss(net(x), y);
    loss.backward();
    optimizer.step();
  }
}
BENCHMARK(wick_train_mlp)->Unit(benchmark::kMicrosecond)->UseRealTime();

void wick_train_dcgan(benchmark::State& state) {
  wick::init();
  wick::manual_seed(0);
  constexpr std::int64_t kBatch = 64;
  dcgan::Generator generator(100);
  nn::Sequential discriminator = dcgan::make_discriminator();
  wick::optim::Adam g_opt(generator->parameters(), {.lr = 2e-4, .betas = {0.5, 0.5}});
  wick::optim::Adam d_opt(discriminator->parameters(), {.lr = 5e-4, .betas = {0.5, 0.5}});
  const wick::Tensor real = wick::rand({kBatch, 1, 28, 28}) * 2 - 1;
  const wick::Tensor ones = wick::ones({kBatch});
  const wick::Tensor zeros = wick::zeros({kBatch});
  for (auto _ : state) {
    discriminator->zero_grad();
    F::binary_cross_entropy(discriminator(real).reshape({kBatch}), ones).backward();
    const wick::Tensor fake = generator(wick::randn({kBatch, 100, 1, 1}));
    F::binary_cross_entropy(discriminator(fake.detach()).reshape({kBatch}), zeros).backward();
    d_opt.step();
    generator->zero_grad();
    F::binary_cross_entropy(discriminator(fake).reshape({kBatch}), ones).backward();
    g_opt.step();
  }
}
BENCHMARK(wick_train_dcgan)->Unit(benchmark::kMillisecond)->UseRealTime();

void wick_train_lstm(benchmark::State& state) {
  wick::init();
  wick::manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions(256, 256).num_layers(2));
  wick::optim::SGD optimizer(lstm->parameters(), {.lr = 0.01});
  const wick::Tensor x = wick::randn({64, 32, 256});  // (seq, batch, features)
  const wick::Tensor target = wick::randn({64, 32, 256});
  for (auto _ : state) {
    optimizer.zero_grad();
    wick::Tensor output = std::get<0>(lstm(x));
    F::mse_loss(output, target).backward();
    optimizer.step();
  }
}
BENCHMARK(wick_train_lstm)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
