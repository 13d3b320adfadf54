// dispatch/ops_shape.cpp - the typed API of the shape, indexing and *_like operators.
/// \file
/// Like dispatch/ops.cpp: each function finds its operator once and then
/// makes a typed call.
#include "wick/dispatcher.h"
#include "wick/ops.h"

namespace wick {
namespace {

using T = const Tensor&;
using I64 = std::int64_t;
using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;
using Tensors = const std::vector<Tensor>&;

template <typename Sig>
TypedOperatorHandle<Sig> typed(const char* name) {
  return find_op(name).typed<Sig>();
}

}  // namespace

#define WICK_OP(NAME, SIG) static const auto op = typed<SIG>(NAME)

Tensor flatten(T self, I64 start_dim, I64 end_dim) {
  WICK_OP("torch.flatten", Tensor(T, I64, I64));
  return op.call(self, start_dim, end_dim);
}
Tensor unflatten(T self, I64 dim, IntArrayRef sizes) {
  WICK_OP("torch.unflatten", Tensor(T, I64, IntArrayRef));
  return op.call(self, dim, sizes);
}
Tensor cat(Tensors tensors, I64 dim) {
  WICK_OP("torch.cat", Tensor(Tensors, I64));
  return op.call(tensors, dim);
}
Tensor stack(Tensors tensors, I64 dim) {
  WICK_OP("torch.stack", Tensor(Tensors, I64));
  return op.call(tensors, dim);
}
std::vector<Tensor> split(T self, I64 split_size, I64 dim) {
  WICK_OP("torch.split", std::vector<Tensor>(T, const Value&, I64));
  return op.call(self, Value(split_size), dim);
}
std::vector<Tensor> split_with_sizes(T self, IntArrayRef split_sizes, I64 dim) {
  WICK_OP("torch.split_with_sizes", std::vector<Tensor>(T, IntArrayRef, I64));
  return op.call(self, split_sizes, dim);
}
std::vector<Tensor> chunk(T self, I64 chunks, I64 dim) {
  WICK_OP("torch.chunk", std::vector<Tensor>(T, I64, I64));
  return op.call(self, chunks, dim);
}
Tensor index_select(T self, I64 dim, T index) {
  WICK_OP("torch.index_select", Tensor(T, I64, T));
  return op.call(self, dim, index);
}
Tensor gather(T self, I64 dim, T index, bool sparse_grad) {
  WICK_OP("torch.gather", Tensor(T, I64, T, bool));
  return op.call(self, dim, index, sparse_grad);
}
Tensor scatter(T self, I64 dim, T index, T src) {
  WICK_OP("torch.scatter", Tensor(T, I64, T, T));
  return op.call(self, dim, index, src);
}
Tensor scatter(T self, I64 dim, T index, const Scalar& value) { return scatter(self, dim, index, wrap_scalar(value)); }
Tensor scatter_add(T self, I64 dim, T index, T src) {
  WICK_OP("torch.scatter_add", Tensor(T, I64, T, T));
  return op.call(self, dim, index, src);
}
Tensor masked_fill(T self, T mask, T value) {
  WICK_OP("torch.masked_fill", Tensor(T, T, T));
  return op.call(self, mask, value);
}
Tensor masked_fill(T self, T mask, const Scalar& value) { return masked_fill(self, mask, wrap_scalar(value)); }
Tensor repeat(T self, IntArrayRef repeats) {
  WICK_OP("torch.Tensor.repeat", Tensor(T, IntArrayRef));
  return op.call(self, repeats);
}
Tensor expand_as(T self, T other) {
  WICK_OP("torch.Tensor.expand_as", Tensor(T, T));
  return op.call(self, other);
}
Tensor flip(T self, IntArrayRef dims) {
  WICK_OP("torch.flip", Tensor(T, IntArrayRef));
  return op.call(self, dims);
}
Tensor roll(T self, IntArrayRef shifts, IntArrayRef dims) {
  WICK_OP("torch.roll", Tensor(T, IntArrayRef, IntArrayRef));
  return op.call(self, shifts, dims);
}
Tensor tril(T self, I64 diagonal) {
  WICK_OP("torch.tril", Tensor(T, I64));
  return op.call(self, diagonal);
}
Tensor triu(T self, I64 diagonal) {
  WICK_OP("torch.triu", Tensor(T, I64));
  return op.call(self, diagonal);
}
Tensor zeros_like(T self, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.zeros_like", Tensor(T, OptDtype, OptDevice));
  return op.call(self, dtype, device);
}
Tensor ones_like(T self, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.ones_like", Tensor(T, OptDtype, OptDevice));
  return op.call(self, dtype, device);
}
Tensor full_like(T self, const Scalar& fill_value, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.full_like", Tensor(T, const Scalar&, OptDtype, OptDevice));
  return op.call(self, fill_value, dtype, device);
}
Tensor rand_like(T self, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.rand_like", Tensor(T, OptDtype, OptDevice));
  return op.call(self, dtype, device);
}
Tensor randn_like(T self, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.randn_like", Tensor(T, OptDtype, OptDevice));
  return op.call(self, dtype, device);
}
Tensor linspace(const Scalar& start, const Scalar& end, I64 steps, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.linspace", Tensor(const Scalar&, const Scalar&, I64, OptDtype, OptDevice));
  return op.call(start, end, steps, dtype, device);
}
Tensor randint(I64 low, I64 high, IntArrayRef size, OptDtype dtype, OptDevice device) {
  WICK_OP("torch.randint", Tensor(const Value&, const Value&, std::optional<IntArrayRef>, OptDtype, OptDevice));
  return op.call(Value(low), Value(high), size, dtype, device);
}
Tensor randint(I64 high, IntArrayRef size, OptDtype dtype, OptDevice device) { return randint(0, high, size, dtype, device); }

// --- Tensor methods: through the torch.Tensor entries, which can be overridden on their own ---

Tensor Tensor::flatten(I64 start_dim, I64 end_dim) const {
  WICK_OP("torch.Tensor.flatten", Tensor(T, I64, I64));
  return op.call(*this, start_dim, end_dim);
}
Tensor Tensor::expand_as(T other) const { return wick::expand_as(*this, other); }
Tensor Tensor::repeat(IntArrayRef repeats) const { return wick::repeat(*this, repeats); }
Tensor Tensor::flip(IntArrayRef dims) const {
  WICK_OP("torch.Tensor.flip", Tensor(T, IntArrayRef));
  return op.call(*this, dims);
}
Tensor Tensor::index_select(I64 dim, T index) const {
  WICK_OP("torch.Tensor.index_select", Tensor(T, I64, T));
  return op.call(*this, dim, index);
}
Tensor Tensor::gather(I64 dim, T index) const {
  WICK_OP("torch.Tensor.gather", Tensor(T, I64, T, bool));
  return op.call(*this, dim, index, false);
}
Tensor Tensor::masked_fill(T mask, const Scalar& value) const {
  WICK_OP("torch.Tensor.masked_fill", Tensor(T, T, T));
  return op.call(*this, mask, wrap_scalar(value));
}
std::vector<Tensor> Tensor::split(I64 split_size, I64 dim) const {
  WICK_OP("torch.Tensor.split", std::vector<Tensor>(T, const Value&, I64));
  return op.call(*this, Value(split_size), dim);
}
std::vector<Tensor> Tensor::chunk(I64 chunks, I64 dim) const {
  WICK_OP("torch.Tensor.chunk", std::vector<Tensor>(T, I64, I64));
  return op.call(*this, chunks, dim);
}

}  // namespace wick
