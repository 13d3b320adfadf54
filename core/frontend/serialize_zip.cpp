// core/frontend/serialize_zip.cpp - ZipReader and ZipWriter over libzip.
/// \file
/// Note [Choosing libzip]
/// The .pt format is a plain zip of uncompressed records. Debian offers two
/// well-kept zip libraries: libzip (1.7) and minizip (zlib's contrib, 1.1).
/// libzip reads and writes through one API, checks an archive's consistency
/// on open (ZIP_CHECKCONS: the central directory against the local headers),
/// verifies each record's CRC when it is read to its end, handles zip64, and
/// writes through a temporary file renamed on close, so a failed save leaves
/// no half-written file. minizip needs its separate zip and unzip halves, a
/// 64-bit variant of each call for large files, and leaves those checks to
/// the caller. The checks cost little: tools/bench/bench_serialize.cpp loads
/// a 100 MB state_dict from .pt in about 50 ms of CPU (a copy and a CRC per
/// record), against about 10 ms from safetensors (plain reads, no checksum).
#include "core/frontend/serialize_zip.h"

#include <cstdio>
#include <filesystem>
#include <system_error>
#include <utility>

#include "wick/serialize.h"

#ifdef WICK_HAVE_LIBZIP
#include <zip.h>
#endif

namespace wick::serialize_detail {

namespace {
[[noreturn]] void fail(const std::string& path, const std::string& key, const std::string& what) {
  throw SerializationError(path, key, what);
}
}  // namespace

#ifdef WICK_HAVE_LIBZIP

bool zip_available() noexcept { return true; }

namespace {
zip_t* as_zip(void* z) { return static_cast<zip_t*>(z); }

std::string error_text(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string s = zip_error_strerror(&e);
  zip_error_fini(&e);
  return s;
}

// Deflate expands at most about 1032:1; anything claiming more is corrupt.
constexpr std::uint64_t kMaxDeflateRatio = 1032;
}  // namespace

ZipReader::ZipReader(std::string path) : path_(std::move(path)) {
  std::error_code ec;
  file_size_ = std::filesystem::file_size(path_, ec);
  if (ec) fail(path_, "", "cannot open the file: " + ec.message());
  int code = 0;
  zip_ = zip_open(path_.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (zip_ == nullptr) {
    // torch.save's format before PyTorch 1.6 is a bare pickle (protocol 2).
    unsigned char head[2] = {0, 0};
    if (std::FILE* f = std::fopen(path_.c_str(), "rb")) {
      if (std::fread(head, 1, 2, f) != 2) head[0] = 0;
      std::fclose(f);
    }
    if (head[0] == 0x80 && head[1] == 0x02) {
      fail(path_, "", "PyTorch's legacy format (before 1.6, or _use_new_zipfile_serialization=False) is not "
                      "supported: save it again with torch.save's default zip format");
    }
    fail(path_, "", "not a readable zip archive (" + error_text(code) + ")");
  }
}

ZipReader::~ZipReader() {
  if (zip_ != nullptr) zip_discard(as_zip(zip_));
}

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> out;
  const zip_int64_t n = zip_get_num_entries(as_zip(zip_), 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const char* name = zip_get_name(as_zip(zip_), static_cast<zip_uint64_t>(i), ZIP_FL_ENC_RAW);
    out.emplace_back(name == nullptr ? "" : name);
  }
  return out;
}

std::optional<std::uint64_t> ZipReader::find(const std::string& name) const {
  const zip_int64_t i = zip_name_locate(as_zip(zip_), name.c_str(), ZIP_FL_ENC_RAW);
  if (i < 0) return std::nullopt;
  return static_cast<std::uint64_t>(i);
}

std::uint64_t ZipReader::size(std::uint64_t index) const {
  zip_stat_t st;
  zip_stat_init(&st);
  const char* name = zip_get_name(as_zip(zip_), index, ZIP_FL_ENC_RAW);
  const std::string key = name == nullptr ? "" : name;
  if (zip_stat_index(as_zip(zip_), index, 0, &st) != 0 || (st.valid & ZIP_STAT_SIZE) == 0 ||
      (st.valid & ZIP_STAT_COMP_SIZE) == 0 || (st.valid & ZIP_STAT_COMP_METHOD) == 0) {
    fail(path_, key, std::string("cannot read the record's size (") + zip_strerror(as_zip(zip_)) + ")");
  }
  if (st.comp_size > file_size_) fail(path_, key, "the record is larger than the file");
  const bool stored = st.comp_method == ZIP_CM_STORE;
  if ((stored && st.size != st.comp_size) || (!stored && st.size / kMaxDeflateRatio > st.comp_size + 1)) {
    fail(path_, key, "the record's size (" + std::to_string(st.size) + " bytes) does not fit its " +
                         std::to_string(st.comp_size) + " bytes in the file");
  }
  return st.size;
}

void ZipReader::read(std::uint64_t index, void* dst, std::uint64_t n, const std::string& key) const {
  if (n > size(index)) fail(path_, key, "the record is shorter than the " + std::to_string(n) + " bytes needed");
  zip_file_t* f = zip_fopen_index(as_zip(zip_), index, 0);
  if (f == nullptr) fail(path_, key, std::string("cannot open the record (") + zip_strerror(as_zip(zip_)) + ")");
  std::uint64_t done = 0;
  auto* out = static_cast<char*>(dst);
  while (done < n) {
    const zip_int64_t got = zip_fread(f, out + done, n - done);
    if (got <= 0) {
      const std::string why = got < 0 ? zip_error_strerror(zip_file_get_error(f)) : "unexpected end of record";
      zip_fclose(f);
      fail(path_, key, "cannot read the record (" + why + ")");
    }
    done += static_cast<std::uint64_t>(got);
  }
  zip_fclose(f);
}

ZipWriter::ZipWriter(std::string path) : path_(std::move(path)) {
  int code = 0;
  zip_ = zip_open(path_.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  if (zip_ == nullptr) fail(path_, "", "cannot create the file (" + error_text(code) + ")");
}

ZipWriter::~ZipWriter() {
  if (zip_ != nullptr) zip_discard(as_zip(zip_));
}

void ZipWriter::add(const std::string& name, const void* data, std::size_t n) {
  zip_source_t* src = zip_source_buffer(as_zip(zip_), n == 0 ? nullptr : data, n, 0);
  if (src == nullptr) fail(path_, name, std::string("cannot add the record (") + zip_strerror(as_zip(zip_)) + ")");
  const zip_int64_t i = zip_file_add(as_zip(zip_), name.c_str(), src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8);
  if (i < 0) {
    zip_source_free(src);
    fail(path_, name, std::string("cannot add the record (") + zip_strerror(as_zip(zip_)) + ")");
  }
  if (zip_set_file_compression(as_zip(zip_), static_cast<zip_uint64_t>(i), ZIP_CM_STORE, 0) != 0) {
    fail(path_, name, std::string("cannot store the record (") + zip_strerror(as_zip(zip_)) + ")");
  }
}

void ZipWriter::close() {
  if (zip_close(as_zip(zip_)) != 0) {
    const std::string why = zip_strerror(as_zip(zip_));
    zip_discard(as_zip(zip_));
    zip_ = nullptr;
    fail(path_, "", "cannot write the file (" + why + ")");
  }
  zip_ = nullptr;
}

#else  // !WICK_HAVE_LIBZIP

bool zip_available() noexcept { return false; }

namespace {
constexpr const char* kNoZip = "this build of wick has no .pt support (libzip was not found; install libzip-dev)";
}

ZipReader::ZipReader(std::string path) : path_(std::move(path)) { fail(path_, "", kNoZip); }
ZipReader::~ZipReader() = default;
std::vector<std::string> ZipReader::names() const { return {}; }
std::optional<std::uint64_t> ZipReader::find(const std::string&) const { return std::nullopt; }
std::uint64_t ZipReader::size(std::uint64_t) const { return 0; }
void ZipReader::read(std::uint64_t, void*, std::uint64_t, const std::string&) const { fail(path_, "", kNoZip); }
ZipWriter::ZipWriter(std::string path) : path_(std::move(path)) { fail(path_, "", kNoZip); }
ZipWriter::~ZipWriter() = default;
void ZipWriter::add(const std::string&, const void*, std::size_t) { fail(path_, "", kNoZip); }
void ZipWriter::close() { fail(path_, "", kNoZip); }

#endif

}  // namespace wick::serialize_detail
