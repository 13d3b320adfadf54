// tests/serialization/serialization_test_util.h - fixtures, expected values and temporary files for the serialization tests.
/// \file
/// The fixtures are written by make_serialization_fixtures.py (PyTorch 1.13)
/// into tests/data/reference/serialization and copied into the build with
/// the rest of the reference data.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/test_paths.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/serialize.h"

namespace wick_test::serialization {

inline std::string fixture(const std::string& name) { return reference_dir() + "/serialization/" + name; }

inline const nlohmann::json& expected() {
  static const nlohmann::json doc = [] {
    std::ifstream in(fixture("expected.json"));
    return nlohmann::json::parse(in);
  }();
  return doc;
}

/// The elements of `t` in row-major order as doubles (complex: re, im pairs).
inline std::vector<double> values(const wick::Tensor& t) {
  wick::Tensor c = t.detach().contiguous();
  std::vector<double> out;
  if (wick::is_complex(c.dtype())) {
    const auto* p = static_cast<const std::complex<float>*>(c.data_ptr());
    for (std::int64_t i = 0; i < c.numel(); ++i) {
      out.push_back(p[i].real());
      out.push_back(p[i].imag());
    }
    return out;
  }
  c = c.to(wick::ScalarType::kFloat64).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

/// Checks `t` against expected.json's entry for file `file`, key `key`.
inline void expect_matches(const wick::Tensor& t, const std::string& file, const std::string& key,
                           bool check_layout = true) {
  SCOPED_TRACE(file + " '" + key + "'");
  const nlohmann::json& e = expected().at(file).at(key);
  ASSERT_TRUE(t.defined());
  EXPECT_EQ(std::string(wick::dtype_name(t.dtype())), e.at("dtype").get<std::string>());
  EXPECT_EQ(std::vector<std::int64_t>(t.sizes().begin(), t.sizes().end()), e.at("shape").get<std::vector<std::int64_t>>());
  if (check_layout) {
    EXPECT_EQ(std::vector<std::int64_t>(t.strides().begin(), t.strides().end()),
              e.at("strides").get<std::vector<std::int64_t>>());
    EXPECT_EQ(t.storage_offset(), e.at("storage_offset").get<std::int64_t>());
  }
  std::vector<double> want;
  for (const nlohmann::json& v : e.at("values")) {
    if (v.is_array()) {
      want.push_back(v[0].get<double>());
      want.push_back(v[1].get<double>());
    } else {
      want.push_back(v.get<double>());
    }
  }
  EXPECT_EQ(values(t), want);
  EXPECT_TRUE(t.device().is_cpu());
}

/// A fresh directory under the system's temporary directory, removed afterwards.
class TempDir {
 public:
  TempDir() {
    static int counter = 0;
    path_ = std::filesystem::temp_directory_path() /
            ("wick_serialization_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Expects `stmt` to throw a SerializationError naming `path` and `key`
/// whose message contains `text`.
#define WICK_EXPECT_SERIALIZATION_ERROR(stmt, path_, key_, text)                            \
  do {                                                                                     \
    try {                                                                                  \
      (void)(stmt);                                                                        \
      ADD_FAILURE() << "expected a SerializationError from: " #stmt;                       \
    } catch (const wick::SerializationError& e) {                                          \
      EXPECT_EQ(e.path(), (path_)) << e.what();                                            \
      EXPECT_EQ(e.key(), (key_)) << e.what();                                              \
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();          \
      EXPECT_EQ(std::string(e.what()).rfind(std::string(path_) + ": ", 0), 0u) << e.what(); \
    }                                                                                      \
  } while (0)

/// The first `python3` on PATH that runs `code` (quoted for a shell), or ""
/// when none does: the interpreter is the host's, found where it runs, not
/// named by a path baked into the tests.
inline std::string find_python(const std::string& code) {
  const char* path = std::getenv("PATH");
  std::string dirs = path == nullptr ? "" : path;
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string dir = dirs.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) continue;
    const std::filesystem::path exe = std::filesystem::path(dir) / "python3";
    std::error_code ec;
    if (!std::filesystem::exists(exe, ec)) continue;
    const std::string quoted = "'" + exe.string() + "'";
    if (std::system((quoted + " -c '" + code + "' >/dev/null 2>&1").c_str()) == 0) return quoted;
  }
  return "";
}

/// A python3 on PATH that can import torch, or "" (asked once per process).
inline const std::string& python_with_torch() {
  static const std::string python = find_python("import torch");
  return python;
}
inline bool have_torch() { return !python_with_torch().empty(); }

/// Any python3 on PATH, or "".
inline const std::string& any_python() {
  static const std::string python = find_python("pass");
  return python;
}

}  // namespace wick_test::serialization
