// backends/cuda/elementwise_ops.cpp - host side of the elementwise CUDA kernels: binary, unary, where, lerp, fill_.
/// \file
/// The same recipe as the CPU kernels (backends/cpu/binary_ops.cpp,
/// unary_ops.cpp), with the same checks and messages: check devices (a
/// 0-dim CPU tensor, a wrapped Python number, joins the device), broadcast
/// the shapes, compute PyTorch's result type, convert the operands to it,
/// and launch one device loop (elementwise_kernels.h) on the current
/// stream. out= kernels write straight into `out` when its shape and dtype
/// already match and it overlaps no input differently, otherwise they check
/// the cast, resize, and copy through a temporary.
#include <optional>
#include <string_view>
#include <type_traits>

#include <wick/tensor_util.h>

#include "cuda_common.h"
#include "cuda_ops.h"
#include "elementwise_host.h"
#include "elementwise_kernels.h"

namespace wick::cuda_backend {

void copy_within_device(const Tensor& dst, const Tensor& src) {
  const char* op = "torch.Tensor.copy_";
  const std::int64_t numel = dst.numel();
  if (numel == 0) return;
  DeviceGuard guard(dst.device());
  const cudaStream_t stream = current_stream();
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() && dst.sizes().equals(src.sizes())) {
    check_cuda(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), static_cast<std::size_t>(numel) * itemsize(dst.dtype()),
                               cudaMemcpyDeviceToDevice, stream),
               op);
    return;
  }
  const ElementwiseArgs args = make_args(dst.sizes(), {&dst, &src}, op);
  launch_cast(to_dtype(dst.dtype(), op), to_dtype(src.dtype(), op), args, stream);
  check_launch(op);
}

namespace {

// --- out= and device checks ---------------------------------------------------------------

bool overlaps_differently(const Tensor& out, const Tensor& in) {
  if (!in.defined() || out.storage().get() != in.storage().get()) return false;
  return !(out.storage_offset() == in.storage_offset() && out.sizes().equals(in.sizes()) &&
           out.strides().equals(in.strides()) && out.dtype() == in.dtype());
}

// Makes `out` hold `shape` for a result of dtype `result` (as the CPU
// backend's prepare_out): checks the cast and the device, resizes when the
// shape differs, refused when `out` shares memory with an input.
void prepare_out(const Tensor& out, IntArrayRef shape, ScalarType result, Device device, const char* op,
                 std::initializer_list<const Tensor*> inputs) {
  WICK_CHECK(out.device() == device, RuntimeError, op,
             ": Expected all tensors to be on the same device, but found at least two devices, ", device.str(), " and ",
             out.device().str(), "!");
  WICK_CHECK(can_cast(result, out.dtype()), RuntimeError, op, ": result type ", type_title(result),
             " can't be cast to the desired output type ", type_title(out.dtype()));
  if (out.sizes().equals(shape)) return;
  for (const Tensor* in : inputs) {
    WICK_CHECK(!in->defined() || out.storage().get() != in->storage().get(), RuntimeError, op, ": output with shape ",
               format_shape(out.sizes()), " doesn't match the broadcast shape ", format_shape(shape));
  }
  std::int64_t numel = 1;
  for (std::int64_t s : shape) numel *= s;
  const std::size_t item = itemsize(out.dtype());
  const std::size_t need = static_cast<std::size_t>(numel) * item;
  TensorImpl* impl = out.impl();
  if (impl->storage()->nbytes() < need + static_cast<std::size_t>(impl->storage_offset()) * item) {
    impl->set_storage(Storage::make(need, out.device()));
    impl->set_geometry(shape, contiguous_strides(shape), 0);
  } else {
    impl->set_geometry(shape, contiguous_strides(shape), impl->storage_offset());
  }
}

// An int in device memory that kernels OR error bits into (Note [Device
// error flags] in elementwise_kernels.cu), read back after them.
class ErrorFlag final {
 public:
  ErrorFlag(Device device, cudaStream_t stream, const char* op)
      : buffer_(make_empty({1}, ScalarType::kInt32, device)), stream_(stream), op_(op) {
    check_cuda(cudaMemsetAsync(buffer_.data_ptr(), 0, sizeof(int), stream_), op_);
  }
  [[nodiscard]] int* get() const { return static_cast<int*>(buffer_.data_ptr()); }
  // Waits for the stream's work so far and throws the CPU kernel's error.
  void raise_if_set() const {
    int bits = 0;
    check_cuda(cudaMemcpyAsync(&bits, get(), sizeof(int), cudaMemcpyDeviceToHost, stream_), op_);
    check_cuda(cudaStreamSynchronize(stream_), op_);
    WICK_CHECK((bits & kErrorZeroDivision) == 0, RuntimeError, op_, ": ZeroDivisionError");
    WICK_CHECK((bits & kErrorNegativePower) == 0, RuntimeError, op_,
               ": Integers to negative integer powers are not allowed.");
  }

