// plugins/loader/digest.cpp - SHA-256 through nettle.
/// \file
/// Note [Choosing nettle]
/// The allowlist's digest is security code, so it comes from a maintained
/// library rather than our own. Debian 12 offers OpenSSL's libcrypto and
/// nettle; on a 2-core x86-64 machine with SHA-NI, hashing a 10 MiB file
/// took 8.4 ms with libcrypto 3.0 (EVP_Digest) and 8.1 ms with nettle 3.8
/// (the hand-written code this replaces: 34 ms), while mapping the library
/// took 0.7 ms for libcrypto (4.7 MB, plus its configuration and providers)
/// and 0.1 ms for nettle (0.3 MB). Equal speed, so the smaller one.
#include "plugins/loader/digest.h"

#include <nettle/sha2.h>

#include <array>
#include <cstdint>
#include <fstream>

#include "wick/error.h"

namespace wick::detail {
namespace {

// The digest of what `ctx` has seen, in hex.
std::string finish(sha256_ctx& ctx) {
  std::array<std::uint8_t, SHA256_DIGEST_SIZE> digest{};
  sha256_digest(&ctx, digest.size(), digest.data());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * digest.size());
  for (std::uint8_t b : digest) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

}  // namespace

std::string sha256_hex(std::string_view data) {
  sha256_ctx ctx{};
  sha256_init(&ctx);
  sha256_update(&ctx, data.size(), reinterpret_cast<const std::uint8_t*>(data.data()));
  return finish(ctx);
}

std::string sha256_file_hex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  WICK_CHECK(in.good(), PluginError, path, ": cannot read the file to compute its SHA-256");
  sha256_ctx ctx{};
  sha256_init(&ctx);
  std::array<char, 1 << 16> buf{};
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    sha256_update(&ctx, static_cast<std::size_t>(in.gcount()), reinterpret_cast<const std::uint8_t*>(buf.data()));
  }
  WICK_CHECK(in.eof(), PluginError, path, ": error while reading the file to compute its SHA-256");
  return finish(ctx);
}

}  // namespace wick::detail
