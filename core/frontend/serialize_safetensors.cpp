// core/frontend/serialize_safetensors.cpp - the safetensors format: save_safetensors and load_safetensors.
/// \file
/// Note [The safetensors layout]
/// A file is: the header's length N (8 bytes, little-endian unsigned), N
/// bytes of JSON (an object; writers pad it with spaces to a multiple of 8 so
/// the data is aligned), then the data. Each header entry but
/// `__metadata__` is `{"dtype": "F32", "shape": [2, 3], "data_offsets":
/// [begin, end]}` with offsets relative to the start of the data; the
/// entries tile the data exactly. `__metadata__`, when present, maps strings
/// to strings. Loading checks all of it before reading any tensor, and reads
/// each tensor into a storage of its own.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "wick/checked.h"
#include "wick/serialize.h"

static_assert(std::endian::native == std::endian::little, "safetensors stores little-endian bytes");

namespace wick {

namespace {

using Json = nlohmann::ordered_json;

struct DtypeName {
  const char* name;
  ScalarType dtype;
};
constexpr DtypeName kDtypes[] = {
    {"F64", ScalarType::kFloat64}, {"F32", ScalarType::kFloat32}, {"F16", ScalarType::kFloat16},
    {"BF16", ScalarType::kBFloat16}, {"I64", ScalarType::kInt64}, {"I32", ScalarType::kInt32},
    {"I16", ScalarType::kInt16},   {"I8", ScalarType::kInt8},     {"U8", ScalarType::kUInt8},
    {"BOOL", ScalarType::kBool},
};
// The reference implementation refuses headers past 100 MB too.
constexpr std::uint64_t kMaxHeader = 100'000'000;
constexpr const char* kMetadataKey = "__metadata__";

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

[[noreturn]] void fail(const std::string& path, const std::string& key, const std::string& what) {
  throw SerializationError(path, key, what);
}

void read_exact(std::FILE* f, void* dst, std::size_t n, const std::string& path, const std::string& key) {
  if (n > 0 && std::fread(dst, 1, n, f) != n) fail(path, key, "cannot read the file (truncated?)");
}

void write_exact(std::FILE* f, const void* src, std::size_t n, const std::string& path) {
  if (n > 0 && std::fwrite(src, 1, n, f) != n) fail(path, "", "cannot write the file");
}

/// One header entry, checked.
struct Entry {
  std::string name;
  ScalarType dtype = ScalarType::kFloat32;
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

Entry parse_entry(const std::string& path, const std::string& name, const Json& v, std::uint64_t data_size) {
  Entry e;
  e.name = name;
  if (!v.is_object()) fail(path, name, "the header entry is not an object");
  const auto dtype = v.find("dtype");
  if (dtype == v.end() || !dtype->is_string()) fail(path, name, "the header entry has no dtype");
  const std::string& dt = dtype->get_ref<const std::string&>();
  const auto known = std::find_if(std::begin(kDtypes), std::end(kDtypes), [&](const DtypeName& d) { return dt == d.name; });
  if (known == std::end(kDtypes)) fail(path, name, "unknown or unsupported dtype '" + dt + "'");
  e.dtype = known->dtype;
  const auto shape = v.find("shape");
  if (shape == v.end() || !shape->is_array() || shape->size() > 64) fail(path, name, "the header entry has no valid shape");
  std::int64_t numel = 1;
  for (const Json& d : *shape) {
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX)) {
      fail(path, name, "the shape holds something other than a non-negative integer");
    }
    e.shape.push_back(d.get<std::int64_t>());
    const std::optional<std::int64_t> n = try_mul(numel, e.shape.back());
    if (!n) fail(path, name, "the shape's element count overflows");
    numel = *n;
  }
  const auto offsets = v.find("data_offsets");
  if (offsets == v.end() || !offsets->is_array() || offsets->size() != 2 || !(*offsets)[0].is_number_unsigned() ||
      !(*offsets)[1].is_number_unsigned()) {
    fail(path, name, "the header entry has no valid data_offsets");
  }
  e.begin = (*offsets)[0].get<std::uint64_t>();
  e.end = (*offsets)[1].get<std::uint64_t>();
  if (e.begin > e.end || e.end > data_size) {
    fail(path, name, "data_offsets [" + std::to_string(e.begin) + ", " + std::to_string(e.end) +
                         "] lie outside the " + std::to_string(data_size) + " bytes of data");
  }
  const std::optional<std::int64_t> nbytes = try_mul(numel, static_cast<std::int64_t>(itemsize(e.dtype)));
  if (!nbytes || static_cast<std::uint64_t>(*nbytes) != e.end - e.begin) {
    fail(path, name, "the shape and dtype need " + (nbytes ? std::to_string(*nbytes) : std::string("too many")) +
                         " bytes, data_offsets give " + std::to_string(e.end - e.begin));
  }
  return e;
}

}  // namespace

