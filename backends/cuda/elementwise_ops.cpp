// backends/cuda/elementwise_ops.cpp - host side of the elementwise CUDA kernels: binary, unary, where, lerp, fill_.
/// \file
/// The computation of the elementwise operators whose meta functions
/// (dispatch/ops/meta_elementwise.cpp) checked the arguments and gave the
/// output and the compute dtype, as for the CPU backend: move the operands
/// to the device (a 0-dim CPU tensor, a wrapped Python number, joins it),
/// convert them to the compute dtype, and launch one device loop
/// (elementwise_kernels.h) into `out` on the current stream. The out=
/// variants and the Meta backend are derived (Note [Structured kernels]).
/// Every real dtype has device loops (float16 and bfloat16 compute in
/// float32: Note [16-bit floats on the device]); a complex one is refused
/// before anything is converted or launched, with PyTorch's message and
/// CUDA kernel name (`"add_cuda" not implemented for 'ComplexFloat'`).
#include <optional>
#include <string_view>
#include <type_traits>

#include <wick/meta.h>
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
  // PyTorch's CUDA copy kernel is "copy_"; a same-dtype contiguous copy of
  // any dtype (complex too) is a plain memcpy below.
  DeviceGuard guard(dst.device());
  const cudaStream_t stream = current_stream();
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous() && dst.sizes().equals(src.sizes())) {
    check_cuda(cudaMemcpyAsync(dst.data_ptr(), src.data_ptr(), static_cast<std::size_t>(numel) * itemsize(dst.dtype()),
                               cudaMemcpyDeviceToDevice, stream),
               op);
    return;
  }
  const DType dst_t = to_dtype(dst.dtype(), "copy_");
  const DType src_t = to_dtype(src.dtype(), "copy_");
  const ElementwiseArgs args = make_args(dst.sizes(), {&dst, &src}, op);
  launch_cast(dst_t, src_t, args, stream);
  check_launch(op);
}

namespace {

// An int in device memory that kernels OR error bits into (Note [Device
// error flags] in binary_kernels.cuh), read back after them.
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
  }

 private:
  Tensor buffer_;
  cudaStream_t stream_;
  const char* op_;
};

// --- binary -------------------------------------------------------------------------------

using M = ElementwiseMeta;

// Launches `bop` of the two operands (moved to the device and converted to
// the compute dtype) into `r`; integer division, modulo and pow read the
// error flag back and throw like the CPU kernels. `kernel`: PyTorch's CUDA
// kernel name, for a dtype without device loops.
void launch_binary_into(const char* op, const char* kernel, BinaryOp bop, const M& m, const Tensor& r,
                        const Tensor& a_in, const Tensor& b_in, const ScalarValue& alpha = {}) {
  const DType dtype = to_dtype(m.compute, kernel);
  const Device device = r.device();
  const Tensor a = as_dtype(on_device(a_in, device, m.compute), m.compute);
  const Tensor b = as_dtype(on_device(b_in, device, m.compute), m.compute);
  const ElementwiseArgs args = make_args(r.sizes(), {&r, &a, &b}, op);
  if (args.numel == 0) return;
  DeviceGuard guard(device);
  const cudaStream_t stream = current_stream();
  const bool can_fail = !is_floating(m.compute) && (bop == BinaryOp::kDivTrunc || bop == BinaryOp::kDivFloor ||
                                                    bop == BinaryOp::kFmod || bop == BinaryOp::kRemainder);
  if (!can_fail) {
    launch_binary(bop, dtype, args, alpha, nullptr, stream);
    check_launch(op);
    return;
  }
  const ErrorFlag flag(device, stream, op);
  launch_binary(bop, dtype, args, alpha, flag.get(), stream);
  check_launch(op);
  flag.raise_if_set();
}

}  // namespace

void add(const M& m, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  launch_binary_into("torch.add", "add_cuda", BinaryOp::kAdd, m, out, a, b, scalar_value(alpha, m.compute, false));
}
void sub(const M& m, const Tensor& out, const Tensor& a, const Tensor& b, const Scalar& alpha) {
  launch_binary_into("torch.sub", "sub_cuda", BinaryOp::kAdd, m, out, a, b, scalar_value(alpha, m.compute, true));
}
void div(const M& m, const Tensor& out, const Tensor& a, const Tensor& b, std::optional<std::string_view> mode) {
  const BinaryOp bop = !mode ? BinaryOp::kDiv : *mode == "trunc" ? BinaryOp::kDivTrunc : BinaryOp::kDivFloor;
  const char* kernel = !mode ? "div_true_cuda" : *mode == "trunc" ? "div_trunc_cuda" : "div_floor_cuda";
  launch_binary_into("torch.div", kernel, bop, m, out, a, b);
}

