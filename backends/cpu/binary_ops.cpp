// backends/cpu/binary_ops.cpp - elementwise binary kernels, where, copy_ and fill_.
/// \file
/// Every binary kernel follows one recipe: check devices, broadcast the
/// shapes, compute PyTorch's result type, convert the operands to it, and run
/// a typed loop. out= kernels write straight into `out` when its shape and
/// dtype already match (no allocation), otherwise they check the cast,
/// resize, and copy.
#include <atomic>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>

#include "cpu_kernels.h"
#include "loops.h"

namespace wick::cpu {

Tensor as_dtype(const Tensor& t, ScalarType dtype) { return t.dtype() == dtype ? t : t.to(dtype); }

bool overlaps_differently(const Tensor& out, const Tensor& in) {
  if (!in.defined() || out.storage().get() != in.storage().get()) return false;
  return !(out.storage_offset() == in.storage_offset() && out.sizes().equals(in.sizes()) &&
           out.strides().equals(in.strides()) && out.dtype() == in.dtype());
}

void prepare_out(const Tensor& out, IntArrayRef shape, ScalarType result, const char* op,
                 std::initializer_list<const Tensor*> inputs) {
  WICK_CHECK(can_cast(result, out.dtype()), RuntimeError, op, ": result type ", type_title(result),
             " can't be cast to the desired output type ", type_title(out.dtype()));
  if (out.sizes().equals(shape)) return;
  // Resizing an output that is also an input would destroy the input.
  for (const Tensor* in : inputs) {
    WICK_CHECK(!in->defined() || out.storage().get() != in->storage().get(), RuntimeError, op, ": output with shape ",
               format_shape(out.sizes()), " doesn't match the broadcast shape ", format_shape(shape));
  }
  // Resize: reuse the storage when it is large enough, as PyTorch does.
  std::int64_t numel = 1;
  for (std::int64_t s : shape) numel *= s;
  const std::size_t need = static_cast<std::size_t>(numel) * itemsize(out.dtype());
  TensorImpl* impl = out.impl();
  if (impl->storage()->nbytes() < need + static_cast<std::size_t>(impl->storage_offset()) * itemsize(out.dtype())) {
    impl->set_storage(Storage::make(need, out.device()));
    impl->set_geometry(shape, contiguous_strides(shape), 0);
  } else {
    impl->set_geometry(shape, contiguous_strides(shape), impl->storage_offset());
  }
}

namespace {

enum class Kind { kArith, kCompare, kTrueDiv };

struct BinarySetup {
  const Tensor* in_a = nullptr;  // the caller's operands (before dtype conversion)
  const Tensor* in_b = nullptr;
  DimVector shape;
  ScalarType compute;
  ScalarType result;
  Tensor a;
  Tensor b;
};

BinarySetup setup(const char* op, const Tensor& a, const Tensor& b, Kind kind) {
  const Device device = common_device(op, a, b);
  WICK_CHECK(device.is_cpu(), RuntimeError, op, ": the CPU backend got tensors on ", device.str());
  BinarySetup s;
  s.in_a = &a;
  s.in_b = &b;
  s.shape = broadcast_shapes(a.sizes(), b.sizes(), op);
  s.compute = result_type(a, b);
  if (kind == Kind::kTrueDiv && !is_floating(s.compute)) s.compute = kDefaultFloat;
  s.result = kind == Kind::kCompare ? ScalarType::kBool : s.compute;
  s.a = as_dtype(a, s.compute);
  s.b = as_dtype(b, s.compute);
  return s;
}

// Runs `body(result_tensor)` writing the result, either into a fresh tensor
// or into `out` (directly when it matches, else through a temporary).
template <typename Body>
Tensor run(const char* op, const BinarySetup& s, const std::optional<Tensor>& out, Body&& body) {
  if (!out) {
    Tensor r = make_empty(s.shape, s.result, s.a.device());
    body(r);
    return r;
  }
  prepare_out(*out, s.shape, s.result, op, {s.in_a, s.in_b});
  // Writing straight into `out` is safe when it matches the result and
  // overlaps no input except element for element (x.add_(y) is fine,
  // x.add_(x.t()) is not).
  // (s.a / s.b are the caller's tensors or fresh dtype-converted copies, so
  // only the caller's can overlap.)
  const bool direct =
      out->dtype() == s.result && !overlaps_differently(*out, *s.in_a) && !overlaps_differently(*out, *s.in_b);
  if (direct) {
    body(*out);
  } else {
    Tensor r = make_empty(s.shape, s.result, s.a.device());
    body(r);
    Tensor target = *out;
    target.copy_(r);
  }
  out->bump_version();
  return *out;
}

void check_alpha(const char* op, ScalarType compute, const Scalar& alpha) {
  WICK_CHECK(is_floating(compute) || !alpha.is_floating(), RuntimeError, op,
             ": For integral input tensors, argument alpha must not be a floating point number.");
  WICK_CHECK(compute == ScalarType::kBool || !alpha.is_bool(), RuntimeError, op,
             ": Boolean alpha only supported for Boolean results.");
}

Tensor add_impl(const char* op, const Tensor& a, const Tensor& b, const Scalar& alpha, const std::optional<Tensor>& out,
                bool subtract) {
  BinarySetup s = setup(op, a, b, Kind::kArith);
  check_alpha(op, s.compute, alpha);
  WICK_CHECK(!(subtract && s.compute == ScalarType::kBool), RuntimeError, op,
             ": Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
             "`logical_xor()` operator instead.");
  return run(op, s, out, [&](const Tensor& r) {
    visit_dtype(s.compute, op, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        const bool al = alpha.to<bool>();
        binary_loop<bool, bool>(r, s.a, s.b, [al](bool x, bool y) { return x || (al && y); });
      } else {
        const T al = subtract ? static_cast<T>(-alpha.to<T>()) : alpha.to<T>();
        if (al == T(1)) {
          binary_loop<T, T>(r, s.a, s.b, [](T x, T y) { return static_cast<T>(x + y); });
        } else {
          binary_loop<T, T>(r, s.a, s.b, [al](T x, T y) { return static_cast<T>(x + al * y); });
        }
      }
    });
  });
}

