// tests/examples/dcgan_checkpoint_test.cpp - the example's DCGAN generator, loaded from a checkpoint PyTorch 1.13 wrote, gives PyTorch's images for the same noise.
/// \file
/// The fixtures are tests/examples/make_dcgan_fixture.py's.
#include <gtest/gtest.h>

#include "tests/support/test_paths.h"
#include "tools/examples/dcgan_model.h"

namespace {

class DcganCheckpoint : public ::testing::Test {
 protected:
  void SetUp() override {
    wick::init();
    if (!wick::pt_format_available()) GTEST_SKIP() << "this build has no .pt support (libzip)";
  }
  static std::string fixture(const std::string& name) { return wick_test::reference_dir() + "/examples/" + name; }
};

TEST_F(DcganCheckpoint, GeneratorMatchesPyTorchForTheSameNoise) {
  dcgan::Generator generator(/*noise_size=*/16, /*width=*/8);
  wick::load(generator, fixture("dcgan_generator.pt"));
  EXPECT_EQ(generator->batch_norm2->named_buffers()[2].second.item<std::int64_t>(), 7);  // num_batches_tracked

  wick::NamedTensors io = wick::load(fixture("dcgan_io.pt"));
  ASSERT_EQ(io.size(), 3U);
  const wick::Tensor& noise = io[0].second;
  const wick::Tensor& want_eval = io[1].second;
  const wick::Tensor& want_train = io[2].second;
  ASSERT_EQ(want_eval.sizes().vec(), (std::vector<std::int64_t>{3, 1, 28, 28}));

  generator->eval();
  const wick::Tensor eval_out = generator(noise);
  EXPECT_TRUE(eval_out.allclose(want_eval, 1e-4, 1e-5)) << (eval_out - want_eval).abs().max().item<double>();
  generator->train();
  wick::Tensor train_out;
  {
    wick::NoGradGuard no_grad;
    train_out = generator(noise);
  }
  EXPECT_TRUE(train_out.allclose(want_train, 1e-4, 1e-5)) << (train_out - want_train).abs().max().item<double>();
  // Train mode moved the running statistics on, as PyTorch's did.
  EXPECT_EQ(generator->batch_norm1->named_buffers()[2].second.item<std::int64_t>(), 8);
}

TEST_F(DcganCheckpoint, AGeneratorOfAnotherWidthIsRefusedNamingTheKey) {
  dcgan::Generator generator(/*noise_size=*/16, /*width=*/4);
  try {
    wick::load(generator, fixture("dcgan_generator.pt"));
    FAIL() << "no SerializationError";
  } catch (const wick::SerializationError& e) {
    EXPECT_EQ(e.key(), "conv1.weight");
  }
}

}  // namespace
