// dispatch/ops/meta_elementwise.cpp - meta functions of the elementwise operators (Note [Meta functions]).
/// \file
/// Binary operators broadcast their operands, compute in PyTorch's result
/// type (true division and atan2 of integers in the default float dtype)
/// and return it, or bool for comparisons and the logical operators. Float
/// functions (exp, sin, ...) of integers and bools compute in the default
/// float dtype; neg, abs, relu, sign and the rounding functions keep the
/// dtype (rounding an integer is a copy, a bool is refused); square of a
/// bool is int64; clamp promotes with its bounds. Every output is
/// contiguous. The messages are PyTorch's CPU messages, for every backend.
#include <optional>
#include <string_view>

#include "wick/error.h"
#include "wick/gen/torch_meta.h"
#include "wick/meta.h"
#include "wick/tensor_util.h"

namespace wick::meta {

namespace {

// PyTorch names its CPU kernel after the operator ("frac_cpu"), and refuses
// the dtypes that kernel has no loop for.
void check_kernel_dtype(const char* op, bool has_loop, ScalarType t) {
  const std::string_view name(op);
  WICK_CHECK(has_loop, RuntimeError, op, ": \"", name.substr(name.rfind('.') + 1), "_cpu\" not implemented for '",
             type_title(t), "'");
}

}  // namespace

ElementwiseMeta binary_op(const char* op, const Tensor& a, const Tensor& b, BinaryKind kind) {
  const Device device = common_device(op, a, b);
  const DimVector shape = broadcast_shapes(a.sizes(), b.sizes(), op);
  ScalarType compute = result_type(a, b);
  if (kind == BinaryKind::kBitwise) check_kernel_dtype(op, is_integral(compute, true), compute);
  if (kind == BinaryKind::kOrdered) {
    const std::string_view name(op);
    WICK_CHECK(!is_complex(compute), RuntimeError, op, ": ", name.substr(name.rfind('.') + 1),
               " not implemented for complex tensors.");
  }
  if (kind == BinaryKind::kTrueDiv && is_integral(compute, true)) compute = kDefaultFloat;
  const bool to_bool = kind == BinaryKind::kCompare || kind == BinaryKind::kLogical;
  return {TensorMeta::contiguous(shape, to_bool ? ScalarType::kBool : compute, device), compute};
}

ElementwiseMeta unary_op(const char* op, const Tensor& self, UnaryKind kind) {
  const Device device = common_device(op, self);
  if (kind == UnaryKind::kFloating) check_kernel_dtype(op, is_floating(self.dtype()), self.dtype());
  if (kind == UnaryKind::kBitwise) check_kernel_dtype(op, is_integral(self.dtype(), true), self.dtype());
  const ScalarType t = kind == UnaryKind::kFloat && is_integral(self.dtype(), true) ? kDefaultFloat : self.dtype();
  return {TensorMeta::contiguous(self.sizes(), t, device), t};
}

ElementwiseMeta broadcast_op(const char* op, std::initializer_list<const Tensor*> inputs, ScalarType compute,
                             ScalarType result) {
  const Device device = common_device(ArrayRef<const Tensor*>(inputs.begin(), inputs.size()), op);
  DimVector shape;
  for (const Tensor* t : inputs) shape = broadcast_shapes(shape, t->sizes(), op);
  return {TensorMeta::contiguous(shape, result, device), compute};
}

namespace {

void check_alpha(const char* op, ScalarType compute, const Scalar& alpha) {
  WICK_CHECK(is_complex(compute) || !alpha.is_complex(), RuntimeError, op,
             ": For non-complex input tensors, argument alpha must not be a complex number.");
  WICK_CHECK(!is_integral(compute, true) || alpha.is_integral(), RuntimeError, op,
             ": For integral input tensors, argument alpha must not be a floating point number.");
  WICK_CHECK(compute == ScalarType::kBool || !alpha.is_bool(), RuntimeError, op,
             ": Boolean alpha only supported for Boolean results.");
}

ElementwiseMeta arith(const char* op, const Tensor& a, const Tensor& b) {
  return binary_op(op, a, b, BinaryKind::kArith);
}

// fmod and remainder of bools: PyTorch has no kernel for them.
ElementwiseMeta modulo(const char* op, const char* kernel, const Tensor& a, const Tensor& b) {
  ElementwiseMeta m = arith(op, a, b);
  WICK_CHECK(m.compute != ScalarType::kBool, RuntimeError, op, ": \"", kernel, "\" not implemented for 'Bool'");
  return m;
}

// floor, ceil, round and trunc: integers are already whole (a copy), bools and complex numbers are refused.
ElementwiseMeta rounding(const char* op, const char* kernel, const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"", kernel, "\" not implemented for 'Bool'");
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, op, ": ", std::string_view(op).substr(6),
             " is not supported for complex inputs");
  return unary_op(op, self, UnaryKind::kSame);
}

}  // namespace