Tensor mul_impl(const char* op, const Tensor& a, const Tensor& b, const std::optional<Tensor>& out) {
  BinarySetup s = setup(op, a, b, Kind::kArith);
  return run(op, s, out, [&](const Tensor& r) {
    visit_dtype(s.compute, op, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        binary_loop<bool, bool>(r, s.a, s.b, [](bool x, bool y) { return x && y; });
      } else {
        binary_loop<T, T>(r, s.a, s.b, [](T x, T y) { return static_cast<T>(x * y); });
      }
    });
  });
}

// Integer quotient rounded toward zero; INT_MIN / -1 wraps (as PyTorch's
// kernels do) instead of trapping.
template <typename T>
T trunc_divide(T x, T y) {
  if (y == -1) return static_cast<T>(0 - static_cast<std::make_unsigned_t<T>>(x));
  return static_cast<T>(x / y);
}

template <typename T>
T floor_divide(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    // Python's float floor division: from the remainder, so that 1 // 0.1
    // is 9 (the exact quotient is just below 10), not floor(1 / 0.1) == 10.
    if (y == 0) return x / y;
    const T mod = std::fmod(x, y);
    T div = (x - mod) / y;
    if (mod != 0 && ((y < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(T(0), x / y);
    T floor_div = std::floor(div);
    if (div - floor_div > T(0.5)) floor_div += 1;
    return floor_div;
  } else {
    T q = trunc_divide(x, y);
    if (y != -1 && (x % y != 0) && ((x < 0) != (y < 0))) --q;
    return q;
  }
}

Tensor div_impl(const char* op, const Tensor& a, const Tensor& b, std::optional<std::string_view> mode,
                const std::optional<Tensor>& out) {
  WICK_CHECK(!mode || *mode == "trunc" || *mode == "floor", RuntimeError, op,
             ": div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
  BinarySetup s = setup(op, a, b, mode ? Kind::kArith : Kind::kTrueDiv);
  WICK_CHECK(s.compute != ScalarType::kBool || !mode, RuntimeError, op, ": \"div_floor\" not implemented for 'Bool'");
  return run(op, s, out, [&](const Tensor& r) {
    visit_dtype(s.compute, op, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_same_v<T, bool>) {
        return;
      } else if constexpr (std::is_floating_point_v<T>) {
        if (!mode) {
          binary_loop<T, T>(r, s.a, s.b, [](T x, T y) { return x / y; });
        } else if (*mode == "trunc") {
          binary_loop<T, T>(r, s.a, s.b, [](T x, T y) { return std::trunc(x / y); });
        } else {
          binary_loop<T, T>(r, s.a, s.b, [](T x, T y) { return floor_divide(x, y); });
        }
      } else {
        std::atomic<bool> by_zero{false};  // set from any thread of the loop
        const bool floor = *mode == "floor";
        binary_loop<T, T>(r, s.a, s.b, [&](T x, T y) {
          if (y == 0) {
            by_zero.store(true, std::memory_order_relaxed);
            return T(0);
          }
          return floor ? floor_divide(x, y) : trunc_divide(x, y);
        });
        WICK_CHECK(!by_zero, RuntimeError, op, ": ZeroDivisionError");
      }
    });
  });
}

template <typename Fn>
Tensor simple_binary(const char* op, const Tensor& a, const Tensor& b, Kind kind, Fn fn) {
  BinarySetup s = setup(op, a, b, kind);
  return run(op, s, std::nullopt, [&](const Tensor& r) {
    visit_dtype(s.compute, op, [&](auto tag) {
      using T = decltype(tag);
      if (kind == Kind::kCompare) {
        binary_loop<bool, T>(r, s.a, s.b, [&](T x, T y) { return static_cast<bool>(fn(x, y)); });
      } else {
        binary_loop<T, T>(r, s.a, s.b, [&](T x, T y) { return static_cast<T>(fn(x, y)); });
      }
    });
  });
}

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return add_impl("torch.add", a, b, alpha, std::nullopt, false);
}
Tensor add_out(const Tensor& a, const Tensor& b, const Scalar& alpha, const Tensor& out) {
  return add_impl("torch.add", a, b, alpha, out, false);
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return add_impl("torch.sub", a, b, alpha, std::nullopt, true);
}
Tensor sub_out(const Tensor& a, const Tensor& b, const Scalar& alpha, const Tensor& out) {
  return add_impl("torch.sub", a, b, alpha, out, true);
}
Tensor mul(const Tensor& a, const Tensor& b) { return mul_impl("torch.mul", a, b, std::nullopt); }
Tensor mul_out(const Tensor& a, const Tensor& b, const Tensor& out) { return mul_impl("torch.mul", a, b, out); }
Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> mode) {
  return div_impl("torch.div", a, b, mode, std::nullopt);
}
Tensor div_out(const Tensor& a, const Tensor& b, std::optional<std::string_view> mode, const Tensor& out) {
  return div_impl("torch.div", a, b, mode, out);
}

