// wick/ops.h - the typed operator API: free functions over the dispatcher.
/// \file
/// Each function is a typed call of one catalog entry (no boxing):
///
///   Tensor z = wick::add(x, y, /*alpha=*/2);     // torch.add
///   wick::add_out(out, x, y);                    // torch.add.out
///   Tensor s = wick::sum(x, {0}, /*keepdim=*/true);
///
/// Creation functions take an optional dtype and device (default float32, cpu).
/// Errors are those of the kernels: TypeError / RuntimeError / IndexError
/// naming the operator.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "wick/export.h"
#include "wick/tensor.h"
#include "wick/value.h"

namespace wick {

// --- binary / unary elementwise --------------------------------------------
WICK_API Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
WICK_API Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
WICK_API Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
WICK_API Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
WICK_API Tensor rsub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
WICK_API Tensor mul(const Tensor& self, const Tensor& other);
WICK_API Tensor& mul_out(Tensor& out, const Tensor& self, const Tensor& other);
/// rounding_mode: none (true division), "trunc" or "floor".
WICK_API Tensor div(const Tensor& self, const Tensor& other,
                    std::optional<std::string_view> rounding_mode = std::nullopt);
WICK_API Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other,
                         std::optional<std::string_view> rounding_mode = std::nullopt);
WICK_API Tensor pow(const Tensor& self, const Tensor& exponent);
WICK_API Tensor maximum(const Tensor& self, const Tensor& other);
WICK_API Tensor minimum(const Tensor& self, const Tensor& other);
WICK_API Tensor eq(const Tensor& self, const Tensor& other);
WICK_API Tensor ne(const Tensor& self, const Tensor& other);
WICK_API Tensor lt(const Tensor& self, const Tensor& other);
WICK_API Tensor le(const Tensor& self, const Tensor& other);
WICK_API Tensor gt(const Tensor& self, const Tensor& other);
WICK_API Tensor ge(const Tensor& self, const Tensor& other);
WICK_API Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
/// The remainder with the dividend's sign (C's fmod).
WICK_API Tensor fmod(const Tensor& self, const Tensor& other);
/// The remainder with the divisor's sign (Python's %).
WICK_API Tensor remainder(const Tensor& self, const Tensor& other);
WICK_API Tensor atan2(const Tensor& self, const Tensor& other);
WICK_API Tensor logical_and(const Tensor& self, const Tensor& other);
WICK_API Tensor logical_or(const Tensor& self, const Tensor& other);
WICK_API Tensor logical_xor(const Tensor& self, const Tensor& other);
WICK_API Tensor logical_not(const Tensor& self);
/// self + weight * (end - self); self and end of one floating dtype.
WICK_API Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
WICK_API Tensor neg(const Tensor& self);
WICK_API Tensor exp(const Tensor& self);
WICK_API Tensor exp2(const Tensor& self);
WICK_API Tensor expm1(const Tensor& self);
WICK_API Tensor log(const Tensor& self);
WICK_API Tensor log2(const Tensor& self);
WICK_API Tensor log10(const Tensor& self);
WICK_API Tensor log1p(const Tensor& self);
WICK_API Tensor abs(const Tensor& self);
WICK_API Tensor sqrt(const Tensor& self);
WICK_API Tensor rsqrt(const Tensor& self);
WICK_API Tensor reciprocal(const Tensor& self);
WICK_API Tensor square(const Tensor& self);
WICK_API Tensor sin(const Tensor& self);
WICK_API Tensor cos(const Tensor& self);
WICK_API Tensor tan(const Tensor& self);
WICK_API Tensor asin(const Tensor& self);
WICK_API Tensor acos(const Tensor& self);
WICK_API Tensor atan(const Tensor& self);
WICK_API Tensor sinh(const Tensor& self);
WICK_API Tensor cosh(const Tensor& self);
WICK_API Tensor tanh(const Tensor& self);
WICK_API Tensor erf(const Tensor& self);
WICK_API Tensor sigmoid(const Tensor& self);
WICK_API Tensor relu(const Tensor& self);
/// Rounding keeps integer dtypes (a copy); bool tensors are refused.
WICK_API Tensor floor(const Tensor& self);
WICK_API Tensor ceil(const Tensor& self);
/// Half to even, as PyTorch.
WICK_API Tensor round(const Tensor& self);
WICK_API Tensor trunc(const Tensor& self);
/// -1, 0 or 1 in self's dtype.
WICK_API Tensor sign(const Tensor& self);
/// min(max(self, min), max); at least one bound. NaN stays NaN.
WICK_API Tensor clamp(const Tensor& self, std::optional<Scalar> min, std::optional<Scalar> max = std::nullopt);

