// backends/cuda/fft_ops.cpp - the DFT kernels _fft_c2c, _fft_r2c and _fft_c2r on cuFFT.
/// \file
/// Note [DFTs on cuFFT]
/// The same three kernels as the CPU's (Note [DFTs on kissfft] in
/// backends/cpu/fft_ops.cpp), one dim at a time: along a dim of a
/// contiguous tensor the lines are `outer` groups of `inner` interleaved
/// lines, so one batched cuFFT plan of `inner` lines (stride inner,
/// distance 1) runs once per group; when inner is 1 it is one plan of all
/// `outer` lines. C2R overwrites its input, so it reads a copy; a full
/// (not one-sided) R2C fills its upper half from the lower one's
/// conjugates. Plans are made for each call (cuFFT caches nothing for us;
/// a plan cache is the next step). Compiled on hosts without a GPU; not
/// yet run on one (backends/cuda/README.md).
#include <cufft.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include <wick/checked.h>
#include <wick/meta.h>
#include <wick/ops.h>

#include <wick/gen/torch_kernels.h>
#include "cuda_common.h"

namespace wick::cuda_backend {
namespace {

using I64 = std::int64_t;

void check_fft(cufftResult status, const char* op) {
  WICK_CHECK(status == CUFFT_SUCCESS, RuntimeError, op, ": cuFFT error ", static_cast<int>(status));
}

int fft_int(I64 v, const char* op) {
  WICK_CHECK(v <= std::numeric_limits<int>::max(), RuntimeError, op, ": a size of ", v, " is too large for cuFFT");
  return static_cast<int>(v);
}

// Lines along `dim` of a contiguous tensor of `sizes`.
struct Lines {
  I64 outer = 1, n = 1, inner = 1;
};
Lines lines_of(IntArrayRef sizes, I64 dim) {
  Lines l;  // of a tensor that holds data (the kernels return early when it is empty)
  l.n = sizes[static_cast<std::size_t>(dim)];
  for (I64 d = 0; d < dim; ++d) l.outer *= sizes[static_cast<std::size_t>(d)];
  for (auto d = static_cast<std::size_t>(dim) + 1; d < sizes.size(); ++d) l.inner *= sizes[d];
  return l;
}

/// One batched plan along a dim, owned for the call.
class Plan final {
 public:
  // `in_n`/`out_n`: the line lengths in elements of the input and output
  // arrays (n, or n / 2 + 1 on the complex side of a real transform).
  Plan(const Lines& l, I64 in_n, I64 out_n, cufftType type, const char* op) : op_(op) {
    int n = fft_int(l.n, op);
    int in_embed = fft_int(in_n, op);
    int out_embed = fft_int(out_n, op);
    const bool grouped = l.inner > 1;
    const int batch = fft_int(grouped ? l.inner : l.outer, op);
    const int stride = grouped ? fft_int(l.inner, op) : 1;
    const int in_dist = grouped ? 1 : in_embed;
    const int out_dist = grouped ? 1 : out_embed;
    check_fft(cufftPlanMany(&plan_, 1, &n, &in_embed, stride, in_dist, &out_embed, stride, out_dist, type, batch), op);
    check_fft(cufftSetStream(plan_, current_stream()), op);
    groups_ = grouped ? l.outer : 1;
    in_group_ = grouped ? in_n * l.inner : 0;
    out_group_ = grouped ? out_n * l.inner : 0;
  }
  ~Plan() { cufftDestroy(plan_); }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  /// Runs exec(plan, group input offset, group output offset) for each group.
  template <typename Exec>
  void run(Exec exec) const {
    for (I64 g = 0; g < groups_; ++g) check_fft(exec(plan_, g * in_group_, g * out_group_), op_);
  }

