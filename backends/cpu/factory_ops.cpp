// backends/cpu/factory_ops.cpp - tensor, arange, linspace, eye, rand, randn and randint.
/// \file
#include <cmath>
#include <type_traits>
#include <vector>

#include <wick/random.h>

#include "cpu_kernels.h"
#include "loops.h"

namespace wick::cpu {
namespace {

Device cpu_device(std::optional<Device> device, const char* op) {
  Device d = device.value_or(Device());
  WICK_CHECK(d.is_cpu(), RuntimeError, op, ": the CPU backend cannot create tensors on ", d.str());
  return d;
}

// Walks nested list data: infers the shape (checking it is not ragged) and
// the dtype, and collects the leaves in row-major order.
struct Nested {
  DimVector shape;
  std::vector<Scalar> leaves;
  bool any_float = false;
  bool any_int = false;
  bool any_bool = false;
};

void walk(const Value& v, std::size_t depth, Nested& n, const char* op) {
  auto size_at = [&](std::int64_t len) {
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
      size_at(static_cast<std::int64_t>(v.items().size()));
      for (const Value& item : v.items()) walk(item, depth + 1, n, op);
      return;
    case Value::Kind::kIntList:
      size_at(static_cast<std::int64_t>(v.to_int_list().size()));
      for (std::int64_t i : v.to_int_list()) walk(Value(i), depth + 1, n, op);
      return;
    case Value::Kind::kDoubleList:
      size_at(static_cast<std::int64_t>(v.to_double_list().size()));
      for (double d : v.to_double_list()) walk(Value(d), depth + 1, n, op);
      return;
    case Value::Kind::kBool:
    case Value::Kind::kInt:
    case Value::Kind::kDouble:
      WICK_CHECK(depth == n.shape.size(), ValueError, op, ": expected sequence of length ",
                 depth < n.shape.size() ? n.shape[depth] : 0, " at dim ", depth, " (got a number)");
      n.any_bool |= v.is_bool();
      n.any_int |= v.is_int();
      n.any_float |= v.is_double();
      n.leaves.push_back(v.to_scalar());
      return;
    default:
      throw TypeError(detail::str_cat(op, ": Could not infer dtype of ", v.type_name()));
  }
}

Tensor tensor(const Value& data, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const char* op = "torch.tensor";
  Device d = cpu_device(device, op);
  if (data.is_tensor()) {
    const Tensor& t = data.to_tensor();
    return as_dtype(t, dtype.value_or(t.dtype())).clone();
  }
  Nested n;
  walk(data, 0, n, op);
  const ScalarType t = dtype ? *dtype
                       : n.any_float ? kDefaultFloat
                       : n.any_int   ? ScalarType::kInt64
                       : n.any_bool  ? ScalarType::kBool
                                     : kDefaultFloat;  // torch.tensor([]) is float32
  Tensor out = make_empty(n.shape, t, d);
  visit_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (std::size_t i = 0; i < n.leaves.size(); ++i) p[i] = n.leaves[i].to<T>();
  });
  return out;
}

Tensor arange(const Scalar& start_or_end, const std::optional<Scalar>& end_opt, const Scalar& step,
              std::optional<ScalarType> dtype, std::optional<Device> device) {
  const char* op = "torch.arange";
  Device d = cpu_device(device, op);
  const Scalar start = end_opt ? start_or_end : Scalar(0);
  const Scalar end = end_opt ? *end_opt : start_or_end;
  const bool any_float = start.is_floating() || end.is_floating() || step.is_floating();
  const ScalarType t = dtype ? *dtype : any_float ? kDefaultFloat : ScalarType::kInt64;
  const double s = start.to<double>(), e = end.to<double>(), st = step.to<double>();
  WICK_CHECK(st != 0, RuntimeError, op, ": step must be nonzero");
  if (!any_float) {
    // Integral ranges are sized and filled in exact integer arithmetic.
    const __int128 si = start.to<std::int64_t>(), ei = end.to<std::int64_t>(), sti = step.to<std::int64_t>();
    WICK_CHECK((sti > 0 && ei >= si) || (sti < 0 && ei <= si), RuntimeError, op,
               ": upper bound and larger bound inconsistent with step sign");
    const __int128 span = ei - si;
    const auto n = static_cast<std::int64_t>(span / sti + (span % sti != 0 ? 1 : 0));
    Tensor out = make_empty({n}, t, d);
    visit_dtype(t, op, [&](auto tag) {
      using T = decltype(tag);
      T* p = static_cast<T*>(out.data_ptr());
      for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(static_cast<std::int64_t>(si + i * sti));
    });
    return out;
  }
  WICK_CHECK(std::isfinite(s) && std::isfinite(e), RuntimeError, op, ": unsupported range: ", s, " -> ", e);
  WICK_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), RuntimeError, op,
             ": upper bound and larger bound inconsistent with step sign");
  const double count = std::ceil((e - s) / st);
  WICK_CHECK(count < 9.0e15, RuntimeError, op, ": invalid size, possible overflow? (", count, " elements)");
  const auto n = static_cast<std::int64_t>(count);
  Tensor out = make_empty({n}, t, d);
  visit_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(s + static_cast<double>(i) * st);
  });
  return out;
}

Tensor eye(std::int64_t n, std::optional<std::int64_t> m_opt, std::optional<ScalarType> dtype,
           std::optional<Device> device) {
  const char* op = "torch.eye";
  const std::int64_t m = m_opt.value_or(n);
  WICK_CHECK(n >= 0, RuntimeError, op, ": n must be greater or equal to 0, got ", n);
  WICK_CHECK(m >= 0, RuntimeError, op, ": m must be greater or equal to 0, got ", m);
  Tensor out = make_empty({n, m}, dtype.value_or(kDefaultFloat), cpu_device(device, op));
  out.fill_(0);
  visit_dtype(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (std::int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = T(1);
  });
  return out;
}

template <bool kNormal>
Tensor random_tensor(const char* op, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  const ScalarType t = dtype.value_or(kDefaultFloat);
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"", kNormal ? "normal" : "uniform", "\" not implemented for '",
             type_title(t), "'");
  Tensor out = make_empty(size, t, cpu_device(device, op));
  std::vector<double> values(static_cast<std::size_t>(out.numel()));
  if (kNormal) {
    default_generator().normal(values.data(), out.numel());
  } else {
    default_generator().uniform(values.data(), out.numel());
  }
  visit_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return out;
}

Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return random_tensor<false>("torch.rand", size, dtype, device);
}
Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return random_tensor<true>("torch.randn", size, dtype, device);
}

Tensor linspace(const Scalar& start, const Scalar& end, std::int64_t steps, std::optional<ScalarType> dtype,
                std::optional<Device> device) {
  const char* op = "torch.linspace";
  WICK_CHECK(steps >= 0, RuntimeError, "number of steps must be non-negative");
  const ScalarType t = dtype.value_or(kDefaultFloat);
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, "\"linspace_cpu\" not implemented for 'Bool'");
  Tensor out = make_empty({steps}, t, cpu_device(device, op));
  visit_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    // Floating results are computed in their own precision, integers in double;
    // the second half counts back from `end`, so both ends are exact.
    using C = std::conditional_t<std::is_floating_point_v<T>, T, double>;
    const C a = start.to<C>(), b = end.to<C>();
    const C step = steps > 1 ? (b - a) / static_cast<C>(steps - 1) : C(0);
    const std::int64_t half = steps == 1 ? 1 : steps / 2;  // a single step is `start`
    T* p = static_cast<T*>(out.data_ptr());
    for (std::int64_t i = 0; i < steps; ++i)
      p[i] = static_cast<T>(i < half ? a + step * static_cast<C>(i) : b - step * static_cast<C>(steps - i - 1));
  });
  return out;
}

// randint.low(low, high, size); randint(high, size) is randint.low(0, high, size).
Tensor randint_low(std::int64_t low, std::int64_t high, IntArrayRef size, std::optional<ScalarType> dtype,
                   std::optional<Device> device) {
  const char* op = "torch.randint";
  WICK_CHECK(low < high, RuntimeError, "random_ expects 'from' to be less than 'to', but got from=", low,
             " >= to=", high);
  const ScalarType t = dtype.value_or(ScalarType::kInt64);
  Tensor out = make_empty(size, t, cpu_device(device, op));
  std::vector<std::int64_t> values(static_cast<std::size_t>(out.numel()));
  default_generator().integers(values.data(), out.numel(), low, high);
  visit_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return out;
}
Tensor randint(std::int64_t high, IntArrayRef size, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return randint_low(0, high, size, dtype, device);
}

}  // namespace

void register_factory_ops(Library& torch) {
  torch.impl("tensor", &tensor).impl("arange", &arange).impl("eye", &eye).impl("rand", &rand).impl("randn", &randn);
  torch.impl("linspace", &linspace).impl("randint", &randint).impl("randint.low", &randint_low);
}

}  // namespace wick::cpu
