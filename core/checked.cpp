// core/checked.cpp - the out-of-line parts of the checked size arithmetic (Note [Checked size arithmetic]).
/// \file
#include "wick/checked.h"

#include <limits>

#include "wick/error.h"
#include "wick/tensor_util.h"

namespace wick {
namespace detail {

void throw_overflow(const char* what, const char* operation, char sign, std::int64_t a, std::int64_t b) {
  throw RuntimeError(str_cat(what, ": integer ", operation, " overflow (", a, ' ', sign, ' ', b, ")"));
}

void throw_list_too_long(const char* what, std::uint64_t n) {
  throw RuntimeError(str_cat(what, ": ", n, " entries are more than the ", kMaxListLength, " a list can hold"));
}

}  // namespace detail

namespace {

constexpr auto kInt64Max = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());

[[noreturn]] void storage_overflow(IntArrayRef sizes, const IntArrayRef* strides) {
  if (strides == nullptr)
    throw RuntimeError(detail::str_cat("Storage size calculation overflowed with sizes=", format_shape(sizes)));
  throw RuntimeError(detail::str_cat("Storage size calculation overflowed with sizes=", format_shape(sizes),
                                     " and strides=", format_shape(*strides)));
}

// PyTorch's check_size_nonnegative; true when a size is 0.
bool check_sizes(IntArrayRef sizes) {
  bool empty = false;
  for (const std::int64_t s : sizes) {
    WICK_CHECK(s >= 0, RuntimeError, "Trying to create tensor with negative dimension ", s, ": ", format_shape(sizes));
    empty = empty || s == 0;
  }
  return empty;
}

// elements * itemsize in bytes, at most INT64_MAX; false past that.
bool bytes_fit(std::int64_t elements, std::size_t itemsize, std::size_t* out) {
  std::uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(elements), static_cast<std::uint64_t>(itemsize), &bytes) ||
      bytes > kInt64Max)
    return false;
  *out = static_cast<std::size_t>(bytes);
  return true;
}

}  // namespace

std::int64_t ceil_div(std::int64_t a, std::int64_t b, const char* what) {
  WICK_CHECK(b != 0, RuntimeError, what, ": integer division by zero");
  WICK_CHECK(b > 0, RuntimeError, what, ": negative divisor (", b, ")");
  return a / b + (a % b > 0 ? 1 : 0);
}

namespace {

// a * b / c rounded down (or up), in 128 bits: the one place wick needs them.
std::int64_t mul_div(std::int64_t a, std::int64_t b, std::int64_t c, bool up, const char* what) {
  WICK_CHECK(a >= 0 && b >= 0, RuntimeError, what, ": negative operand (", a, " * ", b, ")");
  WICK_CHECK(c > 0, RuntimeError, what, ": integer division by zero or a negative divisor (", c, ")");
  using Wide = unsigned __int128;
  const Wide product = static_cast<Wide>(a) * static_cast<Wide>(b);
  const Wide q = product / static_cast<Wide>(c) + (up && product % static_cast<Wide>(c) != 0 ? 1 : 0);
  if (q > kInt64Max) detail::throw_overflow(what, "multiplication", '*', a, b);
  return static_cast<std::int64_t>(q);
}

}  // namespace

std::int64_t mul_div_floor(std::int64_t a, std::int64_t b, std::int64_t c, const char* what) {
  return mul_div(a, b, c, false, what);
}
std::int64_t mul_div_ceil(std::int64_t a, std::int64_t b, std::int64_t c, const char* what) {
  return mul_div(a, b, c, true, what);
}

std::int64_t checked_numel(IntArrayRef sizes) {
  if (check_sizes(sizes)) return 0;
  std::int64_t n = 1;
  for (const std::int64_t s : sizes)
    WICK_CHECK(!__builtin_mul_overflow(n, s, &n), RuntimeError, "numel: integer multiplication overflow");
  return n;
}

std::optional<std::int64_t> try_numel(IntArrayRef sizes) noexcept {
  bool empty = false;
  for (const std::int64_t s : sizes) {
    if (s < 0) return std::nullopt;
    empty = empty || s == 0;
  }
  if (empty) return 0;
  std::int64_t n = 1;
  for (const std::int64_t s : sizes)
    if (__builtin_mul_overflow(n, s, &n)) return std::nullopt;
  return n;
}

std::int64_t checked_extent(IntArrayRef sizes, IntArrayRef strides) {
  WICK_CHECK(sizes.size() == strides.size(), RuntimeError, "the geometry has ", sizes.size(), " sizes but ",
             strides.size(), " strides");
  const bool empty = check_sizes(sizes);
  for (const std::int64_t s : strides)
    WICK_CHECK(s >= 0, RuntimeError,
               "Negative strides are not supported at the moment, got strides: ", format_shape(strides));
  if (empty) return 0;
  std::int64_t extent = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    std::int64_t span = 0;
    if (__builtin_mul_overflow(sizes[d] - 1, strides[d], &span) || __builtin_add_overflow(extent, span, &extent))
      storage_overflow(sizes, &strides);
  }
  return extent;
}

std::size_t storage_nbytes(IntArrayRef sizes, std::size_t itemsize) {
  if (check_sizes(sizes)) return 0;
  std::int64_t n = 1;
  std::size_t bytes = 0;
  for (const std::int64_t s : sizes)
    if (__builtin_mul_overflow(n, s, &n)) storage_overflow(sizes, nullptr);
  if (!bytes_fit(n, itemsize, &bytes)) storage_overflow(sizes, nullptr);
  return bytes;
}

std::size_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, std::int64_t storage_offset, std::size_t itemsize) {
  const std::int64_t extent = checked_extent(sizes, strides);
  if (extent == 0) return 0;
  WICK_CHECK(storage_offset >= 0, RuntimeError, "Tensor: invalid storage offset ", storage_offset);
  std::int64_t elements = 0;
  std::size_t bytes = 0;
  if (__builtin_add_overflow(storage_offset, extent, &elements) || !bytes_fit(elements, itemsize, &bytes))
    storage_overflow(sizes, &strides);
  return bytes;
}

std::int64_t range_length(std::int64_t start, std::int64_t end, std::int64_t step, const char* what) {
  WICK_CHECK(step != 0, RuntimeError, what, ": step must be nonzero");
  if ((step > 0 && end <= start) || (step < 0 && end >= start)) return 0;
  // |end - start| and |step| in 64 unsigned bits, where both fit exactly.
  const std::uint64_t span = step > 0 ? static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(start)
                                      : static_cast<std::uint64_t>(start) - static_cast<std::uint64_t>(end);
  const std::uint64_t by = step > 0 ? static_cast<std::uint64_t>(step) : 0 - static_cast<std::uint64_t>(step);
  const std::uint64_t n = span / by + (span % by != 0 ? 1 : 0);
  WICK_CHECK(n <= kInt64Max, RuntimeError, what, ": invalid size, possible overflow? (", n, " elements)");
  return static_cast<std::int64_t>(n);
}

std::size_t checked_list_length(std::int64_t n, const char* op, const char* what) {
  WICK_CHECK(n >= 0, RuntimeError, op, ": ", what, " (", n, ") is negative");
  WICK_CHECK(n <= kMaxListLength, RuntimeError, op, ": ", what, " (", n, ") is more than the ", kMaxListLength,
             " entries a list can hold");
  return static_cast<std::size_t>(n);
}

}  // namespace wick
