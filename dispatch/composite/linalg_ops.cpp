// dispatch/composite/linalg_ops.cpp - inner, vdot, trace, kron.
/// \file
/// Matrix functions composed from the products and reductions
/// (dispatch/ops/linalg.ops): they run on every backend and get their
/// gradients from their parts. Checks and messages are PyTorch 1.13's.
#include <memory>
#include <vector>

#include "dispatch/composite/composite.h"
#include "wick/checked.h"
#include "wick/error.h"
#include "wick/library.h"
#include "wick/ops.h"
#include "wick/tensor_util.h"

namespace wick {
namespace {

using I64 = std::int64_t;

// The sums of products over the last dims: self's leading dims, then other's.
Tensor inner_kernel(const Tensor& self, const Tensor& other) {
  if (self.dim() == 0 || other.dim() == 0) return mul(self, other);
  const I64 k = self.sizes()[self.dim() - 1];
  WICK_CHECK(k == other.sizes()[other.dim() - 1], RuntimeError,
             "inner() the last dimension must match on both input tensors but got shapes ", format_shape(self.sizes()),
             " and ", format_shape(other.sizes()));
  WICK_CHECK(self.dtype() == other.dtype(), RuntimeError, "expected scalar type ", type_title(self.dtype()),
             " but found ", type_title(other.dtype()));
  DimVector shape;
  for (I64 d = 0; d + 1 < self.dim(); ++d) shape.push_back(self.sizes()[d]);
  for (I64 d = 0; d + 1 < other.dim(); ++d) shape.push_back(other.sizes()[d]);
  const Tensor rows = self.reshape({-1, k});
  const Tensor cols = other.reshape({-1, k}).t();
  return matmul(rows, cols).reshape(shape);
}

Tensor vdot_kernel(const Tensor& self, const Tensor& other) {
  WICK_CHECK(self.dim() == 1 && other.dim() == 1, RuntimeError, "1D tensors expected, but got ", self.dim(), "D and ",
             other.dim(), "D tensors");
  return dot(is_complex(self.dtype()) ? conj_physical(self) : self, other);
}

// The main diagonal, read from the flattened matrix every columns + 1 elements.
Tensor trace_kernel(const Tensor& self) {
  WICK_CHECK(self.dim() == 2, RuntimeError, "trace: expected a matrix, but got tensor with dim ", self.dim());
  const ScalarType t = self.dtype();
  WICK_CHECK(t != ScalarType::kBool && t != ScalarType::kFloat16 && t != ScalarType::kBFloat16, RuntimeError,
             "\"trace\" not implemented for '", type_title(t), "'");
  const I64 n = std::min(self.sizes()[0], self.sizes()[1]);
  const I64 step = checked_add(self.sizes()[1], 1, "torch.trace");
  const Tensor positions = arange(Scalar(0), Scalar(checked_mul(n, step, "torch.trace")), Scalar(step),
                                  ScalarType::kInt64, self.device());
  return sum(index_select(self.reshape({-1}), 0, positions));
}

// The Kronecker product: with both padded to the same rank, element
// (i0 * q0 + j0, i1 * q1 + j1, ...) is self[i] * other[j].
Tensor kron_kernel(const Tensor& self, const Tensor& other) {
  const I64 rank = std::max(self.dim(), other.dim());
  DimVector a_shape(static_cast<std::size_t>(2 * rank), 1);
  DimVector b_shape(static_cast<std::size_t>(2 * rank), 1);
  DimVector shape(static_cast<std::size_t>(rank), 1);
  for (I64 d = 0; d < rank; ++d) {
    const I64 a_dim = d - (rank - self.dim());
    const I64 b_dim = d - (rank - other.dim());
    const I64 p = a_dim >= 0 ? self.sizes()[a_dim] : 1;
    const I64 q = b_dim >= 0 ? other.sizes()[b_dim] : 1;
    a_shape[static_cast<std::size_t>(2 * d)] = p;
    b_shape[static_cast<std::size_t>(2 * d + 1)] = q;
    shape[static_cast<std::size_t>(d)] = checked_mul(p, q, "torch.kron");
  }
  return mul(self.reshape(a_shape), other.reshape(b_shape)).reshape(shape);
}

}  // namespace

void register_linalg_kernels(std::vector<std::unique_ptr<Library>>& out) {
  auto lib = std::make_unique<Library>("torch", DispatchKey::kCompositeImplicit);
  lib->impl("inner", &inner_kernel).impl("vdot", &vdot_kernel).impl("trace", &trace_kernel).impl("kron", &kron_kernel);
  out.push_back(std::move(lib));
}

}  // namespace wick