 private:
  Tensor buffer_;
  cudaStream_t stream_;
  const char* op_;
};

// --- binary -------------------------------------------------------------------------------

enum class Kind { kArith, kCompare, kTrueDiv };

struct BinarySetup {
  const Tensor* in_a = nullptr;  // the caller's operands (before moving and converting)
  const Tensor* in_b = nullptr;
  Device device;
  DimVector shape;
  ScalarType compute = ScalarType::kUndefined;
  ScalarType result = ScalarType::kUndefined;
  Tensor a;  // on the device, in `compute`
  Tensor b;
};

BinarySetup setup(const char* op, const Tensor& a, const Tensor& b, Kind kind) {
  BinarySetup s;
  s.device = cuda_device_of(op, {&a, &b});
  s.in_a = &a;
  s.in_b = &b;
  s.shape = broadcast_shapes(a.sizes(), b.sizes(), op);
  s.compute = result_type(a, b);
  if (kind == Kind::kTrueDiv && !is_floating(s.compute)) s.compute = kDefaultFloat;
  s.result = kind == Kind::kCompare ? ScalarType::kBool : s.compute;
  s.a = as_dtype(on_device(a, s.device), s.compute);
  s.b = as_dtype(on_device(b, s.device), s.compute);
  return s;
}

// Runs `body(result_tensor)`, writing a fresh tensor or `out` (directly when
// it matches and overlaps no input differently, else through a temporary).
template <typename Body>
Tensor run(const char* op, const BinarySetup& s, const std::optional<Tensor>& out, Body&& body) {
  if (!out) {
    Tensor r = make_empty(s.shape, s.result, s.device);
    body(r);
    return r;
  }
  prepare_out(*out, s.shape, s.result, s.device, op, {s.in_a, s.in_b});
  const bool direct =
      out->dtype() == s.result && !overlaps_differently(*out, *s.in_a) && !overlaps_differently(*out, *s.in_b);
  if (direct) {
    body(*out);
  } else {
    Tensor r = make_empty(s.shape, s.result, s.device);
    body(r);
    copy_within_device(*out, r);
  }
  out->bump_version();
  return *out;
}

// Launches `bop` into `r`; integer division, modulo and pow read the error
// flag back and throw like the CPU kernels.
void launch_into(const char* op, BinaryOp bop, const Tensor& r, const BinarySetup& s, const ScalarValue& alpha = {}) {
  const ElementwiseArgs args = make_args(r.sizes(), {&r, &s.a, &s.b}, op);
  if (args.numel == 0) return;
  DeviceGuard guard(s.device);
  const cudaStream_t stream = current_stream();
  const bool can_fail =
      !is_floating(s.compute) && (bop == BinaryOp::kDivTrunc || bop == BinaryOp::kDivFloor || bop == BinaryOp::kFmod ||
                                  bop == BinaryOp::kRemainder || bop == BinaryOp::kPow);
  if (!can_fail) {
    launch_binary(bop, to_dtype(s.compute, op), args, alpha, nullptr, stream);
    check_launch(op);
    return;
  }
  const ErrorFlag flag(s.device, stream, op);
  launch_binary(bop, to_dtype(s.compute, op), args, alpha, flag.get(), stream);
  check_launch(op);
  flag.raise_if_set();
}

void check_alpha(const char* op, ScalarType compute, const Scalar& alpha) {
  WICK_CHECK(is_floating(compute) || !alpha.is_floating(), RuntimeError, op,
             ": For integral input tensors, argument alpha must not be a floating point number.");
  WICK_CHECK(compute == ScalarType::kBool || !alpha.is_bool(), RuntimeError, op,
             ": Boolean alpha only supported for Boolean results.");
}

Tensor add_impl(const char* op, const Tensor& a, const Tensor& b, const Scalar& alpha, const std::optional<Tensor>& out,
                bool subtract) {
  const BinarySetup s = setup(op, a, b, Kind::kArith);
  check_alpha(op, s.compute, alpha);
  WICK_CHECK(!(subtract && s.compute == ScalarType::kBool), RuntimeError, op,
             ": Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
             "`logical_xor()` operator instead.");
  const ScalarValue al = scalar_value(alpha, s.compute, subtract);
  return run(op, s, out, [&](const Tensor& r) { launch_into(op, BinaryOp::kAdd, r, s, al); });
}

Tensor mul_impl(const char* op, const Tensor& a, const Tensor& b, const std::optional<Tensor>& out) {
  const BinarySetup s = setup(op, a, b, Kind::kArith);
  return run(op, s, out, [&](const Tensor& r) { launch_into(op, BinaryOp::kMul, r, s); });
}

Tensor div_impl(const char* op, const Tensor& a, const Tensor& b, std::optional<std::string_view> mode,
                const std::optional<Tensor>& out) {
  WICK_CHECK(!mode || *mode == "trunc" || *mode == "floor", RuntimeError, op,
             ": div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", *mode, "'");
  const BinarySetup s = setup(op, a, b, mode ? Kind::kArith : Kind::kTrueDiv);
  WICK_CHECK(s.compute != ScalarType::kBool || !mode, RuntimeError, op, ": \"div_floor\" not implemented for 'Bool'");
  const BinaryOp bop = !mode ? BinaryOp::kDiv : *mode == "trunc" ? BinaryOp::kDivTrunc : BinaryOp::kDivFloor;
  return run(op, s, out, [&](const Tensor& r) { launch_into(op, bop, r, s); });
}

Tensor simple_binary(const char* op, const Tensor& a, const Tensor& b, Kind kind, BinaryOp bop) {
  const BinarySetup s = setup(op, a, b, kind);
  return run(op, s, std::nullopt, [&](const Tensor& r) { launch_into(op, bop, r, s); });
}

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return add_impl("torch.add", a, b, alpha, std::nullopt, false);
}
Tensor add_out(const Tensor& a, const Tensor& b, const Scalar& alpha, const Tensor& out) {
  return add_impl("torch.add", a, b, alpha, out, false);
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return add_impl("torch.sub", a, b, alpha, std::nullopt, true);
}
Tensor sub_out(const Tensor& a, const Tensor& b, const Scalar& alpha, const Tensor& out) {
  return add_impl("torch.sub", a, b, alpha, out, true);
}
Tensor mul(const Tensor& a, const Tensor& b) { return mul_impl("torch.mul", a, b, std::nullopt); }
Tensor mul_out(const Tensor& a, const Tensor& b, const Tensor& out) { return mul_impl("torch.mul", a, b, out); }
Tensor div(const Tensor& a, const Tensor& b, std::optional<std::string_view> mode) {
  return div_impl("torch.div", a, b, mode, std::nullopt);
}
Tensor div_out(const Tensor& a, const Tensor& b, std::optional<std::string_view> mode, const Tensor& out) {
  return div_impl("torch.div", a, b, mode, out);
}
Tensor pow(const Tensor& a, const Tensor& b) { return simple_binary("torch.pow", a, b, Kind::kArith, BinaryOp::kPow); }
Tensor maximum(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.maximum", a, b, Kind::kArith, BinaryOp::kMaximum);
}
Tensor minimum(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.minimum", a, b, Kind::kArith, BinaryOp::kMinimum);
}
Tensor eq(const Tensor& a, const Tensor& b) { return simple_binary("torch.eq", a, b, Kind::kCompare, BinaryOp::kEq); }
Tensor ne(const Tensor& a, const Tensor& b) { return simple_binary("torch.ne", a, b, Kind::kCompare, BinaryOp::kNe); }
Tensor lt(const Tensor& a, const Tensor& b) { return simple_binary("torch.lt", a, b, Kind::kCompare, BinaryOp::kLt); }
Tensor le(const Tensor& a, const Tensor& b) { return simple_binary("torch.le", a, b, Kind::kCompare, BinaryOp::kLe); }
Tensor gt(const Tensor& a, const Tensor& b) { return simple_binary("torch.gt", a, b, Kind::kCompare, BinaryOp::kGt); }
Tensor ge(const Tensor& a, const Tensor& b) { return simple_binary("torch.ge", a, b, Kind::kCompare, BinaryOp::kGe); }