void save_safetensors(const std::string& path, const NamedTensors& tensors,
                      const std::map<std::string, std::string>& metadata) {
  Json header = Json::object();
  if (!metadata.empty()) {
    Json m = Json::object();
    for (const auto& [k, v] : metadata) m[k] = v;
    header[kMetadataKey] = std::move(m);
  }
  std::vector<Tensor> data;
  std::unordered_set<std::string> names;
  std::uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    if (name.empty() || name == kMetadataKey) fail(path, name, "not a valid tensor name");
    if (!names.insert(name).second) fail(path, name, "the name is given twice");
    if (!tensor.defined()) fail(path, name, "cannot save an undefined tensor");
    const ScalarType dtype = tensor.dtype();
    const auto known =
        std::find_if(std::begin(kDtypes), std::end(kDtypes), [dtype](const DtypeName& d) { return d.dtype == dtype; });
    if (known == std::end(kDtypes)) {
      fail(path, name, "safetensors has no dtype for " + std::string(dtype_name(tensor.dtype())));
    }
    Tensor t = tensor.device().is_cpu() ? tensor : tensor.to(Device(DeviceType::kCPU));
    t = t.contiguous();
    const std::uint64_t nbytes = static_cast<std::uint64_t>(t.numel()) * itemsize(t.dtype());
    header[name] = {{"dtype", known->name},
                    {"shape", std::vector<std::int64_t>(t.sizes().begin(), t.sizes().end())},
                    {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
    data.push_back(std::move(t));
  }
  std::string text;
  try {
    text = header.dump();
  } catch (const nlohmann::json::exception& e) {
    fail(path, "", std::string("cannot write the header: ") + e.what());
  }
  text.append((8 - text.size() % 8) % 8, ' ');
  // Written beside the target and renamed, so a failed save leaves no partial file.
  const std::string tmp = path + ".tmp";
  {
    File f(std::fopen(tmp.c_str(), "wb"));
    if (!f) fail(path, "", "cannot create the file");
    unsigned char len[8];
    for (int k = 0; k < 8; ++k) len[k] = static_cast<unsigned char>((text.size() >> (8 * k)) & 0xff);
    try {
      write_exact(f.get(), len, 8, path);
      write_exact(f.get(), text.data(), text.size(), path);
      for (const Tensor& t : data) {
        write_exact(f.get(), t.data_ptr(), static_cast<std::size_t>(t.numel()) * itemsize(t.dtype()), path);
      }
      if (std::fflush(f.get()) != 0) fail(path, "", "cannot write the file");
    } catch (...) {
      f.reset();
      std::remove(tmp.c_str());
      throw;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    fail(path, "", "cannot write the file: " + ec.message());
  }
}

SafetensorsContents load_safetensors(const std::string& path) {
  std::error_code ec;
  const std::uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) fail(path, "", "cannot open the file: " + ec.message());
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) fail(path, "", "cannot open the file");
  if (file_size < 8) fail(path, "", "too short for a safetensors file (" + std::to_string(file_size) + " bytes)");
  unsigned char len[8];
  read_exact(f.get(), len, 8, path, "");
  std::uint64_t n = 0;
  for (int k = 0; k < 8; ++k) n |= static_cast<std::uint64_t>(len[k]) << (8 * k);
  if (n > file_size - 8 || n > kMaxHeader) {
    fail(path, "", "the header's length (" + std::to_string(n) + " bytes) runs past the end of the file");
  }
  std::string text(n, '\0');
  read_exact(f.get(), text.data(), text.size(), path, "");
  if (text.empty() || text[0] != '{') fail(path, "", "the header is not a JSON object");
  Json header;
  try {
    header = Json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    fail(path, "", std::string("the header is not valid JSON: ") + e.what());
  }
  if (!header.is_object()) fail(path, "", "the header is not a JSON object");
  const std::uint64_t data_size = file_size - 8 - n;

  SafetensorsContents out;
  std::vector<Entry> entries;
  for (const auto& [key, value] : header.items()) {
    if (key == kMetadataKey) {
      if (!value.is_object()) fail(path, key, "__metadata__ is not an object");
      for (const auto& [mk, mv] : value.items()) {
        if (!mv.is_string()) fail(path, key, "__metadata__['" + mk + "'] is not a string");
        out.metadata[mk] = mv.get<std::string>();
      }
      continue;
    }
    entries.push_back(parse_entry(path, key, value, data_size));
  }
  // The entries must tile the data: sorted by offset, each starts where the last ended.
  std::vector<const Entry*> sorted;
  for (const Entry& e : entries) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const Entry* a, const Entry* b) {
    return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
  });
  std::uint64_t expected = 0;
  for (const Entry* e : sorted) {
    if (e->begin != expected) {
      fail(path, e->name, e->begin < expected ? "its data overlaps another tensor's"
                                              : "there is a gap of " + std::to_string(e->begin - expected) +
                                                    " bytes before its data");
    }
    expected = e->end;
  }
  if (expected != data_size) {
    fail(path, "", std::to_string(data_size - expected) + " bytes of data belong to no tensor");
  }
  for (const Entry& e : entries) {
    const std::size_t nbytes = static_cast<std::size_t>(e.end - e.begin);
    Storage s = IntrusivePtr<StorageImpl>::make(nbytes, Device(DeviceType::kCPU));
    if (std::fseek(f.get(), static_cast<long>(8 + n + e.begin), SEEK_SET) != 0) {
      fail(path, e.name, "cannot read the file");
    }
    read_exact(f.get(), s->data(), nbytes, path, e.name);
    const DimVector strides = contiguous_strides(IntArrayRef(e.shape));
    out.tensors.emplace_back(e.name, Tensor(IntrusivePtr<TensorImpl>::make(std::move(s), e.dtype, IntArrayRef(e.shape),
                                                                          IntArrayRef(strides), 0)));
  }
  return out;
}

}  // namespace wick
