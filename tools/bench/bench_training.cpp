// tools/bench/bench_training.cpp - one training step of the ported libtorch examples (MLP, DCGAN), a 2-layer LSTM and ResNet-18.
/// \file
/// Each step is what the example's loop does: zero the gradients, forward,
/// loss, backward, optimizer step. bench_training_libtorch.cpp runs the same
/// steps through libtorch's C++ frontend (torch_train_*); tools/bench/README.md,
/// "Benchmarks", compares them each in its own process.
#include <benchmark/benchmark.h>

#include <wick/wick.h>

#include "peak_memory.h"
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

// ResNet-18 (torchvision's layout: 7x7 stem, max pool, four stages of two
// basic blocks, 64-512 channels, global average pool, 1000 classes) on a
// batch of 8 3x224x224 images, SGD with momentum; `peak_MiB` is how far
// resident memory rose during a step (tools/bench/peak_memory.h).
struct BasicBlockImpl : nn::Callable<BasicBlockImpl> {
  BasicBlockImpl(std::int64_t in, std::int64_t out, std::int64_t stride)
      : conv1(nn::Conv2dOptions(in, out, 3).stride(stride).padding(1).bias(false)),
        bn1(out),
        conv2(nn::Conv2dOptions(out, out, 3).padding(1).bias(false)),
        bn2(out) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("conv2", conv2);
    register_module("bn2", bn2);
    if (stride != 1 || in != out) {
      downsample->push_back(nn::Conv2d(nn::Conv2dOptions(in, out, 1).stride(stride).bias(false)));
      downsample->push_back(nn::BatchNorm2d(out));
      register_module("downsample", downsample);
    }
  }
  wick::Tensor forward(const wick::Tensor& x) {
    const wick::Tensor y = bn2(conv2(wick::relu(bn1(conv1(x)))));
    return wick::relu(y + (downsample->is_empty() ? x : downsample(x)));
  }
  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Sequential downsample;
};
WICK_MODULE(BasicBlock);

nn::Sequential make_resnet18() {
  nn::Sequential net(nn::Conv2d(nn::Conv2dOptions(3, 64, 7).stride(2).padding(3).bias(false)), nn::BatchNorm2d(64),
                     nn::ReLU(), nn::MaxPool2d(nn::MaxPool2dOptions(3).stride(2).padding(1)));
  std::int64_t in = 64;
  for (const std::int64_t out : {64, 128, 256, 512}) {
    net->push_back(BasicBlock(in, out, out == 64 ? 1 : 2));
    net->push_back(BasicBlock(out, out, 1));
    in = out;
  }
  net->push_back(nn::AdaptiveAvgPool2d(nn::AdaptiveAvgPool2dOptions({1, 1})));
  net->push_back(nn::Flatten());
  net->push_back(nn::Linear(512, 1000));
  return net;
}

void wick_train_resnet18(benchmark::State& state) {
  wick::init();
  wick::manual_seed(0);
  nn::Sequential net = make_resnet18();
  wick::optim::SGD optimizer(net->parameters(), {.lr = 0.01, .momentum = 0.9});
  const wick::Tensor x = wick::randn({8, 3, 224, 224});
  const wick::Tensor y = wick::randint(0, 1000, {8});
  const auto step = [&] {
    optimizer.zero_grad();
    F::cross_entropy(net(x), y).backward();
    optimizer.step();
  };
  // The peak of the first step, from empty caches; then the timed steps.
  wick::empty_cpu_cache();
  const long peak = wick_bench::peak_growth(step);
  for (auto _ : state) step();
  state.counters["peak_MiB"] = static_cast<double>(peak) / (1 << 20);
}
BENCHMARK(wick_train_resnet18)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
