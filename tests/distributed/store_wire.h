// tests/distributed/store_wire.h - the TCPStore wire format as a client writes it, for tests and store_fuzz.
/// \file
/// Note [The store's wire format] (core/distributed/tcp_store.cpp): a
/// command byte, strings as a 32-bit length and the bytes, integers as
/// 64-bit little-endian values. Header-only; the tests that speak the
/// protocol by hand write requests with these.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace wick_test::store_wire {

/// Raw request or reply bytes.
using Bytes = std::vector<std::uint8_t>;

/// The command bytes the server knows.
enum Command : std::uint8_t { kSet = 1, kGet, kAdd, kWait, kCheck, kDelete, kNumKeys, kRegister, kDead, kBye };

/// Appends `v`, little-endian.
inline void put_u32(Bytes& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
/// Appends `v`, little-endian.
inline void put_i64(Bytes& out, std::int64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(static_cast<std::uint64_t>(v) >> (8 * i)));
}
/// Appends `s` as its 32-bit length and its bytes.
inline void put_str(Bytes& out, const std::string& s) {
  put_u32(out, static_cast<std::uint32_t>(s.size()));
  out.insert(out.end(), s.begin(), s.end());
}

}  // namespace wick_test::store_wire