Tensor pow(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.pow", a, b, Kind::kArith, [](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return std::pow(x, y);
    } else if constexpr (std::is_same_v<T, bool>) {
      return x || !y;
    } else {
      WICK_CHECK(y >= 0, RuntimeError, "torch.pow: Integers to negative integer powers are not allowed.");
      T result = 1;
      T base = x;
      for (T e = y; e > 0; e >>= 1) {
        if (e & 1) result *= base;
        base *= base;
      }
      return result;
    }
  });
}
Tensor maximum(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.maximum", a, b, Kind::kArith, [](auto x, auto y) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      if (std::isnan(x) || std::isnan(y)) return x + y;  // NaN propagates
    }
    return x > y ? x : y;
  });
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.minimum", a, b, Kind::kArith, [](auto x, auto y) {
    if constexpr (std::is_floating_point_v<decltype(x)>) {
      if (std::isnan(x) || std::isnan(y)) return x + y;
    }
    return x < y ? x : y;
  });
}
Tensor eq(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.eq", a, b, Kind::kCompare, [](auto x, auto y) { return x == y; });
}
Tensor ne(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.ne", a, b, Kind::kCompare, [](auto x, auto y) { return x != y; });
}
Tensor lt(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.lt", a, b, Kind::kCompare, [](auto x, auto y) { return x < y; });
}
Tensor le(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.le", a, b, Kind::kCompare, [](auto x, auto y) { return x <= y; });
}
Tensor gt(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.gt", a, b, Kind::kCompare, [](auto x, auto y) { return x > y; });
}
Tensor ge(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.ge", a, b, Kind::kCompare, [](auto x, auto y) { return x >= y; });
}