// --- reductions ----------------------------------------------------------------
WICK_API Tensor sum(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
                    std::optional<ScalarType> dtype = std::nullopt);
WICK_API Tensor mean(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
                     std::optional<ScalarType> dtype = std::nullopt);
/// Product of all elements; integers (and bools) give int64 unless `dtype`
/// is given (the input is converted to it first).
WICK_API Tensor prod(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
/// torch.prod.dim_int: the product along `dim`.
WICK_API Tensor prod(const Tensor& self, std::int64_t dim, bool keepdim = false,
                     std::optional<ScalarType> dtype = std::nullopt);
/// Largest element (NaN if any); RuntimeError for an empty tensor.
WICK_API Tensor max(const Tensor& self);
/// torch.max.dim: (values, indices) along `dim`, the first occurrence on
/// ties; IndexError when `dim` has size zero.
WICK_API std::tuple<Tensor, Tensor> max(const Tensor& self, std::int64_t dim, bool keepdim = false);
WICK_API Tensor min(const Tensor& self);
WICK_API std::tuple<Tensor, Tensor> min(const Tensor& self, std::int64_t dim, bool keepdim = false);
/// Largest values over `dim` (empty: every dim).
WICK_API Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
WICK_API Tensor amin(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
/// Index of the first largest value (into the flattened tensor without `dim`); int64.
WICK_API Tensor argmax(const Tensor& self, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false);
WICK_API Tensor argmin(const Tensor& self, std::optional<std::int64_t> dim = std::nullopt, bool keepdim = false);
/// Variance over every dim, with Bessel's correction when `unbiased`.
WICK_API Tensor var(const Tensor& self, bool unbiased = true);
/// torch.var.dim: over `dim` (none: every dim).
WICK_API Tensor var(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased = true, bool keepdim = false);
/// torch.var.correction: the sum of squared deviations over
/// max(0, N - correction) (none: 1). A name of its own, so that an int
/// correction is never taken for `unbiased`.
WICK_API Tensor var_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                               std::optional<std::int64_t> correction = std::nullopt, bool keepdim = false);
WICK_API Tensor std(const Tensor& self, bool unbiased = true);
WICK_API Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased = true, bool keepdim = false);
WICK_API Tensor std_correction(const Tensor& self, std::optional<IntArrayRef> dim,
                               std::optional<std::int64_t> correction = std::nullopt, bool keepdim = false);
