// tools/bench/conv_shapes.h - the convolution layers bench_conv.cpp and its libtorch twin time.
/// \file
/// ResNet-50's distinct layer kinds and DCGAN's (tools/examples/dcgan_model.h)
/// layers, as plain convolutions: a transposed layer of the generator is
/// listed as the convolution it is the adjoint of (input [N, C_out, H_out,
/// W_out], weight [C_in, C_out, k, k]), so its forward is that
/// convolution's input backward (`conv_bwd_input`) and its input gradient
/// the convolution's forward.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct ConvShape {
  const char* name;
  std::int64_t c, h, o, k, stride, pad;  // input [N, c, h, h], weight [o, c, k, k]
  [[nodiscard]] std::int64_t out() const { return (h + 2 * pad - k) / stride + 1; }
  [[nodiscard]] double flops(std::int64_t n) const {
    const double side = static_cast<double>(out());
    return 2.0 * static_cast<double>(n * o * c * k * k) * side * side;
  }
};

inline const std::vector<ConvShape>& conv_shapes() {
  static const std::vector<ConvShape> shapes = {
      {"r50_conv1_7x7s2", 3, 224, 64, 7, 2, 3},
      {"r50_3x3_64x56", 64, 56, 64, 3, 1, 1},
      {"r50_1x1_256to64x56", 256, 56, 64, 1, 1, 0},
      {"r50_3x3_128x28", 128, 28, 128, 3, 1, 1},
      {"r50_3x3_256x14", 256, 14, 256, 3, 1, 1},
      {"r50_3x3_512x7", 512, 7, 512, 3, 1, 1},
      {"dcgan_d1_4x4s2", 1, 28, 64, 4, 2, 1},
      {"dcgan_d2_4x4s2", 64, 14, 128, 4, 2, 1},
      {"dcgan_d3_4x4s2", 128, 7, 256, 4, 2, 1},
      {"dcgan_g2_t3x3s2", 128, 7, 256, 3, 2, 1},  // ConvTranspose2d(256, 128, 3, s 2, p 1) on 4x4
      {"dcgan_g3_t4x4s2", 64, 14, 128, 4, 2, 1},  // ConvTranspose2d(128, 64, 4, s 2, p 1) on 7x7
      {"dcgan_g4_t4x4s2", 1, 28, 64, 4, 2, 1},    // ConvTranspose2d(64, 1, 4, s 2, p 1) on 14x14
  };
  return shapes;
}

inline constexpr std::int64_t kConvBatches[] = {1, 8};

// "<side>_<direction>[_bf16]/<shape>/<batch>"
inline std::string conv_bench_name(const char* side, const char* direction, const ConvShape& s, std::int64_t n,
                                   bool bf16) {
  return std::string(side) + "_" + direction + (bf16 ? "_bf16/" : "/") + s.name + "/" + std::to_string(n);
}

}  // namespace bench