// fmod keeps the sign of the dividend, remainder the sign of the divisor.
template <bool kPython>
Tensor modulo(const char* op, const Tensor& a, const Tensor& b) {
  const BinarySetup s = setup(op, a, b, Kind::kArith);
  WICK_CHECK(s.compute != ScalarType::kBool, RuntimeError, op, ": \"", kPython ? "remainder_cuda" : "fmod_cuda",
             "\" not implemented for 'Bool'");
  const BinaryOp bop = kPython ? BinaryOp::kRemainder : BinaryOp::kFmod;
  return run(op, s, std::nullopt, [&](const Tensor& r) { launch_into(op, bop, r, s); });
}
Tensor fmod(const Tensor& a, const Tensor& b) { return modulo<false>("torch.fmod", a, b); }
Tensor remainder(const Tensor& a, const Tensor& b) { return modulo<true>("torch.remainder", a, b); }

Tensor atan2(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.atan2", a, b, Kind::kTrueDiv, BinaryOp::kAtan2);
}
Tensor logical_and(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.logical_and", a, b, Kind::kCompare, BinaryOp::kLogicalAnd);
}
Tensor logical_or(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.logical_or", a, b, Kind::kCompare, BinaryOp::kLogicalOr);
}
Tensor logical_xor(const Tensor& a, const Tensor& b) {
  return simple_binary("torch.logical_xor", a, b, Kind::kCompare, BinaryOp::kLogicalXor);
}

