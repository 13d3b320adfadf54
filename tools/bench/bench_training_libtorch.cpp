// tools/bench/bench_training_libtorch.cpp - the libtorch twin of bench_training.cpp, built with libtorch-dev only.
/// \file
#include <benchmark/benchmark.h>
#include <torch/torch.h>

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

}  // namespace
