// core/frontend/data_readers.cpp - IDX (MNIST) and CSV readers, and the MNIST dataset.
/// \file
#include "wick/data_readers.h"

#include <charconv>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/ops.h"

namespace wick::data {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw RuntimeError(path + ": " + what);
}

// An open file and its size in bytes; RuntimeError naming the file when it
// cannot be opened.
struct OpenFile {
  File file;
  std::int64_t size = 0;
};

OpenFile open_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (status.type() == std::filesystem::file_type::not_found) fail(path, "no such file");
  if (ec) fail(path, "cannot open the file: " + ec.message());
  if (status.type() != std::filesystem::file_type::regular) fail(path, "not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, "cannot read the file's size: " + ec.message());
  OpenFile f{File(std::fopen(path.c_str(), "rb")), static_cast<std::int64_t>(size)};
  if (!f.file) fail(path, "cannot open the file");
  return f;
}

void read_exact(std::FILE* f, void* out, std::int64_t n, const std::string& path) {
  if (n > 0 && std::fread(out, 1, static_cast<std::size_t>(n), f) != static_cast<std::size_t>(n)) {
    fail(path, "read error (the file changed while it was read?)");
  }
}

std::uint32_t big_endian32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// Reads an IDX file of uint8 whose magic is `magic` and which has `dims`
// dimensions: the tensor uint8 [d0, d1, ...]. Every count comes from the
// file, so the bytes they add up to are checked against its size first.
Tensor read_idx_uint8(const std::string& path, std::uint32_t magic, int dims, const char* what) {
  OpenFile f = open_file(path);
  const std::int64_t header = 4 + 4 * std::int64_t{dims};
  if (f.size < header) {
    fail(path, "truncated: " + std::to_string(f.size) + " bytes, fewer than the " + std::to_string(header) +
                   " of an IDX header");
  }
  unsigned char head[16] = {};
  read_exact(f.file.get(), head, header, path);
  const std::uint32_t got = big_endian32(head);
  if (got != magic) {
    char text[96];
    std::snprintf(text, sizeof text, "not an IDX file of %s: magic number 0x%08X, expected 0x%08X", what,
                  static_cast<unsigned>(got), static_cast<unsigned>(magic));
    std::string msg = text;
    if (head[0] == 0x1f && head[1] == 0x8b) msg += " (it is gzip-compressed: decompress it first)";
    fail(path, msg);
  }
  std::vector<std::int64_t> sizes;
  for (int d = 0; d < dims; ++d) sizes.push_back(big_endian32(head + 4 + 4 * d));
  const std::int64_t body = checked_numel(sizes);
  const std::int64_t want = checked_add(header, body, "read_mnist: file size");
  if (f.size != want) {
    std::string shape;
    for (std::size_t d = 0; d < sizes.size(); ++d) shape += (d ? " x " : "") + std::to_string(sizes[d]);
    fail(path, std::string(f.size < want ? "truncated" : "trailing bytes") + ": the header describes " + shape +
                   " bytes (" + std::to_string(want) + " with the header), the file has " + std::to_string(f.size));
  }
  Tensor out = empty(sizes, ScalarType::kUInt8);
  read_exact(f.file.get(), out.data_ptr(), body, path);
  return out;
}

}  // namespace

Tensor read_mnist_images(const std::string& path) { return read_idx_uint8(path, 0x00000803, 3, "images"); }

Tensor read_mnist_labels(const std::string& path) {
  return read_idx_uint8(path, 0x00000801, 1, "labels").to(ScalarType::kInt64);
}

MNIST::MNIST(const std::string& root, bool train) {
  const std::filesystem::path dir(root);
  const std::string images = (dir / (train ? "train-images-idx3-ubyte" : "t10k-images-idx3-ubyte")).string();
  const std::string labels = (dir / (train ? "train-labels-idx1-ubyte" : "t10k-labels-idx1-ubyte")).string();
  images_ = read_mnist_images(images);
  labels_ = read_mnist_labels(labels);
  WICK_CHECK(images_.size(0) == labels_.size(0), RuntimeError, "MNIST: ", images, " has ", images_.size(0),
             " images but ", labels, " has ", labels_.size(0), " labels");
}

Example MNIST::get(std::int64_t index) const {
  return {images_[index].unsqueeze(0).to(ScalarType::kFloat32).div(255), labels_[index]};
}

namespace {

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

// The number in `field`, as Python's float() reads it (with a sign, "nan",
// "inf"); ValueError naming the place otherwise.
double parse_number(std::string_view field, const std::string& path, std::int64_t line, std::int64_t column) {
  const std::string_view s = trim(field);
  std::string_view digits = s;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const bool whole = !digits.empty() && end == digits.data() + digits.size() && (s.front() != '+' || digits.front() != '-');
  WICK_CHECK(whole && (ec == std::errc() || ec == std::errc::result_out_of_range), ValueError, path, ":", line, ":",
             column, ": could not convert string to float: '", s, "'");
  // Past double's range: what Python's float() gives (inf, or 0 for an underflow).
  if (ec == std::errc::result_out_of_range) value = std::strtod(std::string(digits).c_str(), nullptr);
  return value;
}

}  // namespace

Tensor read_csv(const std::string& path, const CsvOptions& options) {
  OpenFile f = open_file(path);
  std::string text(static_cast<std::size_t>(f.size), '\0');
  read_exact(f.file.get(), text.data(), f.size, path);

  std::vector<double> values;
  std::int64_t columns = -1;
  std::int64_t first_row_line = 0;
  std::int64_t rows = 0;
  std::int64_t line = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    const std::string_view row(text.data() + pos, eol - pos);
    pos = eol + 1;
    ++line;
    if (line == 1 && options.header) continue;
    if (trim(row).empty()) continue;
    std::int64_t fields = 0;
    std::size_t start = 0;
    for (;;) {
      std::size_t stop = row.find(options.delimiter, start);
      if (stop == std::string_view::npos) stop = row.size();
      ++fields;
      values.push_back(parse_number(row.substr(start, stop - start), path, line, fields));
      if (stop == row.size()) break;
      start = stop + 1;
    }
    if (columns < 0) {
      columns = fields;
      first_row_line = line;
    }
    WICK_CHECK(fields == columns, ValueError, path, ":", line, ": expected ", columns, " fields, as on line ",
               first_row_line, ", but found ", fields);
    ++rows;
  }
  if (columns < 0) columns = 0;
  // rows * columns == values.size(): both count what the file holds.
  Tensor table = empty({rows, columns}, ScalarType::kFloat64);
  double* out = table.data_ptr<double>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return options.dtype == ScalarType::kFloat64 ? table : table.to(options.dtype);
}

}  // namespace wick::data