 private:
  cufftHandle plan_ = 0;
  const char* op_;
  I64 groups_ = 1, in_group_ = 0, out_group_ = 0;
};

// The complex DFT along `dim` of the contiguous complex `t`, in place.
void c2c_dim(const Tensor& t, I64 dim, bool inverse, const char* op) {
  const Lines l = lines_of(t.sizes(), dim);
  if (l.n <= 1 || t.numel() == 0) return;
  const int direction = inverse ? CUFFT_INVERSE : CUFFT_FORWARD;
  if (t.dtype() == ScalarType::kComplex64) {
    auto* data = static_cast<cufftComplex*>(t.data_ptr());
    Plan(l, l.n, l.n, CUFFT_C2C, op).run([&](cufftHandle p, I64 i, I64 o) {
      return cufftExecC2C(p, data + i, data + o, direction);
    });
  } else {
    auto* data = static_cast<cufftDoubleComplex*>(t.data_ptr());
    Plan(l, l.n, l.n, CUFFT_Z2Z, op).run([&](cufftHandle p, I64 i, I64 o) {
      return cufftExecZ2Z(p, data + i, data + o, direction);
    });
  }
}

// Multiplies `t` by the transform's scale, through its real view.
void scale(const Tensor& t, I64 normalization, double signal) {
  if (normalization == 0 || t.numel() == 0) return;
  const double s = normalization == 1 ? 1.0 / std::sqrt(signal) : 1.0 / signal;
  Tensor parts = is_complex(t.dtype()) ? view_as_real(t) : t;
  parts.mul_(wrap_scalar(Scalar(s)));
}

double signal_size(IntArrayRef sizes, const DimVector& dims) {
  double n = 1;
  for (const I64 d : dims) n *= static_cast<double>(sizes[static_cast<std::size_t>(d)]);
  return n;
}

DimVector wrapped(IntArrayRef dims, I64 rank) {
  DimVector out;
  for (const I64 d : dims) out.push_back(wrap_dim(d, rank));
  return out;
}

}  // namespace

void _fft_c2c(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, IntArrayRef dim,
              std::int64_t normalization, bool forward) {
  const char* op = "aten._fft_c2c";
  (void)cuda_device_of(op, {&out, &self});
  const DeviceGuard guard(out.device());
  if (out.numel() == 0) return;
  Tensor(out).copy_(self);
  const DimVector dims = wrapped(dim, self.dim());
  for (const I64 d : dims) c2c_dim(out, d, !forward, op);
  scale(out, normalization, signal_size(out.sizes(), dims));
}

void _fft_r2c(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, IntArrayRef dim,
              std::int64_t normalization, bool onesided) {
  const char* op = "aten._fft_r2c";
  (void)cuda_device_of(op, {&out, &self});
  const DeviceGuard guard(out.device());
  if (out.numel() == 0) return;
  const DimVector dims = wrapped(dim, self.dim());
  if (dims.empty()) {
    Tensor(out).copy_(self);
    return;
  }
  const I64 last = dims.back();
  const Tensor src = self.contiguous();
  const I64 n = src.size(last);
  const I64 half = n / 2 + 1;
  DimVector half_sizes(src.sizes());
  half_sizes[static_cast<std::size_t>(last)] = half;
  // The one-sided spectrum: into out directly, or into a temporary.
  if (n == 0) {  // an empty signal: its spectrum is 0
    Tensor(out).zero_();
    return;
  }
  const Tensor spectrum = onesided ? out : empty(half_sizes, out.dtype(), out.device());
  const Lines l = lines_of(src.sizes(), last);
  {
    if (src.dtype() == ScalarType::kFloat32) {
      auto* in = static_cast<cufftReal*>(src.data_ptr());
      auto* o = static_cast<cufftComplex*>(spectrum.data_ptr());
      Plan(l, n, half, CUFFT_R2C, op).run([&](cufftHandle p, I64 i, I64 j) { return cufftExecR2C(p, in + i, o + j); });
    } else {
      auto* in = static_cast<cufftDoubleReal*>(src.data_ptr());
      auto* o = static_cast<cufftDoubleComplex*>(spectrum.data_ptr());
      Plan(l, n, half, CUFFT_D2Z, op).run([&](cufftHandle p, I64 i, I64 j) { return cufftExecD2Z(p, in + i, o + j); });
    }
  }
  if (!onesided) {
    narrow(out, last, 0, half).copy_(spectrum);
    // X[k] = conj(X[n - k]) for k >= n / 2 + 1: the lower half's values 1 .. n - half, reversed.
    if (n > half) {
      const I64 flip_dims[] = {last};
      narrow(out, last, half, n - half).copy_(conj(flip(narrow(spectrum, last, 1, n - half), flip_dims)));
    }
  }
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) c2c_dim(out, dims[i], false, op);
  scale(out, normalization, signal_size(src.sizes(), dims));
}

void _fft_c2r(const OutputMeta& /*m*/, const Tensor& out, const Tensor& self, IntArrayRef dim,
              std::int64_t normalization, std::int64_t last_dim_size) {
  const char* op = "aten._fft_c2r";
  (void)cuda_device_of(op, {&out, &self});
  const DeviceGuard guard(out.device());
  if (out.numel() == 0) return;
  const DimVector dims = wrapped(dim, self.dim());
  const Tensor contiguous = self.contiguous();  // a copy of self: cuFFT's C2R overwrites its input
  const Tensor tmp = contiguous.is_same(self) ? contiguous.clone() : contiguous;
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) c2c_dim(tmp, dims[i], true, op);
  const I64 last = dims.back();
  const I64 half = tmp.size(last);
  const Lines l = lines_of(out.sizes(), last);
  if (tmp.dtype() == ScalarType::kComplex64) {
    auto* in = static_cast<cufftComplex*>(tmp.data_ptr());
    auto* o = static_cast<cufftReal*>(out.data_ptr());
    Plan(l, half, last_dim_size, CUFFT_C2R, op).run([&](cufftHandle p, I64 i, I64 j) {
      return cufftExecC2R(p, in + i, o + j);
    });
  } else {
    auto* in = static_cast<cufftDoubleComplex*>(tmp.data_ptr());
    auto* o = static_cast<cufftDoubleReal*>(out.data_ptr());
    Plan(l, half, last_dim_size, CUFFT_Z2D, op).run([&](cufftHandle p, I64 i, I64 j) {
      return cufftExecZ2D(p, in + i, o + j);
    });
  }
  scale(out, normalization, signal_size(out.sizes(), dims));
}

}  // namespace wick::cuda_backend
