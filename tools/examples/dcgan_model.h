// tools/examples/dcgan_model.h - the DCGAN generator and discriminator of libtorch's DCGAN example, in wick.
/// \file
/// The generator maps noise [N, nz, 1, 1] to images [N, 1, 28, 28] in
/// (-1, 1); the discriminator maps images to the probability that they are
/// real, [N, 1, 1, 1]. `width` scales every layer's channels (libtorch's
/// example uses 64); tests use a small one so that their PyTorch
/// checkpoint stays small. The module and parameter names are those of the
/// libtorch example, so its checkpoints' keys are these.
#pragma once

#include <cstdint>

#include <wick/wick.h>

namespace dcgan {

namespace nn = wick::nn;

struct GeneratorImpl : nn::Callable<GeneratorImpl> {
  explicit GeneratorImpl(std::int64_t noise_size, std::int64_t width = 64)
      : conv1(nn::ConvTranspose2dOptions(noise_size, width * 4, 4).bias(false)),
        batch_norm1(width * 4),
        conv2(nn::ConvTranspose2dOptions(width * 4, width * 2, 3).stride(2).padding(1).bias(false)),
        batch_norm2(width * 2),
        conv3(nn::ConvTranspose2dOptions(width * 2, width, 4).stride(2).padding(1).bias(false)),
        batch_norm3(width),
        conv4(nn::ConvTranspose2dOptions(width, 1, 4).stride(2).padding(1).bias(false)) {
    register_module("conv1", conv1);
    register_module("conv2", conv2);
    register_module("conv3", conv3);
    register_module("conv4", conv4);
    register_module("batch_norm1", batch_norm1);
    register_module("batch_norm2", batch_norm2);
    register_module("batch_norm3", batch_norm3);
  }

  wick::Tensor forward(wick::Tensor x) {
    x = wick::relu(batch_norm1(conv1(x)));
    x = wick::relu(batch_norm2(conv2(x)));
    x = wick::relu(batch_norm3(conv3(x)));
    return wick::tanh(conv4(x));
  }

  nn::ConvTranspose2d conv1;
  nn::BatchNorm2d batch_norm1;
  nn::ConvTranspose2d conv2;
  nn::BatchNorm2d batch_norm2;
  nn::ConvTranspose2d conv3;
  nn::BatchNorm2d batch_norm3;
  nn::ConvTranspose2d conv4;
};
WICK_MODULE(Generator);

inline nn::Sequential make_discriminator(std::int64_t width = 64) {
  return nn::Sequential(
      // Layer 1
      nn::Conv2d(nn::Conv2dOptions(1, width, 4).stride(2).padding(1).bias(false)),
      nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 2
      nn::Conv2d(nn::Conv2dOptions(width, width * 2, 4).stride(2).padding(1).bias(false)),
      nn::BatchNorm2d(width * 2), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 3
      nn::Conv2d(nn::Conv2dOptions(width * 2, width * 4, 4).stride(2).padding(1).bias(false)),
      nn::BatchNorm2d(width * 4), nn::LeakyReLU(nn::LeakyReLUOptions().negative_slope(0.2)),
      // Layer 4
      nn::Conv2d(nn::Conv2dOptions(width * 4, 1, 3).stride(1).padding(0).bias(false)), nn::Sigmoid());
}

}  // namespace dcgan
