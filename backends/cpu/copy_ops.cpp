// backends/cpu/copy_ops.cpp - converting copies between any two dtypes.
/// \file
/// `copy_convert` is the converting half of copy_ (binary_ops.cpp) and of
/// every `to(dtype)`: one loop per pair of dtypes, each element through
/// `wick::convert` (PyTorch's results for NaN, infinities and values out of
/// range; Note [Rounding to 16 bits] in wick/half.h). Contiguous float32 <->
/// float16 runs use the CPU's F16C conversions when it has them (the same
/// rounding, 8 values an instruction).
#include <immintrin.h>

#include <cstdint>

#include <wick/dtype.h>
#include <wick/tensor.h>

#include "loops.h"

namespace wick::cpu {
namespace {

// Every x86 CPU with AVX2 has F16C (clang's __builtin_cpu_supports has no "f16c").
bool cpu_has_f16c() { return cpu_has_avx2(); }

[[gnu::target("f16c,avx")]] void half_to_float_f16c(float* o, const Half* x, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    _mm256_storeu_ps(o + i, _mm256_cvtph_ps(h));
  }
  for (; i < n; ++i) o[i] = x[i];
}

[[gnu::target("f16c,avx")]] void float_to_half_f16c(Half* o, const float* x, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(x + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + i), h);
  }
  for (; i < n; ++i) o[i] = Half(x[i]);
}

// float16 <-> float32 through F16C; false when the copy is not a contiguous
// run of that pair or the CPU lacks F16C.
bool copy_f16c(const Tensor& dst, const Tensor& src) {
  const ScalarType d = dst.dtype();
  const ScalarType s = src.dtype();
  const bool pair = (d == ScalarType::kFloat16 && s == ScalarType::kFloat32) ||
                    (d == ScalarType::kFloat32 && s == ScalarType::kFloat16);
  if (!pair || !cpu_has_f16c() || !dst.is_contiguous() || !src.is_contiguous() ||
      !dst.sizes().equals(src.sizes())) {
    return false;
  }
  auto* out = static_cast<char*>(dst.data_ptr());
  const auto* in = static_cast<const char*>(src.data_ptr());
  const std::int64_t n = dst.numel();
  parallel_for(n, kGrainSize, [&](std::int64_t begin, std::int64_t end) {
    if (d == ScalarType::kFloat16) {
      float_to_half_f16c(reinterpret_cast<Half*>(out) + begin, reinterpret_cast<const float*>(in) + begin, end - begin);
    } else {
      half_to_float_f16c(reinterpret_cast<float*>(out) + begin, reinterpret_cast<const Half*>(in) + begin, end - begin);
    }
  });
  return true;
}

}  // namespace

void copy_convert(const Tensor& dst, const Tensor& src) {
  if (copy_f16c(dst, src)) return;
  visit_dtype<dtypes::kAllAndComplex>(dst.dtype(), "copy_", [&](auto dst_tag) {
    using D = decltype(dst_tag);
    visit_dtype<dtypes::kAllAndComplex>(src.dtype(), "copy_", [&](auto src_tag) {
      using S = decltype(src_tag);
      unary_loop<D, S>(dst, src, [](S v) { return convert<D>(v); });
    });
  });
}

}  // namespace wick::cpu
