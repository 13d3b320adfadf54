// core/frontend/serialize_zip.h - a zip archive read or written record by record (libzip), for .pt files.
/// \file
/// Private to the serialization frontend. Every failure is a
/// SerializationError naming the archive (and the record when there is one).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wick::serialize_detail {

/// Whether libzip was found when wick was built.
[[nodiscard]] bool zip_available() noexcept;

/// An archive open for reading. Record sizes are bounded before anyone
/// allocates for them: a stored record by the file's size, a compressed one
/// by deflate's largest ratio.
class ZipReader {
 public:
  /// SerializationError when the file cannot be opened or is not a zip.
  explicit ZipReader(std::string path);
  ~ZipReader();
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  /// Every record's name, in the archive's order.
  [[nodiscard]] std::vector<std::string> names() const;
  /// The record's index, or nullopt when there is none.
  [[nodiscard]] std::optional<std::uint64_t> find(const std::string& name) const;
  /// The record's uncompressed size (bounded as above).
  [[nodiscard]] std::uint64_t size(std::uint64_t index) const;
  /// Reads the first `n` bytes of the record into `dst`; SerializationError
  /// naming `key` when the record is shorter or damaged.
  void read(std::uint64_t index, void* dst, std::uint64_t n, const std::string& key) const;
  [[nodiscard]] const std::string& path() const noexcept { return path_; }

 private:
  std::string path_;
  void* zip_ = nullptr;
  std::uint64_t file_size_ = 0;
};

/// An archive being written: records are stored uncompressed, in the order
/// added; the file appears when `close` succeeds (libzip writes a temporary
/// file and renames it).
class ZipWriter {
 public:
  /// SerializationError when the file cannot be created.
  explicit ZipWriter(std::string path);
  ~ZipWriter();
  ZipWriter(const ZipWriter&) = delete;
  ZipWriter& operator=(const ZipWriter&) = delete;

  /// Adds a record; `data` must stay valid until close().
  void add(const std::string& name, const void* data, std::size_t n);
  /// Writes the archive; SerializationError when it cannot.
  void close();

 private:
  std::string path_;
  void* zip_ = nullptr;
};

}  // namespace wick::serialize_detail
