// dispatch/ops.cpp - the typed operator API (wick/ops.h) and Tensor's methods.
/// \file
/// Each function looks its operator up once (a function-local static) and
/// then makes a typed call: no boxing, no string work per call.
#include "wick/ops.h"

#include "wick/dispatcher.h"

namespace wick {
namespace {

using T = const Tensor&;
using OptInts = std::optional<IntArrayRef>;
using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;
using OptStr = std::optional<std::string_view>;

template <typename Sig>
TypedOperatorHandle<Sig> typed(const char* name) {
  return find_op(name).typed<Sig>();
}

}  // namespace

#define WICK_OP(NAME, SIG) static const auto op = typed<SIG>(NAME)

Tensor add(T self, T other, const Scalar& alpha) {
  WICK_OP("torch.add", Tensor(T, T, const Scalar&));
  return op.call(self, other, alpha);
}
Tensor& add_out(Tensor& out, T self, T other, const Scalar& alpha) {
  WICK_OP("torch.add.out", Tensor(T, T, const Scalar&, T));
  op.call(self, other, alpha, out);
  return out;
}
Tensor sub(T self, T other, const Scalar& alpha) {
  WICK_OP("torch.sub", Tensor(T, T, const Scalar&));
  return op.call(self, other, alpha);
}
Tensor& sub_out(Tensor& out, T self, T other, const Scalar& alpha) {
  WICK_OP("torch.sub.out", Tensor(T, T, const Scalar&, T));
  op.call(self, other, alpha, out);
  return out;
}
Tensor rsub(T self, T other, const Scalar& alpha) {
  WICK_OP("torch.rsub", Tensor(T, T, const Scalar&));
  return op.call(self, other, alpha);
}
Tensor mul(T self, T other) {
  WICK_OP("torch.mul", Tensor(T, T));
  return op.call(self, other);
}
Tensor& mul_out(Tensor& out, T self, T other) {
  WICK_OP("torch.mul.out", Tensor(T, T, T));
  op.call(self, other, out);
  return out;
}
Tensor div(T self, T other, OptStr rounding_mode) {
  WICK_OP("torch.div", Tensor(T, T, OptStr));
  return op.call(self, other, rounding_mode);
}
Tensor& div_out(Tensor& out, T self, T other, OptStr rounding_mode) {
  WICK_OP("torch.div.out", Tensor(T, T, OptStr, T));
  op.call(self, other, rounding_mode, out);
  return out;
}

#define WICK_BINARY(NAME)                         \
  Tensor NAME(T self, T other) {                  \
    WICK_OP("torch." #NAME, Tensor(T, T));        \
    return op.call(self, other);                  \
  }
WICK_BINARY(pow)
WICK_BINARY(maximum)
WICK_BINARY(minimum)
WICK_BINARY(eq)
WICK_BINARY(ne)
WICK_BINARY(lt)
WICK_BINARY(le)
WICK_BINARY(gt)
WICK_BINARY(ge)
WICK_BINARY(fmod)
WICK_BINARY(remainder)
WICK_BINARY(atan2)
WICK_BINARY(logical_and)
WICK_BINARY(logical_or)
WICK_BINARY(logical_xor)
WICK_BINARY(mm)
WICK_BINARY(bmm)
WICK_BINARY(matmul)
WICK_BINARY(dot)
WICK_BINARY(mv)
WICK_BINARY(outer)
#undef WICK_BINARY

Tensor addmm(T self, T mat1, T mat2, const Scalar& beta, const Scalar& alpha) {
  WICK_OP("torch.addmm", Tensor(T, T, T, const Scalar&, const Scalar&));
  return op.call(self, mat1, mat2, beta, alpha);
}

Tensor where(T condition, T self, T other) {
  WICK_OP("torch.where", Tensor(T, T, T));
  return op.call(condition, self, other);
}
Tensor lerp(T self, T end, T weight) {
  WICK_OP("torch.lerp", Tensor(T, T, T));
  return op.call(self, end, weight);
}

#define WICK_UNARY(NAME)                   \
  Tensor NAME(T self) {                    \
    WICK_OP("torch." #NAME, Tensor(T));    \
    return op.call(self);                  \
  }
WICK_UNARY(neg)
WICK_UNARY(exp)
WICK_UNARY(exp2)
WICK_UNARY(expm1)
WICK_UNARY(log)
WICK_UNARY(log2)
WICK_UNARY(log10)
WICK_UNARY(log1p)
WICK_UNARY(abs)
WICK_UNARY(sqrt)
WICK_UNARY(rsqrt)
WICK_UNARY(reciprocal)
WICK_UNARY(square)
WICK_UNARY(sin)
WICK_UNARY(cos)
WICK_UNARY(tan)
WICK_UNARY(asin)
WICK_UNARY(acos)
WICK_UNARY(atan)
WICK_UNARY(sinh)
WICK_UNARY(cosh)
WICK_UNARY(tanh)
WICK_UNARY(erf)
WICK_UNARY(sigmoid)
WICK_UNARY(relu)
WICK_UNARY(floor)
WICK_UNARY(ceil)
WICK_UNARY(round)
WICK_UNARY(trunc)
WICK_UNARY(sign)
WICK_UNARY(logical_not)
WICK_UNARY(clone)
#undef WICK_UNARY

Tensor clamp(T self, std::optional<Scalar> min, std::optional<Scalar> max) {
  WICK_OP("torch.clamp", Tensor(T, const std::optional<Scalar>&, const std::optional<Scalar>&));
  return op.call(self, min, max);
}

Tensor sum(T self, OptInts dim, bool keepdim, OptDtype dtype) {
  WICK_OP("torch.sum", Tensor(T, OptInts, bool, OptDtype));
  return op.call(self, dim, keepdim, dtype);
}
Tensor mean(T self, OptInts dim, bool keepdim, OptDtype dtype) {
  WICK_OP("torch.mean", Tensor(T, OptInts, bool, OptDtype));
  return op.call(self, dim, keepdim, dtype);
}

Tensor reshape(T self, IntArrayRef shape) {
  WICK_OP("torch.reshape", Tensor(T, IntArrayRef));
  return op.call(self, shape);
}
Tensor transpose(T self, std::int64_t dim0, std::int64_t dim1) {
  WICK_OP("torch.transpose", Tensor(T, std::int64_t, std::int64_t));
  return op.call(self, dim0, dim1);
}
Tensor permute(T self, IntArrayRef dims) {
  WICK_OP("torch.permute", Tensor(T, IntArrayRef));
  return op.call(self, dims);
}
Tensor unsqueeze(T self, std::int64_t dim) {
  WICK_OP("torch.unsqueeze", Tensor(T, std::int64_t));
  return op.call(self, dim);
}
Tensor squeeze(T self, std::optional<std::int64_t> dim) {
  WICK_OP("torch.squeeze", Tensor(T, std::optional<std::int64_t>));
  return op.call(self, dim);
}
Tensor narrow(T self, std::int64_t dim, std::int64_t start, std::int64_t length) {
  WICK_OP("torch.narrow", Tensor(T, std::int64_t, std::int64_t, std::int64_t));
  return op.call(self, dim, start, length);
}
Tensor select(T self, std::int64_t dim, std::int64_t index) {
  WICK_OP("torch.select", Tensor(T, std::int64_t, std::int64_t));
  return op.call(self, dim, index);
}

Tensor tensor(const Value& data, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.tensor", Tensor(const Value&, OptDtype, OptDevice));
  return op.call(data, dtype, device);
}
#define WICK_FACTORY(NAME)                                        \
  Tensor NAME(IntArrayRef size, OptDtype dtype, OptDevice device) { \
    WICK_OP("torch." #NAME, Tensor(IntArrayRef, OptDtype, OptDevice)); \
    return op.call(size, dtype, device);                          \
  }
WICK_FACTORY(empty)
WICK_FACTORY(zeros)
WICK_FACTORY(ones)
WICK_FACTORY(rand)
WICK_FACTORY(randn)
#undef WICK_FACTORY
Tensor full(IntArrayRef size, const Scalar& fill_value, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.full", Tensor(IntArrayRef, const Scalar&, OptDtype, OptDevice));
  return op.call(size, fill_value, dtype, device);
}
Tensor arange(const Scalar& start, const std::optional<Scalar>& end, const Scalar& step, OptDtype dtype,
              OptDevice device) {
  WICK_OP("torch.arange", Tensor(const Scalar&, const std::optional<Scalar>&, const Scalar&, OptDtype, OptDevice));
  return op.call(start, end, step, dtype, device);
}
Tensor eye(std::int64_t n, std::optional<std::int64_t> m, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.eye", Tensor(std::int64_t, std::optional<std::int64_t>, OptDtype, OptDevice));
  return op.call(n, m, dtype, device);
}

// --- Tensor methods: torch.Tensor.* entries -------------------------------------

Tensor Tensor::view(IntArrayRef size) const {
  WICK_OP("torch.Tensor.view", Tensor(T, IntArrayRef));
  return op.call(*this, size);
}
Tensor Tensor::reshape(IntArrayRef shape) const {
  WICK_OP("torch.Tensor.reshape", Tensor(T, IntArrayRef));
  return op.call(*this, shape);
}
Tensor Tensor::transpose(std::int64_t dim0, std::int64_t dim1) const {
  WICK_OP("torch.Tensor.transpose", Tensor(T, std::int64_t, std::int64_t));
  return op.call(*this, dim0, dim1);
}
Tensor Tensor::t() const {
  WICK_OP("torch.Tensor.t", Tensor(T));
  return op.call(*this);
}
Tensor Tensor::permute(IntArrayRef dims) const {
  WICK_OP("torch.Tensor.permute", Tensor(T, IntArrayRef));
  return op.call(*this, dims);
}
Tensor Tensor::unsqueeze(std::int64_t dim) const {
  WICK_OP("torch.Tensor.unsqueeze", Tensor(T, std::int64_t));
  return op.call(*this, dim);
}
Tensor Tensor::squeeze(std::optional<std::int64_t> dim) const {
  WICK_OP("torch.Tensor.squeeze", Tensor(T, std::optional<std::int64_t>));
  return op.call(*this, dim);
}
Tensor Tensor::expand(IntArrayRef size) const {
  WICK_OP("torch.Tensor.expand", Tensor(T, IntArrayRef));
  return op.call(*this, size);
}
Tensor Tensor::narrow(std::int64_t dim, std::int64_t start, std::int64_t length) const {
  WICK_OP("torch.Tensor.narrow", Tensor(T, std::int64_t, std::int64_t, std::int64_t));
  return op.call(*this, dim, start, length);
}
Tensor Tensor::select(std::int64_t dim, std::int64_t index) const {
  WICK_OP("torch.Tensor.select", Tensor(T, std::int64_t, std::int64_t));
  return op.call(*this, dim, index);
}
Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  WICK_OP("torch.Tensor.contiguous", Tensor(T));
  return op.call(*this);
}
Tensor Tensor::clone() const {
  WICK_OP("torch.Tensor.clone", Tensor(T));
  return op.call(*this);
}
Tensor Tensor::to(ScalarType dtype) const {
  WICK_OP("torch.Tensor.to", Tensor(T, ScalarType));
  return op.call(*this, dtype);
}
Tensor Tensor::add(const Tensor& other, const Scalar& alpha) const {
  WICK_OP("torch.Tensor.add", Tensor(T, T, const Scalar&));
  return op.call(*this, other, alpha);
}
Tensor Tensor::sub(const Tensor& other, const Scalar& alpha) const {
  WICK_OP("torch.Tensor.sub", Tensor(T, T, const Scalar&));
  return op.call(*this, other, alpha);
}
Tensor Tensor::mul(const Tensor& other) const {
  WICK_OP("torch.Tensor.mul", Tensor(T, T));
  return op.call(*this, other);
}
Tensor Tensor::div(const Tensor& other) const {
  WICK_OP("torch.Tensor.div", Tensor(T, T, OptStr));
  return op.call(*this, other, std::nullopt);
}
#define WICK_METHOD_UNARY(NAME)                     \
  Tensor Tensor::NAME() const {                     \
    WICK_OP("torch.Tensor." #NAME, Tensor(T));      \
    return op.call(*this);                          \
  }
WICK_METHOD_UNARY(neg)
WICK_METHOD_UNARY(exp)
WICK_METHOD_UNARY(log)
WICK_METHOD_UNARY(relu)
#undef WICK_METHOD_UNARY
Tensor Tensor::sum() const {
  WICK_OP("torch.Tensor.sum", Tensor(T, OptInts, bool, OptDtype));
  return op.call(*this, std::nullopt, false, std::nullopt);
}
Tensor Tensor::sum(IntArrayRef dim, bool keepdim) const {
  WICK_OP("torch.Tensor.sum", Tensor(T, OptInts, bool, OptDtype));
  return op.call(*this, dim, keepdim, std::nullopt);
}
Tensor Tensor::mean() const {
  WICK_OP("torch.Tensor.mean", Tensor(T, OptInts, bool, OptDtype));
  return op.call(*this, std::nullopt, false, std::nullopt);
}
Tensor Tensor::mean(IntArrayRef dim, bool keepdim) const {
  WICK_OP("torch.Tensor.mean", Tensor(T, OptInts, bool, OptDtype));
  return op.call(*this, dim, keepdim, std::nullopt);
}
Tensor Tensor::mm(const Tensor& mat2) const {
  WICK_OP("torch.Tensor.mm", Tensor(T, T));
  return op.call(*this, mat2);
}
Tensor Tensor::matmul(const Tensor& other) const {
  WICK_OP("torch.Tensor.matmul", Tensor(T, T));
  return op.call(*this, other);
}
Tensor Tensor::eq(const Tensor& other) const {
  WICK_OP("torch.Tensor.eq", Tensor(T, T));
  return op.call(*this, other);
}
Tensor Tensor::lt(const Tensor& other) const {
  WICK_OP("torch.Tensor.lt", Tensor(T, T));
  return op.call(*this, other);
}
Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) {
  WICK_OP("torch.Tensor.add_", Tensor(T, T, const Scalar&));
  op.call(*this, other, alpha);
  return *this;
}
Tensor& Tensor::mul_(const Tensor& other) {
  WICK_OP("torch.Tensor.mul_", Tensor(T, T));
  op.call(*this, other);
  return *this;
}
Tensor Tensor::to(Device device, std::optional<ScalarType> dtype, bool non_blocking, bool copy) const {
  WICK_OP("torch.Tensor.to.device", Tensor(T, Device, std::optional<ScalarType>, bool, bool));
  return op.call(*this, device, dtype, non_blocking, copy);
}
Tensor Tensor::cuda(std::optional<Device> device, bool non_blocking) const {
  WICK_OP("torch.Tensor.cuda", Tensor(T, std::optional<Device>, bool));
  return op.call(*this, device, non_blocking);
}
Tensor Tensor::cpu() const {
  WICK_OP("torch.Tensor.cpu", Tensor(T));
  return op.call(*this);
}
Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  WICK_OP("torch.Tensor.copy_", Tensor(T, T, bool));
  op.call(*this, src, non_blocking);
  return *this;
}
Tensor& Tensor::fill_(const Scalar& value) {
  WICK_OP("torch.Tensor.fill_", Tensor(T, const Scalar&));
  op.call(*this, value);
  return *this;
}

// --- operators: the torch.Tensor dunders ----------------------------------------

Tensor operator+(const Tensor& a, const Tensor& b) {
  WICK_OP("torch.Tensor.__add__", Tensor(T, T, const Scalar&));
  return op.call(a, b, 1);
}
Tensor operator-(const Tensor& a, const Tensor& b) {
  WICK_OP("torch.Tensor.__sub__", Tensor(T, T, const Scalar&));
  return op.call(a, b, 1);
}
Tensor operator*(const Tensor& a, const Tensor& b) {
  WICK_OP("torch.Tensor.__mul__", Tensor(T, T));
  return op.call(a, b);
}
Tensor operator/(const Tensor& a, const Tensor& b) {
  WICK_OP("torch.Tensor.__truediv__", Tensor(T, T, OptStr));
  return op.call(a, b, std::nullopt);
}
Tensor operator-(const Tensor& a) {
  WICK_OP("torch.Tensor.__neg__", Tensor(T));
  return op.call(a);
}
Tensor operator+(const Tensor& a, const Scalar& b) { return a + wrap_scalar(b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return a - wrap_scalar(b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return a * wrap_scalar(b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return a / wrap_scalar(b); }

#undef WICK_OP

}  // namespace wick
