// tests/data_loading/data_readers_test.cpp - IDX (MNIST) and CSV readers, the MNIST dataset, and their errors.
/// \file
/// The tests write their own small files: an IDX file is a big-endian magic
/// (0x00000803 images, 0x00000801 labels), big-endian counts, then bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "tests/autograd/test_util.h"
#include "wick/data.h"

namespace wick::testing {
namespace {

namespace fs = std::filesystem;

class DataReadersTest : public AutogradTest {
 protected:
  void SetUp() override {
    AutogradTest::SetUp();
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) / ("wick_data_" + std::to_string(::getpid()) + "_" + info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  static std::string be32(std::uint32_t v) {
    return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
  }
  // An IDX3 file of n images of rows x cols, pixel k = (k * 7 + image) % 256.
  static std::string idx_images(std::uint32_t n, std::uint32_t rows, std::uint32_t cols) {
    std::string s = be32(0x803) + be32(n) + be32(rows) + be32(cols);
    for (std::uint32_t i = 0; i < n; ++i) {
      for (std::uint32_t k = 0; k < rows * cols; ++k) s.push_back(static_cast<char>((k * 7 + i) % 256));
    }
    return s;
  }
  static std::string idx_labels(const std::vector<int>& labels) {
    std::string s = be32(0x801) + be32(static_cast<std::uint32_t>(labels.size()));
    for (int l : labels) s.push_back(static_cast<char>(l));
    return s;
  }
  fs::path dir_;
};

TEST_F(DataReadersTest, ReadsIdxImagesAndLabels) {
  const Tensor images = data::read_mnist_images(write("img", idx_images(3, 4, 5)));
  EXPECT_EQ(images.dtype(), ScalarType::kUInt8);
  EXPECT_EQ(images.sizes(), (std::vector<std::int64_t>{3, 4, 5}));
  const auto a = images.accessor<std::uint8_t, 3>();
  EXPECT_EQ(a[0][0][1], 7);
  EXPECT_EQ(a[2][3][4], (19 * 7 + 2) % 256);
  const Tensor labels = data::read_mnist_labels(write("lbl", idx_labels({7, 0, 255})));
  EXPECT_EQ(labels.dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(labels), (std::vector<double>{7, 0, 255}));
}

TEST_F(DataReadersTest, IdxErrorsNameTheFile) {
  const std::string bad_magic = write("bad", be32(0x801) + be32(1) + be32(1) + be32(1) + "x");
  EXPECT_EQ(error_of([&] { (void)data::read_mnist_images(bad_magic); }),
            bad_magic + ": not an IDX file of images: magic number 0x00000801, expected 0x00000803");
  const std::string gz = write("gz", be32(0x1f8b0800) + be32(0) + be32(0) + be32(0));
  EXPECT_NE(error_of([&] { (void)data::read_mnist_images(gz); }).find("gzip-compressed"), std::string::npos);
  std::string full = idx_images(2, 3, 3);
  const std::string truncated = write("trunc", full.substr(0, full.size() - 1));
  EXPECT_EQ(error_of([&] { (void)data::read_mnist_images(truncated); }),
            truncated + ": truncated: the header describes 2 x 3 x 3 bytes (34 with the header), the file has 33");
  const std::string trailing = write("trail", idx_labels({1, 2}) + "z");
  EXPECT_EQ(error_of([&] { (void)data::read_mnist_labels(trailing); }),
            trailing + ": trailing bytes: the header describes 2 bytes (10 with the header), the file has 11");
  const std::string short_header = write("short", be32(0x803) + be32(1));
  EXPECT_EQ(error_of([&] { (void)data::read_mnist_images(short_header); }),
            short_header + ": truncated: 8 bytes, fewer than the 16 of an IDX header");
  // A header promising 2^32 - 1 images of 65535 x 65535 pixels: checked
  // against the file's size, not allocated.
  const std::string huge = write("huge", be32(0x803) + be32(0xFFFFFFFF) + be32(0xFFFF) + be32(0xFFFF));
  EXPECT_THROW((void)data::read_mnist_images(huge), RuntimeError);
  const std::string missing = (dir_ / "nope").string();
  EXPECT_EQ(error_of([&] { (void)data::read_mnist_labels(missing); }), missing + ": no such file");
  EXPECT_THROW((void)data::read_mnist_labels(dir_.string()), RuntimeError);  // a directory
}

TEST_F(DataReadersTest, MnistDatasetScalesAndLoads) {
  write("train-images-idx3-ubyte", idx_images(5, 28, 28));
  write("train-labels-idx1-ubyte", idx_labels({5, 0, 4, 1, 9}));
  write("t10k-images-idx3-ubyte", idx_images(2, 28, 28));
  write("t10k-labels-idx1-ubyte", idx_labels({7, 2}));
  data::MNIST train(dir_.string());
  EXPECT_EQ(train.size(), 5);
  EXPECT_EQ(data::MNIST(dir_.string(), /*train=*/false).size(), 2);
  const data::Example e = train.get(1);
  EXPECT_EQ(e.data.dtype(), ScalarType::kFloat32);
  EXPECT_EQ(e.data.sizes(), (std::vector<std::int64_t>{1, 28, 28}));
  EXPECT_FLOAT_EQ(e.data.index({0, 0, 1}).item<float>(), 8.0F / 255.0F);
  EXPECT_EQ(e.target.item<std::int64_t>(), 0);
  EXPECT_THROW((void)train.get(5), IndexError);

  // The program the README shows.
  auto ds = data::MNIST(dir_.string()).map(data::Normalize(0.1307, 0.3081));
  data::DataLoader loader(ds, {.batch_size = 2, .shuffle = true, .num_workers = 2});
  EXPECT_EQ(loader.size(), 3);
  std::int64_t seen = 0;
  for (auto& batch : loader) {
    EXPECT_EQ(batch.data.size(1), 1);
    EXPECT_EQ(batch.data.size(2), 28);
    EXPECT_EQ(batch.target.dim(), 1);
    seen += batch.data.size(0);
  }
  EXPECT_EQ(seen, 5);
  const float pixel = ds.get(0).data.index({0, 0, 1}).item<float>();
  EXPECT_NEAR(pixel, (7.0F / 255.0F - 0.1307F) / 0.3081F, 1e-6);

  write("t10k-labels-idx1-ubyte", idx_labels({7}));
  EXPECT_NE(error_of([&] { data::MNIST m(dir_.string(), false); }).find("has 2 images but"), std::string::npos);
}

TEST_F(DataReadersTest, CsvParsesNumbersWithOptions) {
  const std::string path = write("t.csv", "a,b,c\n1, 2.5 ,-3\r\n\n4e2,+5,nan\n-inf,0x,7\n");
  EXPECT_EQ(error_of([&] { (void)data::read_csv(path, {.header = true}); }),
            path + ":5:2: could not convert string to float: '0x'");
  const std::string good = write("g.csv", "a,b,c\n1, 2.5 ,-3\r\n\n4e2,+5,nan\n-inf,0,7");
  const Tensor t = data::read_csv(good, {.header = true});
  EXPECT_EQ(t.dtype(), ScalarType::kFloat32);
  EXPECT_EQ(t.sizes(), (std::vector<std::int64_t>{3, 3}));
  const std::vector<double> v = values(t);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[1], 2.5);
  EXPECT_EQ(v[2], -3);
  EXPECT_EQ(v[3], 400);
  EXPECT_EQ(v[4], 5);
  EXPECT_TRUE(std::isnan(v[5]));
  EXPECT_EQ(v[6], -INFINITY);
  const Tensor d = data::read_csv(write("s.csv", "1;2\n3;4\n"), {.delimiter = ';', .dtype = ScalarType::kFloat64});
  EXPECT_EQ(d.dtype(), ScalarType::kFloat64);
  EXPECT_EQ(values(d), (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(data::read_csv(write("e.csv", "")).sizes(), (std::vector<std::int64_t>{0, 0}));
  EXPECT_EQ(data::read_csv(write("i.csv", "7,8\n"), {.dtype = ScalarType::kInt64}).dtype(), ScalarType::kInt64);
}

TEST_F(DataReadersTest, CsvErrorsNameFileLineAndColumn) {
  const std::string ragged = write("r.csv", "1,2,3\n4,5\n");
  EXPECT_EQ(error_of([&] { (void)data::read_csv(ragged); }), ragged + ":2: expected 3 fields, as on line 1, but found 2");
  const std::string words = write("w.csv", "x,y\n1,abc\n");
  try {
    (void)data::read_csv(words);
    ADD_FAILURE() << "no error";
  } catch (const ValueError& e) {
    EXPECT_EQ(std::string(e.what()), words + ":1:1: could not convert string to float: 'x'");
  }
  EXPECT_EQ(error_of([&] { (void)data::read_csv(words, {.header = true}); }),
            words + ":2:2: could not convert string to float: 'abc'");
  const std::string empty_field = write("f.csv", "1,,3\n");
  EXPECT_EQ(error_of([&] { (void)data::read_csv(empty_field); }),
            empty_field + ":1:2: could not convert string to float: ''");
  EXPECT_THROW((void)data::read_csv(write("p2.csv", "+-1\n")), ValueError);
  const std::string missing = (dir_ / "none.csv").string();
  EXPECT_EQ(error_of([&] { (void)data::read_csv(missing); }), missing + ": no such file");
}

}  // namespace
}  // namespace wick::testing
