// dispatch/ops/meta_creation.cpp - meta functions of the creation functions with backend kernels.
/// \file
/// torch.tensor, arange, eye, rand, randn, linspace and randint read only
/// their arguments: the meta function checks them and gives the result's
/// size, dtype and device, which is the `device=` argument (the CPU when
/// absent; torch.tensor of a tensor: the tensor's). So `device="meta"`
/// makes a tensor with no data through the Meta kernel derived from these
/// (Note [Meta tensors] in wick/meta.h), and a backend's impl only fills
/// the tensor the glue allocated on its device. Every result is contiguous;
/// the messages are PyTorch's CPU messages, for every backend.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/meta_creation.h"
#include "wick/tensor_util.h"
#include "wick/value.h"

namespace wick::meta {
namespace {

using I64 = std::int64_t;

Device target(std::optional<Device> device) { return device.value_or(Device()); }

// Nested list data walked once: its shape (checked not to be ragged), what
// kinds of numbers it holds, and the numbers in row-major order.
struct Nested {
  DimVector shape;
  std::vector<Scalar> leaves;
  bool any_complex = false;
  bool any_float = false;
  bool any_int = false;
  bool any_bool = false;
};

void walk(const Value& v, std::size_t depth, Nested& n, const char* op) {
  auto size_at = [&](I64 len) {
    if (depth == n.shape.size()) {
      WICK_CHECK(n.leaves.empty(), ValueError, op, ": expected sequence at dim ", depth, " but got a number");
      n.shape.push_back(len);
    } else {
      WICK_CHECK(n.shape[depth] == len, ValueError, op, ": expected sequence of length ", n.shape[depth], " at dim ",
                 depth, " (got ", len, ")");
    }
  };
  switch (v.kind()) {
    case Value::Kind::kList:
    case Value::Kind::kTuple:
      size_at(static_cast<I64>(v.items().size()));
      for (const Value& item : v.items()) walk(item, depth + 1, n, op);
      return;
    case Value::Kind::kIntList:
      size_at(static_cast<I64>(v.to_int_list().size()));
      for (I64 i : v.to_int_list()) walk(Value(i), depth + 1, n, op);
      return;
    case Value::Kind::kDoubleList:
      size_at(static_cast<I64>(v.to_double_list().size()));
      for (double d : v.to_double_list()) walk(Value(d), depth + 1, n, op);
      return;
    case Value::Kind::kBool:
    case Value::Kind::kInt:
    case Value::Kind::kDouble:
    case Value::Kind::kComplex:
      WICK_CHECK(depth == n.shape.size(), ValueError, op, ": expected sequence of length ",
                 depth < n.shape.size() ? n.shape[depth] : 0, " at dim ", depth, " (got a number)");
      n.any_bool |= v.is_bool();
      n.any_int |= v.is_int();
      n.any_float |= v.is_double();
      n.any_complex |= v.is_complex();
      n.leaves.push_back(v.to_scalar());
      return;
    default:
      WICK_CHECK(!v.is_string(), TypeError, op, ": new(): invalid data type 'str'");
      throw TypeError(detail::str_cat(op, ": Could not infer dtype of ", v.type_name()));
  }
}

// A number an integer dtype cannot hold is refused, as PyTorch refuses it
// ("value cannot be converted to type uint8 without overflow"): a float out
// of the type's range or NaN; an int out of range, except that a negative
// int may wrap into an unsigned type (-1 is uint8 255) when its magnitude fits.
void check_fits(const char* op, const Scalar& v, ScalarType t) {
  if (!is_integral(t, false) || t == ScalarType::kInt64 || v.is_bool() || v.is_complex()) return;
  bool fits = true;
  visit_dtype<dtypes::kIntegral>(t, op, [&](auto tag) {
    using T = decltype(tag);
    constexpr auto kLow = static_cast<double>(std::numeric_limits<T>::lowest());
    constexpr auto kHigh = static_cast<double>(std::numeric_limits<T>::max());
    if (v.is_floating()) {
      const double d = v.to<double>();
      fits = d >= kLow && d <= kHigh;  // NaN fails both
    } else {
      const std::int64_t i = v.to<std::int64_t>();
      const auto h = static_cast<std::int64_t>(kHigh);
      fits = std::is_unsigned_v<T> ? i <= h && i >= -h : i >= static_cast<std::int64_t>(kLow) && i <= h;
    }
  });
  WICK_CHECK(fits, RuntimeError, op, ": value cannot be converted to type ", dtype_name(t), " without overflow");
}

// rand and randn: floating dtypes only.
OutputMeta random_meta(const char* op, const char* kernel, IntArrayRef size, std::optional<ScalarType> dtype,
                       std::optional<Device> device) {
  const ScalarType t = dtype.value_or(kDefaultFloat);
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"", kernel, "\" not implemented for '", type_title(t), "'");
  return {TensorMeta::contiguous(size, t, target(device))};
}

}  // namespace

