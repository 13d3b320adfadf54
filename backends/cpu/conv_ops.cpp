// backends/cpu/conv_ops.cpp - 2-D convolution and its two adjoints, lowered to GEMM (im2col / col2im + OpenBLAS).
/// \file
/// The internal operators (namespace `aten`) work on batched 4-D tensors:
/// input [N, C, H, W], weight [O, C/groups, kh, kw], output [N, O, oh, ow].
/// torch.conv1d / conv2d (dispatch/nn_conv_composite.cpp) check the user's
/// arguments and reshape onto them.
///   forward:         out_g  = W_g [O/g, K] * col(x_g) [K, L]      (+ bias)
///   input_backward:  x_g   += col2im(W_g^T [K, O/g] * g_g [O/g, L])
///   weight_backward: W_g   += g_g [O/g, L] * col(x_g)^T [L, K]
/// with K = C/g * kh * kw and L = oh * ow. The two backwards are the
/// adjoints of the forward in each of its arguments, so each operator's
/// derivatives are the other two (dispatch/autograd_conv.cpp). The checks
/// and the geometry are the meta functions' (dispatch/ops/meta_conv.cpp).
/// float32 and bfloat16 run on oneDNN first where it has a kernel (Note
/// [Convolution on oneDNN] in onednn.h); what it refuses comes here.
#include <cblas.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include <wick/meta_nn.h>

#include <wick/gen/torch_kernels.h>
#include "loops.h"
#include "onednn.h"

namespace wick::cpu {
namespace {

// The meta function's geometry, with the GEMM dimensions.
struct ConvGeometry : Conv2dMeta {
  explicit ConvGeometry(const Conv2dMeta& m) : Conv2dMeta(m) {}
  [[nodiscard]] std::int64_t cg() const { return c / groups; }
  [[nodiscard]] std::int64_t og() const { return o / groups; }
  [[nodiscard]] std::int64_t k() const { return cg() * kh * kw; }
  [[nodiscard]] std::int64_t l() const { return oh * ow; }
};

void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
          std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
  cblas_sgemm(CblasRowMajor, ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0F, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}
void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, std::int64_t m, std::int64_t n, std::int64_t k, const double* a,
          std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c, std::int64_t ldc) {
  cblas_dgemm(CblasRowMajor, ta, tb, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), 1.0, a,
              static_cast<int>(lda), b, static_cast<int>(ldb), beta, c, static_cast<int>(ldc));
}

// The output columns [lo, hi) whose input column xo * sw + off lies in [0, w).
std::pair<std::int64_t, std::int64_t> inside_columns(const ConvGeometry& g, std::int64_t off) {
  // xo * sw + off >= 0  <=>  xo >= ceil(-off / sw);  xo * sw + off < w  <=>  xo <= floor((w - 1 - off) / sw).
  const std::int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
  const std::int64_t hi = g.w - 1 - off < 0 ? 0 : (g.w - 1 - off) / g.sw + 1;
  return {std::min(lo, g.ow), std::clamp(hi, std::min(lo, g.ow), g.ow)};
}

// Note [Convolution bands]
// The output is computed a band of output rows at a time: col for a band
// is [K, rows * ow], sized to stay in L2 (kBandBytes) while OpenBLAS packs
// it, rather than one [K, oh * ow] matrix per image that goes out to L3
// and is read back. Each band is one GEMM into the output's columns
// (ldc = oh * ow).
constexpr std::int64_t kBandBytes = 1 << 20;

struct Band {
  std::int64_t y0 = 0, y1 = 0;  // output rows [y0, y1)
  [[nodiscard]] std::int64_t columns(const ConvGeometry& g) const { return (y1 - y0) * g.ow; }
};

// Output rows per band for elements of `bytes` bytes: at least one.
std::int64_t band_rows(const ConvGeometry& g, std::size_t bytes) {
  const std::int64_t row_bytes = g.k() * g.ow * static_cast<std::int64_t>(bytes);
  return std::clamp<std::int64_t>(kBandBytes / std::max<std::int64_t>(row_bytes, 1), 1, g.oh);
}

// Calls fn(band) for the bands covering the output rows.
template <typename Fn>
void for_each_band(const ConvGeometry& g, std::size_t bytes, Fn&& fn) {
  const std::int64_t rows = band_rows(g, bytes);
  for (std::int64_t y0 = 0; y0 < g.oh; y0 += rows) fn(Band{y0, std::min(g.oh, y0 + rows)});
}

