// dispatch/ops/tensor_operators.cpp - C++ operators on tensors: the torch.Tensor dunders.
/// \file
/// `a + b` is a typed call of `torch.Tensor.__add__` (so a tensor-like that
/// overrides the dunder sees it), `a + 2` the same with a wrapped number,
/// `2 - a` a call of `__rsub__` with the number second, as Python makes it;
/// a comparison with the number first is the mirrored one on the tensor
/// (`2 < x` is `x.__gt__(2)`, Python's reflection of `<`). Compound
/// assignments call the in-place dunders (`__iadd__`) and keep the handle.
#include "wick/dispatcher.h"
#include "wick/tensor.h"

namespace wick {
namespace {

using T = const Tensor&;

template <typename Sig>
TypedOperatorHandle<Sig> typed(const char* name) {
  return find_op(name).typed<Sig>();
}

// One dunder of the signature (Tensor self, Tensor other).
Tensor call2(const TypedOperatorHandle<Tensor(T, T)>& op, T a, T b) { return op.call(a, b); }

}  // namespace

// Each binary dunder with two tensors, a tensor and a number, and a number
// and a tensor (the reflected dunder `reflected`, called on the tensor).
#define WICK_DEFINE_BINARY(op, dunder, reflected)                                               \
  Tensor operator op(const Tensor& a, const Tensor& b) {                                        \
    static const auto f = typed<Tensor(T, T)>("torch.Tensor." dunder);                        \
    return call2(f, a, b);                                                                      \
  }                                                                                             \
  Tensor operator op(const Tensor& a, const Scalar& b) { return a op wrap_scalar(b); }          \
  Tensor operator op(const Scalar& a, const Tensor& b) {                                        \
    static const auto f = typed<Tensor(T, T)>("torch.Tensor." reflected);                     \
    return call2(f, b, wrap_scalar(a));                                                         \
  }
WICK_DEFINE_BINARY(*, "__mul__", "__rmul__")
WICK_DEFINE_BINARY(%, "__mod__", "__rmod__")
WICK_DEFINE_BINARY(&, "__and__", "__rand__")
WICK_DEFINE_BINARY(|, "__or__", "__ror__")
WICK_DEFINE_BINARY(^, "__xor__", "__rxor__")
WICK_DEFINE_BINARY(<<, "__lshift__", "__rlshift__")
WICK_DEFINE_BINARY(>>, "__rshift__", "__rrshift__")
// Comparisons: Python reflects `2 < x` as `x > 2`.
WICK_DEFINE_BINARY(==, "__eq__", "__eq__")
WICK_DEFINE_BINARY(!=, "__ne__", "__ne__")
WICK_DEFINE_BINARY(<, "__lt__", "__gt__")
WICK_DEFINE_BINARY(<=, "__le__", "__ge__")
WICK_DEFINE_BINARY(>, "__gt__", "__lt__")
WICK_DEFINE_BINARY(>=, "__ge__", "__le__")
#undef WICK_DEFINE_BINARY

// + and - take alpha, / a rounding mode.
Tensor operator+(const Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, const Scalar&)>("torch.Tensor.__add__");
  return op.call(a, b, 1);
}
Tensor operator-(const Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, const Scalar&)>("torch.Tensor.__sub__");
  return op.call(a, b, 1);
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, std::optional<std::string_view>)>("torch.Tensor.__truediv__");
  return op.call(a, b, std::nullopt);
}
Tensor operator+(const Tensor& a, const Scalar& b) { return a + wrap_scalar(b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a - wrap_scalar(b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return a / wrap_scalar(b); }
Tensor operator+(const Scalar& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, const Scalar&)>("torch.Tensor.__radd__");
  return op.call(b, wrap_scalar(a), 1);
}
Tensor operator-(const Scalar& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, const Scalar&)>("torch.Tensor.__rsub__");
  return op.call(b, wrap_scalar(a), 1);
}
Tensor operator/(const Scalar& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T)>("torch.Tensor.__rtruediv__");
  return op.call(b, wrap_scalar(a));
}

// Compound assignments: the in-place dunders, which write into a's tensor.
#define WICK_DEFINE_COMPOUND(op, dunder)                                             \
  Tensor& operator op(Tensor& a, const Tensor& b) {                                  \
    static const auto f = typed<Tensor(T, T)>("torch.Tensor." dunder);             \
    (void)f.call(a, b);                                                              \
    return a;                                                                        \
  }                                                                                  \
  Tensor& operator op(Tensor& a, const Scalar& b) { return a op wrap_scalar(b); }
WICK_DEFINE_COMPOUND(*=, "__imul__")
WICK_DEFINE_COMPOUND(%=, "__imod__")
WICK_DEFINE_COMPOUND(&=, "__iand__")
WICK_DEFINE_COMPOUND(|=, "__ior__")
WICK_DEFINE_COMPOUND(^=, "__ixor__")
WICK_DEFINE_COMPOUND(<<=, "__ilshift__")
WICK_DEFINE_COMPOUND(>>=, "__irshift__")
#undef WICK_DEFINE_COMPOUND

Tensor& operator+=(Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, const Scalar&)>("torch.Tensor.__iadd__");
  (void)op.call(a, b, 1);
  return a;
}
Tensor& operator-=(Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, const Scalar&)>("torch.Tensor.__isub__");
  (void)op.call(a, b, 1);
  return a;
}
Tensor& operator/=(Tensor& a, const Tensor& b) {
  static const auto op = typed<Tensor(T, T, std::optional<std::string_view>)>("torch.Tensor.__itruediv__");
  (void)op.call(a, b, std::nullopt);
  return a;
}
Tensor& operator+=(Tensor& a, const Scalar& b) { return a += wrap_scalar(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a -= wrap_scalar(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a /= wrap_scalar(b); }

Tensor operator-(const Tensor& a) {
  static const auto op = typed<Tensor(T)>("torch.Tensor.__neg__");
  return op.call(a);
}
Tensor operator+(const Tensor& a) {
  static const auto op = typed<Tensor(T)>("torch.Tensor.__pos__");
  return op.call(a);
}
Tensor operator~(const Tensor& a) {
  static const auto op = typed<Tensor(T)>("torch.Tensor.__invert__");
  return op.call(a);
}

}  // namespace wick
