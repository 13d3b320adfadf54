// dispatch/ops/tensor_operators.cpp - C++ operators on tensors: the torch.Tensor dunders.
/// \file
/// `a + b` is a typed call of `torch.Tensor.__add__` (so a tensor-like that
/// overrides the dunder sees it), `a + 2` the same with a wrapped number.
#include "wick/dispatcher.h"
#include "wick/tensor.h"

namespace wick {
namespace {

using T = const Tensor&;

template <typename Sig>
TypedOperatorHandle<Sig> typed(const char* name) {
  return find_op(name).typed<Sig>();
}

}  // namespace

Tensor operator+(const Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, const Scalar&)>("torch.Tensor.__add__");
  return op.call(a, b, 1);
}
Tensor operator-(const Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, const Scalar&)>("torch.Tensor.__sub__");
  return op.call(a, b, 1);
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T)>("torch.Tensor.__mul__");
  return op.call(a, b);
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, std::optional<std::string_view>)>("torch.Tensor.__truediv__");
  return op.call(a, b, std::nullopt);
}
Tensor operator-(const Tensor& a) {
  static const auto op = typed<Tensor(T)>("torch.Tensor.__neg__");
  return op.call(a);
}
Tensor operator+(const Tensor& a, const Scalar& b) { return a + wrap_scalar(b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a - wrap_scalar(b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return a * wrap_scalar(b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return a / wrap_scalar(b); }

}  // namespace wick
