// wick/sort_key.h - each element's unsigned key, whose integer order is the sort order: for every backend's sorts.
/// \file
/// Note [Sorting keys]
/// Every backend's argsort orders elements as PyTorch's CPU sort does:
/// stable, -0.0 equal to +0.0, NaN above every number (first when
/// descending). Each element maps to an unsigned key whose order as an
/// integer is that order, so that a radix sort, which compares no pairs,
/// can sort it (the CPU's in backends/cpu/sort_ops.cpp, CUB's on CUDA):
/// - floats (float16 and bfloat16 widened to float32, exactly) flip every
///   bit when negative and the sign bit otherwise; -0.0 becomes +0.0 first
///   and every NaN the largest key;
/// - signed integers flip their sign bit (of their own width), unsigned
///   integers and bool are their own keys;
/// - a descending sort complements every key: a stable ascending sort of
///   the complements keeps equal elements in their order and puts NaN first.
/// Keys are 32 bits for elements of up to 4 bytes, 64 for the others.
///
///   const std::uint32_t k = wick::sort_key::directed(wick::sort_key::of(x), descending);
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "wick/scalar_ops.h"  // WICK_HOST_DEVICE

namespace wick::sort_key {

/// The key type of an element type T (of its compute type for float16 and bfloat16: float).
template <typename T>
using KeyOf = std::conditional_t<sizeof(T) <= 4, std::uint32_t, std::uint64_t>;

/// An unsigned key of `f` whose order is the float order: -0.0 and +0.0 share a key, and NaN gets the largest (NaN sorts last, as in torch.sort).
WICK_HOST_DEVICE std::uint32_t of(float f) {
  if (f != f) return 0xFFFFFFFFu;  // NaN
  std::uint32_t b = 0;
  if (f != 0.0f) std::memcpy(&b, &f, sizeof b);  // -0.0 as +0.0
  return (b & 0x80000000u) != 0 ? ~b : (b | 0x80000000u);
}

/// The key of `d`, as the float overload (64 bits).
WICK_HOST_DEVICE std::uint64_t of(double d) {
  if (d != d) return ~std::uint64_t{0};  // NaN
  std::uint64_t b = 0;
  if (d != 0.0) std::memcpy(&b, &d, sizeof b);  // -0.0 as +0.0
  constexpr std::uint64_t kSign = std::uint64_t{1} << 63;
  return (b & kSign) != 0 ? ~b : (b | kSign);
}

/// An integer's or bool's key.
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
WICK_HOST_DEVICE KeyOf<T> of(T v) {
  using K = KeyOf<T>;
  if constexpr (std::is_signed_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<K>(static_cast<U>(static_cast<U>(v) ^ (U{1} << (8 * sizeof(T) - 1))));
  } else {
    return static_cast<K>(v);
  }
}

/// The key of a descending sort: the complement.
template <typename K>
WICK_HOST_DEVICE K directed(K key, bool descending) {
  return descending ? static_cast<K>(~key) : key;
}

}  // namespace wick::sort_key
