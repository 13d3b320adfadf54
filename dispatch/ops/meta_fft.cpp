// dispatch/ops/meta_fft.cpp - meta functions of the three DFT kernels, _fft_c2c, _fft_r2c and _fft_c2r.
/// \file
/// Each checks self's dtype (complex64/128 into c2c and c2r, float32/64 into
/// r2c), the dims (in range, none twice) and the normalization mode, and
/// gives a contiguous result: c2c keeps self's sizes and dtype; r2c is
/// complex, the last of dim n // 2 + 1 long when onesided; c2r is real, the
/// last of dim last_dim_size long, which needs self's to be
/// last_dim_size // 2 + 1 there. The torch.fft functions
/// (dispatch/composite/fft_ops.cpp) check the user's arguments with
/// PyTorch's messages before they reach these.
#include <cstdint>

#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"

namespace aten::meta {
namespace {

using wick::DimVector;
using wick::IntArrayRef;
using wick::OutputMeta;
using wick::ScalarType;
using wick::Tensor;

// The wrapped dims; a dim out of range or given twice is an error.
DimVector fft_dims(const char* op, const Tensor& self, IntArrayRef dim) {
  DimVector dims;
  for (const std::int64_t d : dim) {
    const std::int64_t w = wick::wrap_dim(d, self.dim());
    for (const std::int64_t seen : dims)
      WICK_CHECK(seen != w, RuntimeError, op, ": dim ", w, " appears more than once in dim");
    dims.push_back(w);
  }
  return dims;
}

void check_normalization(const char* op, std::int64_t normalization) {
  WICK_CHECK(normalization >= 0 && normalization <= 2, RuntimeError, op,
             ": normalization must be 0 (none), 1 (1/sqrt(n)) or 2 (1/n), got ", normalization);
}

void check_complex(const char* op, const Tensor& self) {
  WICK_CHECK(self.dtype() == ScalarType::kComplex64 || self.dtype() == ScalarType::kComplex128, RuntimeError, op,
             ": expected a complex64 or complex128 input, got ", wick::dtype_name(self.dtype()));
}

}  // namespace

OutputMeta _fft_c2c(const Tensor& self, IntArrayRef dim, std::int64_t normalization, bool /*forward*/) {
  const char* op = "aten._fft_c2c";
  check_complex(op, self);
  (void)fft_dims(op, self, dim);
  check_normalization(op, normalization);
  return {wick::TensorMeta::contiguous(self.sizes(), self.dtype(), self.device())};
}

OutputMeta _fft_r2c(const Tensor& self, IntArrayRef dim, std::int64_t normalization, bool onesided) {
  const char* op = "aten._fft_r2c";
  WICK_CHECK(self.dtype() == ScalarType::kFloat32 || self.dtype() == ScalarType::kFloat64, RuntimeError, op,
             ": expected a float32 or float64 input, got ", wick::dtype_name(self.dtype()));
  const DimVector dims = fft_dims(op, self, dim);
  check_normalization(op, normalization);
  DimVector sizes(self.sizes());
  if (onesided && !dims.empty()) sizes[dims.back()] = sizes[dims.back()] / 2 + 1;
  return {wick::TensorMeta::contiguous(sizes, wick::to_complex_dtype(self.dtype()), self.device())};
}

OutputMeta _fft_c2r(const Tensor& self, IntArrayRef dim, std::int64_t normalization, std::int64_t last_dim_size) {
  const char* op = "aten._fft_c2r";
  check_complex(op, self);
  const DimVector dims = fft_dims(op, self, dim);
  WICK_CHECK(!dims.empty(), RuntimeError, op, ": dim must name at least one dim");
  check_normalization(op, normalization);
  WICK_CHECK(last_dim_size >= 1, RuntimeError, op, ": last_dim_size must be at least 1, got ", last_dim_size);
  WICK_CHECK(self.size(dims.back()) == last_dim_size / 2 + 1, RuntimeError, op, ": a signal of ", last_dim_size,
             " values needs ", last_dim_size / 2 + 1, " frequencies along dim ", dims.back(), ", got ",
             self.size(dims.back()));
  DimVector sizes(self.sizes());
  sizes[dims.back()] = last_dim_size;
  return {wick::TensorMeta::contiguous(sizes, wick::to_real_dtype(self.dtype()), self.device())};
}

}  // namespace aten::meta