// lerp(self, end, weight) from the nearer end; self and end share a
// floating dtype, a tensor weight too unless it is a wrapped Python number.
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {
  const char* op = "torch.lerp";
  const ScalarType t = self.dtype();
  WICK_CHECK(is_floating(t), RuntimeError, op, ": \"lerp_cuda\" not implemented for '", type_title(t), "'");
  WICK_CHECK(end.dtype() == t, RuntimeError, op, ": expected dtype ", dtype_name(t), " for `end` but got dtype ",
             dtype_name(end.dtype()));
  WICK_CHECK(weight.impl()->is_wrapped_number() || weight.dtype() == t, RuntimeError, op, ": expected dtype ",
             dtype_name(t), " for `weight` but got dtype ", dtype_name(weight.dtype()));
  const Device device = cuda_device_of(op, {&self, &end, &weight});
  const DimVector shape = broadcast_shapes(broadcast_shapes(self.sizes(), end.sizes(), op), weight.sizes(), op);
  const Tensor a = on_device(self, device);
  const Tensor b = on_device(end, device);
  const Tensor w = as_dtype(on_device(weight, device), t);
  Tensor r = make_empty(shape, t, device);
  const ElementwiseArgs args = make_args(shape, {&r, &a, &b, &w}, op);
  if (args.numel == 0) return r;
  DeviceGuard guard(device);
  launch_lerp(to_dtype(t, op), args, current_stream());
  check_launch(op);
  return r;
}

Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  const char* op = "torch.where";
  WICK_CHECK(cond.dtype() == ScalarType::kBool, RuntimeError, op,
             ": where expected condition to be a boolean tensor, but got a tensor with dtype ",
             type_title(cond.dtype()));
  const Device device = cuda_device_of(op, {&cond, &a, &b});
  const DimVector shape = broadcast_shapes(broadcast_shapes(cond.sizes(), a.sizes(), op), b.sizes(), op);
  const ScalarType ct = result_type(a, b);
  const Tensor c = on_device(cond, device);
  const Tensor x = as_dtype(on_device(a, device), ct);
  const Tensor y = as_dtype(on_device(b, device), ct);
  Tensor r = make_empty(shape, ct, device);
  const ElementwiseArgs args = make_args(shape, {&r, &c, &x, &y}, op);
  if (args.numel == 0) return r;
  DeviceGuard guard(device);
  launch_where(to_dtype(ct, op), args, current_stream());
  check_launch(op);
  return r;
}

Tensor fill_(const Tensor& self, const Scalar& value) {
  const char* op = "torch.Tensor.fill_";
  const ElementwiseArgs args = make_args(self.sizes(), {&self}, op);
  if (args.numel != 0) {
    DeviceGuard guard(self.device());
    launch_fill(to_dtype(self.dtype(), op), args, scalar_value(value, self.dtype()), current_stream());
    check_launch(op);
  }
  self.bump_version();
  return self;
}

// --- unary --------------------------------------------------------------------------------

// Runs `uop` from `x` into a fresh tensor of dtype `out_t`.
Tensor unary_into(const char* op, UnaryOp uop, const Tensor& x, ScalarType out_t, const UnaryParams& params = {}) {
  Tensor r = make_empty(x.sizes(), out_t, x.device());
  const ElementwiseArgs args = make_args(x.sizes(), {&r, &x}, op);
  if (args.numel == 0) return r;
  DeviceGuard guard(x.device());
  launch_unary(uop, to_dtype(x.dtype(), op), args, params, current_stream());
  check_launch(op);
  return r;
}