// A tensor as data is copied (converted to `dtype`) onto `device`, by
// default its own; nested numbers infer complex64, float32, int64 or bool.
FromDataMeta tensor(const Value& data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const char* op = "torch.tensor";
  if (data.is_tensor()) {
    const Tensor& t = data.to_tensor();
    return {TensorMeta::contiguous(t.sizes(), dtype.value_or(t.dtype()), device.value_or(t.device())), {}};
  }
  Nested n;
  walk(data, 0, n, op);
  const ScalarType t = dtype           ? *dtype
                       : n.any_complex ? kDefaultComplex
                       : n.any_float   ? kDefaultFloat
                       : n.any_int   ? ScalarType::kInt64
                       : n.any_bool  ? ScalarType::kBool
                                     : kDefaultFloat;  // torch.tensor([]) is float32
  for (const Scalar& v : n.leaves) check_fits(op, v, t);
  return {TensorMeta::contiguous(n.shape, t, target(device)), std::move(n.leaves)};
}

// arange(end) or arange(start, end, step): int64 when all three are
// integers (sized in exact integer arithmetic), else the default float
// dtype; ceil((end - start) / step) elements.
ArangeMeta arange(const Scalar& start, const std::optional<Scalar>& end, const Scalar& step,
                  std::optional<ScalarType> dtype, std::optional<Device> device) {
  const char* op = "torch.arange";
  const Scalar first = end ? start : Scalar(0);
  const Scalar last = end ? *end : start;
  const bool any_float = first.is_floating() || last.is_floating() || step.is_floating();
  const ScalarType t = dtype ? *dtype : any_float ? kDefaultFloat : ScalarType::kInt64;
  const double s = first.to<double>();
  const double e = last.to<double>();
  const double st = step.to<double>();
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, op, ": \"arange_cpu\" not implemented for 'Bool'");
  WICK_CHECK(st != 0, RuntimeError, op, ": step must be nonzero");
  // An integer dtype computes in int64, so start, end and step are truncated
  // first, as in PyTorch (arange(0, 5, 1.5, dtype=torch.int64) steps by 1).
  // The length comes from those integers for int64 and from the arguments
  // as given for the other integer dtypes (PyTorch's arange_out).
  if (!any_float || !is_floating(t)) {
    for (const Scalar* x : {&first, &last, &step}) {
      const double v = x->to<double>();
      WICK_CHECK(!x->is_floating() || (v >= -0x1p63 && v < 0x1p63), RuntimeError, op,
                 ": value cannot be converted to type int64_t without overflow");  // NaN fails too
    }
    const I64 si = first.to<I64>();
    const I64 ei = last.to<I64>();
    const I64 sti = step.to<I64>();
    WICK_CHECK(sti != 0, RuntimeError, op, ": step must be nonzero");
    WICK_CHECK((sti > 0 && ei >= si) || (sti < 0 && ei <= si), RuntimeError, op,
               ": upper bound and larger bound inconsistent with step sign");
    I64 n = 0;
    if (!any_float || t == ScalarType::kInt64) {
      n = range_length(si, ei, sti, op);
    } else {
      const double count = std::ceil((e - s) / st);
      WICK_CHECK(count >= 0 && count < 9.0e15, RuntimeError, op, ": invalid size, possible overflow? (", count,
                 " elements)");
      n = static_cast<I64>(count);
    }
    return {TensorMeta::contiguous({n}, t, target(device)), Scalar(si), Scalar(sti)};
  }
  WICK_CHECK(std::isfinite(s) && std::isfinite(e), RuntimeError, op, ": unsupported range: ", s, " -> ", e);
  WICK_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), RuntimeError, op,
             ": upper bound and larger bound inconsistent with step sign");
  const double count = std::ceil((e - s) / st);
  WICK_CHECK(count < 9.0e15, RuntimeError, op, ": invalid size, possible overflow? (", count, " elements)");
  return {TensorMeta::contiguous({static_cast<I64>(count)}, t, target(device)), Scalar(s), Scalar(st)};
}

OutputMeta eye(I64 n, std::optional<I64> m, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const char* op = "torch.eye";
  const I64 cols = m.value_or(n);
  WICK_CHECK(n >= 0, RuntimeError, op, ": n must be greater or equal to 0, got ", n);
  WICK_CHECK(cols >= 0, RuntimeError, op, ": m must be greater or equal to 0, got ", cols);
  return {TensorMeta::contiguous({n, cols}, dtype.value_or(kDefaultFloat), target(device))};
}

OutputMeta rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return random_meta("torch.rand", "uniform", size, dtype, device);
}
OutputMeta randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return random_meta("torch.randn", "normal", size, dtype, device);
}

OutputMeta linspace(const Scalar& /*start*/, const Scalar& /*end*/, I64 steps, std::optional<ScalarType> dtype,
                    std::optional<Device> device) {
  WICK_CHECK(steps >= 0, RuntimeError, "number of steps must be non-negative");
  const ScalarType t = dtype.value_or(kDefaultFloat);
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, "\"linspace_cpu\" not implemented for 'Bool'");
  return {TensorMeta::contiguous({steps}, t, target(device))};
}

// Integers in [low, high): int64 unless `dtype`.
OutputMeta randint_low(I64 low, I64 high, IntArrayRef size, std::optional<ScalarType> dtype,
                       std::optional<Device> device) {
  WICK_CHECK(low < high, RuntimeError, "random_ expects 'from' to be less than 'to', but got from=", low,
             " >= to=", high);
  return {TensorMeta::contiguous(size, dtype.value_or(ScalarType::kInt64), target(device))};
}
OutputMeta randint(I64 high, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return randint_low(0, high, size, dtype, device);
}

}  // namespace wick::meta
