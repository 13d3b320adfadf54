// dispatch/composite/distance_ops.cpp - CompositeImplicit kernels of distances and normalisation by a norm.
/// \file
/// cosine_similarity, pairwise_distance, pdist and F.normalize, written with
/// the norms (linalg.vector_norm, torch.norm) so that their gradients come
/// from those. PyTorch 1.13's arithmetic, step by step:
/// - cosine_similarity divides each operand by its norm (clamped at eps
///   outside the graph) before the product, so the result stays within
///   [-1, 1] for nearly parallel vectors;
/// - pairwise_distance is the p-norm of x1 - x2 + eps along the last dim;
/// - pdist takes the rows i < j in row-major order of the pairs;
/// - normalize divides by max(norm, eps).
#include <memory>
#include <optional>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/autograd.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using T = const Tensor&;

Tensor cosine_similarity_kernel(T x1, T x2, std::int64_t dim, double eps) {
  const char* op = "torch.cosine_similarity";
  const ScalarType common = result_type(x1, x2);
  WICK_CHECK(is_floating(common), RuntimeError, op, ": expected common dtype to be floating point, yet common dtype is ",
             type_title(common));
  const DimVector shape = broadcast_shapes(x1.sizes(), x2.sizes(), op);
  const Tensor a = x1.to(common).expand(IntArrayRef(shape));
  const Tensor b = x2.to(common).expand(IntArrayRef(shape));
  // Each norm is clamped at eps outside the graph, on a copy: the norm's own
  // backward keeps the value it saved, and the gradient passes the clamp
  // as if it were not there.
  Tensor na = linalg::vector_norm(a, 2, IntArrayRef(dim), true).clone();
  Tensor nb = linalg::vector_norm(b, 2, IntArrayRef(dim), true).clone();
  {
    NoGradGuard no_grad;
    na.clamp_min_(Scalar(eps));
    nb.clamp_min_(Scalar(eps));
  }
  return sum(mul(div(a, na), div(b, nb)), IntArrayRef(dim));
}

Tensor pairwise_distance_kernel(T x1, T x2, double p, double eps, bool keepdim) {
  const std::int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  return norm(add(sub(x1, x2), wrap_scalar(Scalar(eps))), std::optional<Scalar>(Scalar(p)), IntArrayRef(last), keepdim);
}

Tensor pdist_kernel(T input, double p) {
  const char* op = "torch.pdist";
  WICK_CHECK(input.dim() == 2, RuntimeError, op, ": pdist only supports 2D tensors, got: ", input.dim(), "D");
  WICK_CHECK(is_floating(input.dtype()), RuntimeError, op, ": pdist only supports floating-point dtypes");
  WICK_CHECK(p >= 0, RuntimeError, op, ": pdist only supports non-negative p values");
  const std::int64_t n = input.sizes()[0];
  // PyTorch's kernel runs (and refuses 16-bit floats) only where there is a pair.
  WICK_CHECK(n < 2 || !is_reduced_floating(input.dtype()), RuntimeError, op, ": \"pdist\" not implemented for '",
             type_title(input.dtype()), "'");
  // The pairs (i, j), i < j, in row-major order: triu_indices' order.
  const Tensor pairs = triu_indices(n, n, 1, ScalarType::kInt64, input.device());
  const Tensor rows_i = index_select(input, 0, pairs.select(0, 0));
  const Tensor rows_j = index_select(input, 0, pairs.select(0, 1));
  return linalg::vector_norm(sub(rows_i, rows_j), p, IntArrayRef(1));
}

Tensor normalize_kernel(T input, double p, std::int64_t dim, double eps, const std::optional<Tensor>& out) {
  const Tensor denom =
      clamp_min(norm(input, std::optional<Scalar>(Scalar(p)), IntArrayRef(dim), true), Scalar(eps)).expand_as(input);
  if (!out) return div(input, denom);
  Tensor o = *out;
  return div_out(o, input, denom);
}

}  // namespace

void register_distance_kernels(std::vector<std::unique_ptr<Library>>& out) {
  constexpr auto kComposite = DispatchKey::kCompositeImplicit;
  auto torch = std::make_unique<Library>("torch", kComposite);
  torch->impl("cosine_similarity", &cosine_similarity_kernel)
      .impl("pairwise_distance", &pairwise_distance_kernel)
      .impl("pdist", &pdist_kernel);
  auto functional = std::make_unique<Library>("torch.nn.functional", kComposite);
  functional->impl("normalize", &normalize_kernel);
  out.push_back(std::move(torch));
  out.push_back(std::move(functional));
}

}  // namespace wick
