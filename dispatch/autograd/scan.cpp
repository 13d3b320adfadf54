// dispatch/autograd_scan.cpp - Autograd kernels of cumsum and cumprod.
/// \file
/// CumsumBackward0: the gradient is the reversed cumulative sum of the
/// output gradient. CumprodBackward0 handles zeros as PyTorch's
/// cumprod_backward does (Note [Cumprod with zeros]). Both backwards are
/// written in differentiable ops (double backward); both have forward mode.
#include "dispatch/autograd/support.h"

namespace wick::autograd {
namespace {

using T = const Tensor&;
using OptDtype = std::optional<ScalarType>;

Tensor sum_along(T x, std::int64_t dim) {
  const std::int64_t dims[] = {dim};
  return wick::sum(x, IntArrayRef(dims, 1), true);
}

// y_i = sum_{j >= i} x_j along `dim`, as total - cumsum + x (no flip needed).
Tensor reversed_cumsum(T x, std::int64_t dim) {
  return wick::add(wick::sub(sum_along(x, dim), wick::cumsum(x, dim)), x);
}

struct CumsumBackward {
  static constexpr const char* kName = "CumsumBackward0";
  std::int64_t dim = 0;
  ScalarType self_dtype = ScalarType::kFloat32;
  tensor_list backward(Node& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    return {reversed_cumsum(g[0], dim).to(self_dtype)};
  }
  void release() {}
};

Tensor cumsum_autograd(DispatchKeySet ks, T self, std::int64_t dim, OptDtype dtype) {
  static const auto op = op_handle<Tensor(T, std::int64_t, OptDtype)>("torch.cumsum");
  auto node = make_node<CumsumBackward>(self);
  Tensor out = call_below(op, ks, self, dim, dtype);
  if (!is_differentiable_type(out.dtype())) return out;
  if (node) {
    node->f.dim = dim;
    node->f.self_dtype = self.dtype();
    set_history(out, node);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    set_tangent(out, op.call(fw_grad_of(self), dim, dtype));
  }
  return out;
}

// Note [Cumprod with zeros]
// d out_i / d x_k (k <= i) is the product of x_j for j <= i, j != k. Let z
// be the first zero of a slice. Before it (k < z) that is out_i / x_k (and
// out_i = 0 from z on, so the sum over i needs no mask). At z it is
// prod_{j<z} x_j * prod_{z<j<=i} x_j. After z it is 0: x_z stays in the
// product. Without zeros the first case covers the slice: PyTorch's
// reversed_cumsum(g * out) / x.
struct CumprodParts {
  Tensor before;  // k < z
  Tensor first;   // k == z
  Tensor safe;    // x with zeros replaced by 1
  Tensor prefix;  // prod_{j<z} x_j, the dim kept
  Tensor tail;    // prod_{z<j<=i} x_j for i >= z (1 up to z)

  CumprodParts(T x, std::int64_t dim) {
    Tensor zero = wick::eq(x, scalar(0.0));
    Tensor seen = wick::cumsum(zero, dim);  // zeros at or before each position
    before = wick::eq(seen, scalar(0.0));
    first = wick::logical_and(zero, wick::eq(seen, scalar(1.0)));
    safe = wick::where(zero, scalar(1.0), x);
    Tensor one = wick::add(zeros_of(x), scalar(1.0));
    prefix = prod_along(wick::where(before, x, one), dim);
    Tensor upto_first = wick::eq(wick::sub(seen, zero.to(ScalarType::kInt64)), scalar(0.0));
    tail = wick::cumprod(wick::where(upto_first, one, x), dim);
  }
  static Tensor zeros_of(T x) { return wick::mul(x, scalar(0.0)); }
  static Tensor prod_along(T x, std::int64_t dim) { return wick::prod(x, dim, true); }
};

struct CumprodBackward {
  static constexpr const char* kName = "CumprodBackward0";
  std::int64_t dim = 0;
  SavedVariable self, result;
  tensor_list backward(FormulaNode<CumprodBackward>& n, tensor_list& g) {
    if (!n.should_compute_output(0)) return {Tensor()};
    Tensor self_v = n.unpack(self);
    Tensor out = n.unpack(result);
    Tensor x = self_v.to(out.dtype());
    const CumprodParts c(x, dim);
    Tensor at_before = wick::div(reversed_cumsum(wick::mul(g[0], out), dim), c.safe);
    Tensor after_first = wick::logical_not(c.before);
    Tensor at_first = wick::mul(c.prefix, sum_along(mask_grad(wick::mul(g[0], c.tail), after_first), dim));
    Tensor grad = wick::where(c.before, at_before, mask_grad(at_first, c.first));
    return {grad.to(self_v.dtype())};
  }
  void release() {
    self.reset();
    result.reset();
  }
};

Tensor cumprod_autograd(DispatchKeySet ks, T self, std::int64_t dim, OptDtype dtype) {
  static const auto op = op_handle<Tensor(T, std::int64_t, OptDtype)>("torch.cumprod");
  auto node = make_node<CumprodBackward>(self);
  Tensor out = call_below(op, ks, self, dim, dtype);
  if (!is_differentiable_type(out.dtype())) return out;
  if (node) {
    node->f.dim = dim;
    node->f.self = SavedVariable(self, false);
    set_history(out, node);
    node->f.result = SavedVariable(out, true);
  }
  if (any_tangent(self)) {
    ExcludeDispatchKeyGuard below(DispatchKey::kAutograd);
    Tensor x = self.to(out.dtype());
    Tensor t = fw_grad_of(self).to(out.dtype());
    const CumprodParts c(x, dim);
    // Before z: out_i * sum_{k<=i} t_k / x_k; from z on: prefix * tail_i * t_z.
    Tensor t_first = sum_along(mask_grad(t, c.first), dim);
    set_tangent(out, wick::where(c.before, wick::mul(out, wick::cumsum(wick::div(t, c.safe), dim)),
                                 wick::mul(wick::mul(c.prefix, c.tail), t_first)));
  }
  return out;
}

}  // namespace

void register_autograd_scan(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kAutograd);
  lib->impl("cumsum", &cumsum_autograd).impl("cumprod", &cumprod_autograd);
  out.push_back(std::move(lib));
}

}  // namespace wick::autograd