// fmod keeps the sign of the dividend (C's fmod), remainder the sign of the
// divisor (Python's %). Integers: division by zero is an error, INT_MIN by -1 is 0.
template <bool kPython>
Tensor modulo(const char* op, const Tensor& a, const Tensor& b) {
  BinarySetup s = setup(op, a, b, Kind::kArith);
  WICK_CHECK(s.compute != ScalarType::kBool, RuntimeError, op, ": \"", kPython ? "remainder_cpu" : "fmod_cpu",
             "\" not implemented for 'Bool'");
  return run(op, s, std::nullopt, [&](const Tensor& r) {
    visit_dtype(s.compute, op, [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        binary_loop<T, T>(r, s.a, s.b, [](T x, T y) {
          T m = std::fmod(x, y);
          if (kPython && m != 0 && ((y < 0) != (m < 0))) m += y;
          return m;
        });
      } else if constexpr (!std::is_same_v<T, bool>) {
        std::atomic<bool> by_zero{false};  // set from any thread of the loop
        binary_loop<T, T>(r, s.a, s.b, [&](T x, T y) {
          if (y == 0) {
            by_zero.store(true, std::memory_order_relaxed);
            return T(0);
          }
          if (y == -1) return T(0);
          T m = static_cast<T>(x % y);
          if (kPython && m != 0 && ((y < 0) != (m < 0))) m = static_cast<T>(m + y);
          return m;
        });
        WICK_CHECK(!by_zero, RuntimeError, op, ": ZeroDivisionError");
      }
    });
  });
}
Tensor fmod(const Tensor& a, const Tensor& b) { return modulo<false>("torch.fmod", a, b); }
Tensor remainder(const Tensor& a, const Tensor& b) { return modulo<true>("torch.remainder", a, b); }

Tensor atan2(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.atan2", a, b, Kind::kTrueDiv, [](auto y, auto x) { return std::atan2(y, x); });
}

// The logical operators: nonzero (NaN included) is true; the result is bool.
Tensor logical_and(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.logical_and", a, b, Kind::kCompare, [](auto x, auto y) { return x != 0 && y != 0; });
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.logical_or", a, b, Kind::kCompare, [](auto x, auto y) { return x != 0 || y != 0; });
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.logical_xor", a, b, Kind::kCompare, [](auto x, auto y) { return (x != 0) != (y != 0); });
}

// lerp(self, end, weight) = self + weight * (end - self), computed from the
// nearer end as PyTorch does. self and end share a floating dtype; a tensor
// weight too, unless it is a wrapped Python number.
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  const char* op = "torch.lerp";
  const ScalarType t = self.dtype();
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"lerp_kernel_scalar\" not implemented for '", type_title(t), "'");
  WICK_CHECK(end.dtype() == t, RuntimeError, op, ": expected dtype ", dtype_name(t), " for `end` but got dtype ",
             dtype_name(end.dtype()));
  WICK_CHECK(weight.impl()->is_wrapped_number() || weight.dtype() == t, RuntimeError, op, ": expected dtype ",
             dtype_name(t), " for `weight` but got dtype ", dtype_name(weight.dtype()));
  common_device(op, self, end, weight);
  const DimVector shape = broadcast_shapes(broadcast_shapes(self.sizes(), end.sizes(), op), weight.sizes(), op);
  const Tensor w = as_dtype(weight, t);
  Tensor r = make_empty(shape, t, self.device());
  visit_dtype(t, op, [&](auto tag) {
    using T = decltype(tag);
    if constexpr (std::is_floating_point_v<T>) {
      for_each_element<4>(shape, {r, self, end, w},
                          [](std::array<char*, 4> p, std::int64_t n, std::array<std::int64_t, 4> st) {
                            for (std::int64_t i = 0; i < n; ++i) {
                              const T a = *reinterpret_cast<const T*>(p[1] + i * st[1]);
                              const T b = *reinterpret_cast<const T*>(p[2] + i * st[2]);
                              const T wt = *reinterpret_cast<const T*>(p[3] + i * st[3]);
                              *reinterpret_cast<T*>(p[0] + i * st[0]) =
                                  std::abs(wt) < T(0.5) ? a + wt * (b - a) : b - (b - a) * (T(1) - wt);
                            }
                          });
    }
  });
  return r;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const char* op = "torch.where";
  WICK_CHECK(cond.dtype() == ScalarType::kBool, RuntimeError, op,
             ": where expected condition to be a boolean tensor, but got a tensor with dtype ",
             type_title(cond.dtype()));
  common_device(op, cond, a, b);
  DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes(), op), b.sizes(), op);
  const ScalarType ct = result_type(a, b);
  Tensor x = as_dtype(a, ct);
  Tensor y = as_dtype(b, ct);
  Tensor r = make_empty(shape, ct, a.device());
  visit_dtype(ct, op, [&](auto tag) {
    using T = decltype(tag);
    for_each_element<4>(
        shape, {r, cond, x, y}, [](std::array<char*, 4> p, std::int64_t n, std::array<std::int64_t, 4> s) {
          for (std::int64_t i = 0; i < n; ++i) {
            const bool c = *reinterpret_cast<const bool*>(p[1] + i * s[1]);
            *reinterpret_cast<T*>(p[0] + i * s[0]) = *reinterpret_cast<const T*>(p[c ? 2 : 3] + i * s[c ? 2 : 3]);
          }
        });
  });
  return r;
}

