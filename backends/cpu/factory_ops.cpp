// backends/cpu/factory_ops.cpp - tensor, arange, linspace, eye, rand, randn and randint.
/// \file
/// Each fills the tensor that the glue allocated from its meta function
/// (dispatch/ops/meta_creation.cpp), which checked the arguments and gave
/// the size, dtype and device (Note [Structured kernels] in
/// wick/structured.h): `device="meta"` never gets here.
#include <cmath>
#include <type_traits>
#include <vector>

#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/meta_creation.h>
#include <wick/random.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"

namespace wick::cpu {
namespace {

using I64 = std::int64_t;
using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;

// Writes `values` (converted) into the contiguous `out`.
template <typename V>
void fill_from(const Tensor& out, const std::vector<V>& values, const char* op) {
  visit_dtype<dtypes::kAllAndComplex>(out.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) {
      if constexpr (std::is_same_v<V, Scalar>) {
        p[i] = values[i].template to<T>();
      } else {
        p[i] = convert<T>(values[i]);
      }
    }
  });
}

}  // namespace

void tensor(const FromDataMeta& m, const Tensor& out, const Value& data, OptDtype /*dtype*/, OptDevice /*device*/) {
  if (data.is_tensor()) {  // a copy, converted to out's dtype and moved to its device
    Tensor target = out;
    target.copy_(data.to_tensor());
    return;
  }
  fill_from(out, m.values, "torch.tensor");
}

void arange(const ArangeMeta& m, const Tensor& out, const Scalar& /*start*/, const std::optional<Scalar>& /*end*/,
            const Scalar& /*step*/, OptDtype /*dtype*/, OptDevice /*device*/) {
  const I64 n = out.numel();
  visit_dtype(out.dtype(), "arange_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    if (m.start.is_integral()) {  // exact integer arithmetic
      const I64 s = m.start.to<I64>();
      const I64 st = m.step.to<I64>();
      for (I64 i = 0; i < n; ++i) p[i] = static_cast<T>(range_element(s, st, i));
    } else {
      const double s = m.start.to<double>();
      const double st = m.step.to<double>();
      for (I64 i = 0; i < n; ++i) p[i] = static_cast<T>(s + static_cast<double>(i) * st);
    }
  });
}

void eye(const OutputMeta& /*m*/, const Tensor& out, I64 /*n*/, std::optional<I64> /*m*/, OptDtype /*dtype*/,
         OptDevice /*device*/) {
  Tensor target = out;
  target.fill_(0);
  const I64 rows = out.sizes()[0];
  const I64 cols = out.sizes()[1];
  visit_dtype<dtypes::kAllAndComplex>(out.dtype(), "eye", [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    for (I64 i = 0; i < std::min(rows, cols); ++i) p[i * cols + i] = T(1);
  });
}

namespace {

// PyTorch's values for float32 and float64 (Note [PyTorch's random numbers]):
// each precision has its own transform, so the generator fills `out`'s own
// type; other floating types go through float64.
template <bool kNormal>
void random_fill(const Tensor& out, const char* op) {
  Generator& g = default_generator();
  const std::int64_t n = out.numel();
  const auto fill = [&](auto* p) {
    if constexpr (kNormal) {
      g.normal(p, n);
    } else {
      g.uniform(p, n);
    }
  };
  if (out.dtype() == ScalarType::kFloat32) return fill(static_cast<float*>(out.data_ptr()));
  if (out.dtype() == ScalarType::kFloat64) return fill(static_cast<double*>(out.data_ptr()));
  std::vector<double> values(static_cast<std::size_t>(n));
  fill(values.data());
  fill_from(out, values, op);
}

}  // namespace

void rand(const OutputMeta& /*m*/, const Tensor& out, IntArrayRef /*size*/, OptDtype /*dtype*/, OptDevice /*device*/) {
  random_fill<false>(out, "torch.rand");
}
void randn(const OutputMeta& /*m*/, const Tensor& out, IntArrayRef /*size*/, OptDtype /*dtype*/, OptDevice /*device*/) {
  random_fill<true>(out, "torch.randn");
}

namespace {

// Note [linspace as PyTorch computes it]
// PyTorch's values bit for bit, not the exact ones: step = (end - start) /
// (steps - 1) in the result's type, the first half counted from start and
// the second back from end, the way its AVX2 build computes them: runs of
// two vectors (16 float32 or 8 float64 values), each vector's first value a
// fused multiply-add and the others base + k * step, then the values after
// the last whole run one by one, each a fused multiply-add. So
// linspace(-1, 1, 7)[3] is -2.9802e-08, as in PyTorch. (Past 32,768 steps
// PyTorch splits the range among its threads, each split starting runs of
// its own; wick computes the range as one split.)
template <typename T>
void linspace_floating(T* p, T start, T end, I64 steps) {
  if (steps == 1) {
    p[0] = start;
    return;
  }
  const T step = (end - start) / static_cast<T>(steps - 1);
  const I64 half = steps / 2;
  const auto fused = [&](I64 i) {
    return i < half ? std::fma(step, static_cast<T>(i), start) : std::fma(-step, static_cast<T>(steps - i - 1), end);
  };
  constexpr I64 kWidth = 32 / static_cast<I64>(sizeof(T));  // one AVX2 vector
  const I64 whole = steps / (2 * kWidth) * (2 * kWidth);
  for (I64 i = 0; i < whole; i += kWidth) {
    const T base = fused(i);
    for (I64 k = 0; k < kWidth; ++k) p[i + k] = base + static_cast<T>(k) * step;
  }
  for (I64 i = whole; i < steps; ++i) p[i] = fused(i);
}

}  // namespace

void linspace(const OutputMeta& /*m*/, const Tensor& out, const Scalar& start, const Scalar& end, I64 steps,
              OptDtype /*dtype*/, OptDevice /*device*/) {
  visit_dtype(out.dtype(), "linspace_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* p = static_cast<T*>(out.data_ptr());
    if constexpr (is_floating_v<T>) {
      linspace_floating(p, start.to<T>(), end.to<T>(), steps);
    } else {
      // Integers are computed in double; the second half counts back from
      // `end`, so both ends are exact.
      const double a = start.to<double>(), b = end.to<double>();
      const double step = steps > 1 ? (b - a) / static_cast<double>(steps - 1) : 0.0;
      const I64 half = steps == 1 ? 1 : steps / 2;  // a single step is `start`
      for (I64 i = 0; i < steps; ++i)
        p[i] = static_cast<T>(i < half ? a + step * static_cast<double>(i)
                                       : b - step * static_cast<double>(steps - i - 1));
    }
  });
}

namespace {

// randint.low(low, high, size); randint(high, size) is randint.low(0, high, size).
void randint_fill(const Tensor& out, I64 low, I64 high) {
  std::vector<I64> values(static_cast<std::size_t>(out.numel()));
  default_generator().integers(values.data(), out.numel(), low, high);
  fill_from(out, values, "torch.randint");
}

}  // namespace

void randint_low(const OutputMeta& /*m*/, const Tensor& out, I64 low, I64 high, IntArrayRef /*size*/,
                 OptDtype /*dtype*/, OptDevice /*device*/) {
  randint_fill(out, low, high);
}
void randint(const OutputMeta& /*m*/, const Tensor& out, I64 high, IntArrayRef /*size*/, OptDtype /*dtype*/,
             OptDevice /*device*/) {
  randint_fill(out, 0, high);
}

}  // namespace wick::cpu
