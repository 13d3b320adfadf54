// core/distributed/store_keys.h - private: what the stores share (counters, timeout errors).
/// \file
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace wick::distributed {

/// Adds `delta` to the decimal counter held in `value` (empty: 0), stores
/// the sum back as decimal text (as PyTorch's stores do) and returns it;
/// ValueError when `value` is not a counter.
std::int64_t add_to_counter(std::vector<std::uint8_t>& value, std::int64_t delta, const std::string& key);

/// DistributedError: "<where>: timed out after N ms waiting for keys [...]".
[[noreturn]] void throw_wait_timeout(const std::vector<std::string>& missing, std::chrono::milliseconds timeout,
                                     const std::string& where);

}  // namespace wick::distributed
