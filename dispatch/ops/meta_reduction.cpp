// dispatch/ops/meta_reduction.cpp - meta functions of the reductions and scans (Note [Reduction meta]).
/// \file
/// Every check of sum, mean, prod, max, min, amax, amin, argmax, argmin,
/// var, std, norm, logsumexp, all, any, cumsum and cumprod, with the CPU
/// backend's messages, for every backend, and their result dtypes as
/// PyTorch's: sum, prod and the scans of integers (bools included) give
/// int64 unless `dtype` is given (the input is then converted to it
/// first); mean, var, std and norm refuse integers; logsumexp computes
/// integers in float32; argmax and argmin give int64, all and any bool.
/// Reducing a whole empty tensor (or over a dim of size zero) has no
/// identity for max, min, amax, amin, argmax and argmin: an error.
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "wick/checked.h"
#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/meta_reduction.h"

namespace wick::meta {

ReducedDims reduced_dims(const char* op, const Tensor& self, std::optional<IntArrayRef> dim) {
  const std::int64_t nd = self.dim();
  const bool every = !dim || dim->empty();
  std::vector<bool> reduce(static_cast<std::size_t>(nd), every);
  if (!every) {
    for (std::int64_t d : *dim) {
      const std::int64_t w = wrap_dim(d, nd);
      if (nd == 0) continue;  // 0 and -1 name a 0-dim tensor's only "dim"
      WICK_CHECK(!reduce[w], RuntimeError, op, ": dim ", w, " appears multiple times in the list of dims");
      reduce[w] = true;
    }
  }
  ReducedDims r;
  for (std::int64_t d = 0; d < nd; ++d) {
    if (!reduce[d]) continue;
    r.dims.push_back(d);
    r.inner = checked_mul(r.inner, self.sizes()[d], op);  // numel's, unless a kept dim is 0
  }
  return r;
}

ReductionMeta reduction(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                        ScalarType compute, ScalarType result) {
  ReducedDims r = reduced_dims(op, self, dim);
  DimVector shape;
  std::size_t next = 0;  // r.dims is ascending
  for (std::int64_t d = 0; d < self.dim(); ++d) {
    const bool reduced = next < r.dims.size() && r.dims[next] == d;
    if (reduced) ++next;
    if (!reduced) {
      shape.push_back(self.sizes()[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return {TensorMeta::contiguous(shape, result, self.device()), compute, std::move(r)};
}

namespace {

// The dtype of sum-like results: integers (bool included) widen to int64.
ScalarType widened(ScalarType t, std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return is_integral(t, true) ? ScalarType::kInt64 : t;
}

// `name(): Expected reduction dim to be specified ...` for an empty tensor
// reduced as a whole (argmax's message is shorter and an IndexError).
void check_whole_nonempty(const char* op, const char* name, const Tensor& self, bool index_error) {
  if (self.numel() != 0) return;
  if (index_error) {
    throw IndexError(
        detail::str_cat(op, ": ", name, "(): Expected reduction dim to be specified for input.numel() == 0."));
  }
  throw RuntimeError(detail::str_cat(op, ": ", name,
                                     "(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                                     "the reduction dim with the 'dim' argument."));
}

// Every reduced dim must have a non-zero size (checked in the order given).
void check_dims_nonempty(const char* op, const char* name, const Tensor& self, IntArrayRef dims) {
  if (self.dim() == 0) return;
  for (std::int64_t d : dims) {
    const std::int64_t w = wrap_dim(d, self.dim());
    WICK_CHECK(self.sizes()[w] != 0, IndexError, op, ": ", name, "(): Expected reduction dim ", w,
               " to have non-zero size.");
  }
}

// The reductions that keep the input's dtype and take any (max, amax, ...).
ReductionMeta same_dtype(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  return reduction(op, self, dim, keepdim, self.dtype(), self.dtype());
}

ReductionMeta extreme_all(const char* op, const char* name, const Tensor& self) {
  check_whole_nonempty(op, name, self, false);
  return same_dtype(op, self, std::nullopt, false);
}

ReductionWithIndicesMeta extreme_dim(const char* op, const char* name, const Tensor& self, std::int64_t dim,
                                     bool keepdim) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, op, ": ", name, "(): does not support complex input");
  const std::int64_t dims[] = {dim};
  ReductionMeta m = same_dtype(op, self, IntArrayRef(dims, 1), keepdim);
  check_dims_nonempty(op, name, self, IntArrayRef(dims, 1));
  TensorMeta indices = m.out;
  indices.dtype = ScalarType::kInt64;
  return {{std::move(m.out), std::move(indices)}, m.compute, std::move(m.reduced)};
}

ReductionMeta amax_amin(const char* op, const char* name, const Tensor& self, IntArrayRef dim, bool keepdim) {
  ReductionMeta m = same_dtype(op, self, dim, keepdim);
  if (dim.empty()) {
    check_whole_nonempty(op, name, self, false);
  } else {
    check_dims_nonempty(op, name, self, dim);
  }
  return m;
}

// argmax without `dim` gives the index into the flattened tensor; with
// keepdim, every dim is kept as size 1.
ReductionMeta arg_extreme(const char* op, const char* name, const Tensor& self, std::optional<std::int64_t> dim,
                          bool keepdim) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"", name, "_cpu\" not implemented for 'Bool'");
  ReductionMeta m;
  if (dim) {
    const std::int64_t dims[] = {*dim};
    m = same_dtype(op, self, IntArrayRef(dims, 1), keepdim);
    check_dims_nonempty(op, name, self, IntArrayRef(dims, 1));
  } else {
    check_whole_nonempty(op, name, self, true);
    m = same_dtype(op, self, std::nullopt, keepdim);
  }
  m.out.dtype = ScalarType::kInt64;
  return m;
}

// bool, but uint8 for a uint8 input (PyTorch 1.13 keeps uint8 for NumPy's sake).
ReductionMeta all_any(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  const ScalarType out = self.dtype() == ScalarType::kUInt8 ? ScalarType::kUInt8 : ScalarType::kBool;
  return reduction(op, self, dim, keepdim, self.dtype(), out);
}

ReductionMeta prod_of(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                      std::optional<ScalarType> dtype) {
  const ScalarType t = widened(self.dtype(), dtype);
  return reduction("torch.prod", self, dim, keepdim, t, t);
}

// var, std and norm of a complex tensor are real (float32 for complex64).
ReductionMeta var_std(const char* op, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  WICK_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()), RuntimeError, op,
             ": std and var only support floating point and complex dtypes");
  ReductionMeta m = same_dtype(op, self, dim, keepdim);
  m.out.dtype = to_real_dtype(m.out.dtype);
  return m;
}

ReductionMeta norm_of(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim) {
  const char* op = "torch.norm";
  WICK_CHECK(is_floating(self.dtype()) || is_complex(self.dtype()), RuntimeError, op,
             ": norm(): input dtype should be either floating point or complex. Got ", type_title(self.dtype()),
             " instead.");
  ReductionMeta m = same_dtype(op, self, dim, keepdim);
  m.out.dtype = to_real_dtype(m.out.dtype);
  return m;
}

ScanMeta scan(const Tensor& self, std::int64_t dim, std::optional<ScalarType> dtype) {
  const ScalarType t = widened(self.dtype(), dtype);
  const std::int64_t d = wrap_dim(dim, self.dim());
  return {TensorMeta::contiguous(self.sizes(), t, self.device()), t, d};
}

}  // namespace

// --- sum, mean, prod ------------------------------------------------------------------------

// The input is read in `dtype` when one is given, else in its own dtype
// (an int32 sum accumulates in int64 and writes int64).
ReductionMeta sum(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return reduction("torch.sum", self, dim, keepdim, dtype.value_or(self.dtype()), widened(self.dtype(), dtype));
}

ReductionMeta mean(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  const char* op = "torch.mean";
  const ScalarType t = dtype.value_or(self.dtype());
  WICK_CHECK(is_floating(t) || is_complex(t), RuntimeError, op, ": mean(): could not infer output dtype. ",
             dtype ? "Optional" : "Input",
             " dtype must be either a floating point or complex dtype. Got: ", type_title(t));
  return reduction(op, self, dim, keepdim, t, t);
}

ReductionMeta prod(const Tensor& self, std::optional<ScalarType> dtype) {
  return prod_of(self, std::nullopt, false, dtype);
}

ReductionMeta prod_dim_int(const Tensor& self, std::int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  const std::int64_t dims[] = {dim};
  return prod_of(self, IntArrayRef(dims, 1), keepdim, dtype);
}

// --- max, min, amax, amin, argmax, argmin -----------------------------------------------------

ReductionMeta max(const Tensor& self) { return extreme_all("torch.max", "max", self); }
ReductionMeta min(const Tensor& self) { return extreme_all("torch.min", "min", self); }

ReductionWithIndicesMeta max_dim(const Tensor& self, std::int64_t dim, bool keepdim) {
  return extreme_dim("torch.max", "max", self, dim, keepdim);
}
ReductionWithIndicesMeta min_dim(const Tensor& self, std::int64_t dim, bool keepdim) {
  return extreme_dim("torch.min", "min", self, dim, keepdim);
}

ReductionMeta amax(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_amin("torch.amax", "amax", self, dim, keepdim);
}
ReductionMeta amin(const Tensor& self, IntArrayRef dim, bool keepdim) {
  return amax_amin("torch.amin", "amin", self, dim, keepdim);
}

ReductionMeta argmax(const Tensor& self, std::optional<std::int64_t> dim, bool keepdim) {
  return arg_extreme("torch.argmax", "argmax", self, dim, keepdim);
}
ReductionMeta argmin(const Tensor& self, std::optional<std::int64_t> dim, bool keepdim) {
  return arg_extreme("torch.argmin", "argmin", self, dim, keepdim);
}

// --- var, std, norm, logsumexp ------------------------------------------------------------------

ReductionMeta var_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                             std::optional<std::int64_t> /*correction*/, bool keepdim) {
  return var_std("torch.var", self, dim, keepdim);
}
ReductionMeta std_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                             std::optional<std::int64_t> /*correction*/, bool keepdim) {
  return var_std("torch.std", self, dim, keepdim);
}

