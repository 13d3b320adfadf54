// core/tensor_util.cpp - broadcasting and PyTorch's result-type rules.
/// \file
#include "wick/tensor_util.h"

#include <algorithm>

namespace wick {

DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b, const char* op) {
  const std::size_t n = std::max(a.size(), b.size());
  DimVector out(n);
  // From the last dimension, as PyTorch: a mismatch in several dimensions
  // names the last one.
  for (std::size_t i = n; i-- > 0;) {
    const std::int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    WICK_CHECK(da == db || da == 1 || db == 1, RuntimeError, op, ": The size of tensor a (", da,
               ") must match the size of tensor b (", db, ") at non-singleton dimension ", i);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

std::string format_shape(IntArrayRef shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

DimVector broadcast_strides(const Tensor& t, IntArrayRef shape) {
  DimVector strides(shape.size(), 0);
  const std::size_t offset = shape.size() - static_cast<std::size_t>(t.dim());
  for (std::size_t i = 0; i < static_cast<std::size_t>(t.dim()); ++i)
    strides[offset + i] = t.sizes()[i] == 1 ? 0 : t.strides()[i];
  return strides;
}

namespace {

constexpr ScalarType kUndef = ScalarType::kUndefined;

ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == kUndef) return b;
  if (b == kUndef) return a;
  return promote_types(a, b);
}

// A lower tier only matters when it is of a higher category than the higher
// tier (bool < integer < floating < complex). A complex lower tier meeting a
// floating higher one gives the complex dtype of the higher one's width
// (float64 tensor + 1j is complex128, float32 tensor + complex128 0-dim
// tensor is complex64).
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher != kUndef && is_complex(higher)) return higher;
  if (lower != kUndef && is_complex(lower)) {
    return higher != kUndef && is_floating(higher) ? to_complex_dtype(higher) : lower;
  }
  if (higher != kUndef && is_floating(higher)) return higher;
  if (higher == ScalarType::kBool || (lower != kUndef && is_floating(lower)))
    return promote_skip_undefined(higher, lower);
  return higher != kUndef ? higher : lower;
}

ScalarType result_type_impl(ArrayRef<const Tensor*> tensors) {
  // Tiers: tensors with dims, 0-dim tensors, wrapped Python numbers (a
  // wrapped float counts as the default float dtype).
  ScalarType dim_result = kUndef;
  ScalarType zero_result = kUndef;
  ScalarType wrapped_result = kUndef;
  for (const Tensor* tp : tensors) {
    const Tensor& t = *tp;
    if (!t.defined()) continue;
    ScalarType dt = t.dtype();
    if (t.dim() > 0) {
      dim_result = promote_skip_undefined(dim_result, dt);
    } else if (t.impl()->is_wrapped_number()) {
      // A wrapped float counts as the default float dtype, a complex as the default complex one.
      const ScalarType as = is_floating(dt) ? kDefaultFloat : is_complex(dt) ? kDefaultComplex : dt;
      wrapped_result = promote_skip_undefined(wrapped_result, as);
    } else {
      zero_result = promote_skip_undefined(zero_result, dt);
    }
  }
  ScalarType r = combine_categories(dim_result, combine_categories(zero_result, wrapped_result));
  return r == kUndef ? kDefaultFloat : r;
}

}  // namespace

ScalarType result_type(ArrayRef<const Tensor*> tensors) { return result_type_impl(tensors); }
ScalarType result_type(const std::vector<Tensor>& tensors) {
  std::vector<const Tensor*> ptrs;
  ptrs.reserve(tensors.size());
  for (const Tensor& t : tensors) ptrs.push_back(&t);
  return result_type_impl(ptrs);
}

Device common_device(ArrayRef<const Tensor*> tensors, const char* op) {
  std::optional<Device> dev;
  for (const Tensor* tp : tensors) {
    const Tensor& t = *tp;
    if (!t.defined()) continue;
    // 0-dim CPU tensors (wrapped numbers) may meet any device, as in PyTorch.
    if (t.dim() == 0 && t.device().is_cpu()) continue;
    if (!dev) {
      dev = t.device();
    } else {
      WICK_CHECK(*dev == t.device(), RuntimeError, op,
                 ": Expected all tensors to be on the same device, but found at least two devices, ", dev->str(),
                 " and ", t.device().str(), "!");
    }
  }
  return dev.value_or(Device());
}

}  // namespace wick
