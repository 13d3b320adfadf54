// dispatch/ops_reductions.cpp - the typed API of the reductions and scans (wick/ops.h).
/// \file
/// prod, max, min, amax, amin, argmax, argmin, var, std, norm, logsumexp,
/// cumsum, cumprod, all and any: each looks its overload up once and makes a
/// typed call, as dispatch/ops.cpp.
#include <tuple>

#include "wick/dispatcher.h"
#include "wick/ops.h"

namespace wick {
namespace {

using T = const Tensor&;
using OptInts = std::optional<IntArrayRef>;
using OptInt = std::optional<std::int64_t>;
using OptDtype = std::optional<ScalarType>;
using Pair = std::tuple<Tensor, Tensor>;

}  // namespace

#define WICK_OP(NAME, SIG) static const auto op = find_op(NAME).typed<SIG>()

Tensor prod(T self, OptDtype dtype) {
  WICK_OP("torch.prod", Tensor(T, OptDtype));
  return op.call(self, dtype);
}
Tensor prod(T self, std::int64_t dim, bool keepdim, OptDtype dtype) {
  WICK_OP("torch.prod.dim_int", Tensor(T, std::int64_t, bool, OptDtype));
  return op.call(self, dim, keepdim, dtype);
}
Tensor max(T self) {
  WICK_OP("torch.max", Tensor(T));
  return op.call(self);
}
Pair max(T self, std::int64_t dim, bool keepdim) {
  WICK_OP("torch.max.dim", Pair(T, std::int64_t, bool));
  return op.call(self, dim, keepdim);
}
Tensor min(T self) {
  WICK_OP("torch.min", Tensor(T));
  return op.call(self);
}
Pair min(T self, std::int64_t dim, bool keepdim) {
  WICK_OP("torch.min.dim", Pair(T, std::int64_t, bool));
  return op.call(self, dim, keepdim);
}
Tensor amax(T self, IntArrayRef dim, bool keepdim) {
  WICK_OP("torch.amax", Tensor(T, IntArrayRef, bool));
  return op.call(self, dim, keepdim);
}
Tensor amin(T self, IntArrayRef dim, bool keepdim) {
  WICK_OP("torch.amin", Tensor(T, IntArrayRef, bool));
  return op.call(self, dim, keepdim);
}
Tensor argmax(T self, OptInt dim, bool keepdim) {
  WICK_OP("torch.argmax", Tensor(T, OptInt, bool));
  return op.call(self, dim, keepdim);
}
Tensor argmin(T self, OptInt dim, bool keepdim) {
  WICK_OP("torch.argmin", Tensor(T, OptInt, bool));
  return op.call(self, dim, keepdim);
}
Tensor var(T self, bool unbiased) {
  WICK_OP("torch.var", Tensor(T, bool));
  return op.call(self, unbiased);
}
Tensor var(T self, OptInts dim, bool unbiased, bool keepdim) {
  WICK_OP("torch.var.dim", Tensor(T, OptInts, bool, bool));
  return op.call(self, dim, unbiased, keepdim);
}
Tensor var_correction(T self, OptInts dim, OptInt correction, bool keepdim) {
  WICK_OP("torch.var.correction", Tensor(T, OptInts, OptInt, bool));
  return op.call(self, dim, correction, keepdim);
}
Tensor std(T self, bool unbiased) {
  WICK_OP("torch.std", Tensor(T, bool));
  return op.call(self, unbiased);
}
Tensor std(T self, OptInts dim, bool unbiased, bool keepdim) {
  WICK_OP("torch.std.dim", Tensor(T, OptInts, bool, bool));
  return op.call(self, dim, unbiased, keepdim);
}
Tensor std_correction(T self, OptInts dim, OptInt correction, bool keepdim) {
  WICK_OP("torch.std.correction", Tensor(T, OptInts, OptInt, bool));
  return op.call(self, dim, correction, keepdim);
}
Tensor norm(T self, const Scalar& p) {
  WICK_OP("torch.norm", Tensor(T, const Scalar&));
  return op.call(self, p);
}
Tensor norm(T self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) {
  WICK_OP("torch.norm.ScalarOpt_dim", Tensor(T, const std::optional<Scalar>&, IntArrayRef, bool));
  return op.call(self, p, dim, keepdim);
}
Tensor logsumexp(T self, IntArrayRef dim, bool keepdim) {
  WICK_OP("torch.logsumexp", Tensor(T, IntArrayRef, bool));
  return op.call(self, dim, keepdim);
}
Tensor cumsum(T self, std::int64_t dim, OptDtype dtype) {
  WICK_OP("torch.cumsum", Tensor(T, std::int64_t, OptDtype));
  return op.call(self, dim, dtype);
}
Tensor cumprod(T self, std::int64_t dim, OptDtype dtype) {
  WICK_OP("torch.cumprod", Tensor(T, std::int64_t, OptDtype));
  return op.call(self, dim, dtype);
}
Tensor all(T self) {
  WICK_OP("torch.all", Tensor(T));
  return op.call(self);
}
Tensor all(T self, std::int64_t dim, bool keepdim) {
  WICK_OP("torch.all.dim", Tensor(T, std::int64_t, bool));
  return op.call(self, dim, keepdim);
}
Tensor any(T self) {
  WICK_OP("torch.any", Tensor(T));
  return op.call(self);
}
Tensor any(T self, std::int64_t dim, bool keepdim) {
  WICK_OP("torch.any.dim", Tensor(T, std::int64_t, bool));
  return op.call(self, dim, keepdim);
}

#undef WICK_OP

}  // namespace wick