/// The p-norm of all elements (p = inf: max |x|, 0: count of non-zeros).
WICK_API Tensor norm(const Tensor& self, const Scalar& p = 2);
/// torch.norm.ScalarOpt_dim: over `dim` (empty: every dim); no p means 2.
WICK_API Tensor norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim = false);
/// log(sum(exp(self))) over `dim`, computed stably; integers give float32.
WICK_API Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim = false);
WICK_API Tensor cumsum(const Tensor& self, std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
WICK_API Tensor cumprod(const Tensor& self, std::int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
/// Whether every (any) element is non-zero; bool.
WICK_API Tensor all(const Tensor& self);
WICK_API Tensor all(const Tensor& self, std::int64_t dim, bool keepdim = false);
WICK_API Tensor any(const Tensor& self);
WICK_API Tensor any(const Tensor& self, std::int64_t dim, bool keepdim = false);

// --- linear algebra ----------------------------------------------------------------
WICK_API Tensor mm(const Tensor& self, const Tensor& mat2);
WICK_API Tensor bmm(const Tensor& self, const Tensor& mat2);
WICK_API Tensor matmul(const Tensor& self, const Tensor& other);
/// beta * self + alpha * (mat1 @ mat2), self broadcast to the product's shape.
WICK_API Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                      const Scalar& alpha = 1);
WICK_API Tensor dot(const Tensor& self, const Tensor& tensor);
WICK_API Tensor mv(const Tensor& self, const Tensor& vec);
WICK_API Tensor outer(const Tensor& self, const Tensor& vec2);

// --- shape ---------------------------------------------------------------------------
WICK_API Tensor reshape(const Tensor& self, IntArrayRef shape);
WICK_API Tensor transpose(const Tensor& self, std::int64_t dim0, std::int64_t dim1);
WICK_API Tensor permute(const Tensor& self, IntArrayRef dims);
WICK_API Tensor unsqueeze(const Tensor& self, std::int64_t dim);
WICK_API Tensor squeeze(const Tensor& self, std::optional<std::int64_t> dim = std::nullopt);
WICK_API Tensor narrow(const Tensor& self, std::int64_t dim, std::int64_t start, std::int64_t length);
WICK_API Tensor select(const Tensor& self, std::int64_t dim, std::int64_t index);
WICK_API Tensor clone(const Tensor& self);

// --- creation (ignored by the override protocol) ----------------------------------------
/// From a (nested) list of numbers, as `torch.tensor` (dtype inferred when absent).
WICK_API Tensor tensor(const Value& data, std::optional<ScalarType> dtype = std::nullopt,
                       std::optional<Device> device = std::nullopt);
WICK_API Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt,
                      std::optional<Device> device = std::nullopt);
WICK_API Tensor zeros(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt,
                      std::optional<Device> device = std::nullopt);
WICK_API Tensor ones(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt,
                     std::optional<Device> device = std::nullopt);
WICK_API Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype = std::nullopt,
                     std::optional<Device> device = std::nullopt);
/// `arange(end)` or `arange(start, end, step)`.
WICK_API Tensor arange(const Scalar& start, const std::optional<Scalar>& end = std::nullopt,
                       const Scalar& step = 1, std::optional<ScalarType> dtype = std::nullopt,
                       std::optional<Device> device = std::nullopt);
WICK_API Tensor eye(std::int64_t n, std::optional<std::int64_t> m = std::nullopt,
                    std::optional<ScalarType> dtype = std::nullopt, std::optional<Device> device = std::nullopt);
/// Uniform [0, 1) from the default generator (see wick/random.h).
WICK_API Tensor rand(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt,
                     std::optional<Device> device = std::nullopt);
WICK_API Tensor randn(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt,
                      std::optional<Device> device = std::nullopt);

