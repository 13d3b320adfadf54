// dispatch/composite/factory_ops.cpp - the rest of the creation functions: empty_like, empty_strided, scalar_tensor, logspace, range, the five windows, vander, and Tensor.new_*.
/// \file
/// Note [Windows as PyTorch computes them]
/// The windows are computed in their own dtype, in the order of PyTorch
/// 1.13's operations (arange, a product, a cosine, a product and a sum), so
/// that float32 results round as PyTorch's do: blackman_window(6)[0] is
/// -2.98e-08 on both, not 0. A periodic window of length L is the symmetric
/// window of length L + 1 without its last value.
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;
using OptType = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;

// --- *_like, strided and 0-dim ---------------------------------------------------------------

Tensor empty_like_kernel(T self, OptType dtype, OptDevice device) {
  return empty(self.sizes(), dtype.value_or(self.dtype()), device.value_or(self.device()));
}

// The storage of a strided tensor spans 1 + sum((size - 1) * stride)
// elements, none when a size is 0; PyTorch refuses negative strides.
Tensor strided_empty(const char* op, IntArrayRef size, IntArrayRef stride, ScalarType dtype, Device device) {
  WICK_CHECK(size.size() == stride.size(), RuntimeError, op, ": dimensionality of sizes (", size.size(),
             ") must match dimensionality of strides (", stride.size(), ")");
  I64 span = 1;
  bool empty_tensor = false;
  for (std::size_t d = 0; d < size.size(); ++d) {
    WICK_CHECK(size[d] >= 0, RuntimeError, op, ": Trying to create tensor with negative dimension ", size[d], ": ",
               format_shape(size));
    WICK_CHECK(stride[d] >= 0, RuntimeError, op, ": Storage size calculation overflowed with sizes=",
               format_shape(size), " and strides=", format_shape(stride));
    empty_tensor = empty_tensor || size[d] == 0;
    if (size[d] > 0) span = checked_add(span, checked_mul(size[d] - 1, stride[d], op), op);
  }
  const I64 elements = empty_tensor ? 0 : span;
  const Tensor storage = empty(IntArrayRef(&elements, 1), dtype, device);
  return make_view(storage, size, stride, 0);
}

Tensor empty_strided_kernel(IntArrayRef size, IntArrayRef stride, OptType dtype, OptDevice device) {
  return strided_empty("torch.empty_strided", size, stride, dtype.value_or(kDefaultFloat), device.value_or(Device()));
}

Tensor scalar_tensor_kernel(const Scalar& s, OptType dtype, OptDevice device) {
  return full({}, s, dtype.value_or(kDefaultFloat), device.value_or(Device()));
}

// --- logspace and range ----------------------------------------------------------------------

// Computed in float64 (linspace's symmetric halves, then the power) and
// converted, as PyTorch's CPU kernel computes integer results: 2.5 ** 2 is
// 6 in int32.
Tensor logspace_kernel(const Scalar& start, const Scalar& end, I64 steps, double base, OptType dtype,
                       OptDevice device) {
  const ScalarType t = dtype.value_or(kDefaultFloat);
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, "torch.logspace: \"logspace_cpu\" not implemented for 'Bool'");
  WICK_CHECK(steps >= 0, RuntimeError, "torch.logspace: number of steps must be non-negative");
  const bool complex_bounds = start.is_complex() || end.is_complex();
  const ScalarType wide = complex_bounds ? ScalarType::kComplex128 : ScalarType::kFloat64;
  const Tensor exponents = linspace(start, end, steps, wide, device.value_or(Device()));
  return pow(Scalar(base), exponents).to(t);
}

Tensor range_kernel(const Scalar& start, const Scalar& end, const Scalar& step, OptType dtype, OptDevice device) {
  const char* op = "torch.range";
  const ScalarType t = dtype.value_or(kDefaultFloat);
  WICK_CHECK(t != ScalarType::kBool && !is_complex(t), RuntimeError, op, ": \"range_cpu\" not implemented for '",
             type_title(t), "'");
  const double a = start.to<double>();
  const double b = end.to<double>();
  const double s = step.to<double>();
  WICK_CHECK(s != 0, RuntimeError, op, ": step must be nonzero");
  // Each bound as c10's Scalar prints: an integer, or a float as %g does.
  const auto text = [](const Scalar& v) {
    return v.is_integral() ? std::to_string(v.to<I64>()) : python_float_repr(v.to<double>());
  };
  WICK_CHECK(std::isfinite(a) && std::isfinite(b), RuntimeError, op, ": unsupported range: ", text(start), " -> ",
             text(end));
  WICK_CHECK((s > 0 && b >= a) || (s < 0 && b <= a), RuntimeError, op,
             ": upper bound and lower bound inconsistent with step sign");
  const double count = std::floor((b - a) / s) + 1;
  WICK_CHECK(count < 9.2e18, RuntimeError, op, ": invalid size, possible overflow?");
  const auto n = static_cast<I64>(count);
  // start + i * step in float64 (PyTorch's accumulation type on the CPU),
  // or exactly in int64 for integer dtypes.
  const Device where = device.value_or(Device());
  if (is_integral(t, /*include_bool=*/false)) {
    return arange(0, n, 1, ScalarType::kInt64, where).mul(step.to<I64>()).add(start.to<I64>()).to(t);
  }
  return arange(0, n, 1, ScalarType::kFloat64, where).mul(s).add(a).to(t);
}

// --- windows ---------------------------------------------------------------------------------

// PyTorch's checks of every window: a non-negative length, a floating dtype
// (named as c10's TensorOptions prints itself).
void check_window(const char* name, I64 length, ScalarType t, const Device& device) {
  WICK_CHECK(length >= 0, RuntimeError, "torch.", name, ": ", name,
             " requires non-negative window_length, got window_length=", length);
  WICK_CHECK(is_floating(t), RuntimeError, "torch.", name, ": ", name,
             " expects floating point dtypes, got: TensorOptions(dtype=", cpp_type_name(t), ", device=", device.str(),
             ", layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
             "memory_format=(nullopt))");
}

// The window of `length` (Note [Windows as PyTorch computes them]): the
// trivial ones, else `symmetric(n, N)` of arange(N) in the dtype, N one
// longer when periodic, cut back.
template <class F>
Tensor window(const char* name, I64 length, bool periodic, OptType dtype, OptDevice device, F symmetric) {
  const ScalarType t = dtype.value_or(kDefaultFloat);
  const Device where = device.value_or(Device());
  check_window(name, length, t, where);
  if (length == 0) return empty({0}, t, where);
  if (length == 1) return ones({1}, t, where);
  const I64 n = periodic ? checked_add(length, 1, name) : length;
  const Tensor w = symmetric(arange(0, n, 1, t, where), n);
  return periodic ? w.narrow(0, 0, length) : w;
}

Tensor hamming(const char* name, I64 length, bool periodic, double alpha, double beta, OptType dtype,
               OptDevice device) {
  return window(name, length, periodic, dtype, device, [&](T k, I64 n) {
    return k.mul(2 * std::numbers::pi / static_cast<double>(n - 1)).cos().mul(-beta).add(alpha);
  });
}

Tensor hann_window_kernel(I64 length, bool periodic, OptType dtype, OptDevice device) {
  return hamming("hann_window", length, periodic, 0.5, 0.5, dtype, device);
}

Tensor hamming_window_kernel(I64 length, bool periodic, double alpha, double beta, OptType dtype, OptDevice device) {
  return hamming("hamming_window", length, periodic, alpha, beta, dtype, device);
}

Tensor blackman_window_kernel(I64 length, bool periodic, OptType dtype, OptDevice device) {
  return window("blackman_window", length, periodic, dtype, device, [](T k, I64 n) {
    const Tensor x = k.mul(std::numbers::pi / static_cast<double>(n - 1));
    return x.mul(4).cos().mul(0.08).sub(x.mul(2).cos().mul(0.5)).add(0.42);
  });
}

// Rising from 0 to 1 over the first half (its middle included), falling back
// over the rest.
Tensor bartlett_window_kernel(I64 length, bool periodic, OptType dtype, OptDevice device) {
  return window("bartlett_window", length, periodic, dtype, device, [](T k, I64 n) {
    const Tensor rising = k.mul(2.0 / static_cast<double>(n - 1));
    const I64 half = ((n - 1) >> 1) + 1;
    return cat({rising.narrow(0, 0, half), rising.narrow(0, half, n - half).mul(-1).add(2)});
  });
}