// A float to an integer dtype: NaN, the infinities and values out of the
// integer's range become its lowest value, as x86's conversion instruction
// (and so PyTorch on x86) gives them; a plain cast of those is undefined
// behaviour in C++ (UBSan under the boxed-call fuzzer: softmax of an inf
// converted to int64). Other conversions are plain casts.
template <typename D, typename S>
D convert(S v) {
  if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D> && !std::is_same_v<D, bool>) {
    constexpr S kLow = static_cast<S>(std::numeric_limits<D>::min());  // -2**(bits-1): exact
    if (!(v >= kLow && v < -kLow)) return std::numeric_limits<D>::min();
  }
  return static_cast<D>(v);
}

Tensor copy_(const Tensor& self, const Tensor& src_in, bool /*non_blocking: CPU copies are synchronous*/) {
  const char* op = "torch.Tensor.copy_";
  // A source that overlaps the destination with another layout is read
  // from a copy (x.copy_(x.t()) must not read what it already wrote).
  WICK_CHECK(self.device().is_cpu() && src_in.device().is_cpu(), RuntimeError, op, ": cannot copy from ",
             src_in.device().str(), " to ", self.device().str(), " on the CPU backend");
  const Tensor src = overlaps_differently(self, src_in) ? src_in.clone() : src_in;
  DimVector shape = broadcast_shapes(self.sizes(), src.sizes(), op);
  WICK_CHECK(shape.ref().equals(self.sizes()), RuntimeError, op, ": the source of shape [", src.dim(),
             "-dim] cannot be broadcast to the destination's shape");
  visit_dtype(self.dtype(), op, [&](auto dst_tag) {
    using D = decltype(dst_tag);
    visit_dtype(src.dtype(), op, [&](auto src_tag) {
      using S = decltype(src_tag);
      unary_loop<D, S>(self, src, [](S v) { return convert<D>(v); });
    });
  });
  self.bump_version();
  return self;
}

Tensor fill_(const Tensor& self, const Scalar& value) {
  visit_dtype(self.dtype(), "torch.Tensor.fill_", [&](auto tag) {
    using T = decltype(tag);
    const T v = value.to<T>();
    for_each_element<1>(self.sizes(), {self},
                        [v](std::array<char*, 1> p, std::int64_t n, std::array<std::int64_t, 1> s) {
                          if (s[0] == sizeof(T)) {
                            T* o = reinterpret_cast<T*>(p[0]);
                            for (std::int64_t i = 0; i < n; ++i) o[i] = v;
                            return;
                          }
                          for (std::int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(p[0] + i * s[0]) = v;
                        });
  });
  self.bump_version();
  return self;
}

}  // namespace

void register_binary_ops(Library& torch, Library& tensor) {
  torch.impl("add", &add)
      .impl("add.out", &add_out)
      .impl("sub", &sub)
      .impl("sub.out", &sub_out)
      .impl("mul", &mul)
      .impl("mul.out", &mul_out)
      .impl("div", &div)
      .impl("div.out", &div_out)
      .impl("pow", &pow)
      .impl("maximum", &maximum)
      .impl("minimum", &minimum)
      .impl("eq", &eq)
      .impl("ne", &ne)
      .impl("lt", &lt)
      .impl("le", &le)
      .impl("gt", &gt)
      .impl("ge", &ge)
      .impl("where", &where)
      .impl("fmod", &fmod)
      .impl("remainder", &remainder)
      .impl("atan2", &atan2)
      .impl("logical_and", &logical_and)
      .impl("logical_or", &logical_or)
      .impl("logical_xor", &logical_xor)
      .impl("lerp", &lerp);
  tensor.impl("copy_", &copy_).impl("fill_", &fill_);
}

}  // namespace wick::cpu
