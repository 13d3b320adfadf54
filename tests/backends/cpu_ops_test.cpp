// tests/backends/cpu_ops_test.cpp - CPU kernels: broadcasting, promotion, views,
// reductions, BLAS, out=, creation and the errors users hit.
/// \file
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "wick/autograd.h"
#include "wick/dispatcher.h"
#include "wick/loader.h"
#include "wick/ops.h"
#include "wick/random.h"

namespace wick {
namespace {

Tensor vec(std::vector<double> v, ScalarType t = ScalarType::kFloat32) {
  std::vector<Value> items(v.begin(), v.end());
  return tensor(Value::list(items), t);
}
Tensor ivec(std::vector<std::int64_t> v) { return tensor(Value(v)); }

std::vector<double> values(const Tensor& t) {
  Tensor c = t.contiguous().to(ScalarType::kFloat64);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

class CpuOps : public ::testing::Test {
 protected:
  void SetUp() override { init(); }
};

// The sign of zero, as PyTorch 1.13 gives it: abs(-0.) is 0., relu(-0.)
// is -0., and maximum/minimum of 0. and -0. give the first (its scalar loop).
TEST_F(CpuOps, SignOfZeroAsPyTorch) {
  for (const ScalarType t : {ScalarType::kFloat32, ScalarType::kFloat64}) {
    SCOPED_TRACE(dtype_name(t));
    const Tensor pos = vec({0.0}, t);
    const Tensor neg = vec({-0.0}, t);
    EXPECT_FALSE(std::signbit(values(abs(neg))[0]));
    EXPECT_TRUE(std::signbit(values(relu(neg))[0]));
    EXPECT_FALSE(std::signbit(values(maximum(pos, neg))[0]));
    EXPECT_TRUE(std::signbit(values(maximum(neg, pos))[0]));
    EXPECT_TRUE(std::signbit(values(minimum(neg, pos))[0]));
    EXPECT_FALSE(std::signbit(values(minimum(pos, neg))[0]));
    const double nan = std::numeric_limits<double>::quiet_NaN();
    EXPECT_TRUE(std::isnan(values(relu(vec({nan}, t)))[0]));
    EXPECT_TRUE(std::isnan(values(maximum(vec({1.0}, t), vec({nan}, t)))[0]));
    EXPECT_TRUE(std::isnan(values(minimum(vec({nan}, t), vec({1.0}, t)))[0]));
  }
  EXPECT_EQ(values(abs(ivec({-3, 2}))), (std::vector<double>{3, 2}));
}

TEST_F(CpuOps, AddWithAlphaAndBroadcasting) {
  Tensor a = vec({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  Tensor r = add(a, vec({10, 20, 30}), 2);
  EXPECT_EQ(r.sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(values(r), (std::vector<double>{21, 42, 63, 24, 45, 66}));
  Tensor col = vec({1, 2}).reshape({2, 1});
  EXPECT_EQ(values(mul(col, vec({1, 10, 100}))), (std::vector<double>{1, 10, 100, 2, 20, 200}));
  try {
    (void)add(vec({1, 2, 3}), vec({1, 2}));
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"),
              std::string::npos);
  }
  // Several mismatching dimensions: PyTorch names the last.
  try {
    (void)add(vec({1, 2, 3, 4, 5, 6}).reshape({2, 3}), vec({1, 2, 3, 4, 5, 6}).reshape({3, 2}));
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CpuOps, TypePromotionFollowsPyTorch) {
  Tensor i = ivec({1, 2});
  EXPECT_EQ(add(i, wrap_scalar(0.5)).dtype(), ScalarType::kFloat32);  // int tensor + python float
  EXPECT_EQ(add(i, wrap_scalar(2)).dtype(), ScalarType::kInt64);
  EXPECT_EQ(add(vec({1}), wrap_scalar(2.5)).dtype(), ScalarType::kFloat32);  // float32 stays float32
  Tensor zero_dim_double = vec({2}, ScalarType::kFloat64).reshape({});
  EXPECT_EQ(add(i, zero_dim_double).dtype(), ScalarType::kFloat64);         // higher category from 0-dim
  EXPECT_EQ(add(vec({1}), zero_dim_double).dtype(), ScalarType::kFloat32);  // same category: dims win
  EXPECT_EQ(add(vec({1}), vec({1}, ScalarType::kFloat64)).dtype(), ScalarType::kFloat64);
  EXPECT_EQ(div(ivec({1, 2}), ivec({2, 2})).dtype(), ScalarType::kFloat32);  // true division
  EXPECT_EQ(values(div(ivec({1, 2}), ivec({2, 2}))), (std::vector<double>{0.5, 1}));
  EXPECT_EQ(eq(i, ivec({1, 3})).dtype(), ScalarType::kBool);
  EXPECT_EQ(values(lt(i, wrap_scalar(1.5))), (std::vector<double>{1, 0}));
}

TEST_F(CpuOps, DivRoundingModes) {
  Tensor a = ivec({7, -7});
  Tensor b = ivec({2, 2});
  EXPECT_EQ(values(div(a, b, "trunc")), (std::vector<double>{3, -3}));
  EXPECT_EQ(values(div(a, b, "floor")), (std::vector<double>{3, -4}));
  EXPECT_EQ(div(a, b, "floor").dtype(), ScalarType::kInt64);
  EXPECT_THROW((void)div(a, b, "round"), RuntimeError);
  EXPECT_THROW((void)div(a, ivec({0, 1}), "floor"), RuntimeError);
  // Tensor.div_ takes rounding_mode too; integer self cannot hold true division's result.
  Tensor c = ivec({7, -7});
  EXPECT_TRUE(call("torch.Tensor.div_", {c, b}, {{"rounding_mode", "floor"}}).to_tensor().is_same(c));
  EXPECT_EQ(values(c), (std::vector<double>{3, -4}));
  EXPECT_THROW((void)call("torch.Tensor.div_", {ivec({7}), ivec({2})}), RuntimeError);
  // Piecewise constant: a zero gradient, as torch.div's with a rounding_mode.
  Tensor x = vec({7, -7}, ScalarType::kFloat64).requires_grad_();
  Tensor y = x.clone();
  (void)call("torch.Tensor.div_", {y, vec({2, 2}, ScalarType::kFloat64)}, {{"rounding_mode", "trunc"}});
  EXPECT_EQ(values(y), (std::vector<double>{3, -3}));
  sum(y).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 0}));
}

TEST_F(CpuOps, UnaryAndWhere) {
  Tensor x = vec({-1, 0, 2});
  EXPECT_EQ(values(relu(x)), (std::vector<double>{0, 0, 2}));
  EXPECT_EQ(values(neg(x)), (std::vector<double>{1, 0, -2}));
  EXPECT_NEAR(values(exp(x))[2], std::exp(2.0f), 1e-5);
  EXPECT_EQ(exp(ivec({1})).dtype(), ScalarType::kFloat32);
  EXPECT_THROW((void)neg(tensor(Value::list({true, false}))), RuntimeError);
  Tensor cond = gt(x, wrap_scalar(0));
  EXPECT_EQ(values(where(cond, x, vec({9}))), (std::vector<double>{9, 9, 2}));
  EXPECT_THROW((void)where(x, x, x), RuntimeError);
}

TEST_F(CpuOps, ReductionsOverDims) {
  Tensor a = arange(6).reshape({2, 3});
  EXPECT_EQ(sum(a).dtype(), ScalarType::kInt64);
  EXPECT_EQ(sum(a).item<std::int64_t>(), 15);
  std::vector<std::int64_t> d1{1};
  EXPECT_EQ(values(sum(a, IntArrayRef(d1))), (std::vector<double>{3, 12}));
  Tensor k = sum(a, IntArrayRef(d1), /*keepdim=*/true);
  EXPECT_EQ(k.sizes().vec(), (std::vector<std::int64_t>{2, 1}));
  std::vector<std::int64_t> neg0{-2};
  EXPECT_EQ(values(mean(a.to(ScalarType::kFloat32), IntArrayRef(neg0))), (std::vector<double>{1.5, 2.5, 3.5}));
  EXPECT_THROW((void)mean(a), RuntimeError);  // mean of int64 needs a dtype
  EXPECT_EQ(mean(a, std::nullopt, false, ScalarType::kFloat64).item<double>(), 2.5);
  std::vector<std::int64_t> dup{0, -2};
  EXPECT_THROW((void)sum(a, IntArrayRef(dup)), RuntimeError);
  std::vector<std::int64_t> bad{2};
  EXPECT_THROW((void)sum(a, IntArrayRef(bad)), IndexError);
  // Summing many float32 values stays accurate (pairwise, double accumulator).
  Tensor many = full({1 << 20}, 0.1, ScalarType::kFloat32);
  EXPECT_NEAR(sum(many).item<double>(), 104857.6, 0.05);
}

TEST_F(CpuOps, MatmulCasesAndTransposedOperands) {
  Tensor a = arange(6.0).reshape({2, 3});
  Tensor b = arange(12.0).reshape({3, 4});
  std::vector<double> expect{20, 23, 26, 29, 56, 68, 80, 92};
  EXPECT_EQ(values(mm(a, b)), expect);
  // Transposed operands are passed to BLAS as flags (still correct).
  Tensor at = arange(6.0).reshape({3, 2}).t();
  Tensor bt = arange(12.0).reshape({4, 3}).t();
  EXPECT_EQ(values(mm(at, bt)), values(mm(at.contiguous(), bt.contiguous())));
  EXPECT_EQ(values(matmul(ivec({1, 2}), ivec({3, 4}))), (std::vector<double>{11}));
  EXPECT_EQ(matmul(vec({1, 2, 3}), b).sizes().vec(), (std::vector<std::int64_t>{4}));
  EXPECT_EQ(matmul(b.t(), vec({1, 2, 3})).sizes().vec(), (std::vector<std::int64_t>{4}));
  Tensor batch = arange(24.0).reshape({2, 3, 4});
  Tensor r = matmul(batch, arange(8.0).reshape({4, 2}));
  EXPECT_EQ(r.sizes().vec(), (std::vector<std::int64_t>{2, 3, 2}));
  EXPECT_EQ(values(r.select(0, 1)), values(mm(batch.select(0, 1), arange(8.0).reshape({4, 2}))));
  EXPECT_EQ(values(mm(ivec({1, 2, 3, 4}).reshape({2, 2}), ivec({1, 1}).reshape({2, 1}))), (std::vector<double>{3, 7}));
  try {
    (void)mm(a, a);
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"), std::string::npos);
  }
}

TEST_F(CpuOps, ViewsShareStorageAndInPlaceBumpsVersion) {
  Tensor a = zeros({2, 3});
  Tensor v = a.view({3, 2});
  Tensor t = a.t();
  EXPECT_EQ(v.storage().get(), a.storage().get());
  EXPECT_FALSE(t.is_contiguous());
  const auto before = a.version();
  Tensor row = a.select(0, 1);
  row.fill_(5);
  EXPECT_GT(a.version(), before);
  EXPECT_EQ(values(a), (std::vector<double>{0, 0, 0, 5, 5, 5}));
  EXPECT_EQ(values(t.contiguous()), (std::vector<double>{0, 5, 0, 5, 0, 5}));
  EXPECT_THROW((void)t.view({6}), RuntimeError);  // non-contiguous: use reshape
  EXPECT_EQ(values(t.reshape({6})), (std::vector<double>{0, 5, 0, 5, 0, 5}));
  EXPECT_EQ(a.narrow(1, 1, 2).sizes().vec(), (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(a.unsqueeze(0).squeeze().sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(vec({1}).reshape({1, 1}).expand({3, 4}).strides().vec(), (std::vector<std::int64_t>{0, 0}));
  EXPECT_THROW((void)a.select(0, 2), IndexError);
  EXPECT_THROW((void)a.transpose(0, 2), IndexError);
  EXPECT_THROW((void)a.expand({3, 3}), RuntimeError);
  EXPECT_THROW((void)a.narrow(1, 2, 2), RuntimeError);
  EXPECT_EQ(a.permute({1, 0}).sizes().vec(), (std::vector<std::int64_t>{3, 2}));
  EXPECT_THROW((void)a.permute({0, 0}), RuntimeError);
}

TEST_F(CpuOps, OutVariantsWriteInPlaceAndCheckCasts) {
  Tensor a = vec({1, 2});
  Tensor out = empty({2});
  void* before = out.data_ptr();
  add_out(out, a, a);
  EXPECT_EQ(out.data_ptr(), before);
  EXPECT_EQ(values(out), (std::vector<double>{2, 4}));
  Tensor small = empty({0});
  mul_out(small, a, a);  // resized
  EXPECT_EQ(values(small), (std::vector<double>{1, 4}));
  Tensor iout = empty({2}, ScalarType::kInt64);
  EXPECT_THROW(add_out(iout, a, a), RuntimeError);  // Float can't be cast to Long
  Tensor dout = empty({2}, ScalarType::kFloat64);
  add_out(dout, a, a);  // Float into Double is fine
  EXPECT_EQ(values(dout), (std::vector<double>{2, 4}));
  Tensor x = vec({1, 2});
  x.add_(vec({1, 1}), 3).mul_(vec({2, 2}));
  EXPECT_EQ(values(x), (std::vector<double>{8, 10}));
}

TEST_F(CpuOps, InPlaceAndOutAliasing) {
  // An in-place op whose broadcast shape differs from self is refused.
  Tensor x = vec({1, 2, 3});
  try {
    x.add_(ones({2, 3}));
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("output with shape [3] doesn't match the broadcast shape [2, 3]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(values(x), (std::vector<double>{1, 2, 3}));  // untouched
  // Overlapping source with another layout reads the original values.
  Tensor m = arange(4.0).reshape({2, 2});
  m.copy_(m.t());
  EXPECT_EQ(values(m), (std::vector<double>{0, 2, 1, 3}));
  Tensor n = arange(4.0).reshape({2, 2});
  add_out(n, n.t(), zeros({2, 2}));
  EXPECT_EQ(values(n), (std::vector<double>{0, 2, 1, 3}));
  // Element-for-element aliasing stays in place.
  Tensor p = arange(3.0);
  void* before = p.data_ptr();
  p.mul_(p);
  EXPECT_EQ(p.data_ptr(), before);
  EXPECT_EQ(values(p), (std::vector<double>{0, 1, 4}));
  EXPECT_THROW((void)arange(0, 1e300, 1e-300), RuntimeError);
}

TEST_F(CpuOps, EdgeCasesFromReview) {
  Tensor s = tensor(Value(3.0));
  EXPECT_THROW((void)s.size(0), IndexError);
  Tensor v = s.view({1});  // a 0-dim tensor views as [1] without copying
  EXPECT_EQ(v.storage().get(), s.storage().get());
  EXPECT_THROW((void)ones({1}).expand({-2, -3}), RuntimeError);
  const std::int64_t big = std::int64_t{1} << 53;
  EXPECT_EQ(arange(big, big + 1).numel(), 1);
  EXPECT_EQ(arange(std::int64_t{9223372036854772808}, std::int64_t{9223372036854775807}, 1000).numel(), 3);
  Tensor imin = tensor(Value(std::vector<std::int64_t>{INT64_MIN}));
  EXPECT_EQ(div(imin, wrap_scalar(-1), "trunc").item<std::int64_t>(), INT64_MIN);  // wraps, no trap
  EXPECT_EQ(div(imin, wrap_scalar(-1), "floor").item<std::int64_t>(), INT64_MIN);
  EXPECT_EQ(div(vec({1}, ScalarType::kFloat64), vec({0.1}, ScalarType::kFloat64), "floor").item<double>(), 9.0);
  EXPECT_EQ(div(vec({-7}), vec({2}), "floor").item<double>(), -4.0);
  EXPECT_THROW((void)zeros({std::int64_t{1} << 62, 8}), RuntimeError);  // size overflow, not a tiny buffer
  Value r = call("torch.add", {vec({1}), vec({2})}, {{"out", Value()}});
  EXPECT_EQ(r.to_tensor().item<double>(), 3.0);  // out=None means no out
  EXPECT_THROW(call("torch.Tensor.sum", {arange(6.0).reshape({2, 3}), 0, 1}), TypeError);
}

TEST_F(CpuOps, CreationFunctions) {
  EXPECT_EQ(values(arange(5)), (std::vector<double>{0, 1, 2, 3, 4}));
  EXPECT_EQ(arange(5).dtype(), ScalarType::kInt64);
  EXPECT_EQ(arange(0, 1.0, 0.25).dtype(), ScalarType::kFloat32);
  EXPECT_EQ(values(arange(0, 1.0, 0.25)), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EXPECT_THROW((void)arange(0, 5, 0), RuntimeError);
  EXPECT_EQ(values(eye(2)), (std::vector<double>{1, 0, 0, 1}));
  EXPECT_EQ(full({2}, 3).dtype(), ScalarType::kInt64);
  EXPECT_EQ(full({2}, 3.5).dtype(), ScalarType::kFloat32);
  EXPECT_EQ(ones({2, 3}, ScalarType::kFloat64).dtype(), ScalarType::kFloat64);
  manual_seed(7);
  auto r1 = values(rand({4}));
  manual_seed(7);
  auto r2 = values(rand({4}));
  EXPECT_EQ(r1, r2);
  for (double v : r1) EXPECT_TRUE(v >= 0 && v < 1);
  EXPECT_NE(values(randn({4})), values(randn({4})));
  EXPECT_THROW((void)rand({2}, ScalarType::kInt64), RuntimeError);
  EXPECT_THROW((void)tensor(Value::list({Value::list({1, 2}), Value::list({3})})), ValueError);
  EXPECT_EQ(tensor(Value::list({true, false})).dtype(), ScalarType::kBool);
}

TEST_F(CpuOps, BoxedCallConventions) {
  // Python numbers become wrapped scalars; int-list varargs pack.
  Value r = call("torch.add", {ivec({1, 2}), 0.5});
  EXPECT_EQ(r.to_tensor().dtype(), ScalarType::kFloat32);
  EXPECT_EQ(call("torch.ones", {2, 3}).to_tensor().sizes().vec(), (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(call("torch.Tensor.reshape", {arange(6), 3, 2}).to_tensor().sizes().vec(),
            (std::vector<std::int64_t>{3, 2}));
  EXPECT_EQ(call("torch.sum", {arange(6).reshape({2, 3}), 0}).to_tensor().sizes().vec(),
            (std::vector<std::int64_t>{3}));
  Tensor out = empty({2});
  Value o = call("torch.add", {vec({1, 2}), vec({1, 1})}, {{"out", out}});
  EXPECT_TRUE(o.to_tensor().is_same(out));
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const TypeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] {
              call("torch.add", {vec({1}), "x"});
            }),
            "add(): argument 'other' (position 2) must be Tensor, not str");
  EXPECT_EQ(message([&] {
              call("torch.add", {vec({1}), vec({1})}, {{"beta", 1}});
            }),
            "add() got an unexpected keyword argument 'beta'");
  EXPECT_EQ(message([&] { call("torch.add", {vec({1})}); }),
            "add() missing 1 required positional arguments: \"other\"");
  EXPECT_EQ(message([&] { call("torch.mm", {}); }), "mm() missing 2 required positional argument: \"input\", \"mat2\"");
  EXPECT_EQ(message([&] {
              call("torch.Tensor.maximum", {vec({1}), vec({1}), vec({1})});
            }),
            "maximum() takes 1 positional argument but 2 were given");
  EXPECT_EQ(message([&] {
              call("torch.Tensor.neg", {vec({1}), 1});
            }),
            "neg() takes 0 positional arguments but 1 was given");
  EXPECT_EQ(message([&] {
              call("torch.add", {vec({1}), vec({1})}, {{"other", 1}});
            }),
            "add() got multiple values for argument 'other'");
  EXPECT_EQ(message([&] {
              call("torch.neg", {vec({1}), vec({1})});
            }),
            "neg() takes 1 positional argument but 2 were given");
  // Note [Numbers for tensor arguments]: a number only where PyTorch has a
  // Scalar overload (or lets numbers pass as tensors), in every variant.
  EXPECT_EQ(message([&] {
              call("torch.maximum", {vec({1}), 2.0});
            }),
            "maximum(): argument 'other' (position 2) must be Tensor, not float");
  EXPECT_EQ(message([&] { call("torch.exp", {3}); }), "exp(): argument 'input' (position 1) must be Tensor, not int");
  EXPECT_EQ(message([&] {
              call("torch.eq", {2.0, vec({1})});
            }),
            "eq(): argument 'input' (position 1) must be Tensor, not float");
  EXPECT_EQ(message([&] {
              call("torch.Tensor.where", {vec({1}), vec({1}).gt(wrap_scalar(0)), 0.5});
            }),
            "where(): argument 'other' (position 2) must be Tensor, not float");
  EXPECT_EQ(message([&] {
              call("torch.logical_and", {vec({1})}, {{"other", 1}});
            }),
            "logical_and(): argument 'other' must be Tensor, not int");
  EXPECT_EQ(call("torch.add", {2.0, vec({1, 2})}).to_tensor().sum().item<double>(), 7.0);
  EXPECT_EQ(call("torch.eq", {vec({1, 2}), 2}).to_tensor().sum().item<std::int64_t>(), 1);
  EXPECT_EQ(call("torch.where", {vec({1, 0}).gt(wrap_scalar(0)), 3.0, vec({1, 5})}).to_tensor().sum().item<double>(),
            8.0);
  EXPECT_EQ(call("torch.Tensor.pow_", {vec({2, 3}), 2}).to_tensor().sum().item<double>(), 13.0);
  EXPECT_EQ(call("torch.Tensor.__rpow__", {vec({1, 2}), 2}).to_tensor().sum().item<double>(), 6.0);
  EXPECT_EQ(call("torch.add", {vec({1}), 2}, {{"out", empty({1})}}).to_tensor().item<double>(), 3.0);
}

// Values PyTorch 1.13 gives for x = [-1.5, -0.5, 0, 0.5, 1.5, 2.5] (float64),
// taken from python3-torch; NaN and infinities where PyTorch has them.
TEST_F(CpuOps, UnaryFunctionsMatchPyTorch) {
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const std::pair<const char*, std::vector<double>> cases[] = {
      {"exp2",
       {0.3535533905932738, 0.7071067811865476, 1.0, 1.4142135623730951, 2.8284271247461903, 5.656854249492381}},
      {"expm1",
       {-0.7768698398515702, -0.3934693402873666, 0.0, 0.6487212707001282, 3.481689070338065, 11.182493960703473}},
      {"log2", {kNan, kNan, -kInf, -1.0, 0.5849625007211562, 1.3219280948873624}},
      {"log10", {kNan, kNan, -kInf, -0.3010299956639812, 0.17609125905568124, 0.3979400086720376}},
      {"log1p", {kNan, -0.6931471805599453, 0.0, 0.4054651081081644, 0.9162907318741551, 1.252762968495368}},
      {"rsqrt", {kNan, kNan, kInf, 1.414213562373095, 0.8164965809277261, 0.6324555320336759}},
      {"tan",
       {-14.101419947171719, -0.5463024898437905, 0.0, 0.5463024898437905, 14.101419947171719, -0.7470222972386603}},
      {"asin", {kNan, -0.5235987755982989, 0.0, 0.5235987755982989, kNan, kNan}},
      {"acos", {kNan, 2.0943951023931957, 1.5707963267948966, 1.0471975511965976, kNan, kNan}},
      {"atan",
       {-0.982793723247329, -0.4636476090008061, 0.0, 0.4636476090008061, 0.982793723247329, 1.1902899496825317}},
      {"sinh",
       {-2.1292794550948173, -0.5210953054937474, 0.0, 0.5210953054937474, 2.1292794550948173, 6.0502044810397875}},
      {"cosh", {2.352409615243247, 1.1276259652063807, 1.0, 1.1276259652063807, 2.352409615243247, 6.132289479663686}},
      {"erf",
       {-0.9661051464753108, -0.5204998778130465, 0.0, 0.5204998778130465, 0.9661051464753108, 0.999593047982555}},
      {"floor", {-2.0, -1.0, 0.0, 0.0, 1.0, 2.0}},
      {"ceil", {-1.0, -0.0, 0.0, 1.0, 2.0, 3.0}},
      {"round", {-2.0, -0.0, 0.0, 0.0, 2.0, 2.0}},  // half to even
      {"trunc", {-1.0, -0.0, 0.0, 0.0, 1.0, 2.0}},
      {"frac", {-0.5, -0.5, 0.0, 0.5, 0.5, 0.5}},
      {"sign", {-1.0, -1.0, 0.0, 1.0, 1.0, 1.0}},
      {"reciprocal", {-0.6666666666666666, -2.0, kInf, 2.0, 0.6666666666666666, 0.4}},
      {"square", {2.25, 0.25, 0.0, 0.25, 2.25, 6.25}},
  };
  const Tensor x = vec({-1.5, -0.5, 0.0, 0.5, 1.5, 2.5}, ScalarType::kFloat64);
  for (const auto& [name, want] : cases) {
    const Tensor r = call(std::string("torch.") + name, {x}).to_tensor();
    EXPECT_EQ(r.dtype(), ScalarType::kFloat64) << name;
    const std::vector<double> got = values(r);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (std::isnan(want[i])) {
        EXPECT_TRUE(std::isnan(got[i])) << name << " element " << i;
      } else if (std::isinf(want[i])) {
        EXPECT_EQ(got[i], want[i]) << name << " element " << i;
      } else {
        EXPECT_NEAR(got[i], want[i], 1e-12 * std::max(1.0, std::abs(want[i]))) << name << " element " << i;
        if (want[i] == 0) {
          EXPECT_EQ(std::signbit(got[i]), std::signbit(want[i])) << name << " sign of zero " << i;
        }
      }
    }
    // The method and the float32 kernel agree.
    EXPECT_EQ(call(std::string("torch.Tensor.") + name, {x}).to_tensor().dtype(), ScalarType::kFloat64) << name;
    EXPECT_EQ(call(std::string("torch.") + name, {x.to(ScalarType::kFloat32)}).to_tensor().dtype(),
              ScalarType::kFloat32)
        << name;
  }
}

TEST_F(CpuOps, UnaryDtypesFollowPyTorch) {
  const Tensor i = ivec({1, -2, 3});
  const Tensor b = tensor(Value::list({true, false}));
  for (const char* f : {"exp2", "expm1", "log1p", "rsqrt", "erf", "tan", "reciprocal"}) {
    EXPECT_EQ(call(std::string("torch.") + f, {i}).to_tensor().dtype(), ScalarType::kFloat32) << f;
    EXPECT_EQ(call(std::string("torch.") + f, {b}).to_tensor().dtype(), ScalarType::kFloat32) << f;
  }
  for (const char* f : {"floor", "ceil", "round", "trunc"}) {
    const Tensor r = call(std::string("torch.") + f, {i}).to_tensor();
    EXPECT_EQ(r.dtype(), ScalarType::kInt64) << f;
    EXPECT_EQ(values(r), (std::vector<double>{1, -2, 3})) << f;
    try {
      (void)call(std::string("torch.") + f, {b});
      ADD_FAILURE() << f << " accepted a bool tensor";
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("not implemented for 'Bool'"), std::string::npos) << e.what();
    }
  }
  // frac keeps floating dtypes only, and is nan for infinities (inf - inf), as PyTorch.
  for (const Tensor& t : {i, b}) {
    try {
      (void)frac(t);
      ADD_FAILURE() << "frac accepted " << type_title(t.dtype());
    } catch (const RuntimeError& e) {
      EXPECT_EQ(std::string(e.what()),
                std::string("torch.frac: \"frac_cpu\" not implemented for '") + type_title(t.dtype()) + "'");
    }
  }
  for (double v : values(frac(vec({INFINITY, -INFINITY, NAN})))) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(sign(i).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(sign(i)), (std::vector<double>{1, -1, 1}));
  EXPECT_EQ(sign(b).dtype(), ScalarType::kBool);
  EXPECT_EQ(sign(vec({std::nan("")})).item<double>(), 0.0);  // as PyTorch 1.13 gives it
  EXPECT_EQ(square(i).dtype(), ScalarType::kInt64);
  EXPECT_EQ(square(b).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(square(i)), (std::vector<double>{1, 4, 9}));
}

TEST_F(CpuOps, ClampFollowsPyTorch) {
  EXPECT_EQ(values(clamp(ivec({1, 5, -3}), 0, 3)), (std::vector<double>{1, 3, 0}));
  EXPECT_EQ(clamp(ivec({1, 5, -3}), 0, 3).dtype(), ScalarType::kInt64);
  EXPECT_EQ(clamp(ivec({1, 2}), 1.5).dtype(), ScalarType::kFloat32);  // promoted by a float bound
  EXPECT_EQ(clamp(tensor(Value::list({true, false})), 0).dtype(), ScalarType::kInt64);
  EXPECT_EQ(values(clamp(vec({1.5, -2.5, 0.5, 2.5}), 0, 1)), (std::vector<double>{1, 0, 0.5, 1}));
  EXPECT_EQ(values(clamp(ivec({1, 2, 3}), 2, 1)), (std::vector<double>{1, 1, 1}));  // max wins, as PyTorch
  EXPECT_TRUE(std::isnan(values(clamp(vec({std::nan("")}), 0, 1))[0]));
  EXPECT_EQ(values(clamp(vec({-1, 3}), std::nullopt, 2)), (std::vector<double>{-1, 2}));
  try {
    (void)call("torch.clamp", {vec({1})});
    ADD_FAILURE() << "clamp without bounds";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("torch.clamp: At least one of 'min' or 'max' must not be None"),
              std::string::npos);
  }
  // Its formula passes the gradient where min <= x <= max, bounds included.
  Tensor x = vec({0, 1, 2}, ScalarType::kFloat64).requires_grad_();
  Tensor y = clamp(x, 0, 1).sum();
  EXPECT_EQ(y.grad_fn()->name(), "SumBackward0");
  y.backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(clamp(x, 0, 1).grad_fn()->name(), "ClampBackward1");
  EXPECT_EQ(square(x).grad_fn()->name(), "PowBackward0");
  EXPECT_EQ(log1p(x).grad_fn()->name(), "Log1PBackward0");
}

// Values and errors as PyTorch 1.13 gives them (python3-torch).
TEST_F(CpuOps, ModuloAtan2LogicalAndLerpFollowPyTorch) {
  const Tensor a = ivec({5, -5, 5, -5});
  const Tensor b = ivec({3, 3, -3, -3});
  EXPECT_EQ(values(fmod(a, b)), (std::vector<double>{2, -2, 2, -2}));       // the dividend's sign
  EXPECT_EQ(values(remainder(a, b)), (std::vector<double>{2, 1, -1, -2}));  // the divisor's sign
  EXPECT_EQ(fmod(a, b).dtype(), ScalarType::kInt64);
  const Tensor ad = a.to(ScalarType::kFloat64);
  const Tensor bd = b.to(ScalarType::kFloat64);
  EXPECT_EQ(values(fmod(ad, bd)), (std::vector<double>{2, -2, 2, -2}));
  EXPECT_EQ(values(remainder(ad, bd)), (std::vector<double>{2, 1, -1, -2}));
  EXPECT_EQ(values(remainder(ivec({5}), wrap_scalar(2.5))), (std::vector<double>{0}));
  EXPECT_EQ(remainder(ivec({5}), wrap_scalar(2.5)).dtype(), ScalarType::kFloat32);
  EXPECT_TRUE(std::isnan(values(fmod(vec({1}), wrap_scalar(0.0)))[0]));
  for (const char* op : {"torch.fmod", "torch.remainder"}) {
    try {
      (void)call(op, {a, ivec({0, 1, 1, 1})});
      ADD_FAILURE() << op << " divided by zero";
    } catch (const RuntimeError& e) {
      EXPECT_EQ(std::string(e.message()), std::string(op) + ": ZeroDivisionError");
    }
  }
  EXPECT_EQ(call("torch.Tensor.__mod__", {ad, Value(3)}).to_tensor().dtype(), ScalarType::kFloat64);

  EXPECT_EQ(atan2(a, b).dtype(), ScalarType::kFloat32);
  EXPECT_NEAR(values(atan2(vec({1}), vec({-1})))[0], 2.356194490192345, 1e-6);

  const Tensor t = logical_and(vec({1, 0, std::nan("")}), ivec({2, 3, 4}));
  EXPECT_EQ(t.dtype(), ScalarType::kBool);
  EXPECT_EQ(values(t), (std::vector<double>{1, 0, 1}));  // NaN is true
  EXPECT_EQ(values(logical_or(ivec({0, 0}), ivec({0, 5}))), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(logical_xor(ivec({1, 1}), ivec({0, 5}))), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(logical_not(ivec({0, 2}))), (std::vector<double>{1, 0}));

  EXPECT_EQ(values(lerp(vec({1, 2}), vec({3, 6}), wrap_scalar(0.5))), (std::vector<double>{2, 4}));
  EXPECT_EQ(values(lerp(vec({0, 0}), vec({10, 10}), vec({0.25, 1.0}))), (std::vector<double>{2.5, 10}));
  try {
    (void)lerp(ivec({1, 2}), ivec({3, 6}), wrap_scalar(0.5));
    ADD_FAILURE() << "lerp of integers";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("\"lerp_kernel_scalar\" not implemented for 'Long'"), std::string::npos)
        << e.what();
  }
  try {
    (void)lerp(vec({1}), vec({3}, ScalarType::kFloat64), wrap_scalar(0.5));
    ADD_FAILURE() << "lerp of mixed dtypes";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("expected dtype float32 for `end` but got dtype float64"), std::string::npos);
  }
  // The nodes PyTorch records.
  Tensor x = vec({5.5, -5.5}, ScalarType::kFloat64).requires_grad_();
  Tensor y = vec({2, 2}, ScalarType::kFloat64).requires_grad_();
  EXPECT_EQ(fmod(x, y).grad_fn()->name(), "FmodBackward1");
  EXPECT_EQ(remainder(x, y).grad_fn()->name(), "RemainderBackward1");
  EXPECT_EQ(atan2(x, y).grad_fn()->name(), "Atan2Backward0");
  EXPECT_EQ(lerp(x, y, wrap_scalar(0.3)).grad_fn()->name(), "LerpBackward0");
  EXPECT_EQ(lerp(x, y, vec({0.3}, ScalarType::kFloat64)).grad_fn()->name(), "LerpBackward1");
  EXPECT_FALSE(logical_and(x, y).requires_grad());
}

}  // namespace
}  // namespace wick
