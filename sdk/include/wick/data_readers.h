// wick/data_readers.h - reading data files: MNIST's IDX files (and the MNIST dataset), CSV tables.
/// \file
///   auto train = wick::data::MNIST("data/mnist");               // 60000 examples: [1, 28, 28] float32 in [0, 1], int64 label
///   auto test = wick::data::MNIST("data/mnist", /*train=*/false);
///   wick::Tensor images = wick::data::read_mnist_images("data/mnist/t10k-images-idx3-ubyte");  // uint8 [10000, 28, 28]
///   wick::Tensor table = wick::data::read_csv("iris.csv", {.header = true});                  // float32 [150, 5]
///
/// Every error names the file; a RuntimeError for one that cannot be read or
/// is not what it should be (a wrong magic number, truncated, trailing
/// bytes), a ValueError for a CSV field that is not a number or a row of the
/// wrong length (naming the line and the column). Sizes written in a file
/// are checked against the file's size before anything is allocated.
#pragma once

#include <cstdint>
#include <string>

#include "wick/data_dataset.h"
#include "wick/dtype.h"
#include "wick/export.h"
#include "wick/tensor.h"

namespace wick::data {

/// The images of an IDX3 file (magic 0x00000803, big-endian counts of
/// images, rows and columns, then one uint8 per pixel): uint8 [N, rows,
/// cols]. The file must hold exactly what its header says.
[[nodiscard]] WICK_API Tensor read_mnist_images(const std::string& path);
/// The labels of an IDX1 file (magic 0x00000801, a big-endian count, one
/// uint8 per label): int64 [N].
[[nodiscard]] WICK_API Tensor read_mnist_labels(const std::string& path);

/// The MNIST digits (torchvision.datasets.MNIST on the raw files) from
/// `root`, which holds train-images-idx3-ubyte and train-labels-idx1-ubyte
/// (`train`) or t10k-images-idx3-ubyte and t10k-labels-idx1-ubyte.
/// Example i is {the image as float32 [1, rows, cols] in [0, 1] (pixel /
/// 255, as ToTensor), its label as an int64 scalar}. The readers' errors,
/// and a RuntimeError when the two files count different numbers.
class WICK_API MNIST final : public DatasetBase<MNIST> {
 public:
  /// Reads the training files (`train`, the default) or the test files from `root`; the errors above.
  explicit MNIST(const std::string& root, bool train = true);
  [[nodiscard]] std::int64_t size() const override { return labels_.size(0); }
  /// IndexError "index 60000 is out of bounds for dimension 0 with size 60000".
  [[nodiscard]] Example get(std::int64_t index) const override;
  /// All the images, uint8 [N, rows, cols], and the labels, int64 [N].
  [[nodiscard]] const Tensor& images() const noexcept { return images_; }
  /// All the labels, int64 [N] (torchvision's `targets`).
  [[nodiscard]] const Tensor& targets() const noexcept { return labels_; }

 private:
  Tensor images_;
  Tensor labels_;
};

/// How `read_csv` reads a table.
struct CsvOptions {
  /// Skip the first line (the column names).
  bool header = false;
  /// The field separator.
  char delimiter = ',';
  /// The result's dtype; values are parsed as double and converted (an
  /// integer dtype truncates them toward zero).
  ScalarType dtype = ScalarType::kFloat32;
};

/// A CSV file of numbers as a 2-D tensor [rows, columns]. Fields may have
/// spaces around them; blank lines are skipped; "nan" and "inf" are
/// numbers; CRLF line ends are fine; quoted fields are not supported.
/// ValueError "data.csv:3:2: could not convert string to float: 'abc'"
/// (file:line:column) for a field that is not a number, and "data.csv:4:
/// expected 3 fields, as on line 1, but found 2" for a ragged row;
/// RuntimeError when the file cannot be read. An empty file gives [0, 0].
[[nodiscard]] WICK_API Tensor read_csv(const std::string& path, const CsvOptions& options = {});

}  // namespace wick::data
