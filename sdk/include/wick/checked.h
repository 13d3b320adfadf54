// wick/checked.h - overflow-checked int64 arithmetic for sizes, strides, offsets, indices and counts.
/// \file
/// Note [Checked size arithmetic]
/// A size, stride, storage offset, index or count that a caller can choose
/// (a sizes list, `chunks=`, a kernel size or padding, the sizes of a view
/// that addresses no memory: an expanded or an empty one) can be anything in
/// int64, and signed overflow is undefined behaviour. Every such computation
/// in wick goes through these helpers, which raise a RuntimeError, with
/// PyTorch's text where PyTorch has one, instead of wrapping around:
///
///   const std::int64_t n = wick::checked_numel(sizes);       // "numel: integer multiplication overflow"
///   const std::int64_t end = wick::checked_add(start, length, "torch.narrow");
///   const std::int64_t pieces = wick::ceil_div(size, split_size, "torch.split");
///   out.reserve(wick::checked_list_length(pieces, "torch.split", "the number of pieces"));
///
/// What needs no check: arithmetic on the sizes and strides of a tensor that
/// holds data (numel() > 0) whose result is bounded by its numel() or by its
/// storage (a row count, an element offset): the tensor exists, so those fit.
/// An empty tensor's other sizes, and anything computed from arguments, are
/// not bounded: `torch.empty(0).repeat(2**63 - 1, 4)` is a valid tensor of
/// sizes [9223372036854775807, 0]. tools/check_size_arith.py (run by
/// tools/lint.sh) flags raw `*` and `+` on sizes in kernels and meta
/// functions; tools/size_arith_allowlist.txt lists the ones that are bounded
/// as above, each with its reason.
///
/// Containers sized from a caller's count (chunk's chunks, split's pieces)
/// are bounded by `kMaxListLength`, and so is every `DimVector`: a call that
/// would need more raises a RuntimeError rather than asking the allocator
/// for SIZE_MAX elements.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "wick/array_ref.h"
#include "wick/export.h"

namespace wick {

/// The most entries of a list that wick builds from a count a caller gave
/// (chunk's `chunks`, split's number of pieces) and of any `DimVector`.
inline constexpr std::int64_t kMaxListLength = std::int64_t{1} << 24;

namespace detail {
/// RuntimeError "<what>: integer <operation> overflow (<a> <sign> <b>)".
[[noreturn]] WICK_API void throw_overflow(const char* what, const char* operation, char sign, std::int64_t a,
                                          std::int64_t b);
/// RuntimeError for a list of `n` entries (n may be read as unsigned).
[[noreturn]] WICK_API void throw_list_too_long(const char* what, std::uint64_t n);
}  // namespace detail

/// a + b. RuntimeError "<what>: integer addition overflow (a + b)" when the
/// sum does not fit in int64.
[[nodiscard]] inline std::int64_t checked_add(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]]
    detail::throw_overflow(what, "addition", '+', a, b);
  return r;
}

/// a - b. RuntimeError "<what>: integer subtraction overflow (a - b)".
[[nodiscard]] inline std::int64_t checked_sub(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) [[unlikely]]
    detail::throw_overflow(what, "subtraction", '-', a, b);
  return r;
}

/// a * b. RuntimeError "<what>: integer multiplication overflow (a * b)".
[[nodiscard]] inline std::int64_t checked_mul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) [[unlikely]]
    detail::throw_overflow(what, "multiplication", '*', a, b);
  return r;
}

/// a + b and a * b, or nullopt when they do not fit in int64: for callers
/// whose overflow has a message of its own (a sum past int64 cannot equal
/// the size it is checked against).
[[nodiscard]] inline std::optional<std::int64_t> try_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}
/// a * b, or std::nullopt when it does not fit in int64.
[[nodiscard]] inline std::optional<std::int64_t> try_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

/// ceil(a / b) for b > 0, computed without forming a + b - 1, so it never
/// overflows. RuntimeError "<what>: integer division by zero" for b == 0 and
/// "<what>: negative divisor (b)" for b < 0.
[[nodiscard]] WICK_API std::int64_t ceil_div(std::int64_t a, std::int64_t b, const char* what);