NormMeta norm_ScalarOpt_dim(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  NormMeta m;
  static_cast<ReductionMeta&>(m) = norm_of(self, dim, keepdim);
  m.p = p ? p->to<double>() : 2.0;
  return m;
}

ReductionMeta logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError,
             "torch.logsumexp: logsumexp(): Expected floating point type for result tensor, but got: ",
             type_title(self.dtype()));
  const ScalarType t = is_floating(self.dtype()) ? self.dtype() : ScalarType::kFloat32;
  return reduction("torch.logsumexp", self, dim, keepdim, t, t);
}

// --- all, any -----------------------------------------------------------------------------------

ReductionMeta all(const Tensor& self) { return all_any("torch.all", self, std::nullopt, false); }
ReductionMeta any(const Tensor& self) { return all_any("torch.any", self, std::nullopt, false); }

ReductionMeta all_dim(const Tensor& self, std::int64_t dim, bool keepdim) {
  const std::int64_t dims[] = {dim};
  return all_any("torch.all", self, IntArrayRef(dims, 1), keepdim);
}
ReductionMeta any_dim(const Tensor& self, std::int64_t dim, bool keepdim) {
  const std::int64_t dims[] = {dim};
  return all_any("torch.any", self, IntArrayRef(dims, 1), keepdim);
}

// --- cumsum, cumprod ----------------------------------------------------------------------------

ScanMeta cumsum(const Tensor& self, std::int64_t dim, std::optional<ScalarType> dtype) {
  return scan(self, dim, dtype);
}
ScanMeta cumprod(const Tensor& self, std::int64_t dim, std::optional<ScalarType> dtype) {
  return scan(self, dim, dtype);
}

}  // namespace wick::meta
