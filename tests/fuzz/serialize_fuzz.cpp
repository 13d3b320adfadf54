// tests/fuzz/serialize_fuzz.cpp - libFuzzer target: wick::load_pt and wick::load_safetensors over arbitrary files.
/// \file
/// The input's first byte picks the reader (even: .pt, odd: safetensors);
/// the rest is the file, written to a file in the system's temporary
/// directory (the readers take paths). Any wick::SerializationError is a fine answer; any other
/// exception, a sanitizer report, a leak, a hang or an allocation beyond the
/// input's size is a bug (Note [The pickle subset],
/// core/frontend/serialize_pickle.cpp). The seeds in corpus/serialize are
/// fixtures of tests/data/reference/serialization with that first byte
/// prepended.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "wick/loader.h"
#include "wick/serialize.h"

namespace {

// In the system's temporary directory (TMPDIR), one file per process.
const std::string& scratch_path() {
  static const std::string path =
      (std::filesystem::temp_directory_path() / ("wick_serialize_fuzz_" + std::to_string(::getpid()))).string();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const bool ready = [] {
    wick::init();
    return true;
  }();
  (void)ready;
  if (size == 0) return 0;
  const std::string& path = scratch_path();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  const bool written = std::fwrite(data + 1, 1, size - 1, f) == size - 1;
  std::fclose(f);
  if (!written) return 0;
  try {
    if (data[0] % 2 == 0) {
      (void)wick::load_pt(path);
    } else {
      (void)wick::load_safetensors(path);
    }
  } catch (const wick::SerializationError&) {
  }
  std::remove(path.c_str());
  return 0;
}