// --- binary ------------------------------------------------------------------------------

ElementwiseMeta add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  ElementwiseMeta m = arith("torch.add", self, other);
  check_alpha("torch.add", m.compute, alpha);
  return m;
}
ElementwiseMeta sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  // PyTorch looks at the operands' own dtypes (a Python bool counts), before alpha.
  const bool self_bool = self.dtype() == ScalarType::kBool;
  const bool other_bool = other.dtype() == ScalarType::kBool;
  WICK_CHECK(!(self_bool && other_bool), RuntimeError,
             "torch.sub: Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
             "`logical_xor()` operator instead.");
  WICK_CHECK(!self_bool && !other_bool, RuntimeError,
             "torch.sub: Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
             "invert a mask, use the `~` or `logical_not()` operator instead.");
  ElementwiseMeta m = arith("torch.sub", self, other);
  check_alpha("torch.sub", m.compute, alpha);
  return m;
}
// Integers to a negative power: refused for a Python-number exponent only
// (PyTorch's Scalar overload); a tensor exponent computes (scalar_ops::int_power).
ElementwiseMeta pow(const Tensor& self, const Tensor& exponent) {
  const char* op = "torch.pow";
  ElementwiseMeta m = arith(op, self, exponent);
  WICK_CHECK(m.compute != ScalarType::kBool, RuntimeError, op, ": \"pow\" not implemented for 'Bool'");
  if (is_integral(m.compute, true) && exponent.impl()->is_wrapped_number()) {
    WICK_CHECK(exponent.item().to<std::int64_t>() >= 0, RuntimeError, op,
               ": Integers to negative integer powers are not allowed.");
  }
  return m;
}
ElementwiseMeta div(const Tensor& self, const Tensor& other, std::optional<std::string_view> rounding_mode) {
  const char* op = "torch.div";
  WICK_CHECK(!rounding_mode || *rounding_mode == "trunc" || *rounding_mode == "floor", RuntimeError, op,
             ": div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *rounding_mode, "'");
  ElementwiseMeta m = binary_op(op, self, other, rounding_mode ? BinaryKind::kArith : BinaryKind::kTrueDiv);
  WICK_CHECK(m.compute != ScalarType::kBool || !rounding_mode, RuntimeError, op,
             ": \"div_floor_cpu\" not implemented for 'Bool'");
  return m;
}
ElementwiseMeta fmod(const Tensor& self, const Tensor& other) { return modulo("torch.fmod", "fmod_cpu", self, other); }
ElementwiseMeta remainder(const Tensor& self, const Tensor& other) {
  return modulo("torch.remainder", "remainder_cpu", self, other);
}

// self + weight * (end - self): self and end share a floating dtype; a
// tensor weight too, unless it is a wrapped Python number.
ElementwiseMeta lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  const char* op = "torch.lerp";
  const ScalarType t = self.dtype();
  WICK_CHECK(is_floating(t) || is_complex(t), RuntimeError, op, ": \"lerp_kernel_scalar\" not implemented for '",
             type_title(t), "'");
  WICK_CHECK(end.dtype() == t, RuntimeError, op, ": expected dtype ", dtype_name(t), " for `end` but got dtype ",
             dtype_name(end.dtype()));
  WICK_CHECK(weight.impl()->is_wrapped_number() || weight.dtype() == t, RuntimeError, op, ": expected dtype ",
             dtype_name(t), " for `weight` but got dtype ", dtype_name(weight.dtype()));
  return broadcast_op(op, {&self, &end, &weight}, t, t);
}

ElementwiseMeta where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  const char* op = "torch.where";
  WICK_CHECK(condition.dtype() == ScalarType::kBool, RuntimeError, op,
             ": where expected condition to be a boolean tensor, but got a tensor with dtype ",
             type_title(condition.dtype()));
  const ScalarType t = result_type(self, other);
  return broadcast_op(op, {&condition, &self, &other}, t, t);
}

