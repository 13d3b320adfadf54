// backends/cpu/copy_ops.cpp - converting copies between any two dtypes.
/// \file
/// `copy_convert` is the converting half of copy_ (binary_ops.cpp) and of
/// every `to(dtype)`: one loop per pair of dtypes, each element through
/// `wick::convert` (PyTorch's results for NaN, infinities and values out of
/// range; Note [Rounding to 16 bits] in wick/half.h). Contiguous float32 <->
/// float16 runs use the CPU's F16C conversions when it has them (the same
/// rounding, 8 values an instruction). `copy_transposed` is copy_'s path
/// for layouts that are transposes of each other.
#include <immintrin.h>

#include <algorithm>
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

// Note [Transposing copies]
// A copy between tensors contiguous along different dims (x.t().contiguous(),
// a row-major matrix into LAPACK's column-major layout) touches one cache
// line per element on its strided side in the element loop: 512 x 512
// doubles took 1.1 ms. It runs in kTile x kTile tiles instead, within which
// the strided side's lines stay in cache: strips of kTile along the
// source's contiguous dim are split over the threads, and each strip is
// copied tile by tile, writing the destination's contiguous runs.
namespace {

constexpr std::int64_t kTile = 32;

template <typename U>
void copy_tiles(U* dst, const U* src, std::int64_t n_fd, std::int64_t dst_step, std::int64_t src_step,
                std::int64_t b0, std::int64_t b1) {
  // dst[a + b * dst_step] = src[a * src_step + b] for a < n_fd, b0 <= b < b1.
  for (std::int64_t a0 = 0; a0 < n_fd; a0 += kTile) {
    const std::int64_t a1 = std::min(n_fd, a0 + kTile);
    for (std::int64_t b = b0; b < b1; ++b)
      for (std::int64_t a = a0; a < a1; ++a) dst[a + b * dst_step] = src[a * src_step + b];
  }
}

}  // namespace

bool copy_transposed(const Tensor& dst, const Tensor& src) {
  const std::size_t e = itemsize(dst.dtype());
  if (src.dtype() != dst.dtype() || dst.dim() < 2 || !src.sizes().equals(dst.sizes()) ||
      (e != 1 && e != 2 && e != 4 && e != 8)) {
    return false;
  }
  const std::int64_t nd = dst.dim();
  const IntArrayRef sizes = dst.sizes();
  std::int64_t fd = -1;  // the dim along which dst is contiguous
  std::int64_t fs = -1;  // ... and src
  for (std::int64_t d = 0; d < nd; ++d) {
    if (sizes[d] < 2) continue;
    if (dst.strides()[d] == 0) return false;  // dst's elements overlap: the threads must not split it
    if (dst.strides()[d] == 1) fd = d;
    if (src.strides()[d] == 1) fs = d;
  }
  if (fd < 0 || fs < 0 || fd == fs || sizes[fd] < kTile || sizes[fs] < kTile) return false;
  // The other dims, each with both sides' strides: the outer positions.
  DimVector outer_sizes, dst_strides, src_strides;
  for (std::int64_t d = 0; d < nd; ++d) {
    if (d == fd || d == fs || sizes[d] == 1) continue;
    outer_sizes.push_back(sizes[d]);
    dst_strides.push_back(dst.strides()[d]);
    src_strides.push_back(src.strides()[d]);
  }
  const std::int64_t n_fd = sizes[fd];
  const std::int64_t n_fs = sizes[fs];
  const std::int64_t strips = (n_fs + kTile - 1) / kTile;
  const std::int64_t outer = dst.numel() / (n_fd * n_fs);
  const std::int64_t dst_step = dst.strides()[fs];
  const std::int64_t src_step = src.strides()[fd];
  auto run = [&](auto tag) {
    using U = decltype(tag);
    U* out = static_cast<U*>(dst.data_ptr());
    const U* in = static_cast<const U*>(src.data_ptr());
    parallel_for(outer * strips, std::max<std::int64_t>(1, kGrainSize / (kTile * n_fd)), [&](std::int64_t w0,
                                                                                             std::int64_t w1) {
      for (std::int64_t w = w0; w < w1; ++w) {
        std::int64_t rest = w / strips;
        std::int64_t od = 0;
        std::int64_t os = 0;
        for (std::size_t d = outer_sizes.size(); d-- > 0;) {
          const std::int64_t i = rest % outer_sizes[d];
          rest /= outer_sizes[d];
          od += i * dst_strides[d];
          os += i * src_strides[d];
        }
        const std::int64_t b0 = (w % strips) * kTile;
        copy_tiles(out + od, in + os, n_fd, dst_step, src_step, b0, std::min(n_fs, b0 + kTile));
      }
    });
  };
  switch (e) {
    case 1: run(std::uint8_t{}); break;
    case 2: run(std::uint16_t{}); break;
    case 4: run(std::uint32_t{}); break;
    default: run(std::uint64_t{}); break;
  }
  return true;
}

}  // namespace wick::cpu