#define WICK_CUDA_BINARY(NAME, BOP)                                                 \
  void NAME(const M& m, const Tensor& out, const Tensor& a, const Tensor& b) {      \
    launch_binary_into("torch." #NAME, #NAME "_cuda", BinaryOp::BOP, m, out, a, b); \
  }
WICK_CUDA_BINARY(mul, kMul)
WICK_CUDA_BINARY(pow, kPow)
WICK_CUDA_BINARY(maximum, kMaximum)
WICK_CUDA_BINARY(minimum, kMinimum)
WICK_CUDA_BINARY(eq, kEq)
WICK_CUDA_BINARY(ne, kNe)
WICK_CUDA_BINARY(lt, kLt)
WICK_CUDA_BINARY(le, kLe)
WICK_CUDA_BINARY(gt, kGt)
WICK_CUDA_BINARY(ge, kGe)
WICK_CUDA_BINARY(fmod, kFmod)
WICK_CUDA_BINARY(remainder, kRemainder)
WICK_CUDA_BINARY(atan2, kAtan2)
WICK_CUDA_BINARY(bitwise_and, kBitwiseAnd)
WICK_CUDA_BINARY(bitwise_or, kBitwiseOr)
WICK_CUDA_BINARY(bitwise_xor, kBitwiseXor)
WICK_CUDA_BINARY(logical_and, kLogicalAnd)
WICK_CUDA_BINARY(logical_or, kLogicalOr)
WICK_CUDA_BINARY(logical_xor, kLogicalXor)
#undef WICK_CUDA_BINARY

// The integer operators and nextafter: PyTorch's CUDA kernels refuse the
// other dtypes by name ("lshift_cuda" not implemented for 'Float').
#define WICK_CUDA_BINARY_IN(NAME, BOP, KERNEL, ALLOWED)                                                       \
  void NAME(const M& m, const Tensor& out, const Tensor& a, const Tensor& b) {                               \
    WICK_CHECK(ALLOWED, RuntimeError, "\"" KERNEL "\" not implemented for '", type_title(m.compute), "'"); \
    launch_binary_into("torch." #NAME, KERNEL, BinaryOp::BOP, m, out, a, b);                                 \
  }
WICK_CUDA_BINARY_IN(bitwise_left_shift, kLeftShift, "lshift_cuda", is_integral(m.compute, false))
WICK_CUDA_BINARY_IN(bitwise_right_shift, kRightShift, "rshift_cuda", is_integral(m.compute, false))
WICK_CUDA_BINARY_IN(gcd, kGcd, "gcd_cuda", is_integral(m.compute, false))
WICK_CUDA_BINARY_IN(lcm, kLcm, "lcm_cuda", is_integral(m.compute, false))
WICK_CUDA_BINARY_IN(nextafter, kNextafter, "nextafter_cuda",
                    m.compute == ScalarType::kFloat32 || m.compute == ScalarType::kFloat64)
#undef WICK_CUDA_BINARY_IN

// lerp(self, end, weight) from the nearer end.
void lerp(const M& m, const Tensor& r, const Tensor& self, const Tensor& end, const Tensor& weight) {
  const char* op = "torch.lerp";
  const DType dtype = to_dtype(m.compute, "lerp_cuda");
  const Device device = r.device();
  const Tensor a = on_device(self, device);
  const Tensor b = on_device(end, device);
  const Tensor w = as_dtype(on_device(weight, device), m.compute);
  const ElementwiseArgs args = make_args(r.sizes(), {&r, &a, &b, &w}, op);
  if (args.numel == 0) return;
  DeviceGuard guard(device);
  launch_lerp(dtype, args, current_stream());
  check_launch(op);
}

void where(const M& m, const Tensor& r, const Tensor& cond, const Tensor& a, const Tensor& b) {
  const char* op = "torch.where";
  const DType dtype = to_dtype(m.compute, "where_cuda");
  const Device device = r.device();
  const Tensor c = on_device(cond, device);
  const Tensor x = as_dtype(on_device(a, device), m.compute);
  const Tensor y = as_dtype(on_device(b, device), m.compute);
  const ElementwiseArgs args = make_args(r.sizes(), {&r, &c, &x, &y}, op);
  if (args.numel == 0) return;
  DeviceGuard guard(device);
  launch_where(dtype, args, current_stream());
  check_launch(op);
}

// relu's backward in one pass (the meta refused bool).
void threshold_backward(const M& m, const Tensor& r, const Tensor& grad, const Tensor& self, const Scalar& threshold) {
  launch_binary_into("aten.threshold_backward", "threshold_cuda", BinaryOp::kThresholdBackward, m, r, grad, self,
                     scalar_value(threshold, m.compute));
}

void fill_(const InplaceMeta&, const Tensor& self, const Scalar& value) {
  const char* op = "torch.Tensor.fill_";
  const DType dtype = to_dtype(self.dtype(), "fill_cuda");
  const ElementwiseArgs args = make_args(self.sizes(), {&self}, op);
  if (args.numel == 0) return;
  DeviceGuard guard(self.device());
  launch_fill(dtype, args, scalar_value(value, self.dtype()), current_stream());
  check_launch(op);
}

namespace {

// --- unary --------------------------------------------------------------------------------

// Runs `uop` from `self` (converted to the compute dtype) into `r`.
void unary_into(const char* op, const char* kernel, UnaryOp uop, const M& m, const Tensor& r, const Tensor& self,
                const UnaryParams& params = {}) {
  const DType dtype = to_dtype(m.compute, kernel);
  const Tensor x = as_dtype(on_device(self, r.device()), m.compute);
  const ElementwiseArgs args = make_args(r.sizes(), {&r, &x}, op);
  if (args.numel == 0) return;
  DeviceGuard guard(r.device());
  launch_unary(uop, dtype, args, params, current_stream());
  check_launch(op);
}

}  // namespace

#define WICK_CUDA_UNARY(NAME, UOP)                                         \
  void NAME(const M& m, const Tensor& out, const Tensor& self) {           \
    unary_into("torch." #NAME, #NAME "_cuda", UnaryOp::UOP, m, out, self); \
  }
WICK_CUDA_UNARY(neg, kNeg)
WICK_CUDA_UNARY(relu, kRelu)
WICK_CUDA_UNARY(sign, kSign)
WICK_CUDA_UNARY(square, kSquare)
WICK_CUDA_UNARY(logical_not, kLogicalNot)
WICK_CUDA_UNARY(bitwise_not, kBitwiseNot)
WICK_CUDA_UNARY(exp, kExp)
WICK_CUDA_UNARY(exp2, kExp2)
WICK_CUDA_UNARY(expm1, kExpm1)
WICK_CUDA_UNARY(log, kLog)
WICK_CUDA_UNARY(log2, kLog2)
WICK_CUDA_UNARY(log10, kLog10)
WICK_CUDA_UNARY(log1p, kLog1p)
WICK_CUDA_UNARY(sqrt, kSqrt)
WICK_CUDA_UNARY(rsqrt, kRsqrt)
WICK_CUDA_UNARY(reciprocal, kReciprocal)
WICK_CUDA_UNARY(sin, kSin)
WICK_CUDA_UNARY(cos, kCos)
WICK_CUDA_UNARY(tan, kTan)
WICK_CUDA_UNARY(asin, kAsin)
WICK_CUDA_UNARY(acos, kAcos)
WICK_CUDA_UNARY(atan, kAtan)
WICK_CUDA_UNARY(sinh, kSinh)
WICK_CUDA_UNARY(cosh, kCosh)
WICK_CUDA_UNARY(tanh, kTanh)
WICK_CUDA_UNARY(erf, kErf)
WICK_CUDA_UNARY(erfc, kErfc)
WICK_CUDA_UNARY(acosh, kAcosh)
WICK_CUDA_UNARY(asinh, kAsinh)
WICK_CUDA_UNARY(atanh, kAtanh)
WICK_CUDA_UNARY(sigmoid, kSigmoid)
WICK_CUDA_UNARY(frac, kFrac)
#undef WICK_CUDA_UNARY

// abs of a bool, and rounding an integer: a copy.
void abs(const M& m, const Tensor& out, const Tensor& self) {
  if (m.compute == ScalarType::kBool) return copy_within_device(out, on_device(self, out.device()));
  unary_into("torch.abs", "abs_cuda", UnaryOp::kAbs, m, out, self);
}

namespace {

void rounding(const char* op, const char* kernel, UnaryOp uop, const M& m, const Tensor& out, const Tensor& self) {
  if (!is_floating(m.compute) && !is_complex(m.compute)) {
    return copy_within_device(out, on_device(self, out.device()));
  }
  unary_into(op, kernel, uop, m, out, self);
}

}  // namespace

void floor(const M& m, const Tensor& out, const Tensor& s) {
  rounding("torch.floor", "floor_cuda", UnaryOp::kFloor, m, out, s);
}
void ceil(const M& m, const Tensor& out, const Tensor& s) {
  rounding("torch.ceil", "ceil_cuda", UnaryOp::kCeil, m, out, s);
}
void round(const M& m, const Tensor& out, const Tensor& s) {
  rounding("torch.round", "round_cuda", UnaryOp::kRound, m, out, s);
}
void trunc(const M& m, const Tensor& out, const Tensor& s) {
  rounding("torch.trunc", "trunc_cuda", UnaryOp::kTrunc, m, out, s);
}

// clamp(self, min, max): NaN stays NaN.
void clamp(const M& m, const Tensor& out, const Tensor& self, const std::optional<Scalar>& lo,
           const std::optional<Scalar>& hi) {
  UnaryParams params;
  if (lo) params.lo = scalar_value(*lo, m.compute);
  if (hi) params.hi = scalar_value(*hi, m.compute);
  params.has_lo = lo.has_value();
  params.has_hi = hi.has_value();
  unary_into("torch.clamp", "clamp_cuda", UnaryOp::kClamp, m, out, self, params);
}

}  // namespace wick::cuda_backend
