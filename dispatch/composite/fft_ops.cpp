// dispatch/composite/fft_ops.cpp - torch.fft: the 20 transforms and shifts, and fftfreq/rfftfreq, over three kernels.
/// \file
/// Note [Three transforms]
/// Every torch.fft transform is one or two of three operators with meta
/// functions, device kernels and formulas (dispatch/ops/fft.ops):
/// aten._fft_c2c (complex to complex, either direction), aten._fft_r2c
/// (real to complex, forward, optionally one-sided) and aten._fft_c2r
/// (one-sided Hermitian to real, inverse). The functions here only
/// canonicalise the user's arguments, with PyTorch 1.13's checks and
/// messages:
///   - dtypes: integers and bools compute in the default float dtype;
///     float16 and bfloat16 are refused ("Unsupported dtype Half"), as on
///     PyTorch's CPU; a complex transform of a real input promotes it;
///   - sizes: the input is cut or zero-padded to n (s) along each dim;
///   - norm: "backward" (the default) scales the inverse by 1/n,
///     "forward" the forward transform, "ortho" both by 1/sqrt(n); the
///     kernels take the scaling as 0 (none), 1 (1/sqrt(n)) or 2 (1/n);
///   - direction: an inverse real-to-complex transform (ifft of a real
///     input, ihfft) is the conjugate of the forward one; a forward
///     complex-to-real one (hfft) transforms the conjugate of its input.
/// A 0-dim input has one dim of size 0 for the one-dimensional functions
/// (PyTorch reads its missing size as 0): "Invalid number of data points (0)".
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"