Tensor kaiser_window_kernel(I64 length, bool periodic, double beta, OptType dtype, OptDevice device) {
  return window("kaiser_window", length, periodic, dtype, device, [&](T k, I64 n) {
    const double middle = static_cast<double>(n - 1) / 2.0;
    const Tensor x = k.sub(middle).div(middle);
    const Tensor top = i0(x.mul(x).neg().add(1).sqrt().mul(beta));
    return top.div(i0(full({}, beta, k.dtype(), k.device())));
  });
}

// --- vander ----------------------------------------------------------------------------------

// Columns x^0, x^1, ... (cumprod of copies of x after a column of ones),
// reversed unless increasing; integers and bools in int64.
Tensor vander_kernel(T x, std::optional<I64> width, bool increasing) {
  const char* op = "torch.vander";
  WICK_CHECK(x.dim() == 1, RuntimeError, op, ": x must be a one-dimensional tensor.");
  const I64 n = width.value_or(x.sizes()[0]);
  WICK_CHECK(n >= 0, RuntimeError, op, ": N must be non-negative.");
  const ScalarType t = promote_types(x.dtype(), ScalarType::kInt64);
  const I64 rows = x.sizes()[0];
  Tensor columns = ones({rows, std::min<I64>(n, 1)}, t, x.device());
  if (n > 1) {
    const Tensor powers = x.to(t).unsqueeze(1).expand({rows, n - 1}).cumprod(1);
    columns = cat({columns, powers}, 1);
  }
  return increasing ? columns : columns.flip({1});
}

// --- Tensor.new_* ----------------------------------------------------------------------------

ScalarType type_of(T self, OptType dtype) { return dtype.value_or(self.dtype()); }
Device device_of(T self, OptDevice device) { return device.value_or(self.device()); }

Tensor new_empty_kernel(T self, IntArrayRef size, OptType dtype, OptDevice device) {
  return empty(size, type_of(self, dtype), device_of(self, device));
}
Tensor new_empty_strided_kernel(T self, IntArrayRef size, IntArrayRef stride, OptType dtype, OptDevice device) {
  return strided_empty("torch.Tensor.new_empty_strided", size, stride, type_of(self, dtype), device_of(self, device));
}
Tensor new_zeros_kernel(T self, IntArrayRef size, OptType dtype, OptDevice device) {
  return zeros(size, type_of(self, dtype), device_of(self, device));
}
Tensor new_ones_kernel(T self, IntArrayRef size, OptType dtype, OptDevice device) {
  return ones(size, type_of(self, dtype), device_of(self, device));
}
Tensor new_full_kernel(T self, IntArrayRef size, const Scalar& fill_value, OptType dtype, OptDevice device) {
  return full(size, fill_value, type_of(self, dtype), device_of(self, device));
}
// A tensor's data is copied and detached (PyTorch warns that
// clone().detach() says so better); numbers are converted as torch.tensor
// converts them for an explicit dtype.
Tensor new_tensor_kernel(T self, const Value& data, OptType dtype, OptDevice device) {
  if (data.is_tensor()) {
    return data.to_tensor().detach().to(device_of(self, device), type_of(self, dtype)).clone();
  }
  return tensor(TensorLiteral(data), type_of(self, dtype), device_of(self, device));
}

}  // namespace

void register_factory_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("empty_like", &empty_like_kernel)
      .impl("empty_strided", &empty_strided_kernel)
      .impl("scalar_tensor", &scalar_tensor_kernel)
      .impl("logspace", &logspace_kernel)
      .impl("range", &range_kernel)
      .impl("hann_window", &hann_window_kernel)
      .impl("hamming_window", &hamming_window_kernel)
      .impl("bartlett_window", &bartlett_window_kernel)
      .impl("blackman_window", &blackman_window_kernel)
      .impl("kaiser_window", &kaiser_window_kernel)
      .impl("vander", &vander_kernel);
  auto tensor = std::make_unique<Library>("torch.Tensor", kComposite);
  tensor->impl("new_empty", &new_empty_kernel)
      .impl("new_empty_strided", &new_empty_strided_kernel)
      .impl("new_zeros", &new_zeros_kernel)
      .impl("new_ones", &new_ones_kernel)
      .impl("new_full", &new_full_kernel)
      .impl("new_tensor", &new_tensor_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(tensor));
}

}  // namespace wick