// col [cg * kh * kw, band columns] from one group's channels x [cg, h, w]; zeros
// where the window reads padding. kToCol false: the adjoint (col2im), adding
// col back into x. Each window row is cut into its padding and its inside
// once (no test per element); the inside is a copy (stride 1) or a strided
// gather.
template <bool kToCol, typename T>
void im2col(const ConvGeometry& g, const Band& band, std::conditional_t<kToCol, const T*, T*> x,
            std::conditional_t<kToCol, T*, const T*> col) {
  const std::int64_t lb = band.columns(g);
  {
    for (std::int64_t ci = 0; ci < g.cg(); ++ci) {
      std::int64_t row = ci * g.kh * g.kw;
      for (std::int64_t i = 0; i < g.kh; ++i) {
        for (std::int64_t j = 0; j < g.kw; ++j, ++row) {
          auto* crow = col + row * lb;
          const std::int64_t off = j * g.dw - g.pw;
          const auto [lo, hi] = inside_columns(g, off);
          for (std::int64_t y = band.y0; y < band.y1; ++y) {
            const std::int64_t iy = y * g.sh - g.ph + i * g.dh;
            auto* cseg = crow + (y - band.y0) * g.ow;
            if (iy < 0 || iy >= g.h) {
              if constexpr (kToCol) std::fill(cseg, cseg + g.ow, T(0));
              continue;
            }
            auto* xrow = x + (ci * g.h + iy) * g.w;  // xrow[xo * sw + off] is column xo's input
            if constexpr (kToCol) {
              std::fill(cseg, cseg + lo, T(0));
              if (g.sw == 1) {
                std::copy(xrow + lo + off, xrow + hi + off, cseg + lo);
              } else {
                for (std::int64_t xo = lo; xo < hi; ++xo) cseg[xo] = xrow[xo * g.sw + off];
              }
              std::fill(cseg + hi, cseg + g.ow, T(0));
            } else {
              for (std::int64_t xo = lo; xo < hi; ++xo) xrow[xo * g.sw + off] += cseg[xo];
            }
          }
        }
      }
    }
  }
}

template <typename T>
const T* cptr(const Tensor& t) {
  return static_cast<const T*>(t.data_ptr());
}
template <typename T>
T* mptr(const Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// Note [One thread pool]
// When OpenBLAS is its OpenMP build (openblas_get_parallel() == 2; the build
// links it when it is installed, see CMakeLists.txt), a GEMM called inside
// an OpenMP parallel region runs on the calling thread, and one called
// outside runs on the same libgomp threads as wick's loops. Convolutions
// then spread their images over the threads, each thread lowering and
// multiplying its own images with single-threaded GEMMs. With another
// OpenBLAS build, whose threads would compete with OpenMP's spinning ones,
// the images run one after another and BLAS threads each GEMM.
bool blas_shares_openmp_pool() {
  static const bool yes = openblas_get_parallel() == 2;
  return yes;
}

// Calls fn(n0, n1, col) for ranges of images covering the batch, in parallel
// when BLAS shares OpenMP's pool and the images hold enough work (Note [Grain
// size]: kGrainSize multiply-adds a thread, or a small batch of tiny images
// pays more for the team than it saves); col is a band-sized buffer of the
// range's own.
template <typename T, typename Fn>
void for_each_image_range(const ConvGeometry& g, Fn&& fn) {
  const auto col_size = static_cast<std::size_t>(g.k() * band_rows(g, sizeof(T)) * g.ow);
  auto run = [&](std::int64_t n0, std::int64_t n1) {
    std::vector<T> col(col_size);
    fn(n0, n1, col.data());
  };
  if (blas_shares_openmp_pool()) {
    const std::int64_t work_per_image = std::max<std::int64_t>(1, g.o * g.k() * g.l());
    parallel_for(g.n, std::max<std::int64_t>(1, kGrainSize / work_per_image), run);
  } else {
    run(0, g.n);
  }
}

}  // namespace