// Float functions of integers and bools compute in the default float dtype.
Tensor float_unary(const char* op, UnaryOp uop, const Tensor& self) {
  const ScalarType t = is_floating(self.dtype()) ? self.dtype() : kDefaultFloat;
  return unary_into(op, uop, as_dtype(self, t), t);
}

Tensor same_unary(const char* op, UnaryOp uop, const Tensor& self) { return unary_into(op, uop, self, self.dtype()); }

Tensor neg(const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError,
             "torch.neg: Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
             "a mask, use the `~` or `logical_not()` operator instead.");
  return same_unary("torch.neg", UnaryOp::kNeg, self);
}
Tensor abs(const Tensor& self) {
  if (self.dtype() == ScalarType::kBool) return copy_as(self, ScalarType::kBool);
  return same_unary("torch.abs", UnaryOp::kAbs, self);
}
Tensor relu(const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError,
             "torch.relu: \"clamp_min_cuda\" not implemented for 'Bool'");
  return same_unary("torch.relu", UnaryOp::kRelu, self);
}
Tensor sign(const Tensor& self) { return same_unary("torch.sign", UnaryOp::kSign, self); }
Tensor square(const Tensor& self) {
  return same_unary("torch.square", UnaryOp::kSquare,
                    self.dtype() == ScalarType::kBool ? as_dtype(self, ScalarType::kInt64) : self);
}
Tensor logical_not(const Tensor& self) {
  return unary_into("torch.logical_not", UnaryOp::kLogicalNot, self, ScalarType::kBool);
}

// One kernel per float function, named as the CPU backend registers them.
template <UnaryOp kOp>
Tensor float_fn(const Tensor& self);
#define WICK_CUDA_FLOAT_UNARY(fn_name, kop)                    \
  template <>                                                  \
  Tensor float_fn<UnaryOp::kop>(const Tensor& self) {          \
    return float_unary("torch." #fn_name, UnaryOp::kop, self); \
  }
WICK_CUDA_FLOAT_UNARY(exp, kExp)
WICK_CUDA_FLOAT_UNARY(exp2, kExp2)
WICK_CUDA_FLOAT_UNARY(expm1, kExpm1)
WICK_CUDA_FLOAT_UNARY(log, kLog)
WICK_CUDA_FLOAT_UNARY(log2, kLog2)
WICK_CUDA_FLOAT_UNARY(log10, kLog10)
WICK_CUDA_FLOAT_UNARY(log1p, kLog1p)
WICK_CUDA_FLOAT_UNARY(sqrt, kSqrt)
WICK_CUDA_FLOAT_UNARY(rsqrt, kRsqrt)
WICK_CUDA_FLOAT_UNARY(reciprocal, kReciprocal)
WICK_CUDA_FLOAT_UNARY(sin, kSin)
WICK_CUDA_FLOAT_UNARY(cos, kCos)
WICK_CUDA_FLOAT_UNARY(tan, kTan)
WICK_CUDA_FLOAT_UNARY(asin, kAsin)
WICK_CUDA_FLOAT_UNARY(acos, kAcos)
WICK_CUDA_FLOAT_UNARY(atan, kAtan)
WICK_CUDA_FLOAT_UNARY(sinh, kSinh)
WICK_CUDA_FLOAT_UNARY(cosh, kCosh)
WICK_CUDA_FLOAT_UNARY(tanh, kTanh)
WICK_CUDA_FLOAT_UNARY(erf, kErf)
WICK_CUDA_FLOAT_UNARY(sigmoid, kSigmoid)
#undef WICK_CUDA_FLOAT_UNARY

// floor, ceil, round (half to even) and trunc: integers are already whole
// (a copy), bools are refused with PyTorch's message.
Tensor rounding(const char* op, const char* kernel, UnaryOp uop, const Tensor& self) {
  WICK_CHECK(self.dtype() != ScalarType::kBool, RuntimeError, op, ": \"", kernel, "\" not implemented for 'Bool'");
  if (!is_floating(self.dtype())) return copy_as(self, self.dtype());
  return float_unary(op, uop, self);
}
Tensor floor(const Tensor& s) { return rounding("torch.floor", "floor_cuda", UnaryOp::kFloor, s); }
Tensor ceil(const Tensor& s) { return rounding("torch.ceil", "ceil_cuda", UnaryOp::kCeil, s); }
Tensor round(const Tensor& s) { return rounding("torch.round", "round_cuda", UnaryOp::kRound, s); }
Tensor trunc(const Tensor& s) { return rounding("torch.trunc", "trunc_cuda", UnaryOp::kTrunc, s); }

// clamp(self, min, max): NaN stays NaN; the dtype is self's promoted with
// the bounds, as wrapped numbers.
Tensor clamp(const Tensor& self, const std::optional<Scalar>& lo, const std::optional<Scalar>& hi) {
  WICK_CHECK(lo.has_value() || hi.has_value(), RuntimeError,
             "torch.clamp: At least one of 'min' or 'max' must not be None");
  ScalarType t = self.dtype();
  for (const auto& b : {lo, hi}) {
    if (!b) continue;
    if (b->is_floating() && !is_floating(t)) t = kDefaultFloat;
    if (b->is_integral() && !b->is_bool() && t == ScalarType::kBool) t = ScalarType::kInt64;
  }
  WICK_CHECK(t != ScalarType::kBool, RuntimeError, "torch.clamp: \"clamp_cuda\" not implemented for 'Bool'");
  UnaryParams params;
  if (lo) params.lo = scalar_value(*lo, t);
  if (hi) params.hi = scalar_value(*hi, t);
  params.has_lo = lo.has_value();
  params.has_hi = hi.has_value();
  return unary_into("torch.clamp", UnaryOp::kClamp, as_dtype(self, t), t, params);
}

}  // namespace

