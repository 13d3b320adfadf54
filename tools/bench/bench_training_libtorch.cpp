// tools/bench/bench_training_libtorch.cpp - the libtorch twin of bench_training.cpp, built with libtorch-dev only.
/// \file
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include "peak_memory.h"

namespace {

namespace nn = torch::nn;
namespace F = torch::nn::functional;

void torch_train_mlp(benchmark::State& state) {
  torch::manual_seed(0);
  nn::Sequential net(nn::Linear(784, 64), nn::ReLU(), nn::Linear(64, 32), nn::ReLU(), nn::Linear(32, 10),
                     nn::LogSoftmax(1));
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.01));
  const at::Tensor x = torch::randn({64, 784});
  const at::Tensor y = torch::randint(0, 10, {64});
  for (auto _ : state) {
    optimizer.zero_grad();
    at::Tensor loss = F::nll_loss(net->forward(x), y);
    loss.backward();
    optimizer.step();
  }
}
BENCHMARK(torch_train_mlp)->Unit(benchmark::kMicrosecond)->UseRealTime();

struct GeneratorImpl : nn::Module {
  explicit GeneratorImpl(std::int64_t nz, std::int64_t w = 64)
      : conv1(nn::ConvTranspose2dOptions(nz, w * 4, 4).bias(false)),
        batch_norm1(w * 4),
        conv2(nn::ConvTranspose2dOptions(w * 4, w * 2, 3).stride(2).padding(1).bias(false)),
        batch_norm2(w * 2),
        conv3(nn::ConvTranspose2dOptions(w * 2, w, 4).stride(2).padding(1).bias(false)),
        batch_norm3(w),
        conv4(nn::ConvTranspose2dOptions(w, 1, 4).stride(2).padding(1).bias(false)) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }
  at::Tensor forward(at::Tensor x) {
    x = torch::relu(batch_norm1(conv1(x)));
    x = torch::relu(batch_norm2(conv2(x)));
    x = torch::relu(batch_norm3(conv3(x)));
    return torch::tanh(conv4(x));
  }
  nn::ConvTranspose2d conv1;
  nn::BatchNorm2d batch_norm1;
  nn::ConvTranspose2d conv2;
  nn::BatchNorm2d batch_norm2;
  nn::ConvTranspose2d conv3;
  nn::BatchNorm2d batch_norm3;
  nn::ConvTranspose2d conv4;
};
TORCH_MODULE(Generator);

void torch_train_dcgan(benchmark::State& state) {
  torch::manual_seed(0);
  constexpr std::int64_t kBatch = 64;
  constexpr std::int64_t w = 64;
  Generator generator(100);
  nn::Sequential discriminator(
      nn::Conv2d(nn::Conv2dOptions(1, w, 4).stride(2).padding(1).bias(false)),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      nn::Conv2d(nn::Conv2dOptions(w, w * 2, 4).stride(2).padding(1).bias(false)), nn::BatchNorm2d(w * 2),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      nn::Conv2d(nn::Conv2dOptions(w * 2, w * 4, 4).stride(2).padding(1).bias(false)), nn::BatchNorm2d(w * 4),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      nn::Conv2d(nn::Conv2dOptions(w * 4, 1, 3).stride(1).padding(0).bias(false)), nn::Sigmoid());
  torch::optim::Adam g_opt(generator->parameters(), torch::optim::AdamOptions(2e-4).betas({0.5, 0.5}));
  torch::optim::Adam d_opt(discriminator->parameters(), torch::optim::AdamOptions(5e-4).betas({0.5, 0.5}));
  const at::Tensor real = torch::rand({kBatch, 1, 28, 28}) * 2 - 1;
  const at::Tensor ones = torch::ones({kBatch});
  const at::Tensor zeros = torch::zeros({kBatch});
  for (auto _ : state) {
    discriminator->zero_grad();
    F::binary_cross_entropy(discriminator->forward(real).reshape({kBatch}), ones).backward();
    const at::Tensor fake = generator->forward(torch::randn({kBatch, 100, 1, 1}));
    F::binary_cross_entropy(discriminator->forward(fake.detach()).reshape({kBatch}), zeros).backward();
    d_opt.step();
    generator->zero_grad();
    F::binary_cross_entropy(discriminator->forward(fake).reshape({kBatch}), ones).backward();
    g_opt.step();
  }
}
BENCHMARK(torch_train_dcgan)->Unit(benchmark::kMillisecond)->UseRealTime();

void torch_train_lstm(benchmark::State& state) {
  torch::manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions(256, 256).num_layers(2));
  torch::optim::SGD optimizer(lstm->parameters(), torch::optim::SGDOptions(0.01));
  const at::Tensor x = torch::randn({64, 32, 256});
  const at::Tensor target = torch::randn({64, 32, 256});
  for (auto _ : state) {
    optimizer.zero_grad();
    at::Tensor output = std::get<0>(lstm->forward(x));
    F::mse_loss(output, target).backward();
    optimizer.step();
  }
}
BENCHMARK(torch_train_lstm)->Unit(benchmark::kMillisecond)->UseRealTime();

// The twin of bench_training.cpp's ResNet-18 step.
struct BasicBlockImpl : nn::Module {
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
  at::Tensor forward(const at::Tensor& x) {
    const at::Tensor y = bn2(conv2(torch::relu(bn1(conv1(x)))));
    return torch::relu(y + (downsample->is_empty() ? x : downsample->forward(x)));
  }
  nn::Conv2d conv1;
  nn::BatchNorm2d bn1;
  nn::Conv2d conv2;
  nn::BatchNorm2d bn2;
  nn::Sequential downsample;
};
TORCH_MODULE(BasicBlock);

void torch_train_resnet18(benchmark::State& state) {
  torch::manual_seed(0);
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
  torch::optim::SGD optimizer(net->parameters(), torch::optim::SGDOptions(0.01).momentum(0.9));
  const at::Tensor x = torch::randn({8, 3, 224, 224});
  const at::Tensor y = torch::randint(0, 1000, {8});
  const auto step = [&] {
    optimizer.zero_grad();
    F::cross_entropy(net->forward(x), y).backward();
    optimizer.step();
  };
  // The peak of the first step; then the timed steps.
  const long peak = wick_bench::peak_growth(step);
  for (auto _ : state) step();
  state.counters["peak_MiB"] = static_cast<double>(peak) / (1 << 20);
}
BENCHMARK(torch_train_resnet18)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