// --- unary -------------------------------------------------------------------------------

ElementwiseMeta neg(const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError,
             "torch.neg: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
             "a mask, use the `~` or `logical_not()` operator instead.");
  return unary_op("torch.neg", self, UnaryKind::kSame);
}
// abs of a complex tensor is its real magnitude.
ElementwiseMeta abs(const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, "torch.abs: \"abs_cpu\" not implemented for 'Bool'");
  ElementwiseMeta m = unary_op("torch.abs", self, UnaryKind::kSame);
  m.out.dtype = to_real_dtype(m.out.dtype);
  return m;
}
ElementwiseMeta relu(const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, "torch.relu: Boolean inputs not supported for relu");
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "torch.relu: clamp is not supported for complex types");
  return unary_op("torch.relu", self, UnaryKind::kSame);
}
ElementwiseMeta square(const Tensor& self) {
  ElementwiseMeta m = unary_op("torch.square", self, UnaryKind::kSame);
  if (m.compute == ScalarType::kBool)
    m.compute = m.out.dtype = ScalarType::kInt64;  // as PyTorch: bool squares are int64
  return m;
}
ElementwiseMeta logical_not(const Tensor& self) {
  ElementwiseMeta m = unary_op("torch.logical_not", self, UnaryKind::kSame);
  m.out.dtype = ScalarType::kBool;
  return m;
}

ElementwiseMeta sign(const Tensor& self) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError,
             "torch.sign: Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn "
             "instead.");
  return unary_op("torch.sign", self, UnaryKind::kSame);
}

ElementwiseMeta floor(const Tensor& self) { return rounding("torch.floor", "floor_vml_cpu", self); }
ElementwiseMeta ceil(const Tensor& self) { return rounding("torch.ceil", "ceil_vml_cpu", self); }
// round of a complex tensor is refused by its kernel, floor's and the others' by a check.
ElementwiseMeta round(const Tensor& self) {
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, "torch.round: \"round_vml_cpu\" not implemented for '",
             type_title(self.dtype()), "'");
  return rounding("torch.round", "round_vml_cpu", self);
}
ElementwiseMeta trunc(const Tensor& self) { return rounding("torch.trunc", "trunc_vml_cpu", self); }

// clamp(self, min, max) = min(max(self, min), max); the result dtype is
// self's promoted with the bounds, as wrapped numbers.
ElementwiseMeta clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  const char* op = "torch.clamp";
  WICK_CHECK(!is_complex(self.dtype()), RuntimeError, op, ": clamp is not supported for complex types");
  WICK_CHECK(min.has_value() || max.has_value(), RuntimeError, op, ": At least one of 'min' or 'max' must not be None");
  ScalarType t = self.dtype();
  for (const auto& b : {min, max}) {
    if (!b) continue;
    if (b->is_floating() && !is_floating(t)) t = kDefaultFloat;
    if (b->is_integral() && !b->is_bool() && t == ScalarType::kBool) t = ScalarType::kInt64;
  }
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, op, ": \"clamp_cpu\" not implemented for 'Bool'");
  ElementwiseMeta m = unary_op(op, self, UnaryKind::kSame);
  m.compute = m.out.dtype = t;
  return m;
}

// polygamma(n, x): an elementwise float function of x, for n >= 0.
ElementwiseMeta polygamma(std::int64_t n, const Tensor& self) {
  WICK_CHECK(n >= 0, RuntimeError, "torch.polygamma: polygamma(n, x) does not support negative n.");
  return unary_op("torch.polygamma", self, UnaryKind::kFloat);
}

}  // namespace wick::meta

// --- the internal operators (namespace aten) ---------------------------------------------------

namespace aten::meta {

// grad_output where self > threshold, else 0: the two broadcast, in their
// result type (PyTorch's threshold_backward, a binary TensorIterator op).
wick::ElementwiseMeta threshold_backward(const wick::Tensor& grad_output, const wick::Tensor& self,
                                         const wick::Scalar& /*threshold*/) {
  const char* op = "aten.threshold_backward";
  wick::ElementwiseMeta m = wick::meta::binary_op(op, grad_output, self, wick::meta::BinaryKind::kArith);
  WICK_CHECK(m.compute != wick::ScalarType::kBool, RuntimeError, op,
             ": \"threshold_backward_cpu\" not implemented for 'Bool'");
  return m;
}

}  // namespace aten::meta