namespace wick {
namespace {

using I64 = std::int64_t;
using T = const Tensor&;
using OptInt = std::optional<I64>;
using OptInts = std::optional<IntArrayRef>;
using OptStr = std::optional<std::string_view>;

enum Scaling : I64 { kNone = 0, kByRootN = 1, kByN = 2 };

// The kernels' scaling for `norm` in this direction.
I64 scaling(OptStr norm, bool forward) {
  if (!norm || *norm == "backward") return forward ? kNone : kByN;
  if (*norm == "forward") return forward ? kByN : kNone;
  WICK_CHECK(*norm == "ortho", RuntimeError, "Invalid normalization mode: \"", *norm, "\"");
  return kByRootN;
}

// The dtype a transform computes in (complex when `complex`).
ScalarType fft_dtype(ScalarType t, bool complex) {
  if (is_complex(t)) return t;
  if (!is_floating(t)) t = kDefaultFloat;
  WICK_CHECK(t == ScalarType::kFloat32 || t == ScalarType::kFloat64, RuntimeError, "Unsupported dtype ",
             type_title(t));
  return complex ? to_complex_dtype(t) : t;
}

Tensor promoted(T x, bool complex) {
  const ScalarType t = fft_dtype(x.dtype(), complex);
  return x.dtype() == t ? x : x.to(t);
}

void check_points(I64 n) { WICK_CHECK(n >= 1, RuntimeError, "Invalid number of data points (", n, ") specified"); }

// The input cut or zero-padded to sizes[i] along dims[i].
Tensor resize_input(T x, IntArrayRef dims, IntArrayRef sizes) {
  Tensor r = x;
  bool pad = false;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (r.size(dims[i]) > sizes[i]) r = narrow(r, dims[i], 0, sizes[i]);
    pad = pad || r.size(dims[i]) < sizes[i];
  }
  if (!pad) return r;
  // constant_pad_nd's pairs run from the last dim backwards.
  DimVector amounts(checked_mul(r.dim(), 2, "torch.fft"), 0);
  for (std::size_t i = 0; i < dims.size(); ++i)
    amounts[static_cast<std::size_t>(2 * (r.dim() - 1 - dims[i]) + 1)] = sizes[i] - r.size(dims[i]);
  return constant_pad_nd(r, amounts, 0);
}

// One dim of a one-dimensional transform: wrapped as for a 1-dim tensor
// when the input is 0-dim, whose size there reads as 0.
struct OneDim {
  I64 dim;
  I64 size;
};
OneDim one_dim(T x, I64 dim) {
  const I64 d = wrap_dim(dim, std::max<I64>(x.dim(), 1));
  return {d, x.dim() == 0 ? 0 : x.size(d)};
}

Tensor check_resize_0d(T x, I64 dim, I64 n) {
  WICK_CHECK(x.dim() > 0, RuntimeError, "torch.fft: a 0-dim input cannot be resized to n = ", n);
  return resize_input(x, IntArrayRef(&dim, 1), IntArrayRef(&n, 1));
}

// fft and ifft of a complex input.
Tensor c2c_1d(T input, OptInt n_opt, I64 dim_in, OptStr norm, bool forward) {
  Tensor x = input;
  const OneDim d = one_dim(x, dim_in);
  const I64 n = n_opt.value_or(d.size);
  check_points(n);
  if (n_opt) x = check_resize_0d(x, d.dim, n);
  const I64 dims[] = {d.dim};
  return aten::_fft_c2c(x, dims, scaling(norm, forward), forward);
}

// fft, ifft (onesided false), rfft and ihfft (onesided true) of a real input.
Tensor r2c_1d(const char* fname, T input, OptInt n_opt, I64 dim_in, OptStr norm, bool forward, bool onesided) {
  WICK_CHECK(!is_complex(input.dtype()), RuntimeError, fname, " expects a real input tensor, but got ",
             type_title(input.dtype()));
  Tensor x = promoted(input, false);
  const OneDim d = one_dim(x, dim_in);
  const I64 n = n_opt.value_or(d.size);
  check_points(n);
  if (n_opt) x = check_resize_0d(x, d.dim, n);
  const I64 dims[] = {d.dim};
  const Tensor r = aten::_fft_r2c(x, dims, scaling(norm, forward), onesided);
  return forward ? r : conj(r);
}

// irfft (inverse) and hfft (forward) of a one-sided Hermitian input.
Tensor c2r_1d(T input, OptInt n_opt, I64 dim_in, OptStr norm, bool forward) {
  Tensor x = promoted(input, true);
  const OneDim d = one_dim(x, dim_in);
  const I64 n = n_opt.value_or(checked_mul(checked_add(d.size, -1, "torch.fft"), 2, "torch.fft"));
  check_points(n);
  if (n_opt) x = check_resize_0d(x, d.dim, n / 2 + 1);
  if (forward) x = conj(x);
  const I64 dims[] = {d.dim};
  return aten::_fft_c2r(x, dims, scaling(norm, forward), n);
}

Tensor fft_kernel(T input, OptInt n, I64 dim, OptStr norm) {
  return is_complex(input.dtype()) ? c2c_1d(input, n, dim, norm, true) : r2c_1d("fft", input, n, dim, norm, true, false);
}
Tensor ifft_kernel(T input, OptInt n, I64 dim, OptStr norm) {
  return is_complex(input.dtype()) ? c2c_1d(input, n, dim, norm, false)
                                   : r2c_1d("ifft", input, n, dim, norm, false, false);
}
Tensor rfft_kernel(T input, OptInt n, I64 dim, OptStr norm) { return r2c_1d("rfft", input, n, dim, norm, true, true); }
Tensor ihfft_kernel(T input, OptInt n, I64 dim, OptStr norm) {
  return r2c_1d("ihfft", input, n, dim, norm, false, true);
}
Tensor irfft_kernel(T input, OptInt n, I64 dim, OptStr norm) { return c2r_1d(input, n, dim, norm, false); }
Tensor hfft_kernel(T input, OptInt n, I64 dim, OptStr norm) { return c2r_1d(input, n, dim, norm, true); }

// --- n dims ---------------------------------------------------------------------------------------------

// The dims to transform and the signal's size along each.
struct Plan {
  DimVector dims;
  DimVector sizes;
};

Plan plan_of(T x, OptInts s, OptInts dim) {
  Plan p;
  const I64 rank = x.dim();
  if (dim) {
    for (const I64 d : *dim) {
      const I64 w = wrap_dim(d, std::max<I64>(rank, 1));
      for (const I64 seen : p.dims) WICK_CHECK(seen != w, RuntimeError, "FFT dims must be unique");
      p.dims.push_back(w);
    }
  }
  if (s) {
    if (dim) {
      WICK_CHECK(s->size() == dim->size(), RuntimeError,
                 "When given, dim and shape arguments must have the same length");
    } else {
      const auto given = static_cast<I64>(s->size());
      WICK_CHECK(given <= rank, RuntimeError, "Got shape with ", given, " values but input tensor only has ", rank,
                 " dimensions.");
      for (I64 d = rank - given; d < rank; ++d) p.dims.push_back(d);
    }
  } else if (!dim) {
    for (I64 d = 0; d < rank; ++d) p.dims.push_back(d);
  }
  for (std::size_t i = 0; i < p.dims.size(); ++i) {
    const I64 n = s && (*s)[i] != -1 ? (*s)[i] : (rank == 0 ? 0 : x.size(p.dims[i]));
    check_points(n);
    p.sizes.push_back(n);
  }
  return p;
}

// fftn and ifftn (also fft2, ifft2): a complex transform of the promoted input.
Tensor c2c_nd(T input, OptInts s, OptInts dim, OptStr norm, bool forward) {
  const Tensor x = promoted(input, true);
  const Plan p = plan_of(x, s, dim);
  // PyTorch's pocketfft refuses a 0-dim tensor; it returns uninitialised
  // memory for an empty dim list, where wick returns the input (sdk/docs/dispatch.md).
  WICK_CHECK(x.dim() > 0, RuntimeError, "ndim must be >= 1");
  if (p.dims.empty()) return x.clone();
  return aten::_fft_c2c(resize_input(x, p.dims, p.sizes), p.dims, scaling(norm, forward), forward);
}

Plan nonempty_plan(const char* fname, T x, OptInts s, OptInts dim) {
  Plan p = plan_of(x, s, dim);
  WICK_CHECK(!p.dims.empty(), RuntimeError, fname, " must transform at least one axis");
  return p;
}

Tensor rfftn_impl(const char* fname, T input, OptInts s, OptInts dim, OptStr norm) {
  WICK_CHECK(!is_complex(input.dtype()), RuntimeError, fname, " expects a real-valued input tensor, but got ",
             type_title(input.dtype()));
  const Tensor x = promoted(input, false);
  const Plan p = nonempty_plan(fname, x, s, dim);
  return aten::_fft_r2c(resize_input(x, p.dims, p.sizes), p.dims, scaling(norm, true), true);
}

// The last dim's output size of a complex-to-real transform: s[-1], or 2 * (m - 1).
I64 last_dim_size(T x, const Plan& p, OptInts s) {
  if (s && s->back() != -1) return s->back();
  const I64 n = checked_mul(checked_add(x.size(p.dims.back()), -1, "torch.fft"), 2, "torch.fft");
  check_points(n);
  return n;
}

Tensor irfftn_impl(const char* fname, T input, OptInts s, OptInts dim, OptStr norm) {
  const Tensor x = promoted(input, true);
  Plan p = nonempty_plan(fname, x, s, dim);
  const I64 last = last_dim_size(x, p, s);
  p.sizes.back() = last / 2 + 1;
  return aten::_fft_c2r(resize_input(x, p.dims, p.sizes), p.dims, scaling(norm, false), last);
}

Tensor hfftn_impl(const char* fname, T input, OptInts s, OptInts dim, OptStr norm) {
  const Tensor x = promoted(input, true);
  Plan p = nonempty_plan(fname, x, s, dim);
  const I64 last = last_dim_size(x, p, s);
  p.sizes.back() = last / 2 + 1;
  const I64 scale = scaling(norm, true);
  Tensor t = resize_input(x, p.dims, p.sizes);
  if (p.dims.size() > 1) t = aten::_fft_c2c(t, IntArrayRef(p.dims.data(), p.dims.size() - 1), scale, true);
  const I64 last_dim[] = {p.dims.back()};
  return aten::_fft_c2r(conj(t), last_dim, scale, last);
}

Tensor ihfftn_impl(const char* fname, T input, OptInts s, OptInts dim, OptStr norm) {
  // PyTorch 1.13's message for this one is its internal assertion's.
  WICK_CHECK(!is_complex(input.dtype()), RuntimeError,
             "Expected self.is_floating_point() to be true, but got false.  (Could this error message be improved?  "
             "If so, please report an enhancement request to PyTorch.)");
  const Tensor x = promoted(input, false);
  const Plan p = nonempty_plan(fname, x, s, dim);
  const I64 scale = scaling(norm, false);
  const I64 last_dim[] = {p.dims.back()};
  const Tensor half = conj(aten::_fft_r2c(resize_input(x, p.dims, p.sizes), last_dim, scale, true));
  if (p.dims.size() == 1) return half;
  return aten::_fft_c2c(half, IntArrayRef(p.dims.data(), p.dims.size() - 1), scale, false);
}

Tensor fftn_kernel(T input, OptInts s, OptInts dim, OptStr norm) { return c2c_nd(input, s, dim, norm, true); }
Tensor ifftn_kernel(T input, OptInts s, OptInts dim, OptStr norm) { return c2c_nd(input, s, dim, norm, false); }
Tensor fft2_kernel(T input, OptInts s, IntArrayRef dim, OptStr norm) { return c2c_nd(input, s, dim, norm, true); }
Tensor ifft2_kernel(T input, OptInts s, IntArrayRef dim, OptStr norm) { return c2c_nd(input, s, dim, norm, false); }
Tensor rfftn_kernel(T input, OptInts s, OptInts dim, OptStr norm) { return rfftn_impl("rfftn", input, s, dim, norm); }
Tensor rfft2_kernel(T input, OptInts s, IntArrayRef dim, OptStr norm) {
  return rfftn_impl("rfftn", input, s, dim, norm);
}
Tensor irfftn_kernel(T input, OptInts s, OptInts dim, OptStr norm) {
  return irfftn_impl("irfftn", input, s, dim, norm);
}
Tensor irfft2_kernel(T input, OptInts s, IntArrayRef dim, OptStr norm) {
  return irfftn_impl("irfftn", input, s, dim, norm);
}
Tensor hfftn_kernel(T input, OptInts s, OptInts dim, OptStr norm) { return hfftn_impl("hfftn", input, s, dim, norm); }
Tensor hfft2_kernel(T input, OptInts s, IntArrayRef dim, OptStr norm) {
  return hfftn_impl("hfftn", input, s, dim, norm);
}
Tensor ihfftn_kernel(T input, OptInts s, OptInts dim, OptStr norm) {
  return ihfftn_impl("ihfftn", input, s, dim, norm);
}
Tensor ihfft2_kernel(T input, OptInts s, IntArrayRef dim, OptStr norm) {
  return ihfftn_impl("ihfftn", input, s, dim, norm);
}

// --- shifts and frequencies ---------------------------------------------------------------------------------

// Rolls each of dim (default: all) by size // 2 (fftshift) or (size + 1) // 2 (ifftshift).
Tensor shift(T input, OptInts dim, bool inverse) {
  DimVector dims;
  if (dim) {
    dims.assign(*dim);
  } else {
    for (I64 d = 0; d < input.dim(); ++d) dims.push_back(d);
  }
  DimVector shifts;
  for (const I64 d : dims) {
    const I64 size = input.size(wrap_dim(d, input.dim()));
    shifts.push_back(inverse ? (size + 1) / 2 : size / 2);
  }
  return roll(input, shifts, dims);
}
Tensor fftshift_kernel(T input, OptInts dim) { return shift(input, dim, false); }
Tensor ifftshift_kernel(T input, OptInts dim) { return shift(input, dim, true); }

// [0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n), computed in the
// dtype as PyTorch does (arange, the negative half less n, one product).
Tensor frequencies(const char* fname, I64 n, double d, std::optional<ScalarType> dtype, std::optional<Device> device,
                   bool onesided) {
  const ScalarType t = dtype.value_or(kDefaultFloat);
  WICK_CHECK(is_floating(t) || is_complex(t), RuntimeError, fname, " requires a floating point or complex dtype");
  const I64 count = onesided ? n / 2 + 1 : n;
  WICK_CHECK(count >= 0, RuntimeError, "Trying to create tensor with negative dimension ", count, ": [", count, "]");
  Tensor r = arange(Scalar(count), std::nullopt, 1, t, device);
  if (!onesided && n > 0) {
    Tensor negative = narrow(r, 0, (n + 1) / 2, n - (n + 1) / 2);
    negative.sub_(wrap_scalar(Scalar(n)));
  }
  return r.mul_(wrap_scalar(Scalar(1.0 / (static_cast<double>(n) * d))));
}
Tensor fftfreq_kernel(I64 n, double d, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return frequencies("fftfreq", n, d, dtype, device, false);
}
Tensor rfftfreq_kernel(I64 n, double d, std::optional<ScalarType> dtype, std::optional<Device> device) {
  return frequencies("rfftfreq", n, d, dtype, device, true);
}

}  // namespace

void register_fft_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch.fft", DispatchKey::kCompositeImplicit);
  lib->impl("fft", &fft_kernel)
      .impl("ifft", &ifft_kernel)
      .impl("rfft", &rfft_kernel)
      .impl("irfft", &irfft_kernel)
      .impl("hfft", &hfft_kernel)
      .impl("ihfft", &ihfft_kernel)
      .impl("fft2", &fft2_kernel)
      .impl("ifft2", &ifft2_kernel)
      .impl("fftn", &fftn_kernel)
      .impl("ifftn", &ifftn_kernel)
      .impl("rfft2", &rfft2_kernel)
      .impl("irfft2", &irfft2_kernel)
      .impl("rfftn", &rfftn_kernel)
      .impl("irfftn", &irfftn_kernel)
      .impl("hfft2", &hfft2_kernel)
      .impl("ihfft2", &ihfft2_kernel)
      .impl("hfftn", &hfftn_kernel)
      .impl("ihfftn", &ihfftn_kernel)
      .impl("fftshift", &fftshift_kernel)
      .impl("ifftshift", &ifftshift_kernel)
      .impl("fftfreq", &fftfreq_kernel)
      .impl("rfftfreq", &rfftfreq_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick
