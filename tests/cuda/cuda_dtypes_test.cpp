// tests/cuda/cuda_dtypes_test.cpp - float16, bfloat16 and the narrow integers on CUDA against the CPU backend.
/// \file
/// Issue 19, item 4: the CUDA kernels of the new dtypes give the CPU's
/// values. 16-bit floats compute in float32 on both devices and round once,
/// so elementwise results agree to one unit in the last place of the 16-bit
/// type (GPU and CPU math functions differ in float32's last bits, which can
/// move a rounding); sums accumulate in float32 on the GPU (double on the
/// CPU), matrix products and convolutions in float32 in another order, so
/// they are compared to a tolerance that grows with the length of the sums.
/// Conversions (NaN, infinities, out-of-range values, ties) and the narrow
/// integers agree exactly. Dtypes without CUDA kernels are refused with
/// PyTorch's message. Every test skips, saying why, without a CUDA device.
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "wick/backends.h"
#include "wick/cuda.h"
#include "wick/loader.h"
#include "wick/nn_functional.h"
#include "wick/ops.h"
#include "wick/random.h"
#include "wick/tensor_util.h"

namespace wick::testing {
namespace {

const Device kCuda(DeviceType::kCUDA, 0);
constexpr ScalarType kHalf = ScalarType::kFloat16;
constexpr ScalarType kBf16 = ScalarType::kBFloat16;

class CudaDtypes : public ::testing::Test {
 protected:
  void SetUp() override {
    init();
    if (!cuda::is_available()) {
      GTEST_SKIP() << (device_runtime(DeviceType::kCUDA) == nullptr
                           ? "no CUDA device: the CUDA backend is not built, or found no GPU or driver"
                           : "no CUDA device");
    }
  }
};

// The spacing of the 16-bit type's values at 1 (2**-10 for float16, 2**-7 for bfloat16).
double eps_of(ScalarType t) { return t == kHalf ? 0x1p-10 : t == kBf16 ? 0x1p-7 : 0x1p-23; }

std::vector<double> host_values(const Tensor& t) {
  const Tensor h = t.cpu().to(ScalarType::kFloat64).contiguous();
  const double* p = h.data_ptr<double>();
  return {p, p + h.numel()};
}

// Empty when `gpu` has cpu's shape and dtype and |gpu - cpu| <= rtol * |cpu| + atol
// everywhere (NaN matching NaN); else the first difference.
std::string compare(const Tensor& cpu, const Tensor& gpu, double rtol = 0, double atol = 0) {
  std::ostringstream why;
  if (gpu.device().type() != DeviceType::kCUDA) return "result on " + gpu.device().str();
  if (!cpu.sizes().equals(gpu.sizes())) {
    why << "shape " << format_shape(gpu.sizes()) << " vs " << format_shape(cpu.sizes());
    return why.str();
  }
  if (cpu.dtype() != gpu.dtype()) {
    why << "dtype " << dtype_name(gpu.dtype()) << " vs " << dtype_name(cpu.dtype());
    return why.str();
  }
  const std::vector<double> a = host_values(cpu);
  const std::vector<double> b = host_values(gpu);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) && std::isnan(b[i])) continue;
    if (a[i] == b[i]) continue;
    if (std::abs(a[i] - b[i]) <= rtol * std::abs(a[i]) + atol) continue;
    why << "element " << i << ": cuda " << b[i] << ", cpu " << a[i];
    return why.str();
  }
  return {};
}

// The message of what `fn` throws ("" when it returns).
template <typename Fn>
std::string error_of(Fn&& fn) {
  try {
    (void)fn();
  } catch (const Error& e) {
    return e.message();
  }
  return "";
}

// --- elementwise -------------------------------------------------------------------------------

// Shapes that take each loop path (Note [Elementwise loop paths]): the flat
// vector path with its tail, a broadcast value, the rows path, and a
// transposed operand (the strided path).
struct Shapes {
  std::vector<std::int64_t> a, b;
  bool transpose_a = false;
};
const std::vector<Shapes> kShapes = {
    {{4099}, {4099}}, {{1000}, {1}}, {{6, 16}, {16}}, {{6, 16}, {6, 1}}, {{16, 6}, {6, 16}, true}, {{3, 5, 7}, {5, 1}},
};

Tensor operand(const std::vector<std::int64_t>& shape, ScalarType t, double scale, bool transpose = false) {
  Tensor x = mul(randn(IntArrayRef(shape)), wrap_scalar(scale)).to(t);
  return transpose ? x.t() : x;
}

TEST_F(CudaDtypes, HalfAndBFloat16ElementwiseMatchTheCpu) {
  manual_seed(0);
  for (const ScalarType t : {kHalf, kBf16}) {
    const double ulp = eps_of(t);
    for (const Shapes& s : kShapes) {
      const Tensor a = operand(s.a, t, 4.0, s.transpose_a);
      const Tensor b = operand(s.b, t, 4.0);
      const Tensor ad = a.cuda();
      const Tensor bd = b.cuda();
      const std::string what =
          std::string(dtype_name(t)) + " " + format_shape(a.sizes()) + " and " + format_shape(b.sizes());
      // One rounding of the same float32 value: exact.
      EXPECT_EQ(compare(add(a, b), add(ad, bd)), "") << "add " << what;
      // x - 0.3 y: the GPU fuses the multiply-add in float32, the CPU may
      // not; the two float32 results can round to neighbouring 16-bit values.
      EXPECT_EQ(compare(sub(a, b, 0.3), sub(ad, bd, 0.3), ulp), "") << "sub alpha " << what;
      EXPECT_EQ(compare(mul(a, b), mul(ad, bd)), "") << "mul " << what;
      EXPECT_EQ(compare(div(a, b), div(ad, bd)), "") << "div " << what;
      EXPECT_EQ(compare(maximum(a, b), maximum(ad, bd)), "") << "maximum " << what;
      EXPECT_EQ(compare(lt(a, b), lt(ad, bd)), "") << "lt " << what;
      EXPECT_EQ(compare(eq(a, a), eq(ad, ad)), "") << "eq " << what;
      EXPECT_EQ(compare(neg(a), neg(ad)), "") << "neg " << what;
      EXPECT_EQ(compare(abs(a), abs(ad)), "") << "abs " << what;
      EXPECT_EQ(compare(clamp(a, -1.5, 2.25), clamp(ad, -1.5, 2.25)), "") << "clamp " << what;
      EXPECT_EQ(compare(mul(a, wrap_scalar(0.1)), mul(ad, wrap_scalar(0.1))), "") << "a * 0.1 " << what;
      EXPECT_EQ(compare(where(gt(a, b), a, b), where(gt(ad, bd), ad, bd)), "") << "where " << what;
      // Math functions: float32 results a last bit apart can round apart.
      EXPECT_EQ(compare(exp(a), exp(ad), ulp), "") << "exp " << what;
      EXPECT_EQ(compare(sigmoid(a), sigmoid(ad), ulp), "") << "sigmoid " << what;
      EXPECT_EQ(compare(sqrt(abs(a)), sqrt(abs(ad)), ulp), "") << "sqrt " << what;
      EXPECT_EQ(compare(tanh(a), tanh(ad), ulp, ulp * 1e-3), "") << "tanh " << what;
      const Tensor w = full(IntArrayRef(s.b), 0.3, t);
      EXPECT_EQ(compare(lerp(a, b, w), lerp(ad, bd, w.cuda()), ulp), "") << "lerp " << what;
    }
    // softmax and log_softmax: float32 inside, one rounding (last dim, a
    // long row, and an inner dim).
    for (const std::vector<std::int64_t>& shape :
         std::vector<std::vector<std::int64_t>>{{8, 100}, {3, 5000}, {4, 7, 6}}) {
      const Tensor x = operand(shape, t, 3.0);
      for (const std::int64_t dim : {std::int64_t{-1}, std::int64_t{1}}) {
        const std::string what =
            std::string(dtype_name(t)) + " " + format_shape(x.sizes()) + " dim " + std::to_string(dim);
        EXPECT_EQ(compare(softmax(x, dim), softmax(x.cuda(), dim), ulp, ulp * 1e-3), "") << "softmax " << what;
        EXPECT_EQ(compare(log_softmax(x, dim), log_softmax(x.cuda(), dim), ulp, ulp), "") << "log_softmax " << what;
      }
    }
    // The nn activations and layer_norm: float32 inside, one rounding.
    const Tensor x = operand({37, 64}, t, 3.0);
    const Tensor xd = x.cuda();
    namespace F = nn::functional;
    const std::string name(dtype_name(t));
    EXPECT_EQ(compare(F::leaky_relu(x, 0.2), F::leaky_relu(xd, 0.2), ulp), "") << "leaky_relu " << name;
    EXPECT_EQ(compare(F::elu(x), F::elu(xd), ulp, ulp * 1e-3), "") << "elu " << name;
    EXPECT_EQ(compare(F::gelu(x), F::gelu(xd), ulp, ulp * 1e-3), "") << "gelu " << name;
    EXPECT_EQ(compare(F::gelu(x, "tanh"), F::gelu(xd, "tanh"), ulp, ulp * 1e-3), "") << "gelu tanh " << name;
    EXPECT_EQ(compare(F::silu(x), F::silu(xd), ulp, ulp * 1e-3), "") << "silu " << name;
    const Tensor lw = operand({64}, t, 1.0);
    const Tensor lb = operand({64}, t, 1.0);
    EXPECT_EQ(compare(F::layer_norm(x, {64}, lw, lb), F::layer_norm(xd, {64}, lw.cuda(), lb.cuda()), 2 * ulp, ulp), "")
        << "layer_norm " << name;
    // Pooling: sums and divisions in float32, one rounding; maxima exact.
    const Tensor img = operand({2, 3, 9, 11}, t, 2.0);
    const Tensor imgd = img.cuda();
    EXPECT_EQ(compare(F::max_pool2d(img, IntArrayRef{3, 3}, IntArrayRef{2, 2}, IntArrayRef{1, 1}),
                      F::max_pool2d(imgd, IntArrayRef{3, 3}, IntArrayRef{2, 2}, IntArrayRef{1, 1})),
              "")
        << "max_pool2d " << name;
    EXPECT_EQ(compare(F::avg_pool2d(img, IntArrayRef{3, 3}, IntArrayRef{2, 2}, IntArrayRef{1, 1}),
                      F::avg_pool2d(imgd, IntArrayRef{3, 3}, IntArrayRef{2, 2}, IntArrayRef{1, 1}), ulp, ulp * 1e-3),
              "")
        << "avg_pool2d " << name;
    EXPECT_EQ(compare(F::adaptive_avg_pool2d(img, IntArrayRef{4, 5}), F::adaptive_avg_pool2d(imgd, IntArrayRef{4, 5}),
                      ulp, ulp * 1e-3),
              "")
        << "adaptive_avg_pool2d " << name;
    // nll_loss: terms in float32, sums in double, one rounding.
    const Tensor logp = log_softmax(operand({6, 5}, t, 2.0), 1);
    const Tensor target = tensor(Value(std::vector<std::int64_t>{0, 4, 2, -100, 1, 3}), ScalarType::kInt64);
    for (const char* reduction : {"none", "mean", "sum"}) {
      EXPECT_EQ(compare(F::nll_loss(logp, target, std::nullopt, -100, reduction),
                        F::nll_loss(logp.cuda(), target.cuda(), std::nullopt, -100, reduction), ulp, ulp * 1e-3),
                "")
          << "nll_loss " << reduction << " " << name;
    }
    // scatter_add: 16-bit atomics, each addition rounded (distinct targets: exact).
    const Tensor idx = tensor(Value(std::vector<std::int64_t>{2, 0, 1, 3}), ScalarType::kInt64).reshape({4, 1});
    const Tensor src = operand({4, 1}, t, 2.0);
    const Tensor base = operand({5, 1}, t, 2.0);
    EXPECT_EQ(compare(scatter_add(base, 0, idx, src), scatter_add(base.cuda(), 0, idx.cuda(), src.cuda())), "")
        << "scatter_add " << name;
    // Values past float16's range round to infinity, NaN stays NaN.
    const Tensor big = tensor(Value(std::vector<double>{60000.0, 1e5, std::nan(""), -7e4}), ScalarType::kFloat32);
    EXPECT_EQ(compare(mul(big.to(t), wrap_scalar(2.0)), mul(big.to(t).cuda(), wrap_scalar(2.0))), "");
    // fill_ rounds once.
    EXPECT_EQ(compare(full({17}, 0.1, t), full({17}, 0.1, t, kCuda)), "") << dtype_name(t);
  }
}

TEST_F(CudaDtypes, NarrowIntegersMatchTheCpuExactly) {
  manual_seed(0);
  for (const ScalarType t : {ScalarType::kUInt8, ScalarType::kInt8, ScalarType::kInt16}) {
    for (const Shapes& s : kShapes) {
      const Tensor a = operand(s.a, ScalarType::kInt32, 60.0, s.transpose_a).to(t);
      const Tensor b = operand(s.b, ScalarType::kInt32, 60.0).to(t);
      const Tensor nz =
          add(bitwise_and(b, wrap_scalar(Scalar(std::int64_t{7}))), wrap_scalar(Scalar(std::int64_t{1})));  // 1..8
      const Tensor ad = a.cuda();
      const Tensor bd = b.cuda();
      const Tensor nzd = nz.cuda();
      const std::string what = std::string(dtype_name(t)) + " " + format_shape(a.sizes());
      EXPECT_EQ(compare(add(a, b), add(ad, bd)), "") << "add (wraps) " << what;
      EXPECT_EQ(compare(mul(a, b), mul(ad, bd)), "") << "mul (wraps) " << what;
      EXPECT_EQ(compare(sub(a, b), sub(ad, bd)), "") << "sub " << what;
      EXPECT_EQ(compare(bitwise_xor(a, b), bitwise_xor(ad, bd)), "") << "xor " << what;
      EXPECT_EQ(compare(maximum(a, b), maximum(ad, bd)), "") << "maximum " << what;
      EXPECT_EQ(compare(ge(a, b), ge(ad, bd)), "") << "ge " << what;
      EXPECT_EQ(compare(remainder(a, nz), remainder(ad, nzd)), "") << "remainder " << what;
      EXPECT_EQ(compare(div(a, nz, "floor"), div(ad, nzd, "floor")), "") << "floor_divide " << what;
      EXPECT_EQ(compare(div(a, nz), div(ad, nzd)), "") << "true division (float) " << what;
      EXPECT_EQ(compare(sum(a), sum(ad)), "") << "sum (int64) " << what;
      EXPECT_EQ(compare(amax(a, {0}), amax(ad, {0})), "") << "amax " << what;
    }
  }
}

// --- reductions --------------------------------------------------------------------------------

TEST_F(CudaDtypes, HalfAndBFloat16ReductionsAccumulateInFloat32) {
  manual_seed(0);
  for (const ScalarType t : {kHalf, kBf16}) {
    const double ulp = eps_of(t);
    // 4096 ones: a 16-bit accumulator would stop at 256 (bfloat16) or 2048 (float16).
    EXPECT_EQ(compare(sum(ones({4096}, t)), sum(ones({4096}, t, kCuda))), "") << dtype_name(t);
    // Many more ones than a 16-bit accumulator reaches, and a total the result type holds
    // (float16's largest finite value is 65504: 2^20 ones sum to inf there, in PyTorch too).
    const std::int64_t many = t == kHalf ? std::int64_t{1} << 15 : std::int64_t{1} << 20;
    EXPECT_EQ(sum(ones({many}, t, kCuda)).to(ScalarType::kFloat64).item<double>(), static_cast<double>(many))
        << dtype_name(t);
    EXPECT_TRUE(std::isinf(sum(ones({std::int64_t{1} << 17}, kHalf, kCuda)).to(ScalarType::kFloat64).item<double>()));
    for (const std::vector<std::int64_t>& shape :
         std::vector<std::vector<std::int64_t>>{{100000}, {64, 300}, {7, 5000}, {300, 9}}) {
      const Tensor x = operand(shape, t, 2.0);
      const Tensor xd = x.cuda();
      const double n = static_cast<double>(shape.back());
      const std::vector<std::int64_t> last = {-1};
      const std::string what = std::string(dtype_name(t)) + " " + format_shape(x.sizes());
      // Sums: float32 on the device, double on the CPU; one rounding each.
      EXPECT_EQ(compare(sum(x, last), sum(xd, last), ulp, ulp * std::sqrt(n)), "") << "sum " << what;
      EXPECT_EQ(compare(mean(x, last), mean(xd, last), ulp, ulp), "") << "mean " << what;
      EXPECT_EQ(compare(var(x, last), var(xd, last), 2 * ulp, ulp), "") << "var " << what;
      EXPECT_EQ(compare(norm(x, 2.0, last), norm(xd, 2.0, last), 2 * ulp), "") << "norm " << what;
      EXPECT_EQ(compare(logsumexp(x, last), logsumexp(xd, last), 2 * ulp, ulp), "") << "logsumexp " << what;
      EXPECT_EQ(compare(cumsum(x, -1), cumsum(xd, -1), 2 * ulp, ulp * std::sqrt(n)), "") << "cumsum " << what;
      // Selections are exact, indices too.
      EXPECT_EQ(compare(amax(x, last), amax(xd, last)), "") << "amax " << what;
      EXPECT_EQ(compare(argmin(x, -1), argmin(xd, -1)), "") << "argmin " << what;
      EXPECT_EQ(compare(all(x), all(xd)), "") << "all " << what;
    }
    // NaN wins max and argmax, as on the CPU.
    Tensor with_nan = operand({1000}, t, 1.0);
    with_nan.narrow(0, 123, 1).fill_(std::nan(""));
    EXPECT_EQ(compare(max(with_nan), max(with_nan.cuda())), "") << dtype_name(t);
    EXPECT_EQ(compare(argmax(with_nan), argmax(with_nan.cuda())), "") << dtype_name(t);
  }
}

// --- conversions -------------------------------------------------------------------------------

const std::vector<ScalarType> kReal = {
    ScalarType::kBool,  ScalarType::kUInt8,   ScalarType::kInt8,     ScalarType::kInt16,   ScalarType::kInt32,
    ScalarType::kInt64, ScalarType::kFloat16, ScalarType::kBFloat16, ScalarType::kFloat32, ScalarType::kFloat64};

// Note [Conversions on the device]: every pair of real dtypes, with NaN,
// infinities, -0.0, ties of 16-bit rounding, float16's overflow threshold
// and values outside every integer range, contiguous and transposed.
TEST_F(CudaDtypes, ConversionsBetweenEveryPairGiveTheCpusValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> values = {std::nan(""),
                                      inf,
                                      -inf,
                                      0.0,
                                      -0.0,
                                      0.5,
                                      1.5,
                                      2.5,
                                      -2.5,
                                      255.0,
                                      256.0,
                                      300.7,
                                      -300.7,
                                      65504.0,
                                      65519.0,
                                      65520.0,
                                      1e10,
                                      -1e10,
                                      3e9,
                                      -3e9,
                                      1e-8,
                                      1.0 + 0x1p-11,
                                      1.0 + 3 * 0x1p-11,
                                      1.0 + 0x1p-8,
                                      1.0 + 3 * 0x1p-8,
                                      9.3e18,
                                      -9.3e18,
                                      3.4e38,
                                      1e300,
                                      127.9,
                                      -128.9,
                                      32767.5,
                                      -32768.7,
                                      2147483647.0,
                                      -2147483648.0};
  const Tensor base = tensor(Value(values), ScalarType::kFloat64);
  for (const ScalarType from : kReal) {
    const Tensor src = base.to(from);  // the CPU's conversion of the specials first
    const Tensor srcd = src.cuda();
    for (const ScalarType to : kReal) {
      const std::string what = std::string(dtype_name(from)) + " -> " + std::string(dtype_name(to));
      EXPECT_EQ(compare(src.to(to), srcd.to(to)), "") << what;
    }
  }
  // The strided path, and a float32 source straight from the specials.
  const Tensor m = base.to(ScalarType::kFloat32).reshape({5, 7});
  for (const ScalarType to : kReal) {
    EXPECT_EQ(compare(m.t().contiguous().to(to), m.cuda().t().to(to)), "")
        << "float32 (transposed) -> " << dtype_name(to);
  }
  // Host <-> device copies of 16-bit floats keep their bits.
  for (const ScalarType t : {kHalf, kBf16}) {
    const Tensor h = base.to(t);
    EXPECT_EQ(compare(h, h.cuda().cpu().cuda()), "") << dtype_name(t);
  }
}

// --- matrix products ---------------------------------------------------------------------------

// |gpu - cpu| within two 16-bit units of the result plus the rounding of a
// k-term float32 sum of products in another order.
std::string compare_product(const Tensor& cpu, const Tensor& gpu, ScalarType t, std::int64_t k) {
  return compare(cpu, gpu, 2 * eps_of(t), eps_of(t) * std::sqrt(static_cast<double>(k)));
}

TEST_F(CudaDtypes, HalfAndBFloat16MatrixProductsMatchTheCpu) {
  manual_seed(0);
  for (const ScalarType t : {kHalf, kBf16}) {
    const std::string name(dtype_name(t));
    const Tensor a = operand({64, 96}, t, 1.0);
    const Tensor b = operand({96, 80}, t, 1.0);
    EXPECT_EQ(compare_product(mm(a, b), mm(a.cuda(), b.cuda()), t, 96), "") << "mm " << name;
    // A transposed operand goes to cuBLAS as is (CUBLAS_OP_T).
    const Tensor bt = operand({80, 96}, t, 1.0);
    EXPECT_EQ(compare_product(mm(a, bt.t()), mm(a.cuda(), bt.cuda().t()), t, 96), "") << "mm (b.t()) " << name;
    const Tensor c = operand({64, 80}, t, 1.0);
    EXPECT_EQ(compare_product(addmm(c, a, b, 0.5, 2.0), addmm(c.cuda(), a.cuda(), b.cuda(), 0.5, 2.0), t, 96), "")
        << "addmm " << name;
    const Tensor bias = operand({80}, t, 1.0);
    EXPECT_EQ(compare_product(addmm(bias, a, b), addmm(bias.cuda(), a.cuda(), b.cuda()), t, 96), "")
        << "addmm (bias row) " << name;
    const Tensor x = operand({3, 33, 17}, t, 1.0);
    const Tensor y = operand({3, 17, 40}, t, 1.0);
    EXPECT_EQ(compare_product(bmm(x, y), bmm(x.cuda(), y.cuda()), t, 17), "") << "bmm " << name;
    const Tensor w = operand({24, 17}, t, 1.0);
    EXPECT_EQ(compare_product(nn::functional::linear(x, w, bias.narrow(0, 0, 24)),
                              nn::functional::linear(x.cuda(), w.cuda(), bias.narrow(0, 0, 24).cuda()), t, 17),
              "")
        << "linear " << name;
    EXPECT_EQ(compare_product(matmul(x, y), matmul(x.cuda(), y.cuda()), t, 17), "") << "matmul " << name;
    const Tensor v = operand({96}, t, 1.0);
    EXPECT_EQ(compare_product(matmul(a, v), matmul(a.cuda(), v.cuda()), t, 96), "") << "mv " << name;
    EXPECT_EQ(compare_product(matmul(v, v), matmul(v.cuda(), v.cuda()), t, 96), "") << "dot " << name;
  }
  // float32 keeps its TF32 switch: off by default, full float32 (Note [TF32]).
  ASSERT_FALSE(backends::cuda_matmul_allow_tf32());
  const Tensor a = randn({128, 256});
  const Tensor b = randn({256, 64});
  EXPECT_EQ(compare(mm(a, b), mm(a.cuda(), b.cuda()), 1e-4, 1e-4), "") << "float32";
}

// --- convolutions ------------------------------------------------------------------------------

// A 16-bit cuDNN convolution against the CPU's float32 one of the same
// (16-bit) values: forward, and the gradients of input and weight.
TEST_F(CudaDtypes, HalfAndBFloat16Conv2dMatchesTheCpuInFloat32) {
  manual_seed(0);
  for (const ScalarType t : {kHalf, kBf16}) {
    const std::string name(dtype_name(t));
    const Tensor x16 = operand({2, 8, 12, 12}, t, 1.0);
    const Tensor w16 = operand({16, 8, 3, 3}, t, 0.5);
    const Tensor b16 = operand({16}, t, 1.0);
    Tensor x = x16.to(ScalarType::kFloat32);
    Tensor w = w16.to(ScalarType::kFloat32);
    x.requires_grad_();
    w.requires_grad_();
    Tensor xd = x16.cuda();
    Tensor wd = w16.cuda();
    xd.requires_grad_();
    wd.requires_grad_();
    const Tensor y = conv2d(x, w, b16.to(ScalarType::kFloat32), 1, IntArrayRef{1, 1});
    const Tensor yd = conv2d(xd, wd, b16.cuda(), 1, IntArrayRef{1, 1});
    ASSERT_EQ(yd.dtype(), t);
    const std::int64_t k = 8 * 9;
    EXPECT_EQ(compare_product(y, yd.to(ScalarType::kFloat32), t, k), "") << "forward " << name;
    const Tensor g = operand({2, 16, 12, 12}, t, 1.0);
    y.backward(g.to(ScalarType::kFloat32));
    yd.backward(g.cuda());
    EXPECT_EQ(compare_product(x.grad(), xd.grad().to(ScalarType::kFloat32), t, 16 * 9), "") << "grad input " << name;
    EXPECT_EQ(compare_product(w.grad(), wd.grad().to(ScalarType::kFloat32), t, 2 * 144), "") << "grad weight " << name;
  }
}

// --- refusals ----------------------------------------------------------------------------------

// A dtype without CUDA kernels is PyTorch's RuntimeError naming its CUDA
// kernel, before anything is launched: never a crash or a wrong cast.
TEST_F(CudaDtypes, DtypesWithoutKernelsAreRefusedWithPyTorchsMessage) {
  const Tensor z = zeros({4}, ScalarType::kComplex64).cuda();  // a plain copy of the bytes
  EXPECT_EQ(z.dtype(), ScalarType::kComplex64);
  EXPECT_EQ(error_of([&] { return add(z, z); }), "\"add_cuda\" not implemented for 'ComplexFloat'");
  EXPECT_EQ(error_of([&] { return mul(z, z); }), "\"mul_cuda\" not implemented for 'ComplexFloat'");
  EXPECT_EQ(error_of([&] { return sum(z); }), "\"sum_cuda\" not implemented for 'ComplexFloat'");
  EXPECT_EQ(error_of([&] { return z.to(ScalarType::kFloat32); }), "\"copy_\" not implemented for 'ComplexFloat'");
  EXPECT_EQ(error_of([&] { return zeros({4}, ScalarType::kComplex128, kCuda); }),
            "\"fill_cuda\" not implemented for 'ComplexDouble'");
  const Tensor i8 = ones({4, 4}, ScalarType::kInt8, kCuda);
  EXPECT_EQ(error_of([&] { return mm(i8, i8); }), "\"addmm_cuda\" not implemented for 'Char'");
  EXPECT_EQ(error_of([&] { return bmm(i8.unsqueeze(0), i8.unsqueeze(0)); }), "\"bmm_cuda\" not implemented for 'Char'");
  const Tensor l = ones({1, 1, 4, 4}, ScalarType::kInt64, kCuda);
  EXPECT_EQ(error_of([&] {
              return conv2d(l, ones({1, 1, 3, 3}, ScalarType::kInt64, kCuda));
            }),
            "\"slow_conv2d_cuda\" not implemented for 'Long'");
  const Tensor h = ones({2, 3}, kHalf, kCuda);
  const Tensor u8 = ones({2, 3}, ScalarType::kUInt8, kCuda);
  const Tensor index = zeros({2, 3}, ScalarType::kInt64, kCuda);
  EXPECT_EQ(error_of([&] { return scatter_add(u8, 0, index, u8); }),
            "\"scatter_add_cuda_\" not implemented for 'Byte'");
}

}  // namespace
}  // namespace wick::testing
