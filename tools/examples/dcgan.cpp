// tools/examples/dcgan.cpp - training a DCGAN, line by line as libtorch's DCGAN example, on generated images.
/// \file
/// The images are generated, not MNIST: a bright square at a random place
/// on a dark 28x28 field, scaled to [-1, 1]. Usage:
///   wick_example_dcgan [--epochs N] [--batches-per-epoch N] [--checkpoint-dir DIR]
/// It writes the generator, the discriminator and both optimizers to
/// DIR (default: the working directory) as .pt files that torch.load reads,
/// and exits 1 when the generator's loss is not finite.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "dcgan_model.h"

namespace {

constexpr std::int64_t kNoiseSize = 100;
constexpr std::int64_t kBatchSize = 16;

// A batch of generated "real" images: one bright square each.
wick::Tensor real_batch() {
  using namespace wick::indexing;  // NOLINT(google-build-using-namespace)
  wick::Tensor images = wick::full({kBatchSize, 1, 28, 28}, -1.0);
  const wick::Tensor corners = wick::randint(0, 20, {kBatchSize, 2});
  for (std::int64_t i = 0; i < kBatchSize; ++i) {
    const std::int64_t r = corners.index({i, 0}).item<std::int64_t>();
    const std::int64_t c = corners.index({i, 1}).item<std::int64_t>();
    images.index_put_({i, 0, Slice(r, r + 8), Slice(c, c + 8)}, 1.0);
  }
  return images;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t epochs = 2;
  std::int64_t batches_per_epoch = 4;
  std::string dir = ".";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--epochs") epochs = std::atoll(argv[i + 1]);
    else if (flag == "--batches-per-epoch") batches_per_epoch = std::atoll(argv[i + 1]);
    else if (flag == "--checkpoint-dir") dir = argv[i + 1];
  }
  wick::init();
  wick::manual_seed(1);

  dcgan::Generator generator(kNoiseSize);
  wick::nn::Sequential discriminator = dcgan::make_discriminator();

  wick::optim::Adam generator_optimizer(generator->parameters(), {.lr = 2e-4, .betas = {0.5, 0.5}});
  wick::optim::Adam discriminator_optimizer(discriminator->parameters(), {.lr = 5e-4, .betas = {0.5, 0.5}});

  namespace F = wick::nn::functional;
  double g_loss_value = 0;
  for (std::int64_t epoch = 1; epoch <= epochs; ++epoch) {
    for (std::int64_t batch_index = 0; batch_index < batches_per_epoch; ++batch_index) {
      // Train the discriminator on real images (labels in [0.8, 1.0]) ...
      discriminator->zero_grad();
      wick::Tensor real_images = real_batch();
      wick::Tensor real_labels = wick::empty({kBatchSize}).uniform_(0.8, 1.0);
      wick::Tensor real_output = discriminator(real_images).reshape({kBatchSize});
      wick::Tensor d_loss_real = F::binary_cross_entropy(real_output, real_labels);
      d_loss_real.backward();

      // ... and on fake ones.
      wick::Tensor noise = wick::randn({kBatchSize, kNoiseSize, 1, 1});
      wick::Tensor fake_images = generator(noise);
      wick::Tensor fake_labels = wick::zeros({kBatchSize});
      wick::Tensor fake_output = discriminator(fake_images.detach()).reshape({kBatchSize});
      wick::Tensor d_loss_fake = F::binary_cross_entropy(fake_output, fake_labels);
      d_loss_fake.backward();

      wick::Tensor d_loss = d_loss_real + d_loss_fake;
      discriminator_optimizer.step();

      // Train the generator.
      generator->zero_grad();
      fake_labels.fill_(1);
      fake_output = discriminator(fake_images).reshape({kBatchSize});
      wick::Tensor g_loss = F::binary_cross_entropy(fake_output, fake_labels);
      g_loss.backward();
      generator_optimizer.step();
      g_loss_value = g_loss.item<double>();

      std::cout << "[" << epoch << "/" << epochs << "][" << batch_index + 1 << "/" << batches_per_epoch
                << "] D_loss: " << d_loss.item<double>() << " | G_loss: " << g_loss_value << "\n";
    }
    wick::save(generator, dir + "/generator-checkpoint.pt");
    wick::save(generator_optimizer, dir + "/generator-optimizer-checkpoint.pt");
    wick::save(discriminator, dir + "/discriminator-checkpoint.pt");
    wick::save(discriminator_optimizer, dir + "/discriminator-optimizer-checkpoint.pt");
  }
  // Sample a few images from the trained generator.
  generator->eval();
  wick::InferenceMode guard;
  const wick::Tensor samples = generator(wick::randn({4, kNoiseSize, 1, 1}));
  std::cout << "samples: " << samples.sizes().vec().size() << "-d, mean " << samples.mean().item<double>() << "\n";
  return std::isfinite(g_loss_value) ? 0 : 1;
}