// --- shape, indexing and *_like (issue 6) -------------------------------------------------
/// Merges dims start_dim..end_dim into one (a view when possible).
WICK_API Tensor flatten(const Tensor& self, std::int64_t start_dim = 0, std::int64_t end_dim = -1);
/// Splits dim `dim` into `sizes` (one may be -1); a view.
WICK_API Tensor unflatten(const Tensor& self, std::int64_t dim, IntArrayRef sizes);
/// Concatenates along `dim` with type promotion; legacy empty 1-D tensors are skipped.
WICK_API Tensor cat(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// Joins equal-sized tensors along a new dim `dim`.
WICK_API Tensor stack(const std::vector<Tensor>& tensors, std::int64_t dim = 0);
/// Views of `split_size` elements along `dim` (the last may be smaller).
WICK_API std::vector<Tensor> split(const Tensor& self, std::int64_t split_size, std::int64_t dim = 0);
/// Views of the given sizes along `dim` (they must add up to its size).
WICK_API std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, std::int64_t dim = 0);
WICK_API std::vector<Tensor> chunk(const Tensor& self, std::int64_t chunks, std::int64_t dim = 0);
/// Entries of `self` along `dim` at `index` (1-D int64 or int32).
WICK_API Tensor index_select(const Tensor& self, std::int64_t dim, const Tensor& index);
/// out[i][j] = self[index[i][j]][j] for dim 0 (and so on); index is int64.
WICK_API Tensor gather(const Tensor& self, std::int64_t dim, const Tensor& index, bool sparse_grad = false);
/// A copy of self with src's entries written at index along dim.
WICK_API Tensor scatter(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src);
/// A copy of self with `value` written at index along dim.
WICK_API Tensor scatter(const Tensor& self, std::int64_t dim, const Tensor& index, const Scalar& value);
/// A copy of self with src's entries added at index along dim.
WICK_API Tensor scatter_add(const Tensor& self, std::int64_t dim, const Tensor& index, const Tensor& src);
/// self where mask is false, `value` (a number or a 0-dim tensor) where it is true; mask broadcasts.
WICK_API Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
WICK_API Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
/// Tiles self `repeats[i]` times along dim i (a copy).
WICK_API Tensor repeat(const Tensor& self, IntArrayRef repeats);
WICK_API Tensor expand_as(const Tensor& self, const Tensor& other);
WICK_API Tensor flip(const Tensor& self, IntArrayRef dims);
/// Rotates along dims; with no dims, rotates the flattened tensor.
WICK_API Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
/// Lower (upper) triangle of the last two dims; `diagonal` shifts it.
WICK_API Tensor tril(const Tensor& self, std::int64_t diagonal = 0);
WICK_API Tensor triu(const Tensor& self, std::int64_t diagonal = 0);
WICK_API Tensor zeros_like(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt,
                           std::optional<Device> device = std::nullopt);
WICK_API Tensor ones_like(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt,
                          std::optional<Device> device = std::nullopt);
WICK_API Tensor full_like(const Tensor& self, const Scalar& fill_value, std::optional<ScalarType> dtype = std::nullopt,
                          std::optional<Device> device = std::nullopt);
WICK_API Tensor rand_like(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt,
                          std::optional<Device> device = std::nullopt);
WICK_API Tensor randn_like(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt,
                           std::optional<Device> device = std::nullopt);
/// `steps` evenly spaced values from start to end inclusive (creation: ignored by overrides).
WICK_API Tensor linspace(const Scalar& start, const Scalar& end, std::int64_t steps,
                         std::optional<ScalarType> dtype = std::nullopt, std::optional<Device> device = std::nullopt);
/// Uniform integers in [low, high) from the default generator; int64 unless `dtype`.
WICK_API Tensor randint(std::int64_t low, std::int64_t high, IntArrayRef size,
                        std::optional<ScalarType> dtype = std::nullopt, std::optional<Device> device = std::nullopt);
WICK_API Tensor randint(std::int64_t high, IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt,
                        std::optional<Device> device = std::nullopt);

// --- torch.linalg norms ------------------------------------------------------
namespace linalg {
/// torch.linalg.vector_norm: (sum |x|^ord)^(1/ord) over `dim` (none: every
/// dim); ord inf / -inf: max / min |x|, 0: the count of non-zeros. A
/// floating input (RuntimeError otherwise), computed in `dtype` when given.
WICK_API Tensor vector_norm(const Tensor& input, const Scalar& ord = 2,
                            std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
                            std::optional<ScalarType> dtype = std::nullopt);
/// torch.linalg.matrix_norm with ord "fro" (or "nuc": NotImplementedError,
/// it needs an SVD) over the two dims `dim`.
WICK_API Tensor matrix_norm(const Tensor& input, std::string_view ord = "fro",
                            IntArrayRef dim = IntArrayRef({-2, -1}), bool keepdim = false,
                            std::optional<ScalarType> dtype = std::nullopt);
/// ord 1 / -1: max / min absolute column sum; inf / -inf: of row sums;
/// 2 / -2 need an SVD: NotImplementedError.
WICK_API Tensor matrix_norm(const Tensor& input, double ord, IntArrayRef dim = IntArrayRef({-2, -1}),
                            bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
}  // namespace linalg

}  // namespace wick