void register_elementwise_ops(Library& torch, Library& tensor) {
  torch.impl("add", &add)
      .impl("add.out", &add_out)
      .impl("sub", &sub)
      .impl("sub.out", &sub_out)
      .impl("mul", &mul)
      .impl("mul.out", &mul_out)
      .impl("div", &div)
      .impl("div.out", &div_out)
      .impl("pow", &pow)
      .impl("maximum", &maximum)
      .impl("minimum", &minimum)
      .impl("eq", &eq)
      .impl("ne", &ne)
      .impl("lt", &lt)
      .impl("le", &le)
      .impl("gt", &gt)
      .impl("ge", &ge)
      .impl("where", &where)
      .impl("fmod", &fmod)
      .impl("remainder", &remainder)
      .impl("atan2", &atan2)
      .impl("logical_and", &logical_and)
      .impl("logical_or", &logical_or)
      .impl("logical_xor", &logical_xor)
      .impl("lerp", &lerp);
  tensor.impl("fill_", &fill_);
  torch.impl("neg", &neg).impl("abs", &abs).impl("relu", &relu).impl("sign", &sign).impl("square", &square);
  torch.impl("exp", &float_fn<UnaryOp::kExp>)
      .impl("exp2", &float_fn<UnaryOp::kExp2>)
      .impl("expm1", &float_fn<UnaryOp::kExpm1>);
  torch.impl("log", &float_fn<UnaryOp::kLog>)
      .impl("log2", &float_fn<UnaryOp::kLog2>)
      .impl("log10", &float_fn<UnaryOp::kLog10>)
      .impl("log1p", &float_fn<UnaryOp::kLog1p>);
  torch.impl("sqrt", &float_fn<UnaryOp::kSqrt>)
      .impl("rsqrt", &float_fn<UnaryOp::kRsqrt>)
      .impl("reciprocal", &float_fn<UnaryOp::kReciprocal>);
  torch.impl("sin", &float_fn<UnaryOp::kSin>)
      .impl("cos", &float_fn<UnaryOp::kCos>)
      .impl("tan", &float_fn<UnaryOp::kTan>);
  torch.impl("asin", &float_fn<UnaryOp::kAsin>)
      .impl("acos", &float_fn<UnaryOp::kAcos>)
      .impl("atan", &float_fn<UnaryOp::kAtan>);
  torch.impl("sinh", &float_fn<UnaryOp::kSinh>)
      .impl("cosh", &float_fn<UnaryOp::kCosh>)
      .impl("tanh", &float_fn<UnaryOp::kTanh>);
  torch.impl("erf", &float_fn<UnaryOp::kErf>).impl("sigmoid", &float_fn<UnaryOp::kSigmoid>);
  torch.impl("floor", &floor).impl("ceil", &ceil).impl("round", &round).impl("trunc", &trunc);
  torch.impl("clamp", &clamp).impl("logical_not", &logical_not);
}

}  // namespace wick::cuda_backend