void convolution2d(const Conv2dMeta& m, const Tensor& out, const Tensor& input, const Tensor& weight,
                   const std::optional<Tensor>& bias, IntArrayRef /*stride*/, IntArrayRef /*padding*/,
                   IntArrayRef /*dilation*/, std::int64_t /*groups*/) {
  if (onednn_convolution(m, out, input, weight, bias)) return;
  const ConvGeometry g(m);
  const Widened wide(out);
  Tensor x = Widened::in(input).contiguous();
  Tensor wt = Widened::in(weight).contiguous();
  std::optional<Tensor> b;
  if (bias) b = Widened::in(*bias).contiguous();
  visit_float(x.dtype(), "slow_conv2d_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* px = cptr<T>(x);
    const T* pw = cptr<T>(wt);
    T* po = mptr<T>(wide.out());
    for_each_image_range<T>(g, [&](std::int64_t n0, std::int64_t n1, T* col) {
      for (std::int64_t n = n0; n < n1; ++n) {
        // The bias is the GEMM's starting value (beta = 1): no second pass over the output.
        if (b) {
          const T* pb = cptr<T>(*b);
          for (std::int64_t oc = 0; oc < g.o; ++oc) {
            T* row = po + (n * g.o + oc) * g.l();
            std::fill(row, row + g.l(), pb[oc]);
          }
        }
        for (std::int64_t gi = 0; gi < g.groups; ++gi) {
          for_each_band(g, sizeof(T), [&](const Band& band) {
            const std::int64_t lb = band.columns(g);
            im2col<true, T>(g, band, px + (n * g.c + gi * g.cg()) * g.h * g.w, col);
            T* og = po + (n * g.o + gi * g.og()) * g.l() + band.y0 * g.ow;
            gemm(CblasNoTrans, CblasNoTrans, g.og(), lb, g.k(), pw + gi * g.og() * g.k(), g.k(), col, lb,
                 b ? T(1) : T(0), og, g.l());
          });
        }
      }
    });
  });
  wide.finish();
}

namespace {

// kInput: input_backward(grad, other = weight) into size = the input's sizes;
// else weight_backward(grad, other = input) into size = the weight's sizes.
// The input gradient of each image is its own; the weight gradient is a sum
// over images, so each range of images adds into a buffer of its own and
// the buffers are added up under a lock.
template <bool kInput>
void conv_backward(const Conv2dMeta& m, const Tensor& out, const Tensor& grad, const Tensor& other,
                   IntArrayRef /*size*/, IntArrayRef /*stride*/, IntArrayRef /*padding*/, IntArrayRef /*dilation*/,
                   std::int64_t /*groups*/) {
  const ConvGeometry g(m);
  const Widened wide(out);
  Tensor gr = Widened::in(grad).contiguous();
  Tensor o = Widened::in(other).contiguous();
  visit_float(gr.dtype(), "slow_conv2d_cpu", [&](auto tag) {
    using T = decltype(tag);
    T* po = mptr<T>(wide.out());
    const Tensor& out = wide.out();
    std::mutex sum_lock;
    if constexpr (!kInput) std::fill(po, po + out.numel(), T(0));
    for_each_image_range<T>(g, [&](std::int64_t n0, std::int64_t n1, T* col) {
      std::vector<T> partial;
      T* target = po;
      if (!kInput && (n0 > 0 || n1 < g.n)) {
        partial.assign(static_cast<std::size_t>(out.numel()), T(0));
        target = partial.data();
      }
      for (std::int64_t n = n0; n < n1; ++n) {
        if constexpr (kInput) std::fill(po + n * g.c * g.h * g.w, po + (n + 1) * g.c * g.h * g.w, T(0));
        for (std::int64_t gi = 0; gi < g.groups; ++gi) {
          const std::int64_t image = (n * g.c + gi * g.cg()) * g.h * g.w;
          for_each_band(g, sizeof(T), [&](const Band& band) {
            const std::int64_t lb = band.columns(g);
            const T* pg = cptr<T>(gr) + (n * g.o + gi * g.og()) * g.l() + band.y0 * g.ow;
            if constexpr (kInput) {
              gemm(CblasTrans, CblasNoTrans, g.k(), lb, g.og(), cptr<T>(o) + gi * g.og() * g.k(), g.k(), pg, g.l(),
                   T(0), col, lb);
              im2col<false, T>(g, band, po + image, col);
            } else {
              im2col<true, T>(g, band, cptr<T>(o) + image, col);
              gemm(CblasNoTrans, CblasTrans, g.og(), g.k(), lb, pg, g.l(), col, lb, T(1), target + gi * g.og() * g.k(),
                   g.k());
            }
          });
        }
      }
      if (target != po) {
        std::lock_guard lock(sum_lock);
        for (std::size_t i = 0; i < partial.size(); ++i) po[i] += partial[i];
      }
    });
  });
  wide.finish();
}

}  // namespace

void conv2d_backward(const Conv2dMeta& m, const Tensor& out, const Tensor& grad, const Tensor& other, IntArrayRef size,
                     IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, std::int64_t groups, bool input) {
  if (onednn_convolution_backward(m, out, grad, other, input)) return;
  input ? conv_backward<true>(m, out, grad, other, size, stride, padding, dilation, groups)
        : conv_backward<false>(m, out, grad, other, size, stride, padding, dilation, groups);
}

}  // namespace wick::cpu