/// floor(a * b / c) and ceil(a * b / c) for a, b >= 0 and c > 0, exact
/// though a * b may not fit in int64 (adaptive pooling's window of output
/// o: o * in / out). RuntimeError "<what>: integer multiplication overflow"
/// when the quotient does not fit, "<what>: ..." for arguments out of range.
[[nodiscard]] WICK_API std::int64_t mul_div_floor(std::int64_t a, std::int64_t b, std::int64_t c, const char* what);
/// ceil(a * b / c), as mul_div_floor (same conditions and errors).
[[nodiscard]] WICK_API std::int64_t mul_div_ceil(std::int64_t a, std::int64_t b, std::int64_t c, const char* what);

/// The product of `sizes`, a tensor's element count: 0 when any size is 0,
/// whatever the others multiply to. RuntimeError "numel: integer
/// multiplication overflow" (PyTorch's text) when it does not fit in int64,
/// and "Trying to create tensor with negative dimension -1: [-1, 2]" for a
/// negative size.
[[nodiscard]] WICK_API std::int64_t checked_numel(IntArrayRef sizes);

/// checked_numel without the throw: nullopt when the product does not fit or
/// a size is negative (view's "shape '[..]' is invalid for input of size
/// N" is the message there).
[[nodiscard]] WICK_API std::optional<std::int64_t> try_numel(IntArrayRef sizes) noexcept;

/// The elements a strided geometry spans from its first: 1 + sum((size - 1)
/// * stride), 0 when any size is 0. RuntimeError "Storage size calculation
/// overflowed with sizes=[..] and strides=[..]" (PyTorch's text) when it does
/// not fit in int64, and for negative sizes or strides (which wick's views
/// never have) or sizes and strides of different lengths.
[[nodiscard]] WICK_API std::int64_t checked_extent(IntArrayRef sizes, IntArrayRef strides);

/// Bytes of a contiguous storage for `sizes`: numel * itemsize, at most
/// INT64_MAX. RuntimeError "Storage size calculation overflowed with
/// sizes=[..]" (PyTorch's text) past that.
[[nodiscard]] WICK_API std::size_t storage_nbytes(IntArrayRef sizes, std::size_t itemsize);
/// Bytes a strided tensor needs from the start of its storage: (offset +
/// extent) * itemsize (0 when empty), at most INT64_MAX. RuntimeError
/// "Storage size calculation overflowed with sizes=[..] and strides=[..]"
/// past that.
[[nodiscard]] WICK_API std::size_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, std::int64_t storage_offset,
                                                  std::size_t itemsize);

/// The length of the integer range start, start + step, ... short of `end`
/// (arange's): ceil((end - start) / step), exact for any int64s (end -
/// start itself may not fit), 0 when `step` points away from `end`.
/// RuntimeError "<what>: step must be nonzero", and "<what>: invalid size,
/// possible overflow? (<n> elements)" past INT64_MAX elements.
[[nodiscard]] WICK_API std::int64_t range_length(std::int64_t start, std::int64_t end, std::int64_t step,
                                                 const char* what);
/// start + i * step, the i-th element of such a range (i < its length):
/// exact, though i * step alone may not fit in int64 (it is computed modulo
/// 2**64, where the sum lands back in range).
[[nodiscard]] constexpr std::int64_t range_element(std::int64_t start, std::int64_t step, std::int64_t i) noexcept {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(start) +
                                   static_cast<std::uint64_t>(i) * static_cast<std::uint64_t>(step));
}

/// `n` as the length of a container wick is about to build from a caller's
/// count; RuntimeError "<op>: <what> (<n>) is more than the 16777216 entries
/// a list can hold" past `kMaxListLength`, "<op>: <what> (<n>) is negative"
/// below 0.
[[nodiscard]] WICK_API std::size_t checked_list_length(std::int64_t n, const char* op, const char* what);

}  // namespace wick
